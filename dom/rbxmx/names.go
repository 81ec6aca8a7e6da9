package rbxmx

import (
	"sync"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// fileName returns the name under which className's property prop is written and,
// when the database says the file holds it with another type, that type name
// ("Color3uint8" for BasePart.Color). rank orders candidates that share a file
// name: 0 for a serialized property, 1 for an alias of one, 2 for anything else.
//
// Properties the database says do not serialize are still written, under their
// own name, so that no data is dropped.
func fileName(className, prop string) (name, fileType string, rank int) {
	p, ok := reflection.LookupProperty(className, prop)
	if !ok {
		return prop, "", 2
	}
	rank = 0
	if !p.Serializes && p.AliasFor != "" {
		cp, ok := reflection.CanonicalProperty(className, prop)
		if !ok || !cp.Serializes {
			return prop, "", 2
		}
		p, rank = cp, 1
	}
	if !p.Serializes {
		return prop, "", 2
	}
	name = p.SerializedName()
	if sp, ok := reflection.LookupProperty(className, name); ok && sp.Type.Kind == reflection.ValueKind && sp.Type != p.Type {
		fileType = sp.Type.Name
	}
	return name, fileType, rank
}

// canonicalName maps a name found in a file back to the property it stores, with
// the property's database entry (nil when the database does not know it).
func canonicalName(className, name string) (string, *reflection.Property) {
	if p, ok := reflection.LookupProperty(className, name); ok && p.AliasFor != "" {
		if cp, ok := reflection.CanonicalProperty(className, name); ok {
			return cp.Name, cp
		}
	}
	if canon, ok := serializedNames(className)[name]; ok {
		p, _ := reflection.LookupProperty(className, canon)
		return canon, p
	}
	p, _ := reflection.LookupProperty(className, name)
	return name, p
}

var serializedCache sync.Map // class name → map[string]string

// serializedNames returns, for className and its superclasses, each SerializesAs
// name → the property written under it. A subclass's property wins over its
// superclasses'; within one class the alphabetically first name wins, so the
// result does not depend on map order.
func serializedNames(className string) map[string]string {
	if m, ok := serializedCache.Load(className); ok {
		return m.(map[string]string)
	}
	if _, ok := reflection.LookupClass(className); !ok {
		return nil // not cached: class names in files are arbitrary
	}
	m := map[string]string{}
	seen := map[string]bool{}
	for c, ok := reflection.LookupClass(className); ok && !seen[c.Name]; c, ok = reflection.LookupClass(c.Superclass) {
		seen[c.Name] = true
		own := map[string]string{}
		for _, p := range c.Properties {
			if !p.Serializes || p.SerializesAs == "" {
				continue
			}
			if cur, dup := own[p.SerializesAs]; !dup || p.Name < cur {
				own[p.SerializesAs] = p.Name
			}
		}
		for as, name := range own {
			if _, done := m[as]; !done {
				m[as] = name
			}
		}
	}
	serializedCache.Store(className, m)
	return m
}

// dbType returns the type name of a database property: the value type, or "Enum".
func dbType(p *reflection.Property) string {
	if p == nil {
		return ""
	}
	if p.Type.Kind == reflection.EnumKind {
		return "Enum"
	}
	return p.Type.Name
}
