package dom

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON has no number for an infinity or NaN, and Roblox has both (eight properties
// default to infinity, e.g. BillboardGui.MaxDistance). In a tagged value any float
// component may therefore be one of these strings instead of a number:
// {"Float32":"inf"}, {"Vector2":["inf","inf"]}, {"Float64":"nan"}. The plugin uses the
// same encoding (docs/PROTOCOL.md, "Values").
const (
	JSONInf    = "inf"
	JSONNegInf = "-inf"
	JSONNaN    = "nan"
)

// decodeFloat reads a float component: a JSON number or one of the strings JSONInf,
// JSONNegInf and JSONNaN.
func decodeFloat(raw []byte) (float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		switch s {
		case JSONInf:
			return math.Inf(1), nil
		case JSONNegInf:
			return math.Inf(-1), nil
		case JSONNaN:
			return math.NaN(), nil
		}
		return 0, fmt.Errorf("%q is not a number (a float may only be a number, %q, %q or %q)", s, JSONInf, JSONNegInf, JSONNaN)
	}
	if bytes.Equal(raw, []byte("null")) {
		return 0, errors.New("null is not a number")
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, err
	}
	return v, nil
}

// fnum is a float field that accepts the non-finite strings too.
type fnum float64

func (f *fnum) UnmarshalJSON(b []byte) error {
	v, err := decodeFloat(b)
	*f = fnum(v)
	return err
}

// nonFiniteString is the string a non-finite float is written as.
func nonFiniteString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return JSONInf
	case math.IsInf(f, -1):
		return JSONNegInf
	}
	return JSONNaN
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// encodeSpecial encodes a payload that encoding/json refused because it holds an
// infinity or NaN. It writes what encoding/json would (same field order, names and
// number formats), except that a non-finite float becomes its string. Payloads are
// made of bools, strings, integers, floats, arrays, slices, string-keyed maps,
// structs with json tags, pointers and json.Marshalers (the tagged values of
// attributes).
func encodeSpecial(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	if v.Type().Implements(marshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		out, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return err
		}
		b.Write(out)
		return nil
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			b.WriteString(strconv.Quote(nonFiniteString(f)))
			return nil
		}
		var out []byte
		var err error
		if v.Kind() == reflect.Float32 {
			out, err = json.Marshal(float32(f))
		} else {
			out, err = json.Marshal(f)
		}
		if err != nil {
			return err
		}
		b.Write(out)
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(out)
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeSpecial(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeSpecial(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("cannot encode a map keyed by %s", v.Type().Key())
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k.String())
			b.Write(kb)
			b.WriteByte(':')
			if err := encodeSpecial(b, v.MapIndex(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if strings.Contains(opts, "omitempty") && fv.IsZero() {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			kb, _ := json.Marshal(name)
			b.Write(kb)
			b.WriteByte(':')
			if err := encodeSpecial(b, fv); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode a %s", v.Type())
	}
	return nil
}

// stringPayload is the payload of a String: the text, or {"base64": …} when the text
// is not valid UTF-8. A JSON string holds only Unicode text: encoding/json would
// replace the invalid bytes, and a script's bytes (and so its hash) must arrive as they
// are. The plugin reads and writes the same form.
func stringPayload(s string) any {
	if utf8.ValidString(s) {
		return s
	}
	return struct {
		Base64 string `json:"base64"`
	}{base64.StdEncoding.EncodeToString([]byte(s))}
}

// decodeString reads a String payload: a JSON string, or {"base64": …}.
func decodeString(b json.RawMessage) (string, error) {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		var v struct {
			Base64 *string `json:"base64"`
		}
		if err := strict(b, &v); err != nil {
			return "", err
		}
		if v.Base64 == nil {
			return "", errors.New(`want a string or {"base64": …}`)
		}
		raw, err := base64.StdEncoding.DecodeString(*v.Base64)
		return string(raw), err
	}
	var s string
	err := strict(b, &s)
	return s, err
}

// NonFinite reports whether v holds an infinity or NaN anywhere (an attribute's value
// included). Such a value has a tagged form (see JSONInf) but no form that Rojo reads.
func NonFinite(v Value) bool {
	if a, ok := v.(Attributes); ok {
		for _, av := range a {
			if NonFinite(av) {
				return true
			}
		}
		return false
	}
	p, err := payload(v)
	return err == nil && nonFiniteIn(reflect.ValueOf(p))
}

func nonFiniteIn(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return math.IsInf(f, 0) || math.IsNaN(f)
	case reflect.Interface, reflect.Pointer:
		return !v.IsNil() && nonFiniteIn(v.Elem())
	case reflect.Array, reflect.Slice:
		for i := range v.Len() {
			if nonFiniteIn(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if nonFiniteIn(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && nonFiniteIn(v.Field(i)) {
				return true
			}
		}
	}
	return false
}
