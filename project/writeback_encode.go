package project

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/project/format"
)

// encodeValue writes v for className.prop: in the implicit form when the value it
// replaces was written that way and v has one, else in the tagged form.
func encodeValue(className, prop string, v dom.Value, existing json.RawMessage) (json.RawMessage, error) {
	v = dom.StoredAs(className, prop, v) // what the file would read back as
	if existing != nil && !dom.IsTagged(existing) {
		if imp, ok := implicitForm(className, prop, v); ok {
			return imp, nil
		}
	}
	if dom.NonFinite(v) {
		return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("property %s is infinite or NaN, which a project file cannot hold (Rojo reads no such number)", prop)}
	}
	b, err := dom.Marshal(v)
	if err == nil {
		// What the loader cannot read back would break the whole project.
		var back dom.Value
		if back, err = dom.ResolveValue(className, prop, b); err == nil && !dom.Equal(back, v) {
			err = fmt.Errorf("%s does not read back as the same value", b)
		}
	}
	if err != nil {
		return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("property %s cannot be written to a file: %v", prop, err)}
	}
	return format.SpacedJSON(b), nil
}

// implicitForm returns v's implicit form for className.prop, if it has one that
// reads back as exactly v.
func implicitForm(className, prop string, v dom.Value) (json.RawMessage, bool) {
	var x any
	switch v := v.(type) {
	case dom.Bool, dom.String, dom.ContentId, dom.Float32, dom.Float64, dom.Int32,
		dom.Vector2, dom.Vector3, dom.Color3:
		// These encode as their underlying JSON type: none has a MarshalJSON.
		x = v
	case dom.Int64:
		if v > 1<<53 || v < -(1<<53) {
			return nil, false
		}
		x = v
	case dom.Tags:
		x = append([]string{}, v...) // [] rather than null when empty
	case dom.CFrame:
		o := v.Orientation
		x = [12]float32{v.Position[0], v.Position[1], v.Position[2],
			o[0][0], o[0][1], o[0][2], o[1][0], o[1][1], o[1][2], o[2][0], o[2][1], o[2][2]}
	case dom.Enum:
		typ, enum, ok := dom.PropertyType(className, prop)
		if !ok || typ != "Enum" {
			return nil, false
		}
		e, ok := reflection.LookupEnum(enum)
		if !ok {
			return nil, false
		}
		name, ok := e.ItemName(uint32(v))
		if !ok {
			return nil, false
		}
		x = name
	default:
		return nil, false
	}
	b, err := format.EncodeJSON(x)
	if err != nil {
		return nil, false
	}
	back, err := dom.ResolveValue(className, prop, b)
	if err != nil || !reflect.DeepEqual(back, v) {
		return nil, false
	}
	return format.SpacedJSON(b), true
}

// encodeAttributes writes an attribute map, keeping the shorthand of attributes
// that were written as one.
func encodeAttributes(a dom.Attributes, existing map[string]json.RawMessage) (format.Object, error) {
	obj := format.Object{}
	for _, name := range sortedKeys(a) {
		v := a[name]
		switch {
		case strings.HasPrefix(name, "RBX"):
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: names starting with RBX are reserved by Roblox and cannot be written to a file", name)}
		case v == nil || !dom.AttributeTypes[v.Type()]:
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: its type cannot be written to a file", name)}
		}
		var enc json.RawMessage
		if old, ok := existing[name]; ok && !dom.IsTagged(old) {
			switch v := v.(type) {
			case dom.Bool, dom.String:
				enc, _ = format.EncodeJSON(v)
			case dom.Float64:
				if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
					enc, _ = format.EncodeJSON(v)
				}
			}
		}
		if enc == nil && dom.NonFinite(v) {
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s is infinite or NaN, which a project file cannot hold (Rojo reads no such number)", name)}
		}
		if enc == nil {
			b, err := dom.Marshal(v)
			if err != nil {
				return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: %v", name, err)}
			}
			enc = format.SpacedJSON(b)
		}
		obj = append(obj, format.Member{Key: name, Value: enc})
	}
	return obj, nil
}

func modelObject(inst *dom.Instance, root bool) (format.Object, error) {
	obj := format.Object{}
	if !root {
		n, _ := format.EncodeJSON(inst.Name)
		obj = append(obj, format.Member{Key: "name", Value: n})
	}
	cls, _ := format.EncodeJSON(inst.ClassName)
	obj = append(obj, format.Member{Key: "className", Value: cls})
	props, err := propsObject(inst.ClassName, writableProps(inst))
	if err != nil {
		return nil, err
	}
	obj = append(obj, props...)
	if len(inst.Children) > 0 {
		var children []format.Object
		for _, c := range inst.Children {
			co, err := modelObject(c, false)
			if err != nil {
				return nil, err
			}
			children = append(children, co)
		}
		obj = append(obj, format.Member{Key: "children", Value: children})
	}
	return obj, nil
}

// propsObject returns the "properties" and "attributes" members for props.
func propsObject(class string, props map[string]dom.Value) (format.Object, error) {
	var obj, ps format.Object
	for _, k := range sortedKeys(props) {
		v := props[k]
		if a, ok := v.(dom.Attributes); ok && k == "Attributes" {
			if len(a) == 0 {
				continue
			}
			enc, err := encodeAttributes(a, nil)
			if err != nil {
				return nil, err
			}
			obj = append(obj, format.Member{Key: "attributes", Value: enc})
			continue
		}
		enc, err := encodeValue(class, k, v, nil)
		if err != nil {
			return nil, err
		}
		ps = append(ps, format.Member{Key: k, Value: enc})
	}
	if len(ps) > 0 {
		obj = append(format.Object{{Key: "properties", Value: ps}}, obj...)
	}
	return obj, nil
}

// writableProps returns the properties of a new instance worth writing: not Name,
// ClassName or Parent; not nil; not Refs (a file cannot point at an instance by its
// id); not those Roblox itself does not save (Position, BrickColor: CFrame and
// Color carry them); and not those equal to the class's default.
func writableProps(inst *dom.Instance) map[string]dom.Value {
	props := make(map[string]dom.Value, len(inst.Properties))
	for k, v := range inst.Properties.All() {
		switch k {
		case "Name", "ClassName", "Parent":
			continue
		}
		if v == nil {
			continue
		}
		if _, ok := v.(dom.Ref); ok {
			continue
		}
		if p, ok := reflection.LookupProperty(inst.ClassName, k); ok {
			// A legacy property files still hold (SoundId, MeshId, Texture: the
			// database migrates them to a Content property when read) is content,
			// written as it is.
			if !p.Serializes && len(p.MigrateTo) == 0 {
				continue
			}
			if d, ok := defaultOf(inst.ClassName, k); ok && isDefault(d, v) {
				continue
			}
		}
		props[k] = v
	}
	return props
}
