package project

import (
	"fmt"

	"github.com/atlas-rbx/atlas/dom"
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
		s, ok := inst.Properties["Value"].(dom.String)
		if inst.Properties["Value"] != nil && !ok {
			return FileForm{Props: props}, nil
		}
		delete(props, "Value")
		return FileForm{Ext: ".txt", Data: []byte(s), Props: props}, nil
	case inst.ClassName == "LocalizationTable":
		contents := "[]"
		if s, ok := inst.Properties["Contents"].(dom.String); ok {
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
