package project

import (
	"fmt"
	"math"
	"sync"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/project/format"
)

// The helpers below expose how a Studio instance becomes files (the rules PullAdd
// follows) to the extraction of a whole place into a new project (package
// project/syncback), so both write the same files for the same instance. They
// assume a project with emitLegacyScripts true and .luau scripts.

// FileForm is how one instance is stored as a file of its own.
type FileForm struct {
	// Ext is the file's suffix (".server.luau", ".client.luau", ".plugin.luau",
	// ".luau", ".txt" or ".csv"); "" when the class has no file form.
	Ext string
	// Data is the file's content.
	Data []byte
	// Props are the properties the file does not hold, for a meta file (without
	// defaults, Refs and what Roblox does not save).
	Props map[string]dom.Value
}

// FormOf returns inst's file form: scripts, StringValue and LocalizationTable have
// one; for any other class Ext is "" and Props holds its writable properties.
func FormOf(inst *dom.Instance) (FileForm, error) {
	props := writableProps(inst)
	switch {
	case inst.IsScript():
		a := &adder{emitLegacy: true, ext: ".luau"}
		suffix, _, err := a.scriptSuffix(inst.Path(), inst, props)
		if err != nil {
			return FileForm{}, err
		}
		src, _ := inst.Source()
		delete(props, "Source")
		return FileForm{Ext: suffix + ".luau", Data: []byte(src), Props: props}, nil
	case inst.ClassName == "StringValue":
		s, ok := inst.Properties.Get("Value").(dom.String)
		if inst.Properties.Get("Value") != nil && !ok {
			return FileForm{Props: props}, nil
		}
		delete(props, "Value")
		return FileForm{Ext: ".txt", Data: []byte(s), Props: props}, nil
	case inst.ClassName == "LocalizationTable":
		contents := "[]"
		if s, ok := inst.Properties.Get("Contents").(dom.String); ok {
			contents = string(s)
		}
		data, err := format.CSVFromLocalization(contents)
		if err != nil {
			return FileForm{Props: props}, nil // no CSV form: a model file keeps it
		}
		delete(props, "Contents")
		return FileForm{Ext: ".csv", Data: data, Props: props}, nil
	}
	return FileForm{Props: props}, nil
}

// CheckFileName refuses an instance name that cannot be a file or folder name on
// every system (separators, reserved device names, trailing dots or spaces…), or
// that the project loader would read as something else (init files, meta files).
func CheckFileName(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if isInitName(name) || isInitName(name+".luau") {
		return fmt.Errorf("the name %q would load as an init file", name)
	}
	return nil
}

// LoadsBackAs reports whether a file named fileName in a plain folder loads as an
// instance named name.
func LoadsBackAs(fileName, name string) bool {
	_, n, ok := classify(&context{}, fileName)
	return ok && n == name && !isInitName(fileName)
}

// ImplicitForm returns the implicit JSON form of v for className.prop (e.g. true,
// "Neon", [1, 2, 3]) when it has one that reads back as exactly v.
func ImplicitForm(className, prop string, v dom.Value) ([]byte, bool) {
	b, ok := implicitForm(className, prop, v)
	return b, ok
}

// WritableProps returns the properties of inst a project file should hold: not
// Name, not nil, not Refs, not those Roblox does not save, not defaults.
func WritableProps(inst *dom.Instance) map[string]dom.Value { return writableProps(inst) }

var defaults sync.Map // class + "\x00" + prop → defaultValue

// defaultOf is the database default of class.prop, decoded once.
func defaultOf(class, prop string) (dom.Value, bool) {
	key := class + "\x00" + prop
	if v, ok := defaults.Load(key); ok {
		d := v.(defaultValue).v
		return d, d != nil
	}
	var d dom.Value
	if raw, ok := reflection.Default(class, prop); ok {
		if v, err := dom.Unmarshal(raw); err == nil {
			d = v
		}
	}
	defaults.Store(key, defaultValue{d})
	return d, d != nil
}

type defaultValue struct{ v dom.Value }

// isDefault is dom.Equal(d, v) without its JSON round trip for the common
// float-array types, which most instances of a place hold.
func isDefault(d, v dom.Value) bool {
	near := func(a, b []float32) bool {
		for i := range a {
			if x, y := float64(a[i]), float64(b[i]); x != y && !(x-y <= dom.Epsilon && y-x <= dom.Epsilon) {
				return false
			}
		}
		return true
	}
	switch dv := d.(type) {
	case dom.CFrame:
		vv, ok := v.(dom.CFrame)
		if !ok {
			return false
		}
		o1, o2 := dv.Orientation, vv.Orientation
		return near(dv.Position[:], vv.Position[:]) && near(o1[0][:], o2[0][:]) && near(o1[1][:], o2[1][:]) && near(o1[2][:], o2[2][:])
	case dom.Color3:
		vv, ok := v.(dom.Color3)
		return ok && near(dv[:], vv[:])
	case dom.Vector2:
		vv, ok := v.(dom.Vector2)
		return ok && near(dv[:], vv[:])
	case dom.Color3uint8:
		switch vv := v.(type) {
		case dom.Color3uint8:
			return dv == vv
		case dom.Color3:
			// Studio reads a part's Color as floats; the database's default is
			// bytes (Medium stone grey, 163 162 165).
			for i := range dv {
				if math.Round(float64(vv[i])*255) != float64(dv[i]) {
					return false
				}
			}
			return true
		}
		return false
	case dom.Int32, dom.Int64, dom.BrickColor:
		return d == v
	}
	return dom.Equal(d, v)
}
