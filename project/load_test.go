package project_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// loadCase copies testdata/<name> into a temporary folder of the same name (the
// name a default.project.json's root gets), lets setup add what git cannot hold
// (empty folders), and loads the project file file ("" = the folder's default one)
// the way the CLI does.
func loadCase(t *testing.T, name, file string, setup func(t *testing.T, dir string)) (*project.Project, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(t, dir)
	}
	target := dir
	if file != "" {
		target = filepath.Join(dir, file)
	}
	loc, err := project.Locate(dir, target, nil)
	if err != nil {
		return nil, err
	}
	return project.LoadDisk(loc)
}

// dump is the compact text form of a loaded project the golden files hold: one line
// per instance (name, class and where it came from), one per property, then the
// warnings.
func dump(p *project.Project) string {
	var b strings.Builder
	fmt.Fprintf(&b, "project %s name=%q emitLegacyScripts=%v\n", p.File, p.Name, p.EmitLegacyScripts)
	index := p.Root.Index()
	var walk func(i *dom.Instance, depth int)
	walk = func(i *dom.Instance, depth int) {
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s (%s)", ind, i.Name, i.ClassName)
		if i.Kind != dom.KindNone {
			fmt.Fprintf(&b, " kind=%s", i.Kind)
		}
		if i.FsPath != "" {
			fmt.Fprintf(&b, " fs=%s", i.FsPath)
		}
		if i.MetaPath() != "" {
			fmt.Fprintf(&b, " meta=%s", i.MetaPath())
		}
		if i.ProjectFile() != "" {
			fmt.Fprintf(&b, " node=%s:%s", i.ProjectFile(), strings.Join(i.ProjectKeys(), "."))
		}
		if i.IgnoreUnknown {
			b.WriteString(" ignoreUnknown")
		}
		if i.RefID() != "" {
			fmt.Fprintf(&b, " id=%q", i.RefID())
		}
		b.WriteString("\n")
		for _, name := range i.PropertyNames() {
			fmt.Fprintf(&b, "%s  .%s = %s\n", ind, name, formatValue(i.Properties.Get(name), index))
		}
		for _, c := range i.Children {
			walk(c, depth+1)
		}
	}
	walk(p.Root, 0)
	// Warnings about one project node's keys come in map order: sort them all.
	for _, w := range slices.Sorted(slices.Values(p.Warnings)) {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// formatValue writes strings quoted (so CRs and BOMs show), refs as the path of their
// target, and everything else in the tagged JSON form.
func formatValue(v dom.Value, index map[string]*dom.Instance) string {
	switch v := v.(type) {
	case dom.String:
		return strconv.Quote(string(v))
	case dom.Ref:
		if t, ok := index[string(v)]; ok {
			return "Ref(/" + t.Path() + ")"
		}
		if strings.Trim(string(v), "0") == "" {
			return "Ref(nil)"
		}
		return "Ref(? " + string(v) + ")"
	case dom.Attributes:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + formatValue(v[k], index)
		}
		return "Attributes{" + strings.Join(parts, ", ") + "}"
	}
	data, err := dom.Marshal(v)
	if err != nil {
		return "!" + err.Error()
	}
	return string(data)
}

// golden compares got with testdata/<path>, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./project -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// at returns the instance at path (names joined by "/"; "" is the root).
func at(t *testing.T, p *project.Project, path string) *dom.Instance {
	t.Helper()
	if path == "" {
		return p.Root
	}
	i := p.Root.Find(strings.Split(path, "/")...)
	if i == nil {
		t.Fatalf("no instance %q; the tree is:\n%s", path, dump(p))
	}
	return i
}

func absent(t *testing.T, p *project.Project, paths ...string) {
	t.Helper()
	for _, path := range paths {
		if i := p.Root.Find(strings.Split(path, "/")...); i != nil {
			t.Errorf("instance %q (%s from %s) exists, want none", path, i.ClassName, i.FsPath)
		}
	}
}

// wantClasses checks the class of each instance, by path.
func wantClasses(t *testing.T, p *project.Project, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for path := range want {
		got[path] = "<missing>"
		if path == "" {
			got[path] = p.Root.ClassName
		} else if i := p.Root.Find(strings.Split(path, "/")...); i != nil {
			got[path] = i.ClassName
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
}

// wantChildren checks the names of an instance's children, in order.
func wantChildren(t *testing.T, p *project.Project, path string, want ...string) {
	t.Helper()
	got := []string{}
	for _, c := range at(t, p, path).Children {
		got = append(got, c.Name)
	}
	if want == nil {
		want = []string{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("children of %q (-want +got):\n%s", path, diff)
	}
}

// wantProps checks the given properties of an instance; a nil value means the
// property must not be set.
func wantProps(t *testing.T, p *project.Project, path string, want map[string]dom.Value) {
	t.Helper()
	i := at(t, p, path)
	got := map[string]dom.Value{}
	for name := range want {
		got[name] = i.Properties.Get(name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("properties of %q (-want +got):\n%s", path, diff)
	}
}

func wantSource(t *testing.T, p *project.Project, path, want string) {
	t.Helper()
	wantProps(t, p, path, map[string]dom.Value{"Source": dom.String(want)})
}

// wantIgnore checks IgnoreUnknown by path.
func wantIgnore(t *testing.T, p *project.Project, want map[string]bool) {
	t.Helper()
	got := map[string]bool{}
	for path := range want {
		got[path] = at(t, p, path).IgnoreUnknown
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ignoreUnknownInstances (-want +got):\n%s", diff)
	}
}

func wantWarning(t *testing.T, p *project.Project, substr string) {
	t.Helper()
	for _, w := range p.Warnings {
		if strings.Contains(w, substr) {
			return
		}
	}
	t.Errorf("no warning contains %q; warnings: %q", substr, p.Warnings)
}

func wantNoWarnings(t *testing.T, p *project.Project) {
	t.Helper()
	if len(p.Warnings) > 0 {
		t.Errorf("warnings = %q, want none", p.Warnings)
	}
}

func enum(v uint32) dom.Value { return dom.Enum(v) }

// TestLoadCases loads each fixture project in testdata, compares a dump of its tree
// with testdata/<case>/tree.golden, and checks in code the facts the case is about,
// so a golden file rewritten without care still fails when a rule breaks.
func TestLoadCases(t *testing.T) {
	tests := []struct {
		name  string
		file  string // the project file to load; "" loads the folder
		setup func(t *testing.T, dir string)
		check func(t *testing.T, p *project.Project)
	}{
		{
			// §1.1: comments, trailing commas, unquoted keys, single quotes; a
			// repeated key takes its last value.
			name: "lenient-jsonc",
			check: func(t *testing.T, p *project.Project) {
				if p.Name != "LastWins" || p.Root.Name != "LastWins" {
					t.Errorf("root name = %q/%q, want LastWins (the last \"name\")", p.Name, p.Root.Name)
				}
				wantClasses(t, p, map[string]string{"": "Folder", "Main": "ModuleScript", "Quote": "StringValue"})
				wantProps(t, p, "Quote", map[string]dom.Value{"Value": dom.String(`it "works"`)})
				wantSource(t, p, "Main", "return \"main\"\n")
			},
		},
		{
			// §1.1: a folder with only default.project.jsonc; §1.3: the root is named
			// after the folder; a .project.jsonc found while scanning is a project.
			name: "jsonc-project",
			check: func(t *testing.T, p *project.Project) {
				if p.File != "default.project.jsonc" {
					t.Errorf("File = %q, want default.project.jsonc", p.File)
				}
				if p.Root.Name != "jsonc-project" {
					t.Errorf("root name = %q, want the folder's name", p.Root.Name)
				}
				wantChildren(t, p, "Lib", "Inner", "a")
				wantClasses(t, p, map[string]string{"Lib/Inner": "Configuration", "Lib/a": "ModuleScript"})
			},
		},
		{
			// §1.1: default.project.json is probed before default.project.jsonc.
			name: "default-probe",
			check: func(t *testing.T, p *project.Project) {
				if p.File != "default.project.json" {
					t.Errorf("File = %q, want default.project.json", p.File)
				}
				wantClasses(t, p, map[string]string{"": "Folder", "FromJson": "Folder"})
				absent(t, p, "FromJsonc")
				if p.Root.Name != "default-probe" {
					t.Errorf("root name = %q, want the folder's name", p.Root.Name)
				}
			},
		},
		{
			// §1.2: every top-level key is accepted; the serve and place settings
			// come from the root project only.
			name: "top-level-keys",
			check: func(t *testing.T, p *project.Project) {
				type settings struct {
					Name                           string
					ServePort                      int
					ServePlaceIDs, BlockedPlaceIDs []uint64
					PlaceID, GameID                uint64
					EmitLegacyScripts              bool
				}
				got := settings{
					Name: p.Name, ServePort: p.ServePort, ServePlaceIDs: p.ServePlaceIDs,
					BlockedPlaceIDs: p.BlockedPlaceIDs, PlaceID: p.PlaceID, GameID: p.GameID, EmitLegacyScripts: p.EmitLegacyScripts,
				}
				want := settings{
					Name: "Keys", ServePort: 34999, ServePlaceIDs: []uint64{123, 456},
					BlockedPlaceIDs: []uint64{789}, PlaceID: 123, GameID: 42, EmitLegacyScripts: true,
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("settings (-want +got):\n%s", diff)
				}
				wantClasses(t, p, map[string]string{"ServerStorage/Lib": "Folder"})
			},
		},
		{
			// §1.2: servePlaceIds may be null; absent settings take their defaults.
			name: "null-place-ids",
			check: func(t *testing.T, p *project.Project) {
				if p.ServePlaceIDs != nil || p.ServePort != 0 || p.PlaceID != 0 || !p.EmitLegacyScripts {
					t.Errorf("settings: servePlaceIds %v, servePort %d, placeId %d, emitLegacyScripts %v; want nil, 0, 0, true",
						p.ServePlaceIDs, p.ServePort, p.PlaceID, p.EmitLegacyScripts)
				}
			},
		},
		{
			// §1.3: foo.project.json without "name" → foo.
			name: "root-name-file",
			file: "foo.project.json",
			check: func(t *testing.T, p *project.Project) {
				if p.Name != "foo" || p.Root.Name != "foo" {
					t.Errorf("root name = %q/%q, want foo", p.Name, p.Root.Name)
				}
			},
		},
		{
			name: "root-name-jsonc",
			file: "bar.project.jsonc",
			check: func(t *testing.T, p *project.Project) {
				if p.Name != "bar" || p.Root.Name != "bar" {
					t.Errorf("root name = %q/%q, want bar", p.Name, p.Root.Name)
				}
			},
		},
		{
			// §1.3, §1.8: through $path the key names a nested project; its $paths are
			// relative to its own folder; a folder holding a default.project.json
			// syncs nothing else and its init.meta.json is not applied.
			name: "nested-path",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "ByFile", "ByFolder")
				wantClasses(t, p, map[string]string{"ByFile": "Folder", "ByFile/Code/x": "ModuleScript", "ByFolder": "Folder", "ByFolder/a": "ModuleScript"})
				if got := at(t, p, "ByFile/Code/x").FsPath; got != "lib/code/x.lua" {
					t.Errorf("ByFile/Code/x fsPath = %q, want lib/code/x.lua", got)
				}
				wantChildren(t, p, "ByFolder", "a")
				wantProps(t, p, "ByFolder", map[string]dom.Value{"Attributes": nil})
				// A nested root without $path is a project node: true; with $path it
				// keeps the folder's false.
				wantIgnore(t, p, map[string]bool{"ByFile": true, "ByFolder": false})
			},
		},
		{
			// §1.3: projects found while scanning are named by their "name", else
			// after the file or folder.
			name: "nested-scan",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "Lib", "Lib2", "Renamed", "Pkg", "PkgTwo")
				wantClasses(t, p, map[string]string{"": "Folder", "Lib": "Configuration", "Lib2": "Folder", "Renamed": "Folder", "Pkg": "Folder", "PkgTwo": "Model"})
				wantChildren(t, p, "Pkg", "m")
			},
		},
		{
			// §1.4, §1.5: $path as a string and as {"optional"}; missing paths.
			name: "path-forms",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "Kept", "Lighting", "OptionalModel", "ReplicatedStorage", "ServerStorage", "Workspace")
				absent(t, p, "Gone")
				wantClasses(t, p, map[string]string{
					"ReplicatedStorage": "ReplicatedStorage", "ReplicatedStorage/shared": "ModuleScript",
					"ServerStorage": "ServerStorage", "ServerStorage/o": "ModuleScript",
					"Lighting": "Lighting", "OptionalModel": "Model", "Kept": "Folder", "Workspace": "Workspace",
				})
				// §1.7 corner case: a $path that produced nothing leaves the flag false.
				wantIgnore(t, p, map[string]bool{"Kept": false, "OptionalModel": false, "Workspace": false, "ReplicatedStorage": false})
			},
		},
		{
			// §1.5.2: every row of the class table that gives an instance.
			name: "class-resolution",
			check: func(t *testing.T, p *project.Project) {
				wantClasses(t, p, map[string]string{
					"":                         "DataModel",
					"ServerScriptService":      "ServerScriptService",
					"ServerScriptService/Main": "Script",
					"ReplicatedStorage":        "ReplicatedStorage",
					"ServerStorage":            "Configuration",
					"ServerStorage/IntValue":   "IntValue",
					"Lighting":                 "Lighting",
					"Workspace":                "Workspace",
					"Holder":                   "Model",
					"Holder/g":                 "ModuleScript",
					"ReplicatedStorage/f":      "ModuleScript",
				})
			},
		},
		{
			// §1.5.3: $path children first in file-name order, then the keys in byte
			// order; nothing is merged by name.
			name: "children-order",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "B", "_x", "c", "dup", "B", "Z", "_", "a", "b", "dup")
				wantClasses(t, p, map[string]string{"": "Folder"})
				if got := p.Root.Children[3].ClassName; got != "ModuleScript" {
					t.Errorf("first dup is %s, want the ModuleScript from src", got)
				}
				if got := p.Root.Children[9].ClassName; got != "Configuration" {
					t.Errorf("last dup is %s, want the project's Configuration", got)
				}
				wantWarning(t, p, "duplicate sibling name")
			},
		},
		{
			// §1.5.4: implicit and explicit values; Name and Parent are dropped with
			// a warning; $properties overwrite the file's.
			name: "properties",
			check: func(t *testing.T, p *project.Project) {
				wantProps(t, p, "Brick", map[string]dom.Value{
					"Anchored":                 dom.Bool(true),
					"Material":                 enum(288),
					"Size":                     dom.Vector3{4, 1, 2},
					"Color":                    dom.Color3{1, 0, 0},
					"CFrame":                   dom.CFrame{Position: [3]float32{0, 10, 0}, Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
					"Tags":                     dom.Tags{"Lava"},
					"Transparency":             dom.Float32(0.5),
					"CustomPhysicalProperties": dom.PhysicalProperties{Default: true},
					"NotInTheDatabase":         dom.Float32(2.5),
					"Name":                     nil,
					"Parent":                   nil,
				})
				if at(t, p, "Brick").Name != "Brick" {
					t.Errorf("$properties.Name renamed the instance")
				}
				wantProps(t, p, "Count", map[string]dom.Value{"Value": dom.Int64(1)})
				wantProps(t, p, "Greeting", map[string]dom.Value{"Value": dom.String("from the project")})
				wantWarning(t, p, "$properties.Name is ignored")
				wantWarning(t, p, "$properties.Parent is ignored")
			},
		},
		{
			// §1.5.5: a non-empty $attributes replaces every attribute.
			name: "attributes",
			check: func(t *testing.T, p *project.Project) {
				wantProps(t, p, "FromPath", map[string]dom.Value{"Attributes": dom.Attributes{"Project": dom.Bool(true)}})
				wantProps(t, p, "FromProps", map[string]dom.Value{"Attributes": dom.Attributes{
					"Count": dom.Float64(2), "Kind": dom.String("k"), "Spot": dom.Vector3{1, 2, 3},
				}})
				wantProps(t, p, "EmptyAttrs", map[string]dom.Value{"Attributes": dom.Attributes{"FromMeta": dom.Float64(1)}})
			},
		},
		{
			// §1.7.
			name: "ignore-unknown",
			check: func(t *testing.T, p *project.Project) {
				wantIgnore(t, p, map[string]bool{
					"": true, "NoPath": true, "NoPathFalse": false,
					"WithPath": false, "WithPathMeta": true, "WithPathTrue": true,
					"WithPathMetaFalse": false, "MissingPath": false,
					"WithPath/x": false, "WithPathMeta/y": false,
				})
			},
		},
		{
			// §1.5.6, §4.4: $id, meta id, Rojo_Id and a model root's id link
			// Rojo_Target_ attributes; a model child's id does not; refs inside an
			// .rbxmx model keep pointing inside it.
			name: "refs",
			check: func(t *testing.T, p *project.Project) {
				ref := func(path string) dom.Value { return dom.Ref(at(t, p, path).ID) }
				wantProps(t, p, "", map[string]dom.Value{"PrimaryPart": ref("Hull")})
				wantProps(t, p, "ToMeta", map[string]dom.Value{"Value": ref("Files/target")})
				wantProps(t, p, "ToAttr", map[string]dom.Value{"Value": ref("Files/tagged")})
				wantProps(t, p, "ToModel", map[string]dom.Value{"Value": ref("Files/model")})
				wantProps(t, p, "ToRoot", map[string]dom.Value{"Value": ref("")})
				wantProps(t, p, "ToChild", map[string]dom.Value{"Value": nil})
				wantProps(t, p, "Dangling", map[string]dom.Value{"Value": nil})
				wantWarning(t, p, `points at id "nobody"`)
				wantWarning(t, p, `points at id "child-id"`)
				// The attributes stay.
				wantProps(t, p, "ToMeta", map[string]dom.Value{"Attributes": dom.Attributes{"Rojo_Target_Value": dom.String("meta-id")}})
				for _, m := range []string{"Files/inner", "Files/second"} {
					wantProps(t, p, m, map[string]dom.Value{"PrimaryPart": ref(m + "/Base")})
					wantProps(t, p, m+"/Link", map[string]dom.Value{"Value": ref(m)})
				}
			},
		},
		{
			// §1.4: unknown $-keys become children, with a warning.
			name: "reserved-keys",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "$comment", "$foo")
				wantClasses(t, p, map[string]string{"$comment": "Folder", "$foo": "Configuration"})
				wantWarning(t, p, `key "$comment" is reserved`)
				wantWarning(t, p, `key "$foo" is reserved`)
			},
		},
		{
			// §1.6: services under DataModel, the player containers under
			// StarterPlayer, Terrain under Workspace, and nowhere else.
			name: "services",
			check: func(t *testing.T, p *project.Project) {
				wantClasses(t, p, map[string]string{
					"Workspace": "Workspace", "Workspace/Terrain": "Terrain", "Workspace/Baseplate": "Part",
					"StarterPlayer": "StarterPlayer", "StarterPlayer/StarterPlayerScripts": "StarterPlayerScripts",
					"StarterPlayer/StarterCharacterScripts": "StarterCharacterScripts",
					"ReplicatedStorage":                     "ReplicatedStorage", "ReplicatedStorage/StarterPlayerScripts": "Folder",
					"Lighting": "Lighting", "ServerScriptService": "ServerScriptService",
					"SoundService": "SoundService", "Teams": "Teams", "Chat": "Chat",
				})
				wantProps(t, p, "Lighting", map[string]dom.Value{"ClockTime": dom.Float32(12)})
				if !p.IsPlace() {
					t.Errorf("IsPlace() = false, want true")
				}
			},
		},
		{
			// §2.2: every default rule, §3 with emitLegacyScripts defaulting to true,
			// and files no rule matches.
			name: "file-rules",
			check: func(t *testing.T, p *project.Project) {
				if p.Root.Name != "file-rules" || !p.EmitLegacyScripts {
					t.Errorf("root %q, emitLegacyScripts %v; want file-rules, true", p.Root.Name, p.EmitLegacyScripts)
				}
				wantChildren(t, p, "", "a", "b", "c", "d", "data.v2", "e", "f", "g", "h", "i.spec", "j", "k", "l", "m", "n", "o", "p", "q", "s")
				wantClasses(t, p, map[string]string{
					"a": "Script", "b": "Script", "c": "LocalScript", "d": "LocalScript",
					"e": "Script", "f": "Script", "g": "ModuleScript", "h": "ModuleScript", "i.spec": "ModuleScript",
					"j": "Part", "k": "Model", "k/Inner": "Folder", "l": "ModuleScript", "m": "ModuleScript",
					"n": "ModuleScript", "o": "ModuleScript", "p": "ModuleScript", "q": "LocalizationTable",
					"data.v2": "StringValue", "s": "Folder", "s/Inner": "StringValue",
				})
				for path, rc := range map[string]dom.Value{"a": enum(0), "b": enum(0), "c": nil, "d": nil, "e": enum(3), "f": enum(3), "g": nil} {
					wantProps(t, p, path, map[string]dom.Value{"RunContext": rc})
				}
				wantSource(t, p, "a", "-- a.server.lua\nreturn nil\n")
				// §2.3: sorted keys, bare identifiers only, nil entries, numbers without
				// exponents, and only " \ CR LF TAB escaped.
				wantSource(t, p, "l", "return {\n\t[\"1st\"] = -0.25,\n\t_ok1 = {{}, {\n\t}},\n\t[\"a b\"] = {\n\t\tx = true,\n\t},\n"+
					"\tb = {1, 2},\n\tbig = 1000000000000000000000,\n\tctl = \"a\x01é\\r\\n\\t\",\n\thalf = 0.5,\n\tn = nil,\n\ts = \"q\\\"\\\\\",\n}")
				// TOML: integers become floats; NaN, infinities and datetimes.
				wantSource(t, p, "n", "return {\n\tbig = 9007199254740992,\n\tcount = 3,\n\tday = \"1979-05-27\",\n\tinf = math.huge,\n\tnan = 0/0,\n"+
					"\tninf = -math.huge,\n\towner = {\n\t\tname = \"x\",\n\t},\n\ttitle = \"TOML\",\n\twhen = \"1979-05-27T07:32:00Z\",\n}")
				// YAML: file order, non-string keys in brackets.
				wantSource(t, p, "o", "return {\n\tzebra = 1,\n\tapple = {\"two\", 3},\n\t[true] = \"yes\",\n\t[1] = \"one\",\n\tnested = {\n\t\tb = 2,\n\t\ta = 1,\n\t},\n}")
				wantProps(t, p, "data.v2", map[string]dom.Value{"Value": dom.String("a text value\n")})
				wantProps(t, p, "q", map[string]dom.Value{"Contents": dom.String(
					`[{"key":"Hi","example":"greeting","source":"Hello","values":{"fr":"Bonjour"}},{"context":"ctx","source":"Bye","values":{"de":"Tschuss","fr":"Au revoir"}}]`)})
				wantProps(t, p, "s/Inner", map[string]dom.Value{"Value": dom.String("from rbxmx")})
				kinds := map[string]dom.FileKind{}
				for _, c := range p.Root.Children {
					kinds[c.Name] = c.Kind
				}
				if diff := cmp.Diff(map[string]dom.FileKind{
					"a": dom.KindScript, "b": dom.KindScript, "c": dom.KindScript, "d": dom.KindScript,
					"e": dom.KindScript, "f": dom.KindScript, "g": dom.KindScript, "h": dom.KindScript, "i.spec": dom.KindScript,
					"j": dom.KindModel, "k": dom.KindModel, "l": dom.KindJSON, "m": dom.KindJSON, "n": dom.KindTOML,
					"o": dom.KindYAML, "p": dom.KindYAML, "q": dom.KindCSV, "data.v2": dom.KindText, "s": dom.KindRbxmx,
				}, kinds); diff != "" {
					t.Errorf("kinds (-want +got):\n%s", diff)
				}
			},
		},
		{
			// §2.1: init files in probing order; other init files are dropped; Init.lua
			// is not an init file.
			name: "init-files",
			check: func(t *testing.T, p *project.Project) {
				winners := map[string]string{
					"A": "init.luau", "B": "init.lua", "C": "init.server.luau", "D": "init.server.lua",
					"E": "init.client.luau", "F": "init.client.lua", "G": "init.plugin.lua", "H": "init.plugin.luau",
				}
				for dir, file := range winners {
					wantSource(t, p, dir, fmt.Sprintf("-- %s/%s\nreturn %q\n", dir, file, file))
					i := at(t, p, dir)
					if i.Kind != dom.KindInit || i.FsPath != "src/"+dir {
						t.Errorf("%s: kind %s, fsPath %s; want init, src/%s", dir, i.Kind, i.FsPath, dir)
					}
				}
				wantClasses(t, p, map[string]string{
					"A": "ModuleScript", "B": "ModuleScript", "C": "Script", "D": "Script", "E": "LocalScript",
					"F": "LocalScript", "G": "Script", "H": "Script", "I": "LocalizationTable", "J": "ModuleScript", "K": "Folder",
				})
				wantProps(t, p, "G", map[string]dom.Value{"RunContext": enum(3)})
				for _, dir := range []string{"A", "B", "C", "D", "E", "F", "G", "H"} {
					wantChildren(t, p, dir)
				}
				wantProps(t, p, "I", map[string]dom.Value{"Contents": dom.String(`[{"key":"Hi","source":"Hello","values":{"fr":"Bonjour"}}]`)})
				wantChildren(t, p, "I", "child")
				wantChildren(t, p, "J", "child", "other")
				wantChildren(t, p, "K", "Init")
			},
		},
		{
			// §2.4: legacy keys, unnamed children, ignored root name and child id,
			// empty files, and no meta file.
			name: "model-json",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "legacy", "modern")
				wantChildren(t, p, "legacy", "P", "IntValue")
				wantClasses(t, p, map[string]string{"legacy": "Model", "legacy/P": "Part", "legacy/IntValue": "IntValue", "modern": "Folder", "modern/Remote": "RemoteEvent"})
				wantProps(t, p, "legacy/P", map[string]dom.Value{"Anchored": dom.Bool(true)})
				wantProps(t, p, "legacy/IntValue", map[string]dom.Value{"Value": dom.Int64(3), "Attributes": dom.Attributes{"Tag": dom.String("x")}})
				wantProps(t, p, "modern", map[string]dom.Value{"Tags": nil, "Attributes": dom.Attributes{"Level": dom.Float64(2)}})
				if got := at(t, p, "modern").RefID(); got != "modern-root" {
					t.Errorf("modern id = %q, want modern-root", got)
				}
				if got := at(t, p, "modern/Remote").RefID(); got != "" {
					t.Errorf("a child's id = %q, want it ignored", got)
				}
				wantIgnore(t, p, map[string]bool{"modern": false, "legacy": false})
				if got := at(t, p, "modern").MetaPath(); got != "" {
					t.Errorf("modern has meta %q, want none", got)
				}
				wantWarning(t, p, `root's "name" is ignored`)
			},
		},
		{
			// §2.5: adjacent .meta.json then .meta.jsonc, init.meta.json(c),
			// className only in init.meta.json of a Folder, the init-script quirk,
			// and the file kinds meta files do and do not apply to.
			name: "meta-files",
			check: func(t *testing.T, p *project.Project) {
				wantProps(t, p, "Foo", map[string]dom.Value{"Disabled": dom.Bool(true), "Attributes": dom.Attributes{"B": dom.Float64(2)}})
				wantIgnore(t, p, map[string]bool{"Foo": true, "Scripted": true, "Quirk": false, "Tool": false})
				wantClasses(t, p, map[string]string{"Bar": "ModuleScript", "Tool": "Tool", "Tool/Handle": "Part", "Scripted": "Script", "Quirk": "ModuleScript"})
				wantProps(t, p, "Tool", map[string]dom.Value{"CanBeDropped": dom.Bool(false)})
				wantProps(t, p, "Scripted", map[string]dom.Value{"Disabled": dom.Bool(true), "Attributes": dom.Attributes{"C": dom.Bool(true)}})
				wantProps(t, p, "Quirk", map[string]dom.Value{"Tags": dom.Tags{"quirk"}})
				for path, tag := range map[string]dom.Value{
					"Config": dom.Tags{"json"}, "Settings": dom.Tags{"toml"}, "List": dom.Tags{"yaml"},
					"Strings": dom.Tags{"csv"}, "Model": nil, "Nested": nil,
				} {
					wantProps(t, p, path, map[string]dom.Value{"Tags": tag})
				}
				wantProps(t, p, "Note", map[string]dom.Value{"Value": dom.String("from the meta file")})
				if got := at(t, p, "Note").RefID(); got != "note" {
					t.Errorf("Note id = %q, want note", got)
				}
			},
		},
		{
			// §2.6: globIgnorePaths on files and folders, "!" negation with the last
			// match winning, "\!", `*` across "/", $path targets, nested projects.
			name: "glob-ignore",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "Src", "a", "both", "case", "deep", "keep", "out.b", "x3")
				wantChildren(t, p, "Src/deep", "y")
				wantChildren(t, p, "Src/keep", "important", "k")
				wantChildren(t, p, "Skipped", "n", "s")
				wantClasses(t, p, map[string]string{"Spec": "ModuleScript", "Skipped": "Folder"})
				wantChildren(t, p, "Odd", "keep")
				wantChildren(t, p, "Sub", "a")
			},
		},
		{
			// §2.2: sync rules (pattern, exclude, suffix, first match, every use); the
			// nested project's own rules replace the outer ones.
			name: "sync-rules",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "Src", "deep", "first", "odd.txt", "raw", "settings", "table", "uses")
				wantClasses(t, p, map[string]string{
					"Src/deep/a": "Script", "Src/first": "LocalScript", "Src/odd.txt": "ModuleScript",
					"Src/raw/one": "StringValue", "Src/settings": "ModuleScript", "Src/table": "ModuleScript",
				})
				wantChildren(t, p, "Src/raw", "one")
				wantSource(t, p, "Src/table", "return {\n\tk = 1,\n}")
				wantSource(t, p, "Src/settings", "return {\n\tv = 1,\n}")
				wantChildren(t, p, "Src/uses",
					"clientScript", "csv", "json", "jsonModel", "legacyClientScript", "legacyServerScript",
					"moduleScript", "pluginScript", "project", "rbxmx", "runContextClientScript",
					"runContextServerScript", "serverScript", "text", "toml", "yaml")
				type want struct {
					class string
					rc    dom.Value
				}
				for name, w := range map[string]want{
					"serverScript":           {"Script", enum(0)},
					"clientScript":           {"LocalScript", nil},
					"moduleScript":           {"ModuleScript", nil},
					"pluginScript":           {"Script", enum(3)},
					"legacyServerScript":     {"Script", enum(0)},
					"legacyClientScript":     {"LocalScript", nil},
					"runContextServerScript": {"Script", enum(1)},
					"runContextClientScript": {"Script", enum(2)},
					"json":                   {"ModuleScript", nil},
					"jsonModel":              {"Folder", nil},
					"toml":                   {"ModuleScript", nil},
					"yaml":                   {"ModuleScript", nil},
					"csv":                    {"LocalizationTable", nil},
					"text":                   {"StringValue", nil},
					"rbxmx":                  {"Configuration", nil},
					"project":                {"Model", nil},
				} {
					path := "Src/uses/" + name
					wantClasses(t, p, map[string]string{path: w.class})
					wantProps(t, p, path, map[string]dom.Value{"RunContext": w.rc})
				}
				wantChildren(t, p, "Nested", "y", "z")
				wantClasses(t, p, map[string]string{"Nested/z": "StringValue"})
			},
		},
		{
			// §3 with emitLegacyScripts false; a nested project goes back to true.
			name: "legacy-false",
			check: func(t *testing.T, p *project.Project) {
				if p.EmitLegacyScripts {
					t.Errorf("EmitLegacyScripts = true, want false")
				}
				type want struct {
					class string
					rc    dom.Value
				}
				for path, w := range map[string]want{
					"s": {"Script", enum(1)}, "c": {"Script", enum(2)}, "p": {"Script", enum(3)},
					"m": {"ModuleScript", nil}, "Init": {"Script", enum(2)},
					"Inner/s": {"Script", enum(0)}, "Inner/c": {"LocalScript", nil},
				} {
					wantClasses(t, p, map[string]string{path: w.class})
					wantProps(t, p, path, map[string]dom.Value{"RunContext": w.rc})
				}
			},
		},
		{
			// §3: the default is true; a nested project's false applies inside it only.
			name: "legacy-default",
			check: func(t *testing.T, p *project.Project) {
				type want struct {
					class string
					rc    dom.Value
				}
				for path, w := range map[string]want{
					"s": {"Script", enum(0)}, "c": {"LocalScript", nil},
					"Inner/s": {"Script", enum(1)}, "Inner/c": {"Script", enum(2)},
				} {
					wantClasses(t, p, map[string]string{path: w.class})
					wantProps(t, p, path, map[string]dom.Value{"RunContext": w.rc})
				}
			},
		},
		{
			// §6.2–6.6 and §2.6: CRLF, BOM, empty files, trailing newlines, case-
			// sensitive extensions and init names, dot-folders, empty folders.
			name: "edge-text",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, "src", "emptydir"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, p *project.Project) {
				// Several files share a name here; pick each by its kind.
				byKind := map[string]*dom.Instance{}
				for _, c := range p.Root.Children {
					byKind[c.Name+"."+c.Kind.String()] = c
				}
				get := func(key, prop string) dom.Value {
					i := byKind[key]
					if i == nil {
						t.Errorf("no instance %s", key)
						return nil
					}
					return i.Properties.Get(prop)
				}
				got := map[string]dom.Value{}
				want := map[string]dom.Value{
					"crlf.script":       dom.String("local a = 1\nlocal b = 2\n"),
					"lonecr.script":     dom.String("a\rb\n"),
					"crlf.text":         dom.String("line1\r\nline2\r\n"),
					"crlf.json":         dom.String("return {\n\ta = 1,\n}"),
					"bom.script":        dom.String("\ufeffprint(1)\n"),
					"bom.text":          dom.String("\ufefftext\n"),
					"bom.csv":           dom.String(`[{"key":"Hi","source":"Hello","values":{"fr":"Bonjour"}}]`),
					"bom.toml":          dom.String("return {\n\ta = 1,\n}"),
					"empty.script":      dom.String(""),
					"empty.text":        dom.String(""),
					"empty.csv":         dom.String("[]"),
					"empty.toml":        dom.String("return {\n}"),
					"trailing.script":   dom.String("return 1\n\n\n"),
					"notrailing.script": dom.String("return 1"),
					".hidden.script":    dom.String("return \"dot\"\n"),
				}
				for key := range want {
					prop := "Source"
					switch {
					case strings.HasSuffix(key, ".text"):
						prop = "Value"
					case strings.HasSuffix(key, ".csv"):
						prop = "Contents"
					}
					got[key] = get(key, prop)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("file contents (-want +got):\n%s", diff)
				}
				wantChildren(t, p, "", ".hidden", ".vscode", "Case", "bom", "bom", "bom", "bom", "crlf", "crlf", "crlf", "empty", "empty", "empty", "empty", "emptydir", "lonecr", "notrailing", "trailing")
				wantChildren(t, p, "Case", "Init")
				wantClasses(t, p, map[string]string{".vscode": "Folder", ".vscode/settings": "ModuleScript", "emptydir": "Folder", "Case": "Folder", "Case/Init": "ModuleScript"})
				wantChildren(t, p, "emptydir")
			},
		},
		{
			// §6.1: same-named siblings are kept, get distinct ids, share a meta file,
			// and are reported.
			name: "duplicates",
			check: func(t *testing.T, p *project.Project) {
				wantChildren(t, p, "", "foo", "foo", "foo", "foo", "foo")
				var classes []string
				ids := map[string]bool{}
				for _, c := range p.Root.Children {
					classes = append(classes, c.ClassName)
					ids[c.ID] = true
					if c.ClassName != "Folder" && c.ClassName != "Configuration" {
						if diff := cmp.Diff(dom.Value(dom.Tags{"every foo"}), c.Properties.Get("Tags")); diff != "" {
							t.Errorf("%s foo Tags (-want +got):\n%s", c.ClassName, diff)
						}
					}
				}
				if diff := cmp.Diff([]string{"Folder", "ModuleScript", "Script", "StringValue", "Configuration"}, classes); diff != "" {
					t.Errorf("classes (-want +got):\n%s", diff)
				}
				if len(ids) != 5 {
					t.Errorf("%d distinct ids for 5 siblings", len(ids))
				}
				wantWarning(t, p, `duplicate sibling name "foo"`)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := loadCase(t, tt.name, tt.file, tt.setup)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			golden(t, filepath.Join(tt.name, "tree.golden"), dump(p))
			tt.check(t, p)
		})
	}
}

