package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
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

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var luauKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true, "false": true,
	"for": true, "function": true, "if": true, "in": true, "local": true, "nil": true, "not": true,
	"or": true, "repeat": true, "return": true, "then": true, "true": true, "until": true, "while": true,
	"continue": true, "export": true, "type": true,
}

func key(s string) string {
	if identifier.MatchString(s) && !luauKeywords[s] {
		return s
	}
	return "[" + quote(s) + "]"
}

// quote writes s as a Luau string literal: quotes, backslashes and control bytes
// escaped, every other byte as it is.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// luau writes a JSON value (a tagged default) as a Luau constructor; null, serde's
// form of a non-finite float, becomes math.huge or -math.huge.
func luau(b *strings.Builder, v any, negInf bool) {
	switch v := v.(type) {
	case nil:
		if negInf {
			b.WriteString("-math.huge")
		} else {
			b.WriteString("math.huge")
		}
	case bool:
		fmt.Fprint(b, v)
	case json.Number:
		b.WriteString(v.String())
	case string:
		b.WriteString(quote(v))
	case []any:
		b.WriteByte('{')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			luau(b, x, negInf)
		}
		b.WriteByte('}')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(key(k))
			b.WriteString(" = ")
			luau(b, v[k], negInf)
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("unexpected JSON value %T", v))
	}
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
		var b strings.Builder
		luau(&b, v, negInf)
		s := b.String()
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
			props = append(props, pn+":"+typeName(p)+":"+a)
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
		fmt.Fprintf(&classes, "\t\t%s = { %s, %s, %s, %s },\n", key(name), quote(c.Superclass),
			quote(strings.Join(tags, "")), quote(strings.Join(props, ";")), quote(strings.Join(defaults, ";")))
	}

	var enums strings.Builder
	for _, name := range reflection.Enums() {
		e, _ := reflection.LookupEnum(name)
		items := slices.Sorted(maps.Keys(e.Items))
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = fmt.Sprintf("%s=%d", it, e.Items[it])
		}
		fmt.Fprintf(&enums, "\t\t%s = %s,\n", key(name), quote(strings.Join(parts, ";")))
	}

	var out strings.Builder
	fmt.Fprintf(&out, `--!nocheck
-- Code generated by plugin/emulator/gen from the reflection database of dom/reflection
-- (rbx-dom's, Roblox %s). DO NOT EDIT.
--
-- classes[name] = {superclass, tags, properties, defaults}
--   tags: S a service, N not creatable with Instance.new
--   properties: "Name:Type:access;…", Type a tagged type name or @EnumName, access w
--     (scripts read and write) or r (read only); "alias>Canonical" for an alias. Only
--     the properties scripts can reach are listed.
--   defaults: "Name=i;…", i an index into values
-- values[i]: a default in the tagged form of ROJO_FORMAT §4.1 (math.huge: infinity)
-- enums[name] = "Item=value;…", Studio's values

return {
	version = %s,
	values = {
`, reflection.Version(), quote(reflection.Version()))
	for _, v := range values {
		fmt.Fprintf(&out, "\t\t%s,\n", v)
	}
	out.WriteString("\t},\n\tclasses = {\n")
	out.WriteString(classes.String())
	out.WriteString("\t},\n\tenums = {\n")
	out.WriteString(enums.String())
	out.WriteString("\t},\n}\n")
	return []byte(out.String()), nil
}
