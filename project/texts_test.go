package project_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/project"
)

// TestDropTextsReadBack: a cache lets go of its script texts (not an init script's,
// nor a data module's), an update of one file reads that file alone, and a text
// read back is checked against the hash the tree holds: a file changed since is
// ErrTextMoved, never another text.
func TestDropTextsReadBack(t *testing.T) {
	dir := indexProject(t)
	c := project.NewCache(project.DirFS(dir), "default.project.json", project.Options{DirName: "p"})
	p, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, x := range p.Root.Index() {
		if src, ok := x.Source(); ok {
			want[x.FsPath] = src
		}
	}
	if n := c.DropTexts(); n != 2 {
		t.Fatalf("DropTexts let go of %d texts, want the 2 script files' (a.luau, b.server.luau)", n)
	}
	byFile := map[string]string{}
	for _, x := range p.Root.Index() {
		if !x.IsScript() {
			continue
		}
		byFile[x.FsPath] = x.ID
		_, held := x.Source()
		if held == project.TextDroppable(x) {
			t.Errorf("%s (kind %v): holds its text %v after DropTexts", x.FsPath, x.Kind, held)
		}
		if project.TextDroppable(x) {
			if got, err := c.ReadText(x); err != nil || got != want[x.FsPath] {
				t.Errorf("ReadText(%s) = %q, %v; want %q", x.FsPath, got, err, want[x.FsPath])
			}
		}
	}

	// Another file changes: the update reads it alone, and the dropped texts stay
	// dropped (no file is read for them).
	if err := os.WriteFile(filepath.Join(dir, "src", "Note.txt"), []byte("new note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err = c.Update([]string{"src/Note.txt"}); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Parsed != 1 {
		t.Errorf("an update of one file read %d files", st.Parsed)
	}
	a := p.Root.Index()[byFile["src/a.luau"]]
	if _, held := a.Source(); held {
		t.Error("a.luau holds its text again after an update of another file")
	}

	// a.luau changes behind the tree's back: its text is not read back as another.
	if err := os.WriteFile(filepath.Join(dir, "src", "a.luau"), []byte("return 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadText(a); !errors.Is(err, project.ErrTextMoved) {
		t.Errorf("ReadText of a changed file = %q, %v; want ErrTextMoved", got, err)
	}
	// Gone, it says so (the host refuses both as disk_moved).
	if err := os.Remove(filepath.Join(dir, "src", "a.luau")); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadText(a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadText of a removed file = %q, %v; want fs.ErrNotExist", got, err)
	}
}