// TestLoadErrors loads projects that Rojo refuses: each must fail with a
// *project.Error naming the file (and where a parse failed, the line and column),
// coded E_PROJECT_INVALID.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name         string
		file         string // the *Error's File
		line, column int
		msg          string // part of the message
	}{
		{name: "err-path-missing", file: "default.project.json", msg: `$path "nope" does not exist`},
		{name: "err-path-not-folder", file: "default.project.json", msg: "$path must refer to a Folder"},
		{name: "err-no-class", file: "default.project.json", msg: `"NotAService" needs $className`},
		{name: "err-terrain-outside-workspace", file: "default.project.json", msg: `"Terrain" needs $className`},
		{name: "err-root-no-class", file: "default.project.json", msg: `"Workspace" needs $className`},
		{name: "err-dollar-comment", file: "default.project.json", msg: `child "$comment" must be an object`},
		{name: "err-unknown-top-key", file: "default.project.json", msg: `unknown top-level key "servePorts"`},
		{name: "err-no-tree", file: "default.project.json", msg: `no "tree"`},
		{name: "err-empty-project", file: "default.project.json", line: 1, column: 1, msg: "no JSON value"},
		{name: "err-comments-only", file: "default.project.json", line: 1, column: 1, msg: "no JSON value"},
		{name: "err-syntax", file: "default.project.json", line: 4, column: 12},
		{name: "err-syntax-nested", file: "lib/lib.project.json", line: 3, column: 28},
		{name: "err-bom-project", file: "default.project.json", line: 1, column: 1, msg: "unexpected token"},
		{name: "err-unknown-property", file: "default.project.json", msg: "Bogus"},
		{name: "err-rbxm", file: "src/x.rbxm", msg: "name it .rbxmx"},
		{name: "err-bom-json", file: "src/x.json", line: 1, column: 1},
		{name: "err-bom-meta", file: "src/x.meta.json", line: 1, column: 1},
		{name: "err-bom-model", file: "src/x.model.json", line: 1, column: 1},
		{name: "err-utf8-lua", file: "src/x.lua", msg: "UTF-8"},
		{name: "err-utf8-txt", file: "src/x.txt", msg: "UTF-8"},
		{name: "err-utf8-json", file: "src/x.json", line: 1, column: 9, msg: "UTF-8"},
		{name: "err-empty-json", file: "src/x.json", line: 1, column: 1, msg: "no JSON value"},
		{name: "err-empty-meta", file: "src/x.meta.json", line: 1, column: 1, msg: "no JSON value"},
		{name: "err-empty-yaml", file: "src/x.yaml", msg: "must contain a document"},
		{name: "err-empty-rbxmx", file: "src/x.rbxmx", msg: "no root element"},
		{name: "err-init-meta-class", file: "src/S/init.meta.json", msg: "className cannot be used with an init script"},
		{name: "err-meta-id-twice", file: "src/a.meta.jsonc", msg: `already has id "one"`},
		{name: "err-syntax-model", file: "src/x.model.json", line: 4, column: 27},
		{name: "err-model-no-class", file: "src/x.model.json", msg: `"className" is required`},
		{name: "err-csv-fields", file: "src/x.csv", msg: "3 fields"},
		{name: "err-yaml-alias", file: "src/x.yaml", msg: "aliases"},
		{name: "err-yaml-documents", file: "src/x.yaml", msg: "multiple documents"},
		{name: "err-yaml-bigint", file: "src/x.yaml", msg: "9007199254740993"},
		{name: "err-bad-setting", file: "default.project.json", msg: `"emitLegacyScripts" must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := loadCase(t, tt.name, "", nil)
			if err == nil {
				t.Fatalf("Load succeeded, want an error; the tree is:\n%s", dump(p))
			}
			var pe *project.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Load error %v (%T), want a *project.Error", err, err)
			}
			t.Logf("Load error: %v", err)
			got := project.Error{File: pe.File, Line: pe.Line, Column: pe.Column}
			want := project.Error{File: tt.file, Line: tt.line, Column: tt.column}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Load error %q: place (-want +got):\n%s", err, diff)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("Load error %q, want it to contain %q", err, tt.msg)
			}
			ce := project.AsCoded(err)
			if ce.Code != errcode.ProjectInvalid {
				t.Errorf("AsCoded(%v).Code = %s, want %s", err, ce.Code, errcode.ProjectInvalid)
			}
			if ce.Details["file"] != tt.file {
				t.Errorf("AsCoded(%v) details.file = %v, want %s", err, ce.Details["file"], tt.file)
			}
			if tt.line > 0 && (ce.Details["line"] != tt.line || ce.Details["column"] != tt.column) {
				t.Errorf("AsCoded(%v) details line/column = %v/%v, want %d/%d", err, ce.Details["line"], ce.Details["column"], tt.line, tt.column)
			}
		})
	}
}

// TestLoadRootName loads projects through Load on an fs.FS, where the project's
// folder may be the fs root (named by Options.DirName) or a folder inside it.
func TestLoadRootName(t *testing.T) {
	tests := []struct {
		fsRoot, file string
		opts         project.Options
		want         string
	}{
		{fsRoot: "testdata", file: "default-probe", want: "default-probe"},
		{fsRoot: "testdata", file: "default-probe/default.project.json", want: "default-probe"},
		{fsRoot: "testdata/default-probe", file: ".", opts: project.Options{DirName: "given"}, want: "given"},
		{fsRoot: "testdata/jsonc-project", file: "default.project.jsonc", opts: project.Options{DirName: "given"}, want: "given"},
		{fsRoot: "testdata", file: "root-name-file/foo.project.json", want: "foo"},
		{fsRoot: "testdata", file: "lenient-jsonc", want: "LastWins"},
		{fsRoot: "testdata", file: "nested-path/lib/lib.project.json", want: "Lib"},
	}
	for _, tt := range tests {
		t.Run(tt.fsRoot+":"+tt.file, func(t *testing.T) {
			p, err := project.Load(os.DirFS(tt.fsRoot), tt.file, tt.opts)
			if err != nil {
				t.Fatalf("Load(%s, %s) error: %v", tt.fsRoot, tt.file, err)
			}
			if p.Name != tt.want || p.Root.Name != tt.want {
				t.Errorf("Load(%s, %s) named %q (root %q), want %q", tt.fsRoot, tt.file, p.Name, p.Root.Name, tt.want)
			}
		})
	}
}

// TestLoadNoProjectFile gives Load a folder without a default project file.
func TestLoadNoProjectFile(t *testing.T) {
	_, err := project.Load(os.DirFS("testdata"), "root-name-file", project.Options{})
	var pe *project.Error
	if !errors.As(err, &pe) || pe.File != "root-name-file" || !strings.Contains(pe.Msg, "no project file") {
		t.Fatalf("Load(root-name-file) error = %v, want a *project.Error saying no project file was found", err)
	}
	if code := project.AsCoded(err).Code; code != errcode.ProjectInvalid {
		t.Errorf("AsCoded(%v).Code = %s, want %s", err, code, errcode.ProjectInvalid)
	}
}

// TestLoadSymlinkLoop builds folders that contain a link to themselves or to an
// ancestor: Load must fail with E_PROJECT_INVALID, and quickly.
func TestLoadSymlinkLoop(t *testing.T) {
	tests := []struct {
		name       string
		link, to   string // link (relative to the project folder) → target
		wantInFile string
	}{
		{name: "link to the parent folder", link: "src/sub/back", to: "..", wantInFile: "src/sub/back"},
		{name: "link to the folder itself", link: "src/self", to: ".", wantInFile: "src/self"},
		{name: "link to the project folder", link: "src/up", to: "..", wantInFile: "src/up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range map[string]string{
				"default.project.json": `{ "tree": { "$path": "src" } }`,
				"src/a.lua":            "return 1\n",
				"src/sub/b.lua":        "return 2\n",
			} {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(tt.to, filepath.Join(dir, filepath.FromSlash(tt.link))); err != nil {
				t.Skipf("cannot make a symlink here: %v", err)
			}
			type result struct {
				p   *project.Project
				err error
			}
			done := make(chan result, 1)
			go func() {
				p, err := project.Load(os.DirFS(dir), "default.project.json", project.Options{DirName: "loop"})
				done <- result{p, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Load did not return within 20s: the symlink loop is walked forever")
			}
			if r.err == nil {
				t.Fatalf("Load succeeded, want a symlink loop error; the tree is:\n%s", dump(r.p))
			}
			var pe *project.Error
			if !errors.As(r.err, &pe) {
				t.Fatalf("Load error %v (%T), want a *project.Error", r.err, r.err)
			}
			t.Logf("Load error: %v", r.err)
			if !strings.HasPrefix(pe.File, tt.wantInFile) {
				t.Errorf("Load error %q names %q, want a path under %s", r.err, pe.File, tt.wantInFile)
			}
			if code := project.AsCoded(r.err).Code; code != errcode.ProjectInvalid {
				t.Errorf("AsCoded(%v).Code = %s, want %s", r.err, code, errcode.ProjectInvalid)
			}
		})
	}
}
