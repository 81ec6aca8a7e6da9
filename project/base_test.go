package project_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
	"github.com/google/go-cmp/cmp"
)

// countingFS counts the files read from a commit's tree.
type countingFS struct {
	fs.FS
	reads *int
}

func (f countingFS) ReadFile(name string) ([]byte, error) {
	*f.reads++
	return fs.ReadFile(f.FS, name)
}
func (f countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }
func (f countingFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(f.FS, name) }
func (f countingFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(f.FS, name) }
func (f countingFS) ReadLink(name string) (string, error)       { return fs.ReadLink(f.FS, name) }
func (f countingFS) BlobHash(name string) (string, error) {
	return f.FS.(gitblob.BlobHasher).BlobHash(name)
}

// withoutSources drops what only a disk tree has (script Sources and their
// hashes), so it compares with a base tree loaded with HashOnly.
func withoutSources(p *project.Project) *project.Project {
	c := &project.Project{File: p.File, Dir: p.Dir, Name: p.Name, Root: p.Root.Clone(),
		ServePort: p.ServePort, ServePlaceIDs: p.ServePlaceIDs, BlockedPlaceIDs: p.BlockedPlaceIDs,
		PlaceID: p.PlaceID, GameID: p.GameID, EmitLegacyScripts: p.EmitLegacyScripts, Warnings: p.Warnings}
	c.Root.Walk(func(x *dom.Instance) bool {
		if x.IsScript() && (x.Kind == dom.KindScript || x.Kind == dom.KindInit) {
			x.Properties.Delete("Source")
			x.SourceHash = ""
		}
		return true
	})
	return c
}

func commitAll(t *testing.T, dir string) string {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "--no-verify", "--allow-empty", "-m", "c"}} {
		if _, err := git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	out, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return out[:40]
}

