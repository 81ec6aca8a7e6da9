package dom

// The decoders of the tagged form: one per value type, registered in init, and
// the strict number and array readers they share.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

var (
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
	fieldsMet   sync.Map // reflect.Type → bool
)

// meetsFields reports whether decoding into a value of type t can meet a struct's
// fields, where DisallowUnknownFields has something to refuse. A type that decodes
// itself (json.Unmarshaler) meets none: the decoder's option does not reach it.
func meetsFields(t reflect.Type) bool {
	if v, ok := fieldsMet.Load(t); ok {
		return v.(bool)
	}
	var meets func(t reflect.Type, depth int) bool
	meets = func(t reflect.Type, depth int) bool {
		if depth > 8 || t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
			return depth > 8 // a deep type is left to the decoder
		}
		switch t.Kind() {
		case reflect.Struct, reflect.Interface:
			return true
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return meets(t.Elem(), depth+1)
		case reflect.Map:
			return meets(t.Elem(), depth+1)
		}
		return false
	}
	m := meets(t.Elem(), 0)
	fieldsMet.Store(t, m)
	return m
}

// strict decodes into dst rejecting trailing data and null.
func strict(body json.RawMessage, dst any) error {
	if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		return errors.New("null is not allowed")
	}
	if !meetsFields(reflect.TypeOf(dst)) {
		// No fields to check: the plain decoder is enough and far cheaper (it also
		// refuses trailing data). A Studio snapshot has thousands of vectors and
		// colours: a decoder for each allocated about 3 KB.
		return json.Unmarshal(body, dst)
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(dst); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("trailing data after the value")
	}
	return nil
}

func floats(body json.RawMessage, n int) ([]float32, error) {
	if out, ok := plainFloats(body, n); ok {
		return out, nil
	}
	return decodeFloats(body, n)
}

