package gitblob

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// discover opens the repository at dir or fails the test.
func discover(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// realPath resolves symlinks so paths from git and from the tests compare.
func realPath(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestDiscover(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"src/server/deep/Main.server.lua": "print(1)\n"})
	commitAll(t, dir, "first")
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)

	tests := []struct {
		name     string
		from     string
		wantRoot string
		wantHead string
	}{
		{"root", dir, dir, "refs/heads/main"},
		{"nested directory", filepath.Join(dir, "src", "server", "deep"), dir, "refs/heads/main"},
		{"file", filepath.Join(dir, "src", "server", "deep", "Main.server.lua"), dir, "refs/heads/main"},
		{"relative dots", filepath.Join(dir, "src", "..", "src", "server"), dir, "refs/heads/main"},
		{"linked work tree", filepath.Join(wt, "src", "server"), wt, "refs/heads/side"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := discover(t, tt.from)
			if got, want := realPath(t, r.Root()), realPath(t, tt.wantRoot); got != want {
				t.Errorf("Root = %s, want %s", got, want)
			}
			if !filepath.IsAbs(r.Root()) {
				t.Errorf("Root %s is not absolute", r.Root())
			}
			head, err := r.HeadRef()
			if err != nil {
				t.Fatal(err)
			}
			if head != tt.wantHead {
				t.Errorf("HeadRef = %q, want %q", head, tt.wantHead)
			}
			got, err := r.Resolve("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			if want := runGit(t, tt.wantRoot, "rev-parse", "HEAD"); got != want {
				t.Errorf("Resolve(HEAD) = %s, want %s", got, want)
			}
		})
	}
}

func TestDiscoverNoRepo(t *testing.T) {
	dir := t.TempDir()
	if _, err := gitOutput(dir, nil, "rev-parse", "--git-dir"); err == nil {
		t.Fatalf("the temporary directory %s is inside a git repository", dir)
	}
	tests := []struct {
		name string
		dir  string
		want error
	}{
		{"no repository", dir, ErrNoRepo},
		{"missing directory", filepath.Join(dir, "missing"), fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Discover(tt.dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Discover = %v, %v; want error %v", r, err, tt.want)
			}
		})
	}
}

func TestUnbornHead(t *testing.T) {
	dir := newRepo(t)
	r := discover(t, dir)
	for _, rev := range []string{"", "HEAD", "main", "HEAD~1"} {
		t.Run("resolve "+rev, func(t *testing.T) {
			got, err := r.Resolve(rev)
			if !errors.Is(err, ErrNoBase) {
				t.Errorf("Resolve(%q) = %q, %v; want ErrNoBase", rev, got, err)
			}
		})
	}
	t.Run("commitfs", func(t *testing.T) {
		if _, err := r.CommitFS("HEAD"); !errors.Is(err, ErrNoBase) {
			t.Errorf("CommitFS(HEAD) error = %v, want ErrNoBase", err)
		}
	})
	t.Run("headref", func(t *testing.T) {
		got, err := r.HeadRef()
		if err != nil || got != "refs/heads/main" {
			t.Errorf("HeadRef = %q, %v; want refs/heads/main", got, err)
		}
	})
}

func TestRel(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"src/a.lua": ""})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	r := discover(t, dir)
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr bool
	}{
		{"root", dir, "", false},
		{"root with slash", dir + string(filepath.Separator), "", false},
		{"file", filepath.Join(dir, "src", "a.lua"), "src/a.lua", false},
		{"not yet created", filepath.Join(dir, "new", "dir", "b.lua"), "new/dir/b.lua", false},
		{"unclean", filepath.Join(dir, "src") + "/../src/./a.lua", "src/a.lua", false},
		{"through a symlink", filepath.Join(link, "src", "a.lua"), "src/a.lua", false},
		{"symlink, not yet created", filepath.Join(link, "new", "b.lua"), "new/b.lua", false},
		{"parent", filepath.Dir(dir), "", true},
		{"sibling with common prefix", dir + "-other", "", true},
		{"elsewhere", t.TempDir(), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Rel(tt.path)
			if tt.wantErr {
				if err == nil {
					t.Errorf("Rel(%s) = %q, want an error", tt.path, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Rel(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	dir := newRepo(t)
	writeFiles(t, dir, map[string]string{"a.lua": "1"})
	c1 := commitAll(t, dir, "one")
	runGit(t, dir, "branch", "feature")
	runGit(t, dir, "tag", "v1")
	writeFiles(t, dir, map[string]string{"a.lua": "2"})
	c2 := commitAll(t, dir, "two")
	runGit(t, dir, "tag", "-a", "-m", "annotated", "v2")
	writeFiles(t, dir, map[string]string{"a.lua": "3"})
	c3 := commitAll(t, dir, "three")
	r := discover(t, dir)

	tests := []struct {
		rev  string
		want string
	}{
		{"", c3},
		{"HEAD", c3},
		{"HEAD~1", c2},
		{"HEAD^", c2},
		{"HEAD~2", c1},
		{"main", c3},
		{"refs/heads/main", c3},
		{"feature", c1},
		{"v1", c1},
		{"v2", c2},
		{c1, c1},
		{strings.ToUpper(c2), c2},
		{c1[:7], c1},
		{c2[:12] + "~1", c1},
		{"v2^{}", c2},
		{"v2^{commit}", c2},
	}
	for _, tt := range tests {
		t.Run("good "+tt.rev, func(t *testing.T) {
			got, err := r.Resolve(tt.rev)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Resolve(%q) = %s, want %s", tt.rev, got, tt.want)
			}
		})
	}
	tree := runGit(t, dir, "rev-parse", "HEAD^{tree}")
	for _, rev := range []string{"nope", "HEAD~3", "v9", "feature~5", "0000000", tree, "HEAD:a.lua", "main@{1}", "v2^{tree}", "main..feature"} {
		t.Run("bad "+rev, func(t *testing.T) {
			got, err := r.Resolve(rev)
			if !errors.Is(err, ErrBadRevision) {
				t.Errorf("Resolve(%q) = %q, %v; want ErrBadRevision", rev, got, err)
			}
		})
	}
}

func TestHeadRefDetached(t *testing.T) {
	dir := newRepo(t)
	c1 := commitAll(t, dir, "one")
	runGit(t, dir, "checkout", "-q", "--detach")
	r := discover(t, dir)
	got, err := r.HeadRef()
	if err != nil || got != "" {
		t.Errorf("HeadRef = %q, %v; want \"\"", got, err)
	}
	if got, err := r.Resolve(""); err != nil || got != c1 {
		t.Errorf("Resolve = %q, %v; want %s", got, err, c1)
	}
}
