package syncback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/project/format"
)

// propsFor returns the properties of inst worth writing, without those syncback
// leaves out: UniqueId (an instance's identity in one place, not content), and
// terrain colors that are all the defaults.
func propsFor(props map[string]dom.Value) map[string]dom.Value {
	out := make(map[string]dom.Value, len(props))
	for k, v := range props {
		switch v := v.(type) {
		case dom.UniqueId:
			continue
		case dom.MaterialColors:
			if len(v) == 0 {
				continue // every material at its default color
			}
		}
		out[k] = v
	}
	return out
}

// encodeProp writes v for class.prop as Rojo's syncback does: the implicit form
// when there is one that reads back as v, else the explicit tagged form. Numbers
// are written as Rojo writes them (1337.0).
func encodeProp(class, prop string, v dom.Value) (json.RawMessage, error) {
	v = dom.StoredAs(class, prop, v) // what the file would read back as
	if b, ok := project.ImplicitForm(class, prop, v); ok {
		if n, ok := number(v); ok {
			b = []byte(n)
		}
		if back, err := dom.ResolveValue(class, prop, b); err == nil && dom.Equal(back, v) {
			return compact(b), nil
		}
	}
	b, err := dom.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("property %s: %w", prop, err)
	}
	if back, err := dom.ResolveValue(class, prop, b); err != nil || !dom.Equal(back, v) {
		return nil, fmt.Errorf("property %s: %s does not read back as the same value", prop, b)
	}
	return b, nil
}

// number formats a numeric value as a JSON number, integral ones with ".0".
func number(v dom.Value) (string, bool) {
	var f float64
	bits := 64
	switch v := v.(type) {
	case dom.Float32:
		f, bits = float64(v), 32
	case dom.Float64:
		f = float64(v)
	case dom.Int32:
		f = float64(v)
	case dom.Int64:
		f = float64(v)
	default:
		return "", false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64), true
	}
	return strconv.FormatFloat(f, 'g', -1, bits), true
}

// encodeAttr writes an attribute: a bool, string or number directly, anything
// else tagged.
func encodeAttr(v dom.Value) (json.RawMessage, error) {
	switch v := v.(type) {
	case dom.Bool, dom.String:
		return json.Marshal(v)
	case dom.Float64:
		if n, ok := number(v); ok {
			return json.RawMessage(n), nil
		}
	}
	return dom.Marshal(v)
}

// propsMembers returns the "properties" and "attributes" members for props, with
// the key names given (e.g. "$properties" in a project file).
func propsMembers(class string, props map[string]dom.Value, propKey, attrKey string) (format.Object, error) {
	props = propsFor(props)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ps, as format.Object
	for _, k := range keys {
		v := props[k]
		if a, ok := v.(dom.Attributes); ok && k == "Attributes" {
			names := make([]string, 0, len(a))
			for n := range a {
				// RBX… attributes are Roblox's own (e.g. migration markers): a
				// project cannot set them.
				if !strings.HasPrefix(n, "RBX") {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				b, err := encodeAttr(a[n])
				if err != nil {
					return nil, fmt.Errorf("attribute %s: %w", n, err)
				}
				as = append(as, kv(n, json.RawMessage(b)))
			}
			continue
		}
		b, err := encodeProp(class, k, v)
		if err != nil {
			return nil, err
		}
		ps = append(ps, kv(k, b))
	}
	var out format.Object
	if len(ps) > 0 {
		out = append(out, kv(propKey, ps))
	}
	if len(as) > 0 {
		out = append(out, kv(attrKey, as))
	}
	return out, nil
}

// metaJSON renders a meta file: properties, attributes, then className; nil when
// there is nothing to say.
func metaJSON(class, metaClass string, props map[string]dom.Value) ([]byte, error) {
	obj, err := propsMembers(class, props, "properties", "attributes")
	if err != nil {
		return nil, err
	}
	if metaClass != "" {
		obj = append(obj, kv("className", metaClass))
	}
	if len(obj) == 0 {
		return nil, nil
	}
	return obj.Indented(), nil
}

// modelJSON renders inst and its subtree as a .model.json file.
func modelJSON(inst *dom.Instance) ([]byte, error) {
	obj, err := modelObj(inst, true)
	if err != nil {
		return nil, err
	}
	return obj.Indented(), nil
}

func modelObj(inst *dom.Instance, root bool) (format.Object, error) {
	var obj format.Object
	if !root {
		obj = append(obj, kv("name", inst.Name))
	}
	obj = append(obj, kv("className", inst.ClassName))
	ps, err := propsMembers(inst.ClassName, project.WritableProps(inst), "properties", "attributes")
	if err != nil {
		return nil, err
	}
	obj = append(obj, ps...)
	if len(inst.Children) > 0 {
		var kids []format.Object
		for _, c := range inst.Children {
			co, err := modelObj(c, false)
			if err != nil {
				return nil, err
			}
			kids = append(kids, co)
		}
		obj = append(obj, kv("children", kids))
	}
	return obj, nil
}

func compact(b []byte) json.RawMessage {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
