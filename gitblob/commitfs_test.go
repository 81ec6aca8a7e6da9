package gitblob

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// fixtureFiles are the regular files of the fixture commit.
var fixtureFiles = map[string]string{
	"default.project.json":               `{"name": "Game", "tree": {"$path": "src"}}` + "\n",
	"src/server/Main.server.lua":         "local x = 1\r\nprint(x)\r\n",
	"src/shared/Util.lua":                "return {}\n",
	"src/shared/empty.lua":               "",
	"src/shared/bom.lua":                 "\xef\xbb\xbfreturn 'bom'\n",
	"src/client/deep/er/Gui.client.lua":  "-- deep\n",
	"assets/model.rbxm":                  string(allBytes()),
	"bin/run.sh":                         "#!/bin/sh\necho run\n",
	"a-b.txt":                            "dash\n",
	"a/x.txt":                            "in a\n",
	"a0.txt":                             "zero\n",
	"src/server/Folder/init.server.lua":  "print('init')\n",
	"src/server/Folder/Module/init.lua":  "return 1\n",
	"src/shared/ünïcode name.lua":        "return 'ü'\n",
	"src/shared/with space/and.dots.lua": "return 2\n",
}

// fixtureLink is a symlink in the fixture commit, and its target.
const fixtureLink, fixtureLinkTarget = "src/link.lua", "shared/Util.lua"

// fixtureSubmodule is a gitlink (submodule) entry in the fixture commit.
const fixtureSubmodule = "vendor/lib"

// newFixture commits fixtureFiles, the executable bin/run.sh, fixtureLink
// and fixtureSubmodule, on top of a first commit with other content, and
// returns the repository's directory.
func newFixture(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"src/shared/Util.lua": "return nil\n", "old.txt": "old\n"})
	first := commitAll(t, dir, "first")
	runGit(t, dir, "rm", "-q", "old.txt")
	writeFiles(t, dir, fixtureFiles)
	if err := os.Chmod(filepath.Join(dir, "bin", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fixtureLinkTarget, filepath.Join(dir, filepath.FromSlash(fixtureLink))); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "add", "-A")
	// A gitlink needs no submodule checkout: any commit id will do.
	runGit(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+first+","+fixtureSubmodule)
	runGit(t, dir, "commit", "-q", "-m", "fixture")
	return dir
}

func fixtureFS(t *testing.T) (string, fs.FS) {
	t.Helper()
	dir := newFixture(t)
	fsys, err := discover(t, dir).CommitFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return dir, fsys
}

