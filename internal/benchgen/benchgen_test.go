package benchgen_test

import (
	"os/exec"
	"testing"

	"github.com/atlas-rbx/atlas/internal/benchgen"
	"github.com/atlas-rbx/atlas/project"
)

// A small generated project loads as the instances Write counts, and is committed.
func TestWrite(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed: %v", err)
	}
	tests := []benchgen.Options{
		{Packages: 10, Subfolders: 2, Scripts: 3, ScriptSize: 512},
		{Packages: 1, Subfolders: 1, Scripts: 1, ScriptSize: 100},
	}
	for _, o := range tests {
		dir := t.TempDir()
		p, err := benchgen.Write(dir, o)
		if err != nil {
			t.Fatalf("Write(%+v): %v", o, err)
		}
		loc, err := project.Locate(dir, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := project.LoadDisk(loc)
		if err != nil {
			t.Fatal(err)
		}
		if n := loaded.Root.Count(); n != p.Instances {
			t.Errorf("Write(%+v) counts %d instances, the project loads %d", o, p.Instances, n)
		}
		if len(p.Edits) != o.Packages*o.Subfolders {
			t.Errorf("Write(%+v) gives %d edit targets, want %d", o, len(p.Edits), o.Packages*o.Subfolders)
		}
		if out, err := benchgen.Git(dir, "status", "--porcelain"); err != nil || out != "" {
			t.Errorf("git status after Write(%+v) = %q, %v; want a clean commit", o, out, err)
		}
	}
}
