package project

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

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
					studio.Properties.Delete(f)
				} else {
					studio.Properties.Set(f, v)
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
				if want := tt.set[f]; !dom.Equal(got.Properties.Get(f), want) {
					t.Errorf("reloaded %s.%s = %v, want %v", tt.path, f, got.Properties.Get(f), want)
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
				studio.Properties.Delete(tt.field)
			} else {
				studio.Properties.Set(tt.field, tt.value)
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
