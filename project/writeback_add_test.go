package project

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

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
				"Color":      dom.Color3{1, 64.0 / 255, 0}, // as Studio holds it: a 255th
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
		{"file the project's globIgnorePaths ignore",
			map[string]string{"default.project.json": `{"globIgnorePaths": ["**/*.spec.luau"], "tree": {"$className": "DataModel", "ReplicatedStorage": {"$path": "src"}}}`},
			"ReplicatedStorage", newInst("Foo.spec", "ModuleScript", src("")), ReasonIgnoredPath},
		{"file a nested project's globIgnorePaths ignore",
			map[string]string{
				"src/Pkg/default.project.json": `{"name": "Pkg", "globIgnorePaths": ["lib/Skip/*.luau"], "tree": {"$path": "lib"}}`,
				"src/Pkg/lib/A.luau":           "return 1\n", "src/Pkg/lib/Skip/": "",
			},
			"ReplicatedStorage/Pkg/Skip", newInst("B", "ModuleScript", src("")), ReasonIgnoredPath},
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
		{"script whose source is not UTF-8", nil, "ReplicatedStorage",
			newInst("Main", "Script", dom.Properties{"Source": dom.String("print('\xff')")}), ReasonUnwritableValue},
		{"string value that is not UTF-8", nil, "ReplicatedStorage",
			newInst("Note", "StringValue", dom.Properties{"Value": dom.String("caf\xe9")}), ReasonUnwritableValue},
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
