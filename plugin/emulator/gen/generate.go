package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// negativeInfinity lists the defaults that the database writes as null (serde's form
// of a non-finite float) and that are minus infinity; every other null float is plus
// infinity (MaxDistance, MaxVelocity, MaxSize, …).
var negativeInfinity = map[string]bool{
	"WrapTextureTransfer.UVMinBound": true,
}

// access is how scripts may use a property: "w" read and write, "r" read only, "" not
// at all (not a member).
func access(className string, p *reflection.Property) string {
	switch p.Scriptability {
	case "ReadWrite":
		return "w"
	case "Read":
		return "r"
	case "Custom":
		// Custom properties are reached through methods (Attributes, Tags, Contents,
		// Scale); a script's Source is a plain property to plugins.
		if p.Name == "Source" && (reflection.IsA(className, "LuaSourceContainer")) {
			return "w"
		}
	}
	return ""
}

func typeName(p *reflection.Property) string {
	if p.Type.Kind == reflection.EnumKind {
		return "@" + p.Type.Name
	}
	return p.Type.Name
}

// refType is the type of a Ref property scripts can write: "Ref" when it takes any
// Instance, else "Ref/Class" (refClasses).
func refType(className string, p *reflection.Property) (string, error) {
	cls, ok := refClasses[className+"."+p.Name]
	if !ok {
		return "", fmt.Errorf("%s.%s: a writable Ref property refClasses does not name", className, p.Name)
	}
	if cls == "Instance" {
		return "Ref", nil
	}
	return "Ref/" + cls, nil
}

// tagged rewrites a default's JSON in the tagged encoding the host and plugin share:
// null, serde's form of a non-finite float, becomes "inf" (or "-inf"), and the object
// keys are sorted.
func tagged(v any, negInf bool) any {
	switch v := v.(type) {
	case nil:
		if negInf {
			return "-inf"
		}
		return "inf"
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = tagged(x, negInf)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = tagged(x, negInf)
		}
		return out
	}
	return v
}

// Generate returns the source of Data.luau.
func Generate() ([]byte, error) {
	var values []string
	index := map[string]int{}
	valueOf := func(raw json.RawMessage, negInf bool) (int, error) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return 0, err
		}
		enc, err := json.Marshal(tagged(v, negInf))
		if err != nil {
			return 0, err
		}
		s := string(enc)
		if i, ok := index[s]; ok {
			return i, nil
		}
		values = append(values, s)
		index[s] = len(values)
		return len(values), nil
	}

	var classes strings.Builder
	for _, name := range reflection.Classes() {
		c, _ := reflection.LookupClass(name)
		var tags []string
		if c.HasTag("Service") {
			tags = append(tags, "S")
		}
		if c.HasTag("NotCreatable") {
			tags = append(tags, "N")
		}
		var props []string
		for _, pn := range slices.Sorted(maps.Keys(c.Properties)) {
			p := c.Properties[pn]
			a := access(name, p)
			if a == "" {
				continue
			}
			if p.AliasFor != "" {
				canon, ok := reflection.LookupProperty(name, p.AliasFor)
				if !ok || access(name, canon) == "" {
					continue
				}
				props = append(props, pn+">"+p.AliasFor)
				continue
			}
			typ := typeName(p)
			if typ == "Ref" && a == "w" {
				t, err := refType(name, p)
				if err != nil {
					return nil, err
				}
				typ = t
			}
			props = append(props, pn+":"+typ+":"+a)
		}
		var defaults []string
		for _, pn := range slices.Sorted(maps.Keys(c.Defaults)) {
			p, ok := reflection.LookupProperty(name, pn)
			if !ok || p.AliasFor != "" || access(name, p) == "" {
				continue
			}
			i, err := valueOf(c.Defaults[pn], negativeInfinity[name+"."+pn])
			if err != nil {
				return nil, fmt.Errorf("%s.%s default: %w", name, pn, err)
			}
			defaults = append(defaults, fmt.Sprintf("%s=%d", pn, i))
		}
		fmt.Fprintf(&classes, "C\t%s\t%s\t%s\t%s\t%s\n", name, c.Superclass,
			strings.Join(tags, ""), strings.Join(props, ";"), strings.Join(defaults, ";"))
	}

	var enums strings.Builder
	for _, name := range reflection.Enums() {
		e, _ := reflection.LookupEnum(name)
		items := slices.Sorted(maps.Keys(e.Items))
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = fmt.Sprintf("%s=%d", it, e.Items[it])
		}
		fmt.Fprintf(&enums, "E\t%s\t%s\n", name, strings.Join(parts, ";"))
	}

	var body strings.Builder
	fmt.Fprintf(&body, "version\t%s\n", reflection.Version())
	for i, v := range values {
		fmt.Fprintf(&body, "V\t%d\t%s\n", i+1, v)
	}
	body.WriteString(classes.String())
	body.WriteString(enums.String())
	text := body.String()
	for _, field := range strings.FieldsFunc(text, func(r rune) bool { return r == '\t' || r == '\n' }) {
		if strings.ContainsAny(field, "\r\x00") {
			return nil, fmt.Errorf("a field holds a control character: %q", field)
		}
	}
	level := "=="
	for strings.Contains(text, "]"+level+"]") {
		level += "="
	}

	var out strings.Builder
	fmt.Fprintf(&out, `--!nocheck
-- Code generated by plugin/emulator/gen from the reflection database of dom/reflection
-- (rbx-dom's, Roblox %s). DO NOT EDIT.
--
-- One long string (Luau compiles it in a few milliseconds; a table constructor of the
-- same data takes hundreds), read by Reflection.luau, which finds a record when it is
-- first needed. One record a line, fields separated by tabs:
--   V  N  value   value N, a class default in the tagged encoding (JSON; "inf" for
--                 infinity)
--   C  name  superclass  tags  properties  defaults
--        tags: S a service, N not creatable with Instance.new
--        properties: "Name:Type:access;…", Type a tagged type name or @EnumName
--          (Ref/Class: a Ref that takes only instances of Class),
--          access w (scripts read and write) or r (read only); "alias>Canonical" for
--          an alias. Only the properties scripts can reach are listed.
--        defaults: "Name=N;…"
--   E  name  items  "Item=value;…", Studio's values
return [%s[
%s]%s]
`, reflection.Version(), level, text, level)
	return []byte(out.String()), nil
}
