package project

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/google/go-cmp/cmp"
)

// placeProject is the project file most tests start from: a place whose
// ReplicatedStorage is the folder src, and a Workspace declared in the file.
const placeProject = `{
  // the place
  "name": "Game",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "$path": "src" },
    "Workspace": {
      "$properties": {
        "Gravity": 196.2, // earth
      },
      "Spawn": { "$className": "SpawnLocation", "$properties": { "Anchored": true } },
    },
  },
}
`

// setup writes files (plus placeProject unless files has its own project file)
// into a temporary folder and loads it.
func setup(t *testing.T, files map[string]string) (string, *Project) {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"default.project.json": placeProject, "src/": ""}
	maps.Copy(all, files)
	for name, content := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, load(t, dir)
}

func load(t *testing.T, dir string) *Project {
	t.Helper()
	p, err := Load(os.DirFS(dir), "default.project.json", Options{DirName: "game"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func find(t *testing.T, p *Project, path string) *dom.Instance {
	t.Helper()
	inst := p.Root.Find(strings.Split(path, "/")...)
	if inst == nil {
		t.Fatalf("no instance %s in the project", path)
	}
	return inst
}

// apply performs ops on dir the way the apply transaction does: it checks each
// Expect against the bytes on disk first.
func apply(t *testing.T, dir string, ops []FileOp) {
	t.Helper()
	for _, op := range ops {
		p := filepath.Join(dir, filepath.FromSlash(op.Path))
		if op.Dir {
			if op.Expect != "" || op.Data != nil {
				t.Fatalf("op %s: a folder op carries Expect or Data", op.Path)
			}
			if op.Delete {
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatalf("op %s: %v", op.Path, err)
			}
			continue
		}
		cur, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if op.Expect != "" {
				t.Fatalf("op %s expects blob %s, but the file does not exist", op.Path, op.Expect)
			}
		case err != nil:
			t.Fatal(err)
		case op.Expect != gitblob.Hash(cur):
			t.Fatalf("op %s expects blob %q, the file is %s", op.Path, op.Expect, gitblob.Hash(cur))
		}
		if op.Delete {
			if op.Data != nil {
				t.Fatalf("op %s: a delete carries data", op.Path)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, op.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
	return err == nil
}

func TestPullEdit(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		path  string
		set   map[string]dom.Value // Studio's values; nil means Studio has none
		want  map[string]string    // files and their exact content afterwards
	}{
		{
			name:  "script source",
			files: map[string]string{"src/Mod.luau": "return 1\n"},
			path:  "ReplicatedStorage/Mod",
			set:   map[string]dom.Value{"Source": dom.String("local x = 2\nreturn x\n")},
			want:  map[string]string{"src/Mod.luau": "local x = 2\nreturn x\n"},
		},
		{
			name:  "script source keeps CRLF",
			files: map[string]string{"src/Main.server.luau": "print(1)\r\nprint(2)\r\n"},
			path:  "ReplicatedStorage/Main",
			set:   map[string]dom.Value{"Source": dom.String("print(1)\nprint(3)\nprint(4)")},
			want:  map[string]string{"src/Main.server.luau": "print(1)\r\nprint(3)\r\nprint(4)"},
		},
		{
			name:  "init script source",
			files: map[string]string{"src/Lib/init.luau": "return {}\n", "src/Lib/Helper.luau": "return 1\n"},
			path:  "ReplicatedStorage/Lib",
			set:   map[string]dom.Value{"Source": dom.String("return { version = 2 }\n")},
			want:  map[string]string{"src/Lib/init.luau": "return { version = 2 }\n", "src/Lib/Helper.luau": "return 1\n"},
		},
		{
			name:  "text value",
			files: map[string]string{"src/Motd.txt": "hello"},
			path:  "ReplicatedStorage/Motd",
			set:   map[string]dom.Value{"Value": dom.String("welcome\r\nback")},
			want:  map[string]string{"src/Motd.txt": "welcome\r\nback"},
		},
		{
			name:  "csv contents",
			files: map[string]string{"src/Loc.csv": "Key,Source,Context,Example,fr\nHi,Hello,,,Bonjour\n"},
			path:  "ReplicatedStorage/Loc",
			set: map[string]dom.Value{"Contents": dom.String(
				`[{"key":"Hi","source":"Hello","values":{"de":"Hallo","fr":"Salut"}}]`)},
			want: map[string]string{"src/Loc.csv": "Key,Source,Context,Example,de,fr\nHi,Hello,,,Hallo,Salut\n"},
		},
		{
			name:  "property into a new meta file",
			files: map[string]string{"src/Main.server.luau": "print(1)\n"},
			path:  "ReplicatedStorage/Main",
			set:   map[string]dom.Value{"Disabled": dom.Bool(true)},
			want: map[string]string{"src/Main.meta.json": `{
  "properties": {
    "Disabled": {"Bool": true}
  }
}
`},
		},
		{
			name: "property into a meta file with comments",
			files: map[string]string{
				"src/Main.server.luau": "print(1)\n",
				"src/Main.meta.jsonc": `{
  // set by hand
  "properties": {
    "Disabled": false, // off for now
  },
}
`},
			path: "ReplicatedStorage/Main",
			set:  map[string]dom.Value{"Disabled": dom.Bool(true), "Tags": dom.Tags{"Boot"}},
			want: map[string]string{"src/Main.meta.jsonc": `{
  // set by hand
  "properties": {
    "Disabled": true, // off for now
    "Tags": {"Tags": ["Boot"]},
  },
}
`},
		},
		{
			name:  "folder property into init.meta.json",
			files: map[string]string{"src/Things/A.luau": "return 1\n"},
			path:  "ReplicatedStorage/Things",
			set: map[string]dom.Value{
				"Attributes": dom.Attributes{"Hp": dom.Float64(100), "Team": dom.String("Red")},
				"Tags":       dom.Tags{"Loot"},
			},
			want: map[string]string{"src/Things/init.meta.json": `{
  "attributes": {
    "Hp": {"Float64": 100},
    "Team": {"String": "Red"}
  },
  "properties": {"Tags": {"Tags": ["Loot"]}}
}
`},
		},
		{
			name:  "project node keeps its formatting",
			files: map[string]string{"src/.keep": ""},
			path:  "Workspace",
			set:   map[string]dom.Value{"Gravity": dom.Float32(150), "FallenPartsDestroyHeight": dom.Float32(-50)},
			want: map[string]string{"default.project.json": strings.Replace(placeProject,
				`        "Gravity": 196.2, // earth
      },`, `        "Gravity": 150, // earth
        "FallenPartsDestroyHeight": {"Float32": -50},
      },`, 1)},
		},
		{
			name:  "property of a project-declared child",
			files: map[string]string{"src/.keep": ""},
			path:  "Workspace/Spawn",
			set:   map[string]dom.Value{"Anchored": dom.Bool(false)},
			want: map[string]string{"default.project.json": strings.Replace(placeProject,
				`"$properties": { "Anchored": true }`, `"$properties": { "Anchored": false }`, 1)},
		},
		{
			name: "model file property",
			files: map[string]string{"src/Box.model.json": `{
  "className": "Part",
  "properties": {
    "Anchored": true
  }
}
`},
			path: "ReplicatedStorage/Box",
			set:  map[string]dom.Value{"Anchored": dom.Bool(false), "Size": dom.Vector3{4, 1, 2}},
			want: map[string]string{"src/Box.model.json": `{
  "className": "Part",
  "properties": {
    "Anchored": false,
    "Size": {"Vector3": [4, 1, 2]}
  }
}
`},
		},
		{
			name: "property set by the project over a folder's meta",
			files: map[string]string{
				"default.project.json": `{
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": {
      "$path": "src",
      "$properties": { "Tags": ["Shared"] }
    }
  }
}
`,
				"src/init.meta.json": "{\"properties\": {\"Tags\": [\"Meta\"]}}\n",
			},
			path: "ReplicatedStorage",
			set:  map[string]dom.Value{"Tags": dom.Tags{"Shared", "Net"}},
			want: map[string]string{
				"src/init.meta.json": "{\"properties\": {\"Tags\": [\"Meta\"]}}\n",
				"default.project.json": `{
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": {
      "$path": "src",
      "$properties": { "Tags": ["Shared", "Net"] }
    }
  }
}
`},
		},
		{
			name: "enum keeps the item name",
			files: map[string]string{
				"src/Box.model.json": `{"className": "Part", "properties": {"Material": "Plastic"}}`,
			},
			path: "ReplicatedStorage/Box",
			set:  map[string]dom.Value{"Material": dom.Enum(288)},
			want: map[string]string{"src/Box.model.json": `{"className": "Part", "properties": {"Material": "Neon"}}`},
		},
		{
			name: "property removed in Studio",
			files: map[string]string{
				"src/Main.server.luau": "print(1)\n",
				"src/Main.meta.json": `{
  "properties": {
    "Disabled": true,
    "Tags": ["A"]
  }
}
`},
			path: "ReplicatedStorage/Main",
			set:  map[string]dom.Value{"Tags": nil},
			want: map[string]string{"src/Main.meta.json": `{
  "properties": {
    "Disabled": true
  }
}
`},
		},
		{
			name: "meta file without properties",
			files: map[string]string{
				"src/Main.server.luau": "print(1)\n",
				"src/Main.meta.json":   "{\n  \"ignoreUnknownInstances\": true\n}\n",
			},
			path: "ReplicatedStorage/Main",
			set:  map[string]dom.Value{"Disabled": dom.Bool(true)},
			want: map[string]string{"src/Main.meta.json": "{\n  \"ignoreUnknownInstances\": true,\n  \"properties\": {\"Disabled\": {\"Bool\": true}}\n}\n"},
		},
		{
			name:  "RunContext a script file implies",
			files: map[string]string{"src/Main.server.luau": "print(1)\n"},
			path:  "ReplicatedStorage/Main",
			set:   map[string]dom.Value{"RunContext": dom.Enum(2)},
			want: map[string]string{"src/Main.server.luau": "print(1)\n", "src/Main.meta.json": `{
  "properties": {
    "RunContext": {"Enum": 2}
  }
}
`},
		},
		{
			name: "model file with legacy keys",
			files: map[string]string{
				"src/Box.model.json": `{"ClassName": "Part", "Properties": {"Anchored": true}}`,
			},
			path: "ReplicatedStorage/Box",
			set:  map[string]dom.Value{"Anchored": dom.Bool(false)},
			want: map[string]string{"src/Box.model.json": `{"ClassName": "Part", "Properties": {"Anchored": false}}`},
		},
		{
			name: "init script property into init.meta.json",
			files: map[string]string{
				"src/Boot/init.server.luau": "print(1)\n",
				"src/Boot/Step.luau":        "return 1\n",
			},
			path: "ReplicatedStorage/Boot",
			set:  map[string]dom.Value{"Disabled": dom.Bool(true)},
			want: map[string]string{"src/Boot/init.meta.json": `{
  "properties": {
    "Disabled": {"Bool": true}
  }
}
`},
		},
		{
			name: "init script property where a meta file inside sets it",
			files: map[string]string{
				"src/Boot/init.server.luau": "print(1)\n",
				"src/Boot/Boot.meta.json":   `{"properties": {"Disabled": false}}`,
			},
			path: "ReplicatedStorage/Boot",
			set:  map[string]dom.Value{"Disabled": dom.Bool(true)},
			want: map[string]string{"src/Boot/Boot.meta.json": `{"properties": {"Disabled": true}}`},
		},
		{
			name: "attributes removed in Studio",
			files: map[string]string{
				"src/Things/A.luau":         "return 1\n",
				"src/Things/init.meta.json": "{\n  \"attributes\": {\"Hp\": 5},\n  \"properties\": {\"Tags\": [\"T\"]}\n}\n",
			},
			path: "ReplicatedStorage/Things",
			set:  map[string]dom.Value{"Attributes": nil},
			want: map[string]string{"src/Things/init.meta.json": "{\n  \"properties\": {\"Tags\": [\"T\"]}\n}\n"},
		},
		{
			name: "attribute shorthand kept",
			files: map[string]string{
				"src/Things/A.luau":         "return 1\n",
				"src/Things/init.meta.json": "{\"attributes\": {\"Hp\": 5, \"Team\": \"Red\"}}\n",
			},
			path: "ReplicatedStorage/Things",
			set:  map[string]dom.Value{"Attributes": dom.Attributes{"Hp": dom.Float64(7), "Team": dom.String("Red"), "Box": dom.Vector3{1, 2, 3}}},
			want: map[string]string{"src/Things/init.meta.json": "{\"attributes\": {\"Box\": {\"Vector3\": [1, 2, 3]}, \"Hp\": 7, \"Team\": \"Red\"}}\n"},
		},
		{
			name:  "unchanged value writes nothing",
			files: map[string]string{"src/Mod.luau": "return 1\n"},
			path:  "ReplicatedStorage/Mod",
			set:   map[string]dom.Value{"Source": dom.String("return 1\n")},
			want:  map[string]string{"src/Mod.luau": "return 1\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			disk := find(t, p, tt.path)
			studio := disk.Clone()
			fields := slices.Sorted(maps.Keys(tt.set))
			for _, f := range fields {
				if v := tt.set[f]; v == nil {
					delete(studio.Properties, f)
				} else {
					studio.Properties[f] = v
				}
			}
			ops, err := PullEdit(p, os.DirFS(dir), disk, studio, fields)
			if err != nil {
				t.Fatalf("PullEdit: %v", err)
			}
			apply(t, dir, ops)
			for name, want := range tt.want {
				if diff := cmp.Diff(want, readFile(t, dir, name)); diff != "" {
					t.Errorf("%s after PullEdit (-want +got):\n%s", name, diff)
				}
			}
			got := find(t, load(t, dir), tt.path)
			for _, f := range fields {
				if want := tt.set[f]; !dom.Equal(got.Properties[f], want) {
					t.Errorf("reloaded %s.%s = %v, want %v", tt.path, f, got.Properties[f], want)
				}
			}
			again, err := PullEdit(p, os.DirFS(dir), got, studio, fields)
			if err != nil || len(again) != 0 {
				t.Errorf("PullEdit after applying = %v, %v; want no ops", again, err)
			}
		})
	}
}

func TestPullEditRefusals(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		path   string
		field  string
		value  dom.Value
		reason string
	}{
		{"generated json module", map[string]string{"src/Data.json": `{"a": 1}`},
			"ReplicatedStorage/Data", "Source", dom.String("return {}"), ReasonGeneratedSource},
		{"generated toml module", map[string]string{"src/Cfg.toml": "a = 1\n"},
			"ReplicatedStorage/Cfg", "Source", dom.String("return {}"), ReasonGeneratedSource},
		{"class change", map[string]string{"src/Mod.luau": "return 1\n"},
			"ReplicatedStorage/Mod", "ClassName", nil, ReasonClassChanged},
		{"instance inside a model file",
			map[string]string{"src/Car.model.json": `{"className": "Model", "children": [{"name": "Seat", "className": "Seat"}]}`},
			"ReplicatedStorage/Car/Seat", "Anchored", dom.Bool(true), ReasonInModelFile},
		{"source not sent", map[string]string{"src/Mod.luau": "return 1\n"},
			"ReplicatedStorage/Mod", "Source", nil, ReasonSourceNotLoaded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			disk := find(t, p, tt.path)
			studio := disk.Clone()
			if tt.field == "ClassName" {
				studio.ClassName = "Script"
			} else if tt.value == nil {
				delete(studio.Properties, tt.field)
			} else {
				studio.Properties[tt.field] = tt.value
			}
			ops, err := PullEdit(p, os.DirFS(dir), disk, studio, []string{tt.field})
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("PullEdit = %v, %v; want a refusal %s", ops, err, tt.reason)
			}
			if r.Reason != tt.reason || r.Path != tt.path || r.Msg == "" {
				t.Errorf("PullEdit refusal = %+v, want reason %s at %s with a message", r, tt.reason, tt.path)
			}
		})
	}
}

// newInst builds a Studio instance: props, then children.
func newInst(name, class string, props dom.Properties, children ...*dom.Instance) *dom.Instance {
	inst := dom.New(name, class)
	maps.Copy(inst.Properties, props)
	for _, c := range children {
		inst.AddChild(c)
	}
	return inst
}

// checkTree reports where got differs from want: names, classes, children, and
// every property want has.
func checkTree(t *testing.T, got, want *dom.Instance) {
	t.Helper()
	if got.ClassName != want.ClassName {
		t.Errorf("%s: class = %s, want %s", want.Path(), got.ClassName, want.ClassName)
	}
	for k, v := range want.Properties {
		if _, ok := got.Properties[k]; !ok && notSaved(want.ClassName, k, v) {
			continue
		}
		if !dom.Equal(got.Properties[k], v) {
			t.Errorf("%s: %s = %#v, want %#v", want.Path(), k, got.Properties[k], v)
		}
	}
	var gotNames, wantNames []string
	for _, c := range got.Children {
		gotNames = append(gotNames, c.Name)
	}
	for _, c := range want.Children {
		wantNames = append(wantNames, c.Name)
	}
	slices.Sort(gotNames)
	slices.Sort(wantNames)
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("%s: children (-want +got):\n%s", want.Path(), diff)
		return
	}
	for _, wc := range want.Children {
		checkTree(t, got.FindChild(wc.Name), wc)
	}
}

