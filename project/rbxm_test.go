package project_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
)

func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func binaryModel(t *testing.T) []byte {
	t.Helper()
	car := dom.New("Car", "Model")
	car.ID = "00000000000000000000000000000001"
	seat := dom.New("Seat", "Seat")
	seat.ID = "00000000000000000000000000000002"
	seat.Properties.Set("Anchored", dom.Bool(true))
	seat.Properties.Set("Size", dom.Vector3{2, 1, 2})
	car.AddChild(seat)
	car.Properties.Set("PrimaryPart", dom.Ref(seat.ID))
	var b bytes.Buffer
	if err := rbxbin.Encode(&b, []*dom.Instance{car}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A binary .rbxm model in a project is one instance named after the file, with
// its descendants and the refs between them.
func TestLoadRbxm(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{
		"default.project.json": []byte(`{"name": "p", "tree": {"$className": "DataModel", "Workspace": {"$path": "src"}}}`),
		"src/Vehicle.rbxm":     binaryModel(t),
	})
	p, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "p"})
	if err != nil {
		t.Fatal(err)
	}
	v := p.Root.Find("Workspace", "Vehicle")
	if v == nil || v.ClassName != "Model" || v.Kind != dom.KindRbxm || v.FsPath != "src/Vehicle.rbxm" {
		t.Fatalf("Workspace/Vehicle = %+v, want a Model from src/Vehicle.rbxm", v)
	}
	seat := v.FindChild("Seat")
	if seat == nil || seat.Kind != dom.KindInFile || seat.Properties.Get("Anchored") != dom.Bool(true) {
		t.Fatalf("Seat = %+v", seat)
	}
	if v.Properties.Get("PrimaryPart") != dom.Ref(seat.ID) {
		t.Errorf("PrimaryPart = %v, want the seat's id %s", v.Properties.Get("PrimaryPart"), seat.ID)
	}
}

// A corrupt or cut .rbxm fails the load with E_PROJECT_INVALID naming the file
// and the chunk.
func TestLoadRbxmCorrupt(t *testing.T) {
	good := binaryModel(t)
	for name, data := range map[string][]byte{
		"cut":    good[:len(good)-20],
		"header": good[:20],
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string][]byte{
				"default.project.json": []byte(`{"name": "p", "tree": {"$path": "src"}}`),
				"src/Bad.rbxm":         data,
			})
			_, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "p"})
			ce := project.AsCoded(err)
			if err == nil || ce.Code != errcode.ProjectInvalid || ce.Details["file"] != "src/Bad.rbxm" {
				t.Fatalf("err %v (%v), want %s for src/Bad.rbxm", err, ce, errcode.ProjectInvalid)
			}
			if want := map[string]string{"cut": "chunk ", "header": "header"}[name]; !strings.Contains(err.Error(), want) {
				t.Errorf("message %q does not name the chunk (%q)", err, want)
			}
		})
	}
}
