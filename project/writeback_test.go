package project

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	p, err := Load(os.DirFS(dir), "default.project.json", Options{DirName: "game", Root: dir})
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

// newInst builds a Studio instance: props, then children.
func newInst(name, class string, props dom.Properties, children ...*dom.Instance) *dom.Instance {
	inst := dom.New(name, class)
	inst.Properties = dom.PropsOf(props)
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
	for k, v := range want.Properties.All() {
		if _, ok := got.Properties.Lookup(k); !ok && notSaved(want.ClassName, k, v) {
			continue
		}
		if !dom.Equal(got.Properties.Get(k), v) {
			t.Errorf("%s: %s = %#v, want %#v", want.Path(), k, got.Properties.Get(k), v)
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
		studio.Properties.Set("Tags", dom.Tags{"Fast"})
		_, err := PullEdit(p, fsys, disk, studio, []string{"Tags"})
		var r *Refusal
		if !errors.As(err, &r) || r.Reason != ReasonInModelFile {
			t.Errorf("PullEdit of %s = %v, want a refusal %s", path, err, ReasonInModelFile)
		}
	}

	// A model file reached through $path takes properties in its project node.
	truck := find(t, p, "Workspace/Truck")
	studio := truck.Clone()
	studio.Properties.Set("Tags", dom.Tags{"Fast"})
	ops, err := PullEdit(p, fsys, truck, studio, []string{"Tags"})
	if err != nil {
		t.Fatalf("PullEdit of a $path model: %v", err)
	}
	apply(t, dir, ops)
	if got := find(t, load(t, dir), "Workspace/Truck").Properties.Get("Tags"); !dom.Equal(got, dom.Tags{"Fast"}) {
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
	studio.Properties.Set("Source", dom.String("return 2\n"))
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
	studio.Properties.Set("Gravity", dom.Float32(100))
	for b.Loop() {
		if _, err := PullEdit(p, fsys, disk, studio, []string{"Gravity"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullEditRemoveProperty(b *testing.B) {
	dir, p := benchProject(b, 1000)
	fsys := os.DirFS(dir)
	disk := p.Root.Find("Workspace")
	studio := disk.Clone()
	studio.Properties.Delete("Gravity")
	for b.Loop() {
		ops, err := PullEdit(p, fsys, disk, studio, []string{"Gravity"})
		if err != nil || len(ops) != 1 {
			b.Fatalf("PullEdit = %v, %v, want one write", ops, err)
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

// A model file's fields that Rojo ignores without a word are loaded the same, and
// warned of: "tags" there was meant to tag the instance.
func TestModelUnknownFieldsAreWarnedOf(t *testing.T) {
	_, p := setup(t, map[string]string{
		"src/Thing.model.json": `{ "className": "Part", "tags": ["Tagged"], "$schema": "x",
			"children": [ { "name": "A", "className": "Folder", "Attributes": { "X": 1 } } ] }`,
	})
	want := []string{
		`src/Thing.model.json: "tags" is not a field of a model instance and is ignored (as Rojo ignores it); tags go in "properties": { "Tags": [...] }`,
		`src/Thing.model.json: children[0]."Attributes" is not a field of a model instance and is ignored (as Rojo ignores it); the field is "attributes"`,
	}
	if !slices.Equal(p.Warnings, want) {
		t.Errorf("warnings = %q, want %q", p.Warnings, want)
	}
}