// notSaved reports whether PullAdd leaves the property out: Roblox does not save
// it, or v is the class's default.
func notSaved(class, prop string, v dom.Value) bool {
	if p, ok := reflection.LookupProperty(class, prop); ok && !p.Serializes {
		return true
	}
	raw, ok := reflection.Default(class, prop)
	if !ok {
		return false
	}
	d, err := dom.Unmarshal(raw)
	return err == nil && dom.Equal(d, v)
}

func src(s string) dom.Properties { return dom.Properties{"Source": dom.String(s)} }

func TestPullAdd(t *testing.T) {
	const noLegacy = `{
  "emitLegacyScripts": false,
  "tree": { "$className": "DataModel", "ReplicatedStorage": { "$path": "src" } }
}
`
	tests := []struct {
		name    string
		project string // "" for placeProject
		parent  string
		studio  *dom.Instance
		files   []string // files and folders the add must create
	}{
		{
			name: "module script", parent: "ReplicatedStorage",
			studio: newInst("Util", "ModuleScript", src("return {}\n")),
			files:  []string{"src/Util.luau"},
		},
		{
			name: "script without RunContext", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", src("print(1)\n")),
			files:  []string{"src/Main.server.luau"},
		},
		{
			name: "script with legacy RunContext", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(0)}),
			files:  []string{"src/Main.server.luau"},
		},
		{
			name: "script with server RunContext", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(1)}),
			files:  []string{"src/Main.server.luau", "src/Main.meta.json"},
		},
		{
			name: "script with client RunContext", parent: "ReplicatedStorage",
			studio: newInst("Input", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(2)}),
			files:  []string{"src/Input.server.luau", "src/Input.meta.json"},
		},
		{
			name: "script with client RunContext without legacy scripts", project: noLegacy, parent: "ReplicatedStorage",
			studio: newInst("Input", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(2)}),
			files:  []string{"src/Input.client.luau"},
		},
		{
			name: "script with server RunContext without legacy scripts", project: noLegacy, parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(1)}),
			files:  []string{"src/Main.server.luau"},
		},
		{
			name: "script with plugin RunContext", parent: "ReplicatedStorage",
			studio: newInst("Tool", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(3)}),
			files:  []string{"src/Tool.plugin.luau"},
		},
		{
			name: "local script", parent: "ReplicatedStorage",
			studio: newInst("Camera", "LocalScript", src("print(1)\n")),
			files:  []string{"src/Camera.client.luau"},
		},
		{
			name: "script with more properties", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "Disabled": dom.Bool(true),
				"Attributes": dom.Attributes{"Level": dom.Float64(3)}}),
			files: []string{"src/Main.server.luau", "src/Main.meta.json"},
		},
		{
			name: "folder with children", parent: "ReplicatedStorage",
			studio: newInst("Assets", "Folder", nil,
				newInst("Config", "ModuleScript", src("return { speed = 16 }\n")),
				newInst("Greeting", "StringValue", dom.Properties{"Value": dom.String("hi")}),
				newInst("Empty", "Folder", nil),
				newInst("Nested", "Folder", dom.Properties{"Tags": dom.Tags{"Deep"}},
					newInst("Leaf", "ModuleScript", src("return 1\n")))),
			files: []string{"src/Assets/", "src/Assets/Config.luau", "src/Assets/Greeting.txt", "src/Assets/Empty/",
				"src/Assets/Nested/", "src/Assets/Nested/init.meta.json", "src/Assets/Nested/Leaf.luau"},
		},
		{
			name: "default and unsaved properties are left out", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "Disabled": dom.Bool(false),
				"RunContext": dom.Enum(0), "Tags": dom.Tags{}, "Attributes": dom.Attributes{}},
				newInst("Block", "Part", dom.Properties{"Anchored": dom.Bool(false), "Position": dom.Vector3{1, 2, 3},
					"BrickColor": dom.BrickColor(194), "Transparency": dom.Float32(0.5)})),
			files: []string{"src/Main/", "src/Main/init.server.luau", "src/Main/Block.model.json"},
		},
		{
			name: "string value", parent: "ReplicatedStorage",
			studio: newInst("Motd", "StringValue", dom.Properties{"Value": dom.String("line 1\nline 2\n")}),
			files:  []string{"src/Motd.txt"},
		},
		{
			name: "localization table", parent: "ReplicatedStorage",
			studio: newInst("Loc", "LocalizationTable", dom.Properties{"Contents": dom.String(
				`[{"key":"Hi","source":"Hello","values":{"fr":"Bonjour"}}]`)}),
			files: []string{"src/Loc.csv"},
		},
		{
			name: "part as a model file", parent: "ReplicatedStorage",
			studio: newInst("Lava", "Part", dom.Properties{
				"Anchored": dom.Bool(true), "Size": dom.Vector3{8, 1, 8}, "Material": dom.Enum(288),
				"Color":      dom.Color3{1, 0.25, 0},
				"CFrame":     dom.CFrame{Position: [3]float32{0, 5, 0}, Orientation: dom.IdentityCFrame.Orientation},
				"Attributes": dom.Attributes{"Damage": dom.Float64(10)},
			}, newInst("Glow", "PointLight", dom.Properties{"Brightness": dom.Float32(2)})),
			files: []string{"src/Lava.model.json"},
		},
		{
			name: "script with a child", parent: "ReplicatedStorage",
			studio: newInst("Main", "Script", src("print(require(script.Util))\n"),
				newInst("Util", "ModuleScript", src("return 1\n"))),
			files: []string{"src/Main/", "src/Main/init.server.luau", "src/Main/Util.luau"},
		},
		{
			name: "model holding a script", parent: "ReplicatedStorage",
			studio: newInst("Door", "Model", dom.Properties{"Tags": dom.Tags{"Door"}},
				newInst("Open", "Script", src("print('open')\n")),
				newInst("Frame", "Part", dom.Properties{"Anchored": dom.Bool(true)})),
			files: []string{"src/Door/", "src/Door/init.meta.json", "src/Door/Open.server.luau", "src/Door/Frame.model.json"},
		},
		{
			name: "markup characters in a model file", parent: "ReplicatedStorage",
			studio: newInst("Sign", "Model", nil,
				newInst("Text", "StringValue", dom.Properties{"Value": dom.String("<b>a & b</b>")})),
			files: []string{"src/Sign.model.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"src/Existing.luau": "return 0\n"}
			if tt.project != "" {
				files["default.project.json"] = tt.project
			}
			dir, p := setup(t, files)
			ops, err := PullAdd(p, os.DirFS(dir), find(t, p, tt.parent), tt.studio)
			if err != nil {
				t.Fatalf("PullAdd: %v", err)
			}
			var paths []string
			for _, op := range ops {
				if op.Delete || op.Expect != "" {
					t.Errorf("PullAdd op %+v: want a new file or folder", op)
				}
				if op.Dir {
					paths = append(paths, op.Path+"/")
				} else {
					paths = append(paths, op.Path)
				}
			}
			if diff := cmp.Diff(slices.Sorted(slices.Values(tt.files)), slices.Sorted(slices.Values(paths))); diff != "" {
				t.Errorf("PullAdd paths (-want +got):\n%s", diff)
			}
			apply(t, dir, ops)
			parent := tt.studio
			parent.Parent = nil
			checkTree(t, find(t, load(t, dir), tt.parent+"/"+tt.studio.Name), tt.studio)
		})
	}
}

