package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
)

// TestBuildBinaryMatchesXML builds fixture projects to every format and checks
// that the binary and XML files of a kind read back as the same tree.
func TestBuildBinaryMatchesXML(t *testing.T) {
	for _, tt := range []struct{ fixture, bin, xml string }{
		{"file-rules", "m.rbxm", "m.rbxmx"},
		{"refs", "m.rbxm", "m.rbxmx"},
		{"services", "p.rbxl", "p.rbxlx"},
		{"class-resolution", "p.rbxl", "p.rbxlx"},
	} {
		t.Run(tt.fixture+"/"+tt.bin, func(t *testing.T) {
			cwd := t.TempDir()
			var trees [2][]*dom.Instance
			for i, out := range []string{tt.bin, tt.xml} {
				if _, stderr, code := runAtlas(t, cwd, "--project", fixture(t, tt.fixture), "build", "-o", out); code != exitOK {
					t.Fatalf("build -o %s exited %d: %s", out, code, stderr)
				}
				data, err := os.ReadFile(filepath.Join(cwd, out))
				if err != nil {
					t.Fatal(err)
				}
				if rbxbin.IsBinary(data) != (i == 0) {
					t.Fatalf("%s: binary = %v", out, rbxbin.IsBinary(data))
				}
				f := fileFormats[filepath.Ext(out)]
				if trees[i], err = f.decode(bytes.NewReader(data)); err != nil {
					t.Fatalf("decode %s: %v", out, err)
				}
			}
			if d := treeDiff(trees[1], trees[0]); d != "" {
				t.Errorf("%s and %s differ: %s", tt.xml, tt.bin, d)
			}
			// Rojo's default: every Model gets NeedsPivotMigration = false.
			for _, r := range trees[0] {
				r.Walk(func(i *dom.Instance) bool {
					if pivotClasses[i.ClassName] && i.Properties.Get("NeedsPivotMigration") != dom.Bool(false) {
						t.Errorf("%s %s has NeedsPivotMigration %v, want false", i.ClassName, i.Name, i.Properties.Get("NeedsPivotMigration"))
					}
					return true
				})
			}
		})
	}
}

// treeDiff describes the first difference between two trees read from files,
// ignoring properties only one side has when they hold the database default (the
// binary format gives every instance of a class the same properties).
func treeDiff(a, b []*dom.Instance) string {
	if len(a) != len(b) {
		return "different numbers of children"
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.ClassName != y.ClassName {
			return x.Name + " vs " + y.Name
		}
		for k, v := range x.Properties.All() {
			if w, ok := y.Properties.Lookup(k); !ok || (v.Type() != "Ref" && !dom.Equal(v, w)) {
				return x.Path() + "/" + x.Name + "." + k
			}
		}
		if d := treeDiff(x.Children, y.Children); d != "" {
			return d
		}
	}
	return ""
}