// decodeFloats is floats through the decoder.
func decodeFloats(body json.RawMessage, n int) ([]float32, error) {
	var fs []*float64 // a nil element is a null, which encoding/json would read as 0
	if err := strict(body, &fs); err != nil {
		// Maybe a non-finite component ("inf"): the slower way, element by element.
		var raws []json.RawMessage
		if strict(body, &raws) != nil {
			return nil, err
		}
		fs = make([]*float64, len(raws))
		for i, r := range raws {
			f, ferr := decodeFloat(r)
			if ferr != nil {
				return nil, ferr
			}
			fs[i] = &f
		}
	}
	if len(fs) != n {
		return nil, fmt.Errorf("want %d numbers, got %d", n, len(fs))
	}
	out := make([]float32, n)
	for i, f := range fs {
		if f == nil {
			return nil, errors.New("null is not a number")
		}
		v, err := toFloat32(*f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// toFloat32 rejects finite numbers beyond the float32 range: they would silently
// become infinities (an infinity is written "inf").
func toFloat32(f float64) (float32, error) {
	v := float32(f)
	if math.IsInf(float64(v), 0) && !math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v is out of the range of a 32-bit float", f)
	}
	return v, nil
}

// plainFloats reads body when it is an array of exactly n JSON numbers that fit a
// float32, and nothing else but whitespace: what floats takes from nearly every
// model file and snapshot, read without the decoder. ok is false for anything else,
// which floats then reads the decoder's way (and words the error for).
func plainFloats(body []byte, n int) (out []float32, ok bool) {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '[' {
		return nil, false
	}
	out = make([]float32, 0, n)
	for i++; ; i++ {
		i = skipSpace(body, i)
		end := numberEnd(body, i)
		if end < 0 || len(out) == n {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(body[i:end]), 64)
		if err != nil {
			return nil, false
		}
		v, err := toFloat32(f)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
		if i = skipSpace(body, end); i == len(body) {
			return nil, false
		}
		if body[i] == ']' {
			break
		}
		if body[i] != ',' {
			return nil, false
		}
	}
	if skipSpace(body, i+1) != len(body) || len(out) != n {
		return nil, false
	}
	return out, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// numberEnd returns the index just past the JSON number at b[i:], or -1 when none
// starts there: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) int {
	digits := func(i int) int {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}

// vec3 and mat3 decode fixed-size arrays strictly: encoding/json would fill a short
// array with zeros, drop extra elements and read null as 0.
type (
	vec3 [3]float32
	mat3 [3][3]float32
)

func (v *vec3) UnmarshalJSON(b []byte) error {
	f, err := floats(b, 3)
	if err != nil {
		return err
	}
	*v = vec3(f)
	return nil
}

func (m *mat3) UnmarshalJSON(b []byte) error {
	var rows []vec3
	if err := strict(b, &rows); err != nil {
		return err
	}
	if len(rows) != 3 {
		return fmt.Errorf("want 3 rows, got %d", len(rows))
	}
	for i, r := range rows {
		m[i] = r
	}
	return nil
}

// isInteger reports whether s is a JSON integer with no fraction or exponent:
// an optional minus, then 0 or digits without a leading zero.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// integer parses a JSON integer written without fraction or exponent, within [min, max].
func integer(raw json.RawMessage, min, max int64) (int64, error) {
	s := string(bytes.TrimSpace(raw))
	if !isInteger(s) {
		return 0, fmt.Errorf("%s is not an integer", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%s is out of range [%d, %d]", s, min, max)
	}
	return n, nil
}

func unsigned(raw json.RawMessage, max uint64) (uint64, error) {
	s := string(bytes.TrimSpace(raw))
	if !isInteger(s) || s[0] == '-' {
		return 0, fmt.Errorf("%s is not a non-negative integer", s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > max {
		return 0, fmt.Errorf("%s is out of range [0, %d]", s, max)
	}
	return n, nil
}

func integers(body json.RawMessage, n int, min, max int64) ([]int64, error) {
	var raws []json.RawMessage
	if err := strict(body, &raws); err != nil {
		return nil, err
	}
	if len(raws) != n {
		return nil, fmt.Errorf("want %d integers, got %d", n, len(raws))
	}
	out := make([]int64, n)
	for i, r := range raws {
		v, err := integer(r, min, max)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func pair(body json.RawMessage) ([2]json.RawMessage, error) {
	var raws []json.RawMessage
	if err := strict(body, &raws); err != nil {
		return [2]json.RawMessage{}, err
	}
	if len(raws) != 2 {
		return [2]json.RawMessage{}, fmt.Errorf("want 2 elements, got %d", len(raws))
	}
	return [2]json.RawMessage{raws[0], raws[1]}, nil
}

func decodeUDim(body json.RawMessage) (UDim, error) {
	p, err := pair(body)
	if err != nil {
		return UDim{}, err
	}
	scale, err := decodeFloat(p[0])
	if err != nil {
		return UDim{}, err
	}
	off, err := integer(p[1], math.MinInt32, math.MaxInt32)
	if err != nil {
		return UDim{}, err
	}
	s, err := toFloat32(scale)
	if err != nil {
		return UDim{}, err
	}
	return UDim{Scale: s, Offset: int32(off)}, nil
}

func decodeCFrame(body json.RawMessage) (CFrame, error) {
	var obj struct {
		Position    *vec3 `json:"position"`
		Orientation *mat3 `json:"orientation"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		// serde also accepts structs as positional arrays.
		var arr []json.RawMessage
		if err := strict(body, &arr); err != nil {
			return CFrame{}, err
		}
		if len(arr) != 2 {
			return CFrame{}, errors.New("want [position, orientation]")
		}
		var cf CFrame
		if err := strict(arr[0], (*vec3)(&cf.Position)); err != nil {
			return CFrame{}, err
		}
		if err := strict(arr[1], (*mat3)(&cf.Orientation)); err != nil {
			return CFrame{}, err
		}
		return cf, nil
	}
	if err := strict(body, &obj); err != nil {
		return CFrame{}, err
	}
	if obj.Position == nil || obj.Orientation == nil {
		return CFrame{}, errors.New("want position and orientation")
	}
	return CFrame{Position: *obj.Position, Orientation: *obj.Orientation}, nil
}

func decodeStrings(body json.RawMessage, allowed []string) ([]string, error) {
	var ps []*string // a nil element is a null, which encoding/json would read as ""
	if err := strict(body, &ps); err != nil {
		return nil, err
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		if p == nil {
			return nil, errors.New("null is not a string")
		}
		s[i] = *p
	}
	if allowed != nil {
		for _, name := range s {
			if !slices.Contains(allowed, name) {
				return nil, fmt.Errorf("%q is not one of %v", name, allowed)
			}
		}
	}
	if s == nil {
		s = []string{}
	}
	return s, nil
}

func decodeBase64(body json.RawMessage) ([]byte, error) {
	var s string
	if err := strict(body, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

// FontWeights are the names a Font's weight may have.
var FontWeights = []string{"Thin", "ExtraLight", "Light", "Regular", "Medium", "SemiBold", "Bold", "ExtraBold", "Heavy"}

func init() {
	d := decoders
	d["Bool"] = func(b json.RawMessage) (Value, error) { var v bool; err := strict(b, &v); return Bool(v), err }
	d["String"] = func(b json.RawMessage) (Value, error) { v, err := decodeString(b); return String(v), err }
	d["Float32"] = func(b json.RawMessage) (Value, error) {
		v, err := decodeFloat(b)
		if err != nil {
			return nil, err
		}
		f, err := toFloat32(v)
		return Float32(f), err
	}
	d["Float64"] = func(b json.RawMessage) (Value, error) { v, err := decodeFloat(b); return Float64(v), err }
	d["Int32"] = func(b json.RawMessage) (Value, error) {
		n, err := integer(b, math.MinInt32, math.MaxInt32)
		return Int32(n), err
	}
	d["Int64"] = func(b json.RawMessage) (Value, error) {
		n, err := integer(b, math.MinInt64, math.MaxInt64)
		return Int64(n), err
	}
	d["Vector2"] = func(b json.RawMessage) (Value, error) {
		f, err := floats(b, 2)
		if err != nil {
			return nil, err
		}
		return Vector2{f[0], f[1]}, nil
	}
	d["Vector3"] = func(b json.RawMessage) (Value, error) {
		f, err := floats(b, 3)
		if err != nil {
			return nil, err
		}
		return Vector3{f[0], f[1], f[2]}, nil
	}
	d["Color3"] = func(b json.RawMessage) (Value, error) {
		f, err := floats(b, 3)
		if err != nil {
			return nil, err
		}
		return Color3{f[0], f[1], f[2]}, nil
	}
	d["Vector2int16"] = func(b json.RawMessage) (Value, error) {
		n, err := integers(b, 2, math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		return Vector2int16{int16(n[0]), int16(n[1])}, nil
	}
	d["Vector3int16"] = func(b json.RawMessage) (Value, error) {
		n, err := integers(b, 3, math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		return Vector3int16{int16(n[0]), int16(n[1]), int16(n[2])}, nil
	}
	d["Color3uint8"] = func(b json.RawMessage) (Value, error) {
		n, err := integers(b, 3, 0, 255)
		if err != nil {
			return nil, err
		}
		return Color3uint8{uint8(n[0]), uint8(n[1]), uint8(n[2])}, nil
	}
	d["UDim"] = func(b json.RawMessage) (Value, error) { return decodeUDim(b) }
	d["UDim2"] = func(b json.RawMessage) (Value, error) {
		p, err := pair(b)
		if err != nil {
			return nil, err
		}
		x, err := decodeUDim(p[0])
		if err != nil {
			return nil, err
		}
		y, err := decodeUDim(p[1])
		if err != nil {
			return nil, err
		}
		return UDim2{x, y}, nil
	}
	d["CFrame"] = func(b json.RawMessage) (Value, error) { return decodeCFrame(b) }
	d["OptionalCFrame"] = func(b json.RawMessage) (Value, error) {
		if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
			return OptionalCFrame{}, nil
		}
		cf, err := decodeCFrame(b)
		if err != nil {
			return nil, err
		}
		return OptionalCFrame{CFrame: &cf}, nil
	}
	d["Enum"] = func(b json.RawMessage) (Value, error) {
		n, err := unsigned(b, math.MaxUint32)
		return Enum(n), err
	}
	d["EnumItem"] = func(b json.RawMessage) (Value, error) {
		var v struct {
			Type  *string          `json:"type"`
			Value *json.RawMessage `json:"value"`
		}
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		if v.Type == nil || v.Value == nil {
			return nil, errors.New("want type and value")
		}
		n, err := unsigned(*v.Value, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		return EnumItem{EnumType: *v.Type, Value: uint32(n)}, nil
	}
	d["BrickColor"] = func(b json.RawMessage) (Value, error) {
		n, err := unsigned(b, math.MaxUint16)
		if err != nil {
			return nil, err
		}
		if !ValidBrickColor(uint16(n)) {
			return nil, fmt.Errorf("%d is not a BrickColor number", n)
		}
		return BrickColor(n), nil
	}
	d["NumberRange"] = func(b json.RawMessage) (Value, error) {
		f, err := floats(b, 2)
		if err != nil {
			return nil, err
		}
		return NumberRange{f[0], f[1]}, nil
	}
	d["NumberSequence"] = func(b json.RawMessage) (Value, error) {
		var v struct {
			Keypoints []struct {
				Time     *fnum `json:"time"`
				Value    *fnum `json:"value"`
				Envelope *fnum `json:"envelope"`
			} `json:"keypoints"`
		}
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		seq := make(NumberSequence, len(v.Keypoints))
		for i, k := range v.Keypoints {
			if k.Time == nil || k.Value == nil || k.Envelope == nil {
				return nil, errors.New("keypoint wants time, value and envelope")
			}
			seq[i] = NumberKeypoint{float32(*k.Time), float32(*k.Value), float32(*k.Envelope)}
		}
		return seq, nil
	}
	d["ColorSequence"] = func(b json.RawMessage) (Value, error) {
		var v struct {
			Keypoints []struct {
				Time  *fnum `json:"time"`
				Color *vec3 `json:"color"`
			} `json:"keypoints"`
		}
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		seq := make(ColorSequence, len(v.Keypoints))
		for i, k := range v.Keypoints {
			if k.Time == nil || k.Color == nil {
				return nil, errors.New("keypoint wants time and color")
			}
			seq[i] = ColorKeypoint{Time: float32(*k.Time), Color: Color3(*k.Color)}
		}
		return seq, nil
	}
	d["Rect"] = func(b json.RawMessage) (Value, error) {
		var v []json.RawMessage
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		if len(v) != 2 {
			return nil, errors.New("want [[minX, minY], [maxX, maxY]]")
		}
		lo, err := floats(v[0], 2)
		if err != nil {
			return nil, err
		}
		hi, err := floats(v[1], 2)
		if err != nil {
			return nil, err
		}
		return Rect{{lo[0], lo[1]}, {hi[0], hi[1]}}, nil
	}
	d["Ray"] = func(b json.RawMessage) (Value, error) {
		var v struct {
			Origin    *vec3 `json:"origin"`
			Direction *vec3 `json:"direction"`
		}
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		if v.Origin == nil || v.Direction == nil {
			return nil, errors.New("want origin and direction")
		}
		return Ray{Origin: Vector3(*v.Origin), Direction: Vector3(*v.Direction)}, nil
	}
	d["Region3"] = func(b json.RawMessage) (Value, error) {
		var v []vec3
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		if len(v) != 2 {
			return nil, errors.New("want [[min], [max]]")
		}
		return Region3{Vector3(v[0]), Vector3(v[1])}, nil
	}
	d["Region3int16"] = func(b json.RawMessage) (Value, error) {
		p, err := pair(b)
		if err != nil {
			return nil, err
		}
		lo, err := integers(p[0], 3, math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		hi, err := integers(p[1], 3, math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		return Region3int16{{int16(lo[0]), int16(lo[1]), int16(lo[2])}, {int16(hi[0]), int16(hi[1]), int16(hi[2])}}, nil
	}
	d["Axes"] = func(b json.RawMessage) (Value, error) {
		s, err := decodeStrings(b, []string{"X", "Y", "Z"})
		return Axes(s), err
	}
	d["Faces"] = func(b json.RawMessage) (Value, error) {
		s, err := decodeStrings(b, []string{"Right", "Top", "Back", "Left", "Bottom", "Front"})
		return Faces(s), err
	}
	d["Tags"] = func(b json.RawMessage) (Value, error) {
		s, err := decodeStrings(b, nil)
		return Tags(s), err
	}
	d["ContentId"] = func(b json.RawMessage) (Value, error) { var v string; err := strict(b, &v); return ContentId(v), err }
	d["Content"] = func(b json.RawMessage) (Value, error) {
		var s string
		if json.Unmarshal(b, &s) == nil {
			if s != "None" {
				return nil, errors.New(`want "None", {"Uri": …} or {"Object": …}`)
			}
			return Content{Kind: "None"}, nil
		}
		var m map[string]string
		if err := strict(b, &m); err != nil || len(m) != 1 {
			return nil, errors.New(`want "None", {"Uri": …} or {"Object": …}`)
		}
		for k, v := range m {
			if k != "Uri" && k != "Object" {
				return nil, fmt.Errorf("unknown Content kind %q", k)
			}
			return Content{Kind: k, Value: v}, nil
		}
		panic("unreachable")
	}
	d["Attributes"] = func(b json.RawMessage) (Value, error) {
		var m map[string]json.RawMessage
		if err := strict(b, &m); err != nil {
			return nil, err
		}
		attrs := make(Attributes, len(m))
		for name, raw := range m {
			v, err := Unmarshal(raw)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			if !AttributeTypes[v.Type()] {
				return nil, fmt.Errorf("attribute %s: type %s cannot be an attribute", name, v.Type())
			}
			attrs[name] = v
		}
		return attrs, nil
	}
	d["Font"] = func(b json.RawMessage) (Value, error) {
		var v struct {
			Family       *string `json:"family"`
			Weight       *string `json:"weight"`
			Style        *string `json:"style"`
			CachedFaceID *string `json:"cachedFaceId"`
		}
		if err := strict(b, &v); err != nil {
			return nil, err
		}
		if v.Family == nil || v.Weight == nil || v.Style == nil {
			return nil, errors.New("want family, weight and style")
		}
		if !slices.Contains(FontWeights, *v.Weight) {
			return nil, fmt.Errorf("weight %q is not one of %v", *v.Weight, FontWeights)
		}
		if *v.Style != "Normal" && *v.Style != "Italic" {
			return nil, fmt.Errorf("style %q is not Normal or Italic", *v.Style)
		}
		return Font{Family: *v.Family, Weight: *v.Weight, Style: *v.Style, CachedFaceID: v.CachedFaceID}, nil
	}
	d["Ref"] = func(b json.RawMessage) (Value, error) {
		var s string
		if err := strict(b, &s); err != nil {
			return nil, err
		}
		if !IsHex32(s) {
			return nil, errors.New("want 32 hex digits")
		}
		return Ref(lower(s)), nil
	}
	d["UniqueId"] = func(b json.RawMessage) (Value, error) {
		var s string
		if err := strict(b, &s); err != nil {
			return nil, err
		}
		if !IsHex32(s) {
			return nil, errors.New("want 32 hex digits")
		}
		return UniqueId(lower(s)), nil
	}
	d["PhysicalProperties"] = func(b json.RawMessage) (Value, error) {
		var s string
		if json.Unmarshal(b, &s) == nil {
			if s != "Default" {
				return nil, errors.New(`want "Default" or an object`)
			}
			return PhysicalProperties{Default: true}, nil
		}
		var v struct {
			Density, Friction, Elasticity, FrictionWeight, ElasticityWeight, AcousticAbsorption *float32
		}
		var raw map[string]json.RawMessage
		if err := strict(b, &raw); err != nil {
			return nil, err
		}
		fields := map[string]**float32{
			"density": &v.Density, "friction": &v.Friction, "elasticity": &v.Elasticity,
			"frictionWeight": &v.FrictionWeight, "elasticityWeight": &v.ElasticityWeight,
			"acousticAbsorption": &v.AcousticAbsorption,
		}
		for k, r := range raw {
			dst, ok := fields[k]
			if !ok {
				return nil, fmt.Errorf("unknown field %q", k)
			}
			f64, err := decodeFloat(r)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			f := float32(f64)
			*dst = &f
		}
		for k, dst := range fields {
			if *dst == nil {
				return nil, fmt.Errorf("missing field %q", k)
			}
		}
		return PhysicalProperties{Density: *v.Density, Friction: *v.Friction, Elasticity: *v.Elasticity,
			FrictionWeight: *v.FrictionWeight, ElasticityWeight: *v.ElasticityWeight, AcousticAbsorption: *v.AcousticAbsorption}, nil
	}
	d["MaterialColors"] = func(b json.RawMessage) (Value, error) {
		var m map[string]json.RawMessage
		if err := strict(b, &m); err != nil {
			return nil, err
		}
		mc := make(MaterialColors, len(m))
		for k, raw := range m {
			n, err := integers(raw, 3, 0, 255)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			mc[k] = [3]uint8{uint8(n[0]), uint8(n[1]), uint8(n[2])}
		}
		return mc, nil
	}
	d["BinaryString"] = func(b json.RawMessage) (Value, error) { v, err := decodeBase64(b); return BinaryString(v), err }
	d["SharedString"] = func(b json.RawMessage) (Value, error) { v, err := decodeBase64(b); return SharedString(v), err }
	d["NetAssetRef"] = func(b json.RawMessage) (Value, error) { v, err := decodeBase64(b); return NetAssetRef(v), err }
	d["SecurityCapabilities"] = func(b json.RawMessage) (Value, error) {
		n, err := unsigned(b, math.MaxUint64)
		return SecurityCapabilities(n), err
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
