package project_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project"
)

// indexProject writes a small project of every cached file kind, with mtimes an
// hour old (so no record is racily clean), and returns its folder.
func indexProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"default.project.json":      `{ "name": "P", "tree": { "$className": "DataModel", "ReplicatedStorage": { "$path": "src" } } }`,
		"src/a.luau":                "return 1\r\n",
		"src/b.server.luau":         "print(1)\n",
		"src/a.meta.json":           `{ "attributes": { "N": 1 } }`,
		"src/b.meta.json":           `{ "properties": { "Disabled": true } }`,
		"src/Part.model.json":       `{ "className": "Part", "properties": { "Anchored": true }, "children": [ { "name": "A", "className": "Attachment" } ] }`,
		"src/Note.txt":              "hello\n",
		"src/Data.json":             `{ "k": [1, 2] }`,
		"src/Conf.toml":             "k = 1\n",
		"src/Loc.csv":               "Key,Source,Context,Example,en\nk,v,,,x\n",
		"src/Empty.model.json":      "",
		"src/Folder/init.luau":      "return {}\n",
		"src/Folder/init.meta.json": `{ "ignoreUnknownInstances": true }`,
	}
	old := time.Now().Add(-time.Hour)
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// restarted loads dir through a new cache that reads the index first, as a
// restarted host does.
func restarted(t *testing.T, dir, index string) (*project.Cache, *project.Project, error) {
	t.Helper()
	c := project.NewCache(project.DirFS(dir), "default.project.json", project.Options{DirName: "p"})
	if err := c.ReadIndex(index); err != nil {
		t.Fatalf("ReadIndex: %v", err)
	}
	p, err := c.Load()
	return c, p, err
}

func TestIndexRestart(t *testing.T) {
	dir := indexProject(t)
	index := filepath.Join(t.TempDir(), "state", "index")
	fsys := project.DirFS(dir)
	opts := project.Options{DirName: "p"}
	c := project.NewCache(fsys, "default.project.json", opts)
	if _, err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteIndex(index); err != nil {
		t.Fatal(err)
	}
	want, wantErr := project.Load(fsys, "default.project.json", opts)
	texts := droppedTexts(want)
	c2, got, gotErr := restarted(t, dir, index)
	sameLoad(t, "restart", got, gotErr, want, wantErr, nil)
	readsBack(t, c2, got, texts)
	// The index keeps every parsed form but script text and project files: a
	// script file of its own is not read (its stat data proves its hashes, and
	// its text is read when needed); the init script, whose instance is its
	// folder's, and the project file are.
	if st := c2.Stats(); st.Parsed != 2 {
		t.Errorf("a restart read %d files, want the init script and the project file", st.Parsed)
	}

	// A file changed while the host was down is read again.
	p := filepath.Join(dir, "src", "Note.txt")
	if err := os.WriteFile(p, []byte("changed, longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, wantErr = project.Load(fsys, "default.project.json", opts)
	texts = droppedTexts(want)
	c3, got, gotErr := restarted(t, dir, index)
	sameLoad(t, "restart after an edit", got, gotErr, want, wantErr, nil)
	readsBack(t, c3, got, texts)
	if st := c3.Stats(); st.Parsed != 3 {
		t.Errorf("a restart after one edit read %d files, want the init script, the project file and the edited file", st.Parsed)
	}
}

// droppedTexts lets go of p's script texts as a cache restored from an index holds
// them (project.DropTexts), and returns them by instance id.
func droppedTexts(p *project.Project) map[string]string {
	if p == nil {
		return nil
	}
	out := map[string]string{}
	p.Root.Walk(func(x *dom.Instance) bool {
		if src, ok := x.Source(); ok && project.TextDroppable(x) {
			out[x.ID] = src
		}
		return true
	})
	if n := project.DropTexts(p.Root); n != len(out) {
		panic("DropTexts let go of another number of texts")
	}
	return out
}

// readsBack checks that every text dropped is read back from its file, the same.
func readsBack(t *testing.T, c *project.Cache, p *project.Project, texts map[string]string) {
	t.Helper()
	if len(texts) == 0 {
		t.Fatal("no script text was let go")
	}
	for id, want := range texts {
		x := p.Root.Index()[id]
		if x == nil {
			t.Fatalf("no instance %s", id)
		}
		if got, err := c.ReadText(x); err != nil || got != want {
			t.Errorf("ReadText(%s) = %q, %v; want %q", x.FsPath, got, err, want)
		}
	}
}

// TestIndexRacy is git's racy case: a file rewritten with the same size in the
// same clock tick as the one its record saw has the same stat data. A record that
// recent is compared by content, so the change is seen.
func TestIndexRacy(t *testing.T) {
	dir := indexProject(t)
	index := filepath.Join(t.TempDir(), "index")
	fsys := project.DirFS(dir)
	opts := project.Options{DirName: "p"}
	p := filepath.Join(dir, "src", "Note.txt")
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		t.Fatal(err)
	}
	c := project.NewCache(fsys, "default.project.json", opts)
	if _, err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteIndex(index); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("HELLO\n"), 0o644); err != nil { // the same size
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil { // the same mtime
		t.Fatal(err)
	}
	want, wantErr := project.Load(fsys, "default.project.json", opts)
	droppedTexts(want)
	_, got, gotErr := restarted(t, dir, index)
	sameLoad(t, "racy restart", got, gotErr, want, wantErr, nil)
	// The same through a cache that never wrote an index: a load in the same
	// process compares recent files by content too.
	c = project.NewCache(fsys, "default.project.json", opts)
	if _, err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("WORLD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	want, wantErr = project.Load(fsys, "default.project.json", opts)
	got, gotErr = c.Load()
	sameLoad(t, "racy reload", got, gotErr, want, wantErr, nil)
}

func TestIndexUnusable(t *testing.T) {
	dir := indexProject(t)
	state := t.TempDir()
	index := filepath.Join(state, "index")
	fsys := project.DirFS(dir)
	c := project.NewCache(fsys, "default.project.json", project.Options{DirName: "p"})
	if _, err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteIndex(index); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		opts project.Options
		want error
	}{
		{"missing", nil, project.Options{DirName: "p"}, fs.ErrNotExist},
		{"flipped byte", flipped, project.Options{DirName: "p"}, project.ErrIndexStale},
		{"truncated", good[:len(good)-40], project.Options{DirName: "p"}, project.ErrIndexStale},
		{"empty", []byte{}, project.Options{DirName: "p"}, project.ErrIndexStale},
		{"another project", good, project.Options{DirName: "other"}, project.ErrIndexStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(state, tc.name)
			if tc.data != nil {
				if err := os.WriteFile(p, tc.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c := project.NewCache(fsys, "default.project.json", tc.opts)
			err := c.ReadIndex(p)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadIndex = %v, want %v", err, tc.want)
			}
			// The cache still loads, reading every file.
			want, wantErr := project.Load(fsys, "default.project.json", tc.opts)
			got, gotErr := c.Load()
			sameLoad(t, "load after an unusable index", got, gotErr, want, wantErr, nil)
		})
	}
}
