package dom

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Marshal encodes v in the tagged form: a one-key object whose key is the type name.
func Marshal(v Value) ([]byte, error) {
	if v == nil {
		return nil, errors.New("marshal nil value")
	}
	if s, ok := v.(String); ok && utf8.ValidString(string(s)) {
		// A Source, megabytes in a big apply: one pass, into one buffer of about its
		// size, without encoding/json's reflection and copies.
		b := make([]byte, 0, len(s)+len(s)/8+16)
		b = append(b, `{"String":`...)
		b = AppendJSONString(b, string(s))
		return append(b, '}'), nil
	}
	p, err := payload(v)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(p)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		// An infinity or NaN: written as a string (see JSONInf).
		var special bytes.Buffer
		err = encodeSpecial(&special, reflect.ValueOf(p))
		body = special.Bytes()
	}
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", v.Type(), err)
	}
	var b bytes.Buffer
	b.Grow(len(body) + len(v.Type()) + 5)
	b.WriteString(`{"`)
	b.WriteString(v.Type())
	b.WriteString(`":`)
	b.Write(body)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MustMarshal is Marshal for values known to encode (all well-formed values do).
func MustMarshal(v Value) json.RawMessage {
	b, err := Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type jsonCFrame struct {
	Position    [3]float32    `json:"position"`
	Orientation [3][3]float32 `json:"orientation"`
}

type jsonNumberKeypoint struct {
	Time     float32 `json:"time"`
	Value    float32 `json:"value"`
	Envelope float32 `json:"envelope"`
}

type jsonColorKeypoint struct {
	Time  float32    `json:"time"`
	Color [3]float32 `json:"color"`
}

type jsonFont struct {
	Family       string  `json:"family"`
	Weight       string  `json:"weight"`
	Style        string  `json:"style"`
	CachedFaceID *string `json:"cachedFaceId,omitempty"`
}

type jsonPhysical struct {
	Density            float32 `json:"density"`
	Friction           float32 `json:"friction"`
	Elasticity         float32 `json:"elasticity"`
	FrictionWeight     float32 `json:"frictionWeight"`
	ElasticityWeight   float32 `json:"elasticityWeight"`
	AcousticAbsorption float32 `json:"acousticAbsorption"`
}

// payload returns a value that encoding/json turns into v's payload.
func payload(v Value) (any, error) {
	switch v := v.(type) {
	case Bool, Float32, Float64, Int32, Int64, Vector2, Vector3, Vector2int16, Vector3int16,
		Color3, Enum, BrickColor, NumberRange, ContentId, Ref, UniqueId, SecurityCapabilities:
		return v, nil
	case String:
		return stringPayload(string(v)), nil
	case Color3uint8:
		return []int{int(v[0]), int(v[1]), int(v[2])}, nil
	case UDim:
		return [2]any{v.Scale, v.Offset}, nil
	case UDim2:
		return [2][2]any{{v[0].Scale, v[0].Offset}, {v[1].Scale, v[1].Offset}}, nil
	case CFrame:
		return jsonCFrame(v), nil
	case OptionalCFrame:
		if v.CFrame == nil {
			return nil, nil
		}
		return jsonCFrame(*v.CFrame), nil
	case EnumItem:
		return struct {
			Type  string `json:"type"`
			Value uint32 `json:"value"`
		}{v.EnumType, v.Value}, nil
	case NumberSequence:
		kps := make([]jsonNumberKeypoint, len(v))
		for i, k := range v {
			kps[i] = jsonNumberKeypoint(k)
		}
		return map[string]any{"keypoints": kps}, nil
	case ColorSequence:
		kps := make([]jsonColorKeypoint, len(v))
		for i, k := range v {
			kps[i] = jsonColorKeypoint{Time: k.Time, Color: k.Color}
		}
		return map[string]any{"keypoints": kps}, nil
	case Rect:
		return [2]Vector2(v), nil
	case Ray:
		return map[string]Vector3{"origin": v.Origin, "direction": v.Direction}, nil
	case Region3:
		return [2]Vector3(v), nil
	case Region3int16:
		return [2]Vector3int16(v), nil
	case Axes:
		return nonNil([]string(v)), nil
	case Faces:
		return nonNil([]string(v)), nil
	case Tags:
		return nonNil([]string(v)), nil
	case Content:
		switch v.Kind {
		case "None", "":
			return "None", nil
		case "Uri", "Object":
			return map[string]string{v.Kind: v.Value}, nil
		}
		return nil, fmt.Errorf("Content kind %q is not None, Uri or Object", v.Kind)
	case Attributes:
		m := make(map[string]json.RawMessage, len(v))
		for name, av := range v {
			b, err := Marshal(av)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			m[name] = b
		}
		return m, nil
	case Font:
		return jsonFont(v), nil
	case PhysicalProperties:
		if v.Default {
			return "Default", nil
		}
		return jsonPhysical{v.Density, v.Friction, v.Elasticity, v.FrictionWeight, v.ElasticityWeight, v.AcousticAbsorption}, nil
	case MaterialColors:
		m := make(map[string][]int, len(v))
		for k, c := range v {
			m[k] = []int{int(c[0]), int(c[1]), int(c[2])}
		}
		return m, nil
	case BinaryString:
		return base64.StdEncoding.EncodeToString(v), nil
	case SharedString:
		return base64.StdEncoding.EncodeToString(v), nil
	case NetAssetRef:
		return base64.StdEncoding.EncodeToString(v), nil
	}
	return nil, fmt.Errorf("value type %T cannot be encoded", v)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Unmarshal decodes a value in the explicit (tagged) form.
func Unmarshal(data []byte) (Value, error) {
	if v, ok := unmarshalFast(data); ok {
		return v, nil
	}
	tag, body, err := splitTagged(data)
	if err != nil {
		return nil, err
	}
	return DecodePayload(tag, body)
}

// unmarshalFast decodes the common shape {"Type":payload} without building a map,
// and a plain String payload without a second pass: snapshots carry megabytes of
// script sources. Anything unusual is left to the full decoder (ok false).
func unmarshalFast(data []byte) (Value, bool) {
	d := bytes.TrimSpace(data)
	if len(d) < 5 || d[0] != '{' || d[len(d)-1] != '}' {
		return nil, false
	}
	d = bytes.TrimSpace(d[1 : len(d)-1])
	if len(d) < 3 || d[0] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(d[1:], '"')
	if end < 0 {
		return nil, false
	}
	tag := string(d[1 : 1+end])
	rest := bytes.TrimSpace(d[2+end:])
	if len(rest) == 0 || rest[0] != ':' || strings.ContainsAny(tag, "\\") {
		return nil, false
	}
	payload := bytes.TrimSpace(rest[1:])
	if tag == "String" {
		if s, ok := plainJSONString(payload); ok {
			return String(s), true
		}
	}
	dec, known := decoders[tag]
	if !known {
		return nil, false
	}
	v, err := dec(payload)
	if err != nil {
		return nil, false
	}
	return v, true
}

// plainJSONString reads a JSON string literal in one pass: its common escapes and
// \u escapes outside the surrogate range are decoded here (script sources are full
// of \n and \t). It reports false, for the full decoder to give the value or the
// error, on anything else: a surrogate escape, invalid UTF-8 or a control character.
func plainJSONString(p []byte) (string, bool) {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return "", false
	}
	body := p[1 : len(p)-1]
	i := 0
	for i < len(body) {
		c := body[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	if !utf8.Valid(body) {
		return "", false
	}
	if i == len(body) {
		return string(body), true
	}
	out := make([]byte, i, len(body))
	copy(out, body[:i])
	for i < len(body) {
		c := body[i]
		switch {
		case c == '"' || c < 0x20:
			return "", false
		case c != '\\':
			// Copy the run up to the next special byte at once.
			j := i + 1
			for j < len(body) && body[j] != '\\' && body[j] != '"' && body[j] >= 0x20 {
				j++
			}
			out = append(out, body[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch body[i+1] {
		case '"', '\\', '/':
			out = append(out, body[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+6 > len(body) {
				return "", false
			}
			r, ok := hex4(body[i+2 : i+6])
			if !ok || utf16.IsSurrogate(r) {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

// plainByte[c] tells that byte c is written as it is inside a JSON string, as
// json.Marshal writes strings: not a control character, '"', '\\', or an HTML
// character ('<', '>', '&'). 0xE2 is not plain: it may begin U+2028 or U+2029.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[c] = false
	}
	return t
}()

// escapeOf is what json.Marshal writes for each ASCII byte that is not plain.
var escapeOf = func() (t [0x80]string) {
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = `\n`, `\r`, `\t`, `\b`, `\f`
	t['<'], t['>'], t['&'] = `\u003c`, `\u003e`, `\u0026`
	return t
}()

// AppendJSONString appends s as a JSON string, byte for byte as json.Marshal writes it
// (HTML characters and U+2028, U+2029 escaped too), in one pass over s.
func AppendJSONString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		q, _ := json.Marshal(s) // invalid UTF-8 becomes U+FFFD, as there
		return append(b, q...)
	}
	b = slices.Grow(b, len(s)+len(s)/8+2)
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] {
			i++
			continue
		}
		if c == 0xE2 {
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9; s is valid UTF-8.
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, "89"[s[i+2]-0xA8])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, escapeOf[c]...)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ValidStringBody reports whether body is the inside of a JSON string literal:
// UTF-8, no control character, no unescaped quote, and only JSON's escapes (a
// surrogate escape included).
func ValidStringBody(body []byte) bool {
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"' || c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(body) {
				return false
			}
			switch body[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(body) {
					return false
				}
				if _, ok := hex4(body[i+2 : i+6]); !ok {
					return false
				}
				i += 5
			default:
				return false
			}
		}
	}
	return utf8.Valid(body)
}

// IsHex32 reports whether s is 32 hex digits, in either case: a Ref, a UniqueId, a
// plugin's session id.
func IsHex32(s string) bool { return len(s) == 32 && isHex(s) }

// isHex reports whether every byte of s is a hex digit, in either case.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := hexDigit(s[i]); !ok {
			return false
		}
	}
	return true
}

// hexDigit is the value of one hex digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// IsTagged reports whether data is a one-key object whose key is a known type name.
func IsTagged(data []byte) bool {
	tag, _, err := splitTagged(data)
	return err == nil && KnownType(tag)
}

func splitTagged(data []byte) (string, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return "", nil, fmt.Errorf("a value must be an object like {\"Vector3\":[0,1,0]}: %w", err)
	}
	if len(m) != 1 {
		return "", nil, fmt.Errorf("a tagged value must have exactly one key (the type), got %d", len(m))
	}
	for k, v := range m {
		return k, v, nil
	}
	panic("unreachable")
}