func TestPullAddFiles(t *testing.T) {
	dir, p := setup(t, nil)
	part := newInst("Lava", "Part", dom.Properties{"Anchored": dom.Bool(true), "Size": dom.Vector3{8, 1, 8},
		"Position": dom.Vector3{0, 5, 0}, "CastShadow": dom.Bool(true)},
		newInst("Glow", "PointLight", dom.Properties{"Brightness": dom.Float32(2)}),
		newInst("Note", "StringValue", dom.Properties{"Value": dom.String("<b>hot</b> & bright")}))
	ops, err := PullAdd(p, os.DirFS(dir), find(t, p, "ReplicatedStorage"), part)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "className": "Part",
  "properties": {
    "Anchored": {"Bool": true},
    "Size": {"Vector3": [8, 1, 8]}
  },
  "children": [
    {
      "name": "Glow",
      "className": "PointLight",
      "properties": {
        "Brightness": {"Float32": 2}
      }
    },
    {
      "name": "Note",
      "className": "StringValue",
      "properties": {
        "Value": {"String": "<b>hot</b> & bright"}
      }
    }
  ]
}
`
	if len(ops) != 1 {
		t.Fatalf("PullAdd = %d ops, want 1", len(ops))
	}
	if diff := cmp.Diff(want, string(ops[0].Data)); diff != "" {
		t.Errorf("model file (-want +got):\n%s", diff)
	}
}

func TestPullAddRefusals(t *testing.T) {
	noLegacy := `{"emitLegacyScripts": false, "tree": {"$className": "DataModel", "ReplicatedStorage": {"$path": "src"}}}`
	tests := []struct {
		name   string
		files  map[string]string
		parent string
		studio *dom.Instance
		reason string
	}{
		{"parent declared in the project", nil, "Workspace",
			newInst("Util", "ModuleScript", src("")), ReasonParentNotAFolder},
		{"parent is a script file", map[string]string{"src/Main.server.luau": ""}, "ReplicatedStorage/Main",
			newInst("Util", "ModuleScript", src("")), ReasonParentNotAFolder},
		{"parent is a model file", map[string]string{"src/Car.model.json": `{"className": "Model"}`}, "ReplicatedStorage/Car",
			newInst("Wheel", "Part", nil), ReasonParentNotAFolder},
		{"slash in the name", nil, "ReplicatedStorage", newInst("a/b", "ModuleScript", src("")), ReasonUnsafeName},
		{"colon in the name", nil, "ReplicatedStorage", newInst("Ratio:1", "Folder", nil), ReasonUnsafeName},
		{"reserved name", nil, "ReplicatedStorage", newInst("con", "ModuleScript", src("")), ReasonUnsafeName},
		{"reserved name with a dot", nil, "ReplicatedStorage", newInst("NUL.data", "StringValue", nil), ReasonUnsafeName},
		{"trailing dot", nil, "ReplicatedStorage", newInst("Menu.", "Part", nil), ReasonUnsafeName},
		{"name that reads as another rule", nil, "ReplicatedStorage",
			newInst("Boot.server", "ModuleScript", src("")), ReasonUnsafeName},
		{"name of an init file", nil, "ReplicatedStorage", newInst("init", "ModuleScript", src("")), ReasonUnsafeName},
		{"unsafe name deep in the tree", nil, "ReplicatedStorage",
			newInst("Ok", "Folder", nil, newInst("Bad|Name", "Folder", nil)), ReasonUnsafeName},
		{"file exists with another case", map[string]string{"src/util.luau": "return 1\n"}, "ReplicatedStorage",
			newInst("Util", "ModuleScript", src("")), ReasonPathExists},
		{"meta file already there", map[string]string{"src/Util.meta.json": `{"properties": {}}`}, "ReplicatedStorage",
			newInst("Util", "ModuleScript", src("")), ReasonPathExists},
		{"folder in the way of the file", map[string]string{"src/Notes.txt/": ""}, "ReplicatedStorage",
			newInst("Notes", "StringValue", nil), ReasonPathExists},
		{"folder named like a meta file", nil, "ReplicatedStorage",
			newInst("Ui.meta.json", "Folder", nil), ReasonUnsafeName},
		{"sibling with the same name", map[string]string{"src/Util.txt": "x"}, "ReplicatedStorage",
			newInst("Util", "ModuleScript", src("")), ReasonDuplicateName},
		{"children with the same name", nil, "ReplicatedStorage",
			newInst("Set", "Folder", nil, newInst("A", "Folder", nil), newInst("A", "ModuleScript", src(""))), ReasonDuplicateName},
		{"local script without legacy scripts", map[string]string{"default.project.json": noLegacy}, "ReplicatedStorage",
			newInst("Cam", "LocalScript", src("")), ReasonNoFileForm},
		{"script without its source", nil, "ReplicatedStorage", newInst("Main", "Script", nil), ReasonSourceNotLoaded},
		{"reserved attribute name", nil, "ReplicatedStorage",
			newInst("Box", "Part", dom.Properties{"Attributes": dom.Attributes{"RBXSecret": dom.Bool(true)}}), ReasonUnwritableValue},
		{"value with no JSON form", nil, "ReplicatedStorage",
			newInst("N", "NumberValue", dom.Properties{"Value": dom.Float64(math.NaN())}), ReasonUnwritableValue},
		{"infinite attribute", nil, "ReplicatedStorage",
			newInst("Box", "Part", dom.Properties{"Attributes": dom.Attributes{"Range": dom.Float64(math.Inf(1))}}), ReasonUnwritableValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			ops, err := PullAdd(p, os.DirFS(dir), find(t, p, tt.parent), tt.studio)
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("PullAdd = %v, %v; want a refusal %s", ops, err, tt.reason)
			}
			if r.Reason != tt.reason || r.Msg == "" || !strings.HasPrefix(r.Path, tt.parent+"/") {
				t.Errorf("PullAdd refusal = %+v, want reason %s under %s with a message", r, tt.reason, tt.parent)
			}
		})
	}
}

func TestPullRemove(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		path  string
		gone  []string // files and folders removed
		kept  []string // files that stay
	}{
		{
			name: "script with its meta file",
			files: map[string]string{
				"src/Main.server.luau": "print(1)\n", "src/Main.meta.json": `{"properties": {"Disabled": true}}`,
				"src/Other.luau": "return 1\n",
			},
			path: "ReplicatedStorage/Main",
			gone: []string{"src/Main.server.luau", "src/Main.meta.json"},
			kept: []string{"src/Other.luau"},
		},
		{
			name: "meta file shared with a same-named sibling stays",
			files: map[string]string{
				"src/Main.luau": "return 1\n", "src/Main.txt": "x", "src/Main.meta.json": `{"properties": {"Tags": ["A"]}}`,
			},
			path: "ReplicatedStorage/Main",
			gone: []string{"src/Main.luau"},
			kept: []string{"src/Main.txt", "src/Main.meta.json"},
		},
		{
			name:  "model file",
			files: map[string]string{"src/Box.model.json": `{"className": "Part"}`},
			path:  "ReplicatedStorage/Box",
			gone:  []string{"src/Box.model.json"},
		},
		{
			name: "folder",
			files: map[string]string{
				"src/Things/A.luau": "return 1\n", "src/Things/init.meta.json": `{"properties": {"Tags": ["T"]}}`,
				"src/Things/Sub/B.txt": "b", "src/Things/Sub/Empty/": "", "src/Keep.luau": "return 2\n",
			},
			path: "ReplicatedStorage/Things",
			gone: []string{"src/Things"},
			kept: []string{"src/Keep.luau"},
		},
		{
			name:  "script folder",
			files: map[string]string{"src/Main/init.server.luau": "print(1)\n", "src/Main/Util.luau": "return 1\n"},
			path:  "ReplicatedStorage/Main",
			gone:  []string{"src/Main"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			ops, err := PullRemove(p, os.DirFS(dir), find(t, p, tt.path))
			if err != nil {
				t.Fatalf("PullRemove: %v", err)
			}
			for _, op := range ops {
				if !op.Delete || op.Data != nil || (op.Dir != (op.Expect == "")) {
					t.Errorf("PullRemove op %+v: want a delete with Expect for files only", op)
				}
			}
			apply(t, dir, ops)
			for _, f := range tt.gone {
				if exists(dir, f) {
					t.Errorf("%s exists after PullRemove", f)
				}
			}
			for _, f := range tt.kept {
				if !exists(dir, f) {
					t.Errorf("%s is gone after PullRemove", f)
				}
			}
			removed := find(t, p, tt.path).FsPath
			load(t, dir).Root.Walk(func(x *dom.Instance) bool {
				if x.Path() == tt.path && x.FsPath == removed {
					t.Errorf("%s still loads from %s after PullRemove", tt.path, removed)
				}
				return true
			})
		})
	}
}

func TestPullRemoveRefusals(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		path   string
		reason string
	}{
		{"project node", nil, "Workspace/Spawn", ReasonProjectNode},
		{"target of a $path", nil, "ReplicatedStorage", ReasonProjectNode},
		{"inside a model file",
			map[string]string{"src/Car.model.json": `{"className": "Model", "children": [{"name": "Seat", "className": "Seat"}]}`},
			"ReplicatedStorage/Car/Seat", ReasonInModelFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			ops, err := PullRemove(p, os.DirFS(dir), find(t, p, tt.path))
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("PullRemove = %v, %v; want a refusal %s", ops, err, tt.reason)
			}
			if r.Reason != tt.reason || r.Path != tt.path || r.Msg == "" {
				t.Errorf("PullRemove refusal = %+v, want reason %s at %s with a message", r, tt.reason, tt.path)
			}
		})
	}
}

func TestPullRemoveSymlink(t *testing.T) {
	dir, _ := setup(t, map[string]string{"src/Things/A.luau": "return 1\n", "outside/B.luau": "return 2\n"})
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(dir, "src", "Things", "Link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	p := load(t, dir)
	_, err := PullRemove(p, os.DirFS(dir), find(t, p, "ReplicatedStorage/Things"))
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ReasonSymlink {
		t.Errorf("PullRemove of a folder holding a link = %v, want a refusal %s", err, ReasonSymlink)
	}
}

func TestDeleteJSONCMember(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys []string
		want string
	}{
		{"middle member on its own line",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", []string{"b"},
			"{\n  \"a\": 1,\n  \"c\": 3\n}\n"},
		{"last member takes the previous comma",
			"{\n  \"a\": 1,\n  \"b\": 2\n}\n", []string{"b"},
			"{\n  \"a\": 1\n}\n"},
		{"only member",
			"{\n  \"a\": {\"x\": 1}\n}\n", []string{"a"},
			"{\n}\n"},
		{"inline object",
			`{"p": {"a": 1, "b": [1, 2], "c": 3}}`, []string{"p", "b"},
			`{"p": {"a": 1, "c": 3}}`},
		{"comments and trailing commas",
			"{\n  // head\n  \"p\": {\n    \"a\": true, // keep\n    'b': \"}\", /* x */\n  },\n}\n", []string{"p", "b"},
			"{\n  // head\n  \"p\": {\n    \"a\": true, // keep\n  },\n}\n"},
		{"the member's comment goes with it",
			"{\n  \"a\": 1, // about a\r\n  b: 2,\n}", []string{"a"},
			"{\n  b: 2,\n}"},
		{"CRLF",
			"{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", []string{"a"},
			"{\r\n  \"b\": 2\r\n}\r\n"},
		{"a key written twice goes twice",
			`{"a": 1, "b": 0, "a": 2}`, []string{"a"},
			`{"b": 0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := deleteJSONCMember([]byte(tt.in), tt.keys)
			if err != nil {
				t.Fatalf("deleteJSONCMember(%q, %v): %v", tt.in, tt.keys, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("deleteJSONCMember(%q, %v) (-want +got):\n%s", tt.in, tt.keys, diff)
			}
		})
	}
	if _, err := deleteJSONCMember([]byte(`{"a": 1}`), []string{"b"}); err == nil {
		t.Errorf("deleteJSONCMember of a missing key: want an error")
	}
}

