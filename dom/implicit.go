package dom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// ResolveValue decodes a property value written in a project, meta or model file: the
// explicit tagged form, or the implicit form resolved through the reflection database
// against className's property prop (ROJO_FORMAT §4.2).
func ResolveValue(className, prop string, raw json.RawMessage) (Value, error) {
	v, err := resolveValue(className, prop, raw)
	if err != nil {
		return nil, err
	}
	return StoredAs(className, prop, v), nil
}

// The bounds Studio keeps each dimension of a part's Size within.
const (
	PartMinSize = 0.001
	PartMaxSize = 2048
)

// StoredAs is v as Studio holds className.prop: a part's Size is kept within
// PartMinSize and PartMaxSize on each axis, and a BasePart's Color is kept as
// Color3uint8 (the database's serialized type), so a Color3 set there reads back
// with each component rounded to a 255th, as a place file gives it. Other values
// are returned as they are.
func StoredAs(className, prop string, v Value) Value {
	if size, ok := v.(Vector3); ok && (prop == "Size" || prop == "size") && reflection.IsA(className, "BasePart") {
		// Each of a part's dimensions is kept between PartMinSize and PartMaxSize.
		for i, x := range size {
			size[i] = min(max(x, PartMinSize), PartMaxSize)
		}
		return size
	}
	c, ok := v.(Color3)
	if !ok || (prop != "Color" && prop != "Color3uint8") || !reflection.IsA(className, "BasePart") {
		return v
	}
	for i, x := range c {
		switch {
		case x <= 0 || x != x:
			c[i] = 0
		case x >= 1:
			c[i] = 1
		default:
			c[i] = float32(uint8(x*255+0.5)) / 255
		}
	}
	return c
}

func resolveValue(className, prop string, raw json.RawMessage) (Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err == nil && len(m) == 1 {
			for tag, body := range m {
				if KnownType(tag) {
					return DecodePayload(tag, body)
				}
			}
		}
	}
	p, ok := reflection.LookupProperty(className, prop)
	if !ok {
		return nil, fmt.Errorf("unknown property %s.%s: use the explicit form, e.g. {\"String\": \"…\"}", className, prop)
	}
	return resolveImplicit(p, raw)
}

// PropertyType returns the tagged type name for className.prop ("Enum" for enums,
// with the enum's name as second result), or ok=false when the database does not know it.
func PropertyType(className, prop string) (typ, enum string, ok bool) {
	p, found := reflection.LookupProperty(className, prop)
	if !found {
		return "", "", false
	}
	if p.Type.Kind == reflection.EnumKind {
		return "Enum", p.Type.Name, true
	}
	return p.Type.Name, "", true
}