var decoders = map[string]func(json.RawMessage) (Value, error){}

// KnownType reports whether name is a value type tag.
func KnownType(name string) bool {
	_, ok := decoders[name]
	return ok
}

// TypeNames returns every value type tag, sorted.
func TypeNames() []string {
	names := make([]string, 0, len(decoders))
	for k := range decoders {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// DecodePayload decodes the payload of a tagged value of type tag.
func DecodePayload(tag string, body json.RawMessage) (Value, error) {
	dec, ok := decoders[tag]
	if !ok {
		return nil, fmt.Errorf("unknown value type %q", tag)
	}
	v, err := dec(body)
	if err != nil {
		return nil, fmt.Errorf("bad %s value %s: %w", tag, truncate(body), err)
	}
	return v, nil
}

// Properties is a property map with the tagged JSON encoding for its values.
type Properties map[string]Value

// MarshalJSON encodes each value in tagged form, keys sorted. It writes the object
// itself: going through a map of raw values would scan every value (sources are
// megabytes) once more.
func (p Properties) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		v, err := Marshal(p[k])
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes explicit (tagged) values only.
func (p *Properties) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(Properties, len(m))
	for k, raw := range m {
		v, err := Unmarshal(raw)
		if err != nil {
			return fmt.Errorf("property %s: %w", k, err)
		}
		out[k] = v
	}
	*p = out
	return nil
}