func TestCheckName(t *testing.T) {
	for _, name := range []string{"Main", "My Script", "a.b", "Ünïcode", ".hidden", "CONSOLE", "COM10"} {
		if err := checkName(name); err != nil {
			t.Errorf("checkName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "a:b", "a*", "a?", `a"`, "a<", "a>", "a|b",
		"end.", "end ", "tab\t", "CON", "con.txt", "Lpt1", "aux ", "COM3.x"} {
		if err := checkName(name); err == nil {
			t.Errorf("checkName(%q) = nil, want an error", name)
		}
	}
}

func TestPullAddFollowsLuaExtension(t *testing.T) {
	dir, p := setup(t, map[string]string{"src/A.lua": "return 1\n", "src/B.server.lua": "print(1)\n", "src/C.luau": "return 3\n"})
	ops, err := PullAdd(p, os.DirFS(dir), find(t, p, "ReplicatedStorage"), newInst("D", "LocalScript", src("print(4)\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || ops[0].Path != "src/D.client.lua" {
		t.Errorf("PullAdd in a project of .lua files = %+v, want src/D.client.lua", ops)
	}
}

func rbxmxFile(t *testing.T, root *dom.Instance) string {
	t.Helper()
	var b strings.Builder
	if err := rbxmx.Encode(&b, []*dom.Instance{root}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPullRbxmx(t *testing.T) {
	car := rbxmxFile(t, newInst("Car", "Model", nil, newInst("Seat", "Seat", dom.Properties{"Anchored": dom.Bool(true)})))
	project := `{
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "$path": "src" },
    "Workspace": {
      "Truck": { "$path": "truck.rbxmx" }
    }
  }
}
`
	dir, p := setup(t, map[string]string{"default.project.json": project, "src/Car.rbxmx": car, "truck.rbxmx": car})
	fsys := os.DirFS(dir)

	for _, path := range []string{"ReplicatedStorage/Car", "ReplicatedStorage/Car/Seat"} {
		disk := find(t, p, path)
		studio := disk.Clone()
		studio.Properties["Tags"] = dom.Tags{"Fast"}
		_, err := PullEdit(p, fsys, disk, studio, []string{"Tags"})
		var r *Refusal
		if !errors.As(err, &r) || r.Reason != ReasonInModelFile {
			t.Errorf("PullEdit of %s = %v, want a refusal %s", path, err, ReasonInModelFile)
		}
	}

	// A model file reached through $path takes properties in its project node.
	truck := find(t, p, "Workspace/Truck")
	studio := truck.Clone()
	studio.Properties["Tags"] = dom.Tags{"Fast"}
	ops, err := PullEdit(p, fsys, truck, studio, []string{"Tags"})
	if err != nil {
		t.Fatalf("PullEdit of a $path model: %v", err)
	}
	apply(t, dir, ops)
	if got := find(t, load(t, dir), "Workspace/Truck").Properties["Tags"]; !dom.Equal(got, dom.Tags{"Fast"}) {
		t.Errorf("reloaded Workspace/Truck.Tags = %v, want [Fast]", got)
	}

	ops, err = PullRemove(p, fsys, find(t, p, "ReplicatedStorage/Car"))
	if err != nil {
		t.Fatalf("PullRemove of a model file: %v", err)
	}
	apply(t, dir, ops)
	if exists(dir, "src/Car.rbxmx") {
		t.Errorf("src/Car.rbxmx exists after PullRemove")
	}
	_, err = PullRemove(p, fsys, find(t, p, "Workspace/Truck/Seat"))
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ReasonInModelFile {
		t.Errorf("PullRemove inside a model file = %v, want a refusal %s", err, ReasonInModelFile)
	}
}

func TestPullAddNestedProjectSettings(t *testing.T) {
	// The outer project keeps legacy scripts; the package it includes does not.
	dir, p := setup(t, map[string]string{
		"default.project.json":     `{"tree": {"$className": "DataModel", "ReplicatedStorage": {"Pkg": {"$path": "pkg"}}}}`,
		"pkg/default.project.json": `{"emitLegacyScripts": false, "tree": {"$path": "src"}}`,
		"pkg/src/Sub/A.luau":       "return 1\n",
	})
	input := newInst("Input", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(2)})
	ops, err := PullAdd(p, os.DirFS(dir), find(t, p, "ReplicatedStorage/Pkg/Sub"), input)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || ops[0].Path != "pkg/src/Sub/Input.client.luau" {
		t.Errorf("PullAdd into a package without legacy scripts = %+v, want pkg/src/Sub/Input.client.luau alone", ops)
	}
	apply(t, dir, ops)
	checkTree(t, find(t, load(t, dir), "ReplicatedStorage/Pkg/Sub/Input"), input)
}

// benchProject is a project of n scripts in folders of 50.
func benchProject(b *testing.B, n int) (string, *Project) {
	b.Helper()
	dir := b.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("default.project.json", placeProject)
	for i := range n {
		write(fmt.Sprintf("src/F%d/S%d.luau", i/50, i), strings.Repeat("local x = 1\n", 100))
	}
	p, err := Load(os.DirFS(dir), "default.project.json", Options{DirName: "game"})
	if err != nil {
		b.Fatal(err)
	}
	return dir, p
}

func BenchmarkPullEditSource(b *testing.B) {
	dir, p := benchProject(b, 1000)
	fsys := os.DirFS(dir)
	disk := p.Root.Find("ReplicatedStorage", "F3", "S150")
	studio := disk.Clone()
	studio.Properties["Source"] = dom.String("return 2\n")
	for b.Loop() {
		if _, err := PullEdit(p, fsys, disk, studio, []string{"Source"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullEditProperty(b *testing.B) {
	dir, p := benchProject(b, 1000)
	fsys := os.DirFS(dir)
	disk := p.Root.Find("Workspace")
	studio := disk.Clone()
	studio.Properties["Gravity"] = dom.Float32(100)
	for b.Loop() {
		if _, err := PullEdit(p, fsys, disk, studio, []string{"Gravity"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullAddScript(b *testing.B) {
	dir, p := benchProject(b, 1000)
	fsys := os.DirFS(dir)
	parent := p.Root.Find("ReplicatedStorage", "F3")
	inst := newInst("New", "Script", dom.Properties{"Source": dom.String("print(1)\n"), "RunContext": dom.Enum(1)})
	for b.Loop() {
		if _, err := PullAdd(p, fsys, parent, inst); err != nil {
			b.Fatal(err)
		}
	}
}