func TestCacheBase(t *testing.T) {
	dir := indexProject(t)
	if _, err := git(dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	commit := commitAll(t, dir)
	repo, err := gitblob.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := project.Options{DirName: "p"}
	baseOpts := project.Options{DirName: "p", HashOnly: true}
	state := filepath.Join(t.TempDir(), "base")
	c := project.NewCache(project.DirFS(dir), "default.project.json", opts)
	disk, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	commitFS := func() (fs.FS, *int) {
		fsys, err := repo.CommitFS(commit)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		return countingFS{fsys, &n}, &n
	}
	check := func(what string, got *project.Project, src, wantSrc project.BaseSource, strip bool) {
		t.Helper()
		if src != wantSrc {
			t.Errorf("%s: base from %s, want %s", what, src, wantSrc)
		}
		fsys, _ := commitFS()
		want, wantErr := project.Load(fsys, "default.project.json", baseOpts)
		if strip {
			got = withoutSources(got)
		}
		sameLoad(t, what, got, nil, want, wantErr, nil)
	}

	// The commit holds the disk's files: the disk tree is the base.
	fsys, reads := commitFS()
	b, src, err := c.Base(fsys, commit, state)
	if err != nil {
		t.Fatal(err)
	}
	if b != disk {
		t.Errorf("the base is not the disk tree")
	}
	check("clean", b, src, project.BaseFromDisk, true)
	if *reads != 0 {
		t.Errorf("a clean base read %d files from git, want 0", *reads)
	}

	// Untracked clutter does not matter; an edited file does, and only it is
	// read from git.
	for name, data := range map[string]string{"src/README.md": "notes", "src/Note.txt": "edited\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Update([]string{"src/README.md", "src/Note.txt"}); err != nil {
		t.Fatal(err)
	}
	fsys, reads = commitFS()
	b, src, err = c.Base(fsys, commit, state)
	if err != nil {
		t.Fatal(err)
	}
	check("one file edited", b, src, project.BaseFromCommit, false)
	if *reads != 1 {
		t.Errorf("the base read %d files from git, want 1 (the edited one)", *reads)
	}

	// The base is kept in the state dir by SaveBase, not by Base, and once.
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Base wrote the state-dir file (%v): SaveBase does", err)
	}
	// After its scripts' Source hashes were given (as a plan does), which a base
	// loaded from the file must not need again to be the same tree.
	b.ResolveSourceHashes(fsys, disk.Root.Index())
	if saved, err := c.SaveBase(); !saved || err != nil {
		t.Fatalf("SaveBase() = %v, %v; want a file written", saved, err)
	}
	if saved, err := c.SaveBase(); saved || err != nil {
		t.Errorf("SaveBase() again = %v, %v; want nothing written", saved, err)
	}

	// Another process finds the base in the state dir.
	c2 := project.NewCache(project.DirFS(dir), "default.project.json", opts)
	fsys, reads = commitFS()
	b, src, err = c2.Base(fsys, commit, state)
	if err != nil {
		t.Fatal(err)
	}
	if src != project.BaseFromFile {
		t.Errorf("restart: base from %s, want %s", src, project.BaseFromFile)
	}
	if *reads != 0 {
		t.Errorf("a base from the state dir read %d files from git", *reads)
	}
	resolved := withSourceHashes(t, b, fsys, disk)
	fsys, _ = commitFS()
	fresh, err := project.Load(fsys, "default.project.json", baseOpts)
	if err != nil {
		t.Fatal(err)
	}
	if want := withSourceHashes(t, fresh, fsys, disk); resolved != want {
		t.Errorf("the saved base, its Source hashes given, is not the commit's tree with them:\n%s", cmp.Diff(want, resolved))
	}
	if saved, err := c2.SaveBase(); saved || err != nil {
		t.Errorf("SaveBase() of a base read from the file = %v, %v; want nothing written", saved, err)
	}

	// A new commit of the disk state: the disk tree again.
	commit = commitAll(t, dir)
	fsys, _ = commitFS()
	b, src, err = c.Base(fsys, commit, state)
	if err != nil {
		t.Fatal(err)
	}
	check("after a commit", b, src, project.BaseFromDisk, true)

	// Scripts edited since the commit, and nothing else: a copy of the disk tree
	// with the commit's blob ids for them, read from git not at all; the disk tree
	// itself is left as it was. An edited init script is its folder's: a load.
	for _, tc := range []struct {
		what  string
		files map[string]string
		want  project.BaseSource
	}{
		{"two scripts edited", map[string]string{"src/a.luau": "return 2\r\n", "src/b.server.luau": "print(2)\n"}, project.BaseFromDiskScripts},
		{"a script edited to the same text", map[string]string{"src/a.luau": "return 1\n"}, project.BaseFromDiskScripts},
		{"an init script edited", map[string]string{"src/Folder/init.luau": "return { 1 }\n"}, project.BaseFromCommit},
		{"a script and a text file edited", map[string]string{"src/a.luau": "return 3\n", "src/Note.txt": "bye\n"}, project.BaseFromCommit},
	} {
		var changed []string
		for name, data := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			changed = append(changed, name)
		}
		disk, err := c.Update(changed)
		if err != nil {
			t.Fatal(err)
		}
		before := fullDump(t, disk)
		fsys, reads = commitFS()
		b, src, err = c.Base(fsys, commit, state)
		if err != nil {
			t.Fatal(err)
		}
		check(tc.what, b, src, tc.want, tc.want == project.BaseFromDiskScripts)
		if tc.want == project.BaseFromDiskScripts {
			if *reads != 0 {
				t.Errorf("%s: the base read %d files from git, want 0", tc.what, *reads)
			}
			if b.Root == disk.Root {
				t.Errorf("%s: the base is the disk tree, not a copy", tc.what)
			}
			onPath := map[string]bool{} // the edited scripts and the instances above them
			for name := range tc.files {
				x := byFsPath(b.Root, name)
				if x == nil {
					t.Fatalf("%s: no base instance of %s", tc.what, name)
				}
				if _, ok := x.Source(); ok || x.SourceHash != "" {
					t.Errorf("%s: the base's %s has the disk's Source (hash %q)", tc.what, name, x.SourceHash)
				}
				for a := x; a != nil; a = a.Parent {
					onPath[a.ID] = true
				}
				if !onPath[b.Root.ID] {
					t.Errorf("%s: the base's %s is not under the base's root", tc.what, name)
				}
			}
			// Only those are copies: every other subtree is the disk tree's own.
			diskIndex, shared := disk.Root.Index(), 0
			b.Root.Walk(func(x *dom.Instance) bool {
				if own := diskIndex[x.ID] == x; own == onPath[x.ID] {
					t.Errorf("%s: %s is the disk's own %v, on an edited script's path %v", tc.what, x.Path(), own, onPath[x.ID])
				} else if own {
					shared++
				} else if d := diskIndex[x.ID]; d != nil && len(d.Properties) > 0 && reflect.ValueOf(d.Properties).UnsafePointer() == reflect.ValueOf(x.Properties).UnsafePointer() {
					// A copy writes its own map (texts are let go and read back
					// per tree).
					t.Errorf("%s: the copy of %s shares the disk instance's properties", tc.what, x.Path())
				}
				return true
			})
			if shared == 0 {
				t.Errorf("%s: the base shares nothing with the disk tree", tc.what)
			}
		}
		if after := fullDump(t, disk); after != before {
			t.Errorf("%s: the disk tree changed:\n%s", tc.what, cmp.Diff(before, after))
		}
		if _, err := git(dir, "checkout", "-q", "--", "src"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Update(changed); err != nil {
			t.Fatal(err)
		}
	}

	// A file the disk has and the commit has not (untracked, but loaded).
	if err := os.WriteFile(filepath.Join(dir, "src", "New.luau"), []byte("return 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update([]string{"src/New.luau"}); err != nil {
		t.Fatal(err)
	}
	fsys, _ = commitFS()
	b, src, err = c.Base(fsys, commit, "")
	if err != nil {
		t.Fatal(err)
	}
	check("untracked script", b, src, project.BaseFromCommit, false)
}

// withSourceHashes gives p's scripts their Source hashes, as a plan does, and dumps
// the tree with them.
func withSourceHashes(t *testing.T, p *project.Project, fsys fs.FS, disk *project.Project) string {
	t.Helper()
	p.ResolveSourceHashes(fsys, disk.Root.Index())
	var b strings.Builder
	p.Root.Walk(func(x *dom.Instance) bool {
		src, _ := x.Source()
		fmt.Fprintf(&b, "%s %s %s raw=%s source=%s %q\n", x.ID, x.Path(), x.ClassName, x.RawHash, x.SourceHash, src)
		return true
	})
	return fullDump(t, p) + b.String()
}

// byFsPath finds the instance loaded from the file at p (relative to the project).
func byFsPath(root *dom.Instance, p string) *dom.Instance {
	var found *dom.Instance
	root.Walk(func(x *dom.Instance) bool {
		if found == nil && x.FsPath == p {
			found = x
		}
		return found == nil
	})
	return found
}