func resolveImplicit(p *reflection.Property, raw json.RawMessage) (Value, error) {
	where := p.Class + "." + p.Name
	wrong := func() error {
		return fmt.Errorf("wrong type of value for %s (a %s): %s", where, describeType(p.Type), truncate(raw))
	}
	if bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("null is not a value for %s", where)
	}
	if p.Type.Kind == reflection.EnumKind {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, fmt.Errorf("%s is an enum %s: write the item name as a string: %s", where, p.Type.Name, truncate(raw))
		}
		e, ok := reflection.LookupEnum(p.Type.Name)
		if !ok {
			return nil, fmt.Errorf("unknown enum %s for %s", p.Type.Name, where)
		}
		v, ok := e.Items[name]
		if !ok {
			return nil, fmt.Errorf("%q is not an item of enum %s (for %s)", name, p.Type.Name, where)
		}
		return Enum(v), nil
	}
	switch p.Type.Name {
	case "Bool":
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, wrong()
		}
		return Bool(b), nil
	case "String":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, wrong()
		}
		return String(s), nil
	case "ContentId":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, wrong()
		}
		return ContentId(s), nil
	case "Content":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, wrong()
		}
		if s == "None" || s == "" {
			return Content{Kind: "None"}, nil
		}
		return Content{Kind: "Uri", Value: s}, nil
	case "Float32", "Float64", "Int32", "Int64":
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return nil, wrong()
		}
		switch p.Type.Name {
		case "Float32":
			v, err := toFloat32(f)
			if err != nil {
				return nil, wrong()
			}
			return Float32(v), nil
		case "Float64":
			return Float64(f), nil
		case "Int32":
			return Int32(saturate(f, math.MinInt32, math.MaxInt32)), nil
		default:
			return Int64(saturate(f, math.MinInt64, math.MaxInt64)), nil
		}
	case "Tags":
		s, err := decodeStrings(raw, nil)
		if err != nil {
			return nil, wrong()
		}
		return Tags(s), nil
	case "Vector2":
		f, err := floats(raw, 2)
		if err != nil {
			return nil, wrong()
		}
		return Vector2{f[0], f[1]}, nil
	case "Vector3":
		f, err := floats(raw, 3)
		if err != nil {
			return nil, wrong()
		}
		return Vector3{f[0], f[1], f[2]}, nil
	case "Color3":
		f, err := floats(raw, 3)
		if err != nil {
			return nil, wrong()
		}
		return Color3{f[0], f[1], f[2]}, nil
	case "CFrame":
		f, err := floats(raw, 12)
		if err != nil {
			return nil, wrong()
		}
		return CFrame{Position: [3]float32{f[0], f[1], f[2]},
			Orientation: [3][3]float32{{f[3], f[4], f[5]}, {f[6], f[7], f[8]}, {f[9], f[10], f[11]}}}, nil
	case "Attributes":
		attrs, err := ResolveAttributes(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return attrs, nil
	case "Font":
		v, err := DecodePayload("Font", raw)
		if err != nil {
			return nil, wrong()
		}
		return v, nil
	case "MaterialColors":
		v, err := DecodePayload("MaterialColors", raw)
		if err != nil {
			return nil, wrong()
		}
		return v, nil
	case "Ref":
		return nil, fmt.Errorf("%s is a Ref: set it with the attribute Rojo_Target_%s instead", where, p.Name)
	}
	return nil, fmt.Errorf("%s (a %s) has no implicit form: use the explicit form, e.g. {\"%s\": …}", where, describeType(p.Type), p.Type.Name)
}

func describeType(t reflection.DataType) string {
	if t.Kind == reflection.EnumKind {
		return "enum " + t.Name
	}
	return t.Name
}

func saturate(f, lo, hi float64) int64 {
	f = math.Trunc(f)
	switch {
	case math.IsNaN(f):
		return 0
	case f <= lo:
		return int64(lo)
	case f >= hi:
		if hi == math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(hi)
	}
	return int64(f)
}

// ResolveAttributes decodes an attribute map: explicit values, or the shorthands
// bool → Bool, number → Float64, string → String.
func ResolveAttributes(raw json.RawMessage) (Attributes, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("attributes must be an object: %w", err)
	}
	attrs := make(Attributes, len(m))
	// In name order, so that of several bad attributes the same one is reported.
	for _, name := range slices.Sorted(maps.Keys(m)) {
		v := m[name]
		if strings.HasPrefix(name, "RBX") {
			return nil, fmt.Errorf("attribute name %q is reserved by Roblox", name)
		}
		if !ValidAttributeName(name) {
			return nil, fmt.Errorf("attribute name %q is not one Studio accepts (letters, digits, periods, hyphens, slashes and underscores, at most 100)", name)
		}
		val, err := resolveAttribute(bytes.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		attrs[Intern(name)] = val
	}
	return attrs, nil
}

func resolveAttribute(raw json.RawMessage) (Value, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty value")
	}
	switch raw[0] {
	case 'n':
		// encoding/json would read null as the number 0.
		return nil, fmt.Errorf("null is not an attribute value")
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return Bool(b), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return String(s), nil
	case '{':
		v, err := Unmarshal(raw)
		if err != nil {
			return nil, err
		}
		if !AttributeTypes[v.Type()] {
			return nil, fmt.Errorf("type %s cannot be an attribute", v.Type())
		}
		return v, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("want a bool, number, string or explicit value: %s", truncate(raw))
	}
	return Float64(f), nil
}

// ValidAttributeName reports whether Studio accepts name for an attribute
// (Instance:SetAttribute): 1 to 100 characters, each a letter, a digit, a period,
// a hyphen, a slash or an underscore. (Names starting with RBX are Roblox's own.)
func ValidAttributeName(name string) bool {
	if name == "" || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '.' || c == '-' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