func TestCommitFSFiles(t *testing.T) {
	dir, fsys := fixtureFS(t)
	modTime := time.Unix(commitUnix, 0)
	type file struct {
		name    string
		content string
		mode    fs.FileMode
	}
	var tests []file
	for name, content := range fixtureFiles {
		mode := fs.FileMode(0o644)
		if name == "bin/run.sh" {
			mode = 0o755
		}
		tests = append(tests, file{name, content, mode})
	}
	tests = append(tests, file{fixtureLink, fixtureLinkTarget, fs.ModeSymlink | 0o777})
	slices.SortFunc(tests, func(a, b file) int { return cmpString(a.name, b.name) })

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := fs.ReadFile(fsys, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.content, string(data)); diff != "" {
				t.Errorf("ReadFile (-want +got):\n%s", diff)
			}
			info, err := fs.Stat(fsys, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s %d %v %v", info.Name(), info.Size(), info.Mode(), info.IsDir())
			want := fmt.Sprintf("%s %d %v false", path.Base(tt.name), len(tt.content), tt.mode)
			if got != want {
				t.Errorf("Stat = %s, want %s", got, want)
			}
			if !info.ModTime().Equal(modTime) {
				t.Errorf("ModTime = %v, want the commit time %v", info.ModTime(), modTime)
			}
			hash, err := fsys.(BlobHasher).BlobHash(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if want := runGit(t, dir, "rev-parse", "HEAD:"+tt.name); hash != want {
				t.Errorf("BlobHash = %s, want %s", hash, want)
			}
			if hash != Hash(data) {
				t.Errorf("BlobHash = %s, but Hash of the content = %s", hash, Hash(data))
			}
		})
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestCommitFSWalkDir(t *testing.T) {
	_, fsys := fixtureFS(t)
	var got []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		suffix := ""
		switch {
		case d.IsDir():
			suffix = "/"
		case d.Type()&fs.ModeSymlink != 0:
			suffix = "@"
		}
		got = append(got, p+suffix)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by name within each directory: "a-b.txt" < "a" < "a0.txt", unlike
	// git's tree order, which sorts the directory "a" as "a/".
	want := []string{
		"./",
		"a/", "a/x.txt",
		"a-b.txt",
		"a0.txt",
		"assets/", "assets/model.rbxm",
		"bin/", "bin/run.sh",
		"default.project.json",
		"src/",
		"src/client/", "src/client/deep/", "src/client/deep/er/", "src/client/deep/er/Gui.client.lua",
		"src/link.lua@",
		"src/server/", "src/server/Folder/", "src/server/Folder/Module/", "src/server/Folder/Module/init.lua",
		"src/server/Folder/init.server.lua",
		"src/server/Main.server.lua",
		"src/shared/", "src/shared/Util.lua", "src/shared/bom.lua", "src/shared/empty.lua",
		"src/shared/with space/", "src/shared/with space/and.dots.lua",
		"src/shared/ünïcode name.lua",
		"vendor/", "vendor/lib/",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WalkDir (-want +got):\n%s", diff)
	}
}

// entry describes a file as a checkout holds it.
type entry struct {
	Kind    string // "dir", "file", "exec" or "symlink"
	Content string // file content or link target
}

func TestCommitFSMatchesCheckout(t *testing.T) {
	dir, fsys := fixtureFS(t)
	co := filepath.Join(t.TempDir(), "checkout")
	runGit(t, dir, "worktree", "add", "-q", "--detach", co, "HEAD")

	want := map[string]entry{}
	err := fs.WalkDir(os.DirFS(co), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == ".git" { // a linked work tree's pointer to its repository
			return nil
		}
		full := filepath.Join(co, filepath.FromSlash(p))
		switch {
		case d.IsDir():
			want[p] = entry{Kind: "dir"}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(full)
			want[p] = entry{"symlink", target}
			return err
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(full)
			kind := "file"
			if info.Mode()&0o100 != 0 {
				kind = "exec"
			}
			want[p] = entry{kind, string(data)}
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	got := map[string]entry{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			got[p] = entry{Kind: "dir"}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		kind := "file"
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			kind = "symlink"
		case info.Mode()&0o100 != 0:
			kind = "exec"
		}
		got[p] = entry{kind, string(data)}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < len(fixtureFiles) {
		t.Fatalf("checkout has only %d entries", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CommitFS differs from a checkout (-checkout +CommitFS):\n%s", diff)
	}
}

func TestCommitFSTestFS(t *testing.T) {
	_, fsys := fixtureFS(t)
	var expected []string
	for name := range fixtureFiles {
		expected = append(expected, name)
	}
	expected = append(expected, fixtureLink, fixtureSubmodule)
	t.Run("root", func(t *testing.T) {
		if err := fstest.TestFS(fsys, expected...); err != nil {
			t.Error(err)
		}
	})
	t.Run("subfs", func(t *testing.T) {
		sub, err := SubFS(fsys, "src/server")
		if err != nil {
			t.Fatal(err)
		}
		if err := fstest.TestFS(sub, "Main.server.lua", "Folder/Module/init.lua"); err != nil {
			t.Error(err)
		}
	})
}

func TestCommitFSSymlink(t *testing.T) {
	_, fsys := fixtureFS(t)
	target, err := fs.ReadLink(fsys, fixtureLink)
	if err != nil || target != fixtureLinkTarget {
		t.Errorf("ReadLink = %q, %v; want %q", target, err, fixtureLinkTarget)
	}
	info, err := fs.Lstat(fsys, fixtureLink)
	if err != nil || info.Mode() != fs.ModeSymlink|0o777 {
		t.Errorf("Lstat mode = %v, %v; want a symlink", info.Mode(), err)
	}
	if _, err := fs.ReadLink(fsys, "src/shared/Util.lua"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadLink of a regular file: error %v, want fs.ErrInvalid", err)
	}
}

func TestSubFS(t *testing.T) {
	dir, fsys := fixtureFS(t)
	viaSubFS, err := SubFS(fsys, "src")
	if err != nil {
		t.Fatal(err)
	}
	viaSub, err := fs.Sub(fsys, "src")
	if err != nil {
		t.Fatal(err)
	}
	nested, err := SubFS(viaSubFS, "shared")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fsys fs.FS
		file string
		full string // path of file in the commit
	}{
		{"SubFS", viaSubFS, "shared/Util.lua", "src/shared/Util.lua"},
		{"fs.Sub", viaSub, "server/Main.server.lua", "src/server/Main.server.lua"},
		{"nested", nested, "bom.lua", "src/shared/bom.lua"},
		{"dot", mustSub(t, fsys, "."), "src/shared/empty.lua", "src/shared/empty.lua"},
		{"other BlobHasher", mustSub(t, hashedMapFS(fsys, t), "src/shared"), "Util.lua", "src/shared/Util.lua"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := tt.fsys.(BlobHasher)
			if !ok {
				t.Fatalf("%T does not implement BlobHasher", tt.fsys)
			}
			got, err := h.BlobHash(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if want := runGit(t, dir, "rev-parse", "HEAD:"+tt.full); got != want {
				t.Errorf("BlobHash(%s) = %s, want %s", tt.file, got, want)
			}
			for _, iface := range []struct {
				name string
				ok   bool
			}{
				{"fs.ReadDirFS", is[fs.ReadDirFS](tt.fsys)},
				{"fs.ReadFileFS", is[fs.ReadFileFS](tt.fsys)},
				{"fs.StatFS", is[fs.StatFS](tt.fsys)},
				{"fs.SubFS", is[fs.SubFS](tt.fsys)},
			} {
				if !iface.ok {
					t.Errorf("%T does not implement %s", tt.fsys, iface.name)
				}
			}
			data, err := fs.ReadFile(tt.fsys, tt.file)
			if err != nil || Hash(data) != got {
				t.Errorf("ReadFile = %q, %v; its hash differs from BlobHash", data, err)
			}
			if _, err := h.BlobHash("../" + tt.file); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("BlobHash escaping the subtree: error %v, want fs.ErrInvalid", err)
			}
		})
	}
	if _, err := SubFS(fsys, "/src"); err == nil {
		t.Error("SubFS(/src) succeeded, want an error")
	}
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := SubFS(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// mapHasher is a BlobHasher other than CommitFS's, to test SubFS's wrapper.
type mapHasher struct {
	fstest.MapFS
	hashes map[string]string
}

func (m mapHasher) BlobHash(name string) (string, error) {
	h, ok := m.hashes[name]
	if !ok {
		return "", &fs.PathError{Op: "blobhash", Path: name, Err: fs.ErrNotExist}
	}
	return h, nil
}

// hashedMapFS copies the regular files of fsys into a mapHasher.
func hashedMapFS(fsys fs.FS, t *testing.T) mapHasher {
	m := mapHasher{MapFS: fstest.MapFS{}, hashes: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		m.MapFS[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		m.hashes[p] = Hash(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCommitFSErrors(t *testing.T) {
	_, fsys := fixtureFS(t)
	h := fsys.(BlobHasher)
	rd := fsys.(fs.ReadDirFS)
	tests := []struct {
		name string
		op   func() error
		want error // nil: any error
	}{
		{"open absolute", func() error { _, err := fsys.Open("/src"); return err }, fs.ErrInvalid},
		{"open dot-dot", func() error { _, err := fsys.Open("src/../a0.txt"); return err }, fs.ErrInvalid},
		{"open missing", func() error { _, err := fsys.Open("src/missing.lua"); return err }, fs.ErrNotExist},
		{"open below a file", func() error { _, err := fsys.Open("a0.txt/x"); return err }, fs.ErrNotExist},
		{"open inside a submodule", func() error { _, err := fsys.Open(fixtureSubmodule + "/x"); return err }, fs.ErrNotExist},
		{"readfile directory", func() error { _, err := fs.ReadFile(fsys, "src"); return err }, nil},
		{"readdir file", func() error { _, err := rd.ReadDir("a0.txt"); return err }, nil},
		{"blobhash directory", func() error { _, err := h.BlobHash("src"); return err }, nil},
		{"blobhash submodule", func() error { _, err := h.BlobHash(fixtureSubmodule); return err }, nil},
		{"blobhash missing", func() error { _, err := h.BlobHash("nope"); return err }, fs.ErrNotExist},
		{"read closed", func() error {
			f, err := fsys.Open("a0.txt")
			if err != nil {
				return nil
			}
			f.Close()
			_, err = f.Read(make([]byte, 1))
			return err
		}, fs.ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCommitFSBadCommit(t *testing.T) {
	dir := newFixture(t)
	r := discover(t, dir)
	tree := runGit(t, dir, "rev-parse", "HEAD^{tree}")
	for _, rev := range []string{"nope", tree, strings.Repeat("ab", 20)} {
		if _, err := r.CommitFS(rev); !errors.Is(err, ErrBadRevision) {
			t.Errorf("CommitFS(%s) error = %v, want ErrBadRevision", rev, err)
		}
	}
}

func TestCommitFSOlderCommit(t *testing.T) {
	dir := newFixture(t)
	fsys, err := discover(t, dir).CommitFS("HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(fsys, "src/shared/Util.lua")
	if err != nil || string(got) != "return nil\n" {
		t.Errorf("ReadFile = %q, %v; want the first commit's content", got, err)
	}
	if _, err := fs.Stat(fsys, "bin/run.sh"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a later file: error %v, want fs.ErrNotExist", err)
	}
}

func TestCommitFSConcurrent(t *testing.T) {
	dir := newFixture(t)
	r := discover(t, dir)
	want := map[string]string{}
	for name, content := range fixtureFiles {
		want[name] = content
	}
	want[fixtureLink] = fixtureLinkTarget
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 8 {
		wg.Go(func() {
			// Half the goroutines share one snapshot, half make their own.
			fsys, err := r.CommitFS("HEAD")
			if i%2 == 1 {
				fsys, err = r.CommitFS(runGit(t, dir, "rev-parse", "HEAD"))
			}
			if err != nil {
				errs <- err
				return
			}
			for name, content := range want {
				data, err := fs.ReadFile(fsys, name)
				if err != nil {
					errs <- err
					return
				}
				info, err := fs.Stat(fsys, name)
				if err != nil {
					errs <- err
					return
				}
				h, err := fsys.(BlobHasher).BlobHash(name)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(data, []byte(content)) || info.Size() != int64(len(content)) || h != Hash(data) {
					errs <- fmt.Errorf("%s: wrong content, size or hash", name)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCommitFSAfterRepack checks that a long-lived Repo still finds objects
// after git gc moved them into a new packfile and deleted the old ones.
func TestCommitFSAfterRepack(t *testing.T) {
	dir := newFixture(t)
	runGit(t, dir, "gc", "-q")
	r := discover(t, dir)
	old, err := r.CommitFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"src/shared/Util.lua": "return 'new'\n"})
	commitAll(t, dir, "after open")
	runGit(t, dir, "gc", "-q", "--prune=now")

	cur, err := r.CommitFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		fsys fs.FS
		want string
	}{{old, fixtureFiles["src/shared/Util.lua"]}, {cur, "return 'new'\n"}} {
		got, err := fs.ReadFile(tt.fsys, "src/shared/Util.lua")
		if err != nil || string(got) != tt.want {
			t.Errorf("ReadFile = %q, %v; want %q", got, err, tt.want)
		}
	}
}

func TestParseTree(t *testing.T) {
	id := strings.Repeat("\x01", 20)
	tests := []struct {
		name    string
		raw     string
		want    []string // "mode name"
		wantErr bool
	}{
		{"empty", "", nil, false},
		{"entries", "100644 a.lua\x00" + id + "40000 dir\x00" + id + "120000 l\x00" + id + "160000 sub\x00" + id,
			[]string{"100644 a.lua", "40000 dir", "120000 l", "160000 sub"}, false},
		{"legacy mode", "100664 old\x00" + id, []string{"100664 old"}, false},
		{"names git refuses", "100644 .\x00" + id + "100644 ..\x00" + id + "40000 .GIT\x00" + id + "100644 ok\x00" + id,
			[]string{"100644 ok"}, false},
		{"truncated id", "100644 a\x00" + id[:10], nil, true},
		{"no space", "100644a\x00" + id, nil, true},
		{"bad mode", "10x644 a\x00" + id, nil, true},
		{"no nul", "100644 a", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, err := parseTree([]byte(tt.raw))
			if tt.wantErr {
				if err == nil {
					t.Errorf("parseTree = %d entries, want an error", len(nodes))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range nodes {
				got = append(got, fmt.Sprintf("%o %s", nodes[i].mode, nodes[i].name))
				if string(nodes[i].hash[:]) != id {
					t.Errorf("%s: wrong id %x", nodes[i].name, nodes[i].hash)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseTree (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTreeCacheKeepsTheLatestCommit checks that the parsed trees a newer commit
// replaced leave the cache, that the trees it shares stay (nothing read twice), and
// that the older commit still reads right.
func TestTreeCacheKeepsTheLatestCommit(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a/x.lua": "return 1\n", "b/y.lua": "return 2\n", "b/c/z.lua": "return 3\n"})
	first := commitAll(t, dir, "first")
	writeFiles(t, dir, map[string]string{"a/x.lua": "return 10\n"})
	second := commitAll(t, dir, "second")
	treeOf := func(rev string) string { return strings.TrimSpace(runGit(t, dir, "rev-parse", rev)) }

	r := discover(t, dir)
	old, err := r.CommitFS(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitFS(second); err != nil {
		t.Fatal(err)
	}
	cached := func(rev string) bool {
		_, ok := r.trees[plumbing.NewHash(treeOf(rev))]
		return ok
	}
	for rev, want := range map[string]bool{
		second + "^{tree}": true, second + ":a": true, second + ":b": true, second + ":b/c": true,
		first + "^{tree}": false, first + ":a": false,
	} {
		if got := cached(rev); got != want {
			t.Errorf("tree %s cached: %v, want %v", rev, got, want)
		}
	}
	// The root's a and b, a's x.lua, b's y.lua and c, c's z.lua: 6 entries in 4 trees.
	if r.treeEntries != 6 || len(r.trees) != 4 {
		t.Errorf("tree cache holds %d entries in %d trees, want 6 in 4", r.treeEntries, len(r.trees))
	}
	// The older snapshot still reads its own content.
	got, err := fs.ReadFile(old, "a/x.lua")
	if err != nil || string(got) != "return 1\n" {
		t.Errorf("older commit's a/x.lua = %q, %v", got, err)
	}
	again, err := r.CommitFS(first)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(again, "b/c/z.lua"); err != nil || string(got) != "return 3\n" {
		t.Errorf("older commit read again: b/c/z.lua = %q, %v", got, err)
	}
	if !cached(first+":a") || cached(second+":a") || !cached(second+":b") {
		t.Error("after reading the older commit again, the cache does not hold exactly its trees")
	}
	for _, name := range []string{"a/x.lua/y", "a/nope", "b/c/", "./a"} {
		if _, err := fs.Stat(again, name); err == nil {
			t.Errorf("Stat(%q) found an entry", name)
		}
	}
}
