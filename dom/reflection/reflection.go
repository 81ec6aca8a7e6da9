package reflection

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/atlas-rbx/atlas/dom/reflection/internal/dbfile"
)

//go:embed database.json.gz
var embeddedDB []byte

//go:embed LICENSE-rbx-dom.txt
var embeddedLicense string

// Kind tells whether a property holds a plain value or an enum item.
type Kind uint8

const (
	// ValueKind: the property holds a value of the type named by DataType.Name.
	ValueKind Kind = iota + 1
	// EnumKind: the property holds an item of the enum named by DataType.Name.
	EnumKind
)

// String returns "Value", "Enum" or "Kind(n)".
func (k Kind) String() string {
	switch k {
	case ValueKind:
		return "Value"
	case EnumKind:
		return "Enum"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// DataType is the type of a property: {ValueKind, "Vector3"} or
// {EnumKind, "Material"}.
type DataType struct {
	Kind Kind
	Name string
}

// String returns the type name, prefixed with "Enum." for enums.
func (t DataType) String() string {
	if t.Kind == EnumKind {
		return "Enum." + t.Name
	}
	return t.Name
}

// Property describes a property of a class. Values returned by this package
// are shared and must not be modified.
type Property struct {
	Name  string
	Class string // declaring class
	Type  DataType
	// Scriptability is the access Lua has: "None", "Read", "ReadWrite",
	// "Write" or "Custom".
	Scriptability string
	// Serializes reports whether the property is written to place and model
	// files (under SerializesAs if set). It is false for aliases, for
	// properties that do not serialize, and for legacy properties that are
	// only migrated when read (see MigrateTo).
	Serializes   bool
	SerializesAs string // name used in files; "" = same name
	AliasFor     string // canonical property this one aliases; "" if canonical
	// MigrateTo and Migration are set for legacy properties that files may
	// still contain: on reading, the value is converted by the named
	// migration (e.g. "BrickColorToColor") into the properties MigrateTo,
	// unless those are already present.
	MigrateTo []string
	Migration string
	Tags      []string // sorted, e.g. "Deprecated", "Hidden", "NotReplicated", "NotScriptable", "ReadOnly"
}

// HasTag reports whether p carries tag.
func (p *Property) HasTag(tag string) bool { return slices.Contains(p.Tags, tag) }

// SerializedName returns the name under which p is written to files:
// SerializesAs if set, otherwise Name. It is meaningful only when
// p.Serializes is true.
func (p *Property) SerializedName() string {
	if p.SerializesAs != "" {
		return p.SerializesAs
	}
	return p.Name
}

// Class describes a class. Properties holds only the properties the class
// declares itself; use LookupProperty to include inherited ones. Defaults
// holds default values as rbx-dom tagged JSON, e.g. {"Vector3":[4,1.2,2]}.
// Values returned by this package are shared and must not be modified.
type Class struct {
	Name, Superclass string
	Tags             []string // sorted, e.g. "Service", "NotCreatable", "Deprecated"
	Properties       map[string]*Property
	Defaults         map[string]json.RawMessage
}

// HasTag reports whether c carries tag.
func (c *Class) HasTag(tag string) bool { return slices.Contains(c.Tags, tag) }

// Enum describes an enum and its items.
type Enum struct {
	Name  string
	Items map[string]uint32
}

// ItemName returns the name of the item with value v. Should several items
// share a value, the alphabetically first name is returned.
func (e *Enum) ItemName(v uint32) (string, bool) {
	name, found := "", false
	for n, x := range e.Items {
		if x == v && (!found || n < name) {
			name, found = n, true
		}
	}
	return name, found
}

type database struct {
	version    string
	classes    map[string]*Class
	enums      map[string]*Enum
	classNames []string
	enumNames  []string
}

// load decodes the embedded database once. The data is generated and
// checked by the tests, so a failure is a build defect and panics.
var load = sync.OnceValue(func() *database {
	db, err := decode(embeddedDB)
	if err != nil {
		panic("reflection: embedded database: " + err.Error())
	}
	return db
})

func decode(gz []byte) (*database, error) {
	f, err := dbfile.Decode(gz)
	if err != nil {
		return nil, err
	}
	db := &database{
		version: dbfile.VersionString(f.Version),
		classes: make(map[string]*Class, len(f.Classes)),
		enums:   make(map[string]*Enum, len(f.Enums)),
	}
	for name, fc := range f.Classes {
		c := &Class{
			Name:       name,
			Superclass: fc.Super,
			Tags:       fc.Tags,
			Properties: make(map[string]*Property, len(fc.Props)),
			Defaults:   fc.Defaults,
		}
		if c.Defaults == nil {
			c.Defaults = map[string]json.RawMessage{}
		}
		props := make([]Property, len(fc.Props))
		i := 0
		for pname, fp := range fc.Props {
			p := &props[i]
			i++
			*p = Property{
				Name:          pname,
				Class:         name,
				Type:          DataType{ValueKind, fp.Value},
				Scriptability: fp.Script,
				Tags:          fp.Tags,
			}
			if fp.Enum != "" {
				p.Type = DataType{EnumKind, fp.Enum}
			}
			switch fp.Ser {
			case dbfile.SerSerializes:
				p.Serializes = true
			case dbfile.SerSerializesAs:
				p.Serializes, p.SerializesAs = true, fp.As
			case dbfile.SerAlias:
				p.AliasFor = fp.Alias
			case dbfile.SerMigrate:
				p.MigrateTo, p.Migration = fp.MigrateTo, fp.Migration
			case dbfile.SerDoesNotSerialize:
			default:
				return nil, fmt.Errorf("%s.%s: unknown serialization %q", name, pname, fp.Ser)
			}
			c.Properties[pname] = p
		}
		db.classes[name] = c
	}
	for name, items := range f.Enums {
		db.enums[name] = &Enum{Name: name, Items: items}
	}
	db.classNames = slices.Sorted(maps.Keys(db.classes))
	db.enumNames = slices.Sorted(maps.Keys(db.enums))
	return db, nil
}

// maxDepth bounds superclass and alias walks against malformed data.
const maxDepth = 64

// Version returns the Roblox version the database describes, e.g.
// "0.728.0.7280895".
func Version() string { return load().version }

// License returns the licence of the embedded rbx-dom data (MIT).
func License() string { return embeddedLicense }

// LookupClass returns the class named name.
func LookupClass(name string) (*Class, bool) {
	c, ok := load().classes[name]
	return c, ok
}

// LookupProperty finds prop on class, then on each superclass in turn.
// Aliases are not followed (Rojo semantics): Part.shape yields the alias
// itself, whose AliasFor is "Shape".
func LookupProperty(class, prop string) (*Property, bool) {
	classes := load().classes
	c := classes[class]
	for range maxDepth {
		if c == nil {
			return nil, false
		}
		if p, ok := c.Properties[prop]; ok {
			return p, true
		}
		c = classes[c.Superclass]
	}
	return nil, false
}

// CanonicalProperty is like LookupProperty but follows AliasFor to the
// canonical property, looked up from class again.
func CanonicalProperty(class, prop string) (*Property, bool) {
	for range maxDepth {
		p, ok := LookupProperty(class, prop)
		if !ok || p.AliasFor == "" {
			return p, ok
		}
		prop = p.AliasFor
	}
	return nil, false
}

// LookupEnum returns the enum named name (without an "Enum." prefix).
func LookupEnum(name string) (*Enum, bool) {
	e, ok := load().enums[name]
	return e, ok
}

// IsService reports whether class is a service (carries the "Service" tag).
func IsService(class string) bool {
	c, ok := LookupClass(class)
	return ok && c.HasTag("Service")
}

// IsA reports whether class is ancestor or inherits from it. Both must be
// known classes.
func IsA(class, ancestor string) bool {
	classes := load().classes
	if classes[ancestor] == nil {
		return false
	}
	c := classes[class]
	for range maxDepth {
		if c == nil {
			return false
		}
		if c.Name == ancestor {
			return true
		}
		c = classes[c.Superclass]
	}
	return false
}

// Default returns the class's default value for prop as rbx-dom tagged
// JSON, e.g. {"Bool":false}, searching the superclasses' defaults too.
func Default(class, prop string) (json.RawMessage, bool) {
	classes := load().classes
	c := classes[class]
	for range maxDepth {
		if c == nil {
			return nil, false
		}
		if v, ok := c.Defaults[prop]; ok {
			return v, true
		}
		c = classes[c.Superclass]
	}
	return nil, false
}

// Classes returns the names of all classes, sorted. The slice is fresh.
func Classes() []string { return slices.Clone(load().classNames) }

// Enums returns the names of all enums, sorted. The slice is fresh.
func Enums() []string { return slices.Clone(load().enumNames) }
