package project_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
)

// linkFixture is a git-like work tree: repo/game holds the project (src mapped
// to ServerScriptService, shared mapped to ReplicatedStorage), repo/other is in
// the repository but outside the project folder, and outside is elsewhere.
type linkFixture struct {
	repo, proj, outside string
}

const secret = "print('a secret from outside the project')\n"

func newLinkFixture(t *testing.T, tree string) linkFixture {
	t.Helper()
	base := t.TempDir()
	f := linkFixture{repo: filepath.Join(base, "repo"), outside: filepath.Join(base, "outside")}
	f.proj = filepath.Join(f.repo, "game")
	for name, content := range map[string]string{
		"repo/game/default.project.json": `{ "name": "Game", "tree": { "$className": "DataModel", ` + tree + ` } }`,
		"repo/game/src/Main.server.luau": "print('main')\n",
		"repo/game/src/Lib/init.luau":    "return {}\n",
		"repo/game/shared/Util.luau":     "return 'util'\n",
		"repo/game/shared/Deep/A.luau":   "return 'a'\n",
		"repo/other/Other.luau":          "return 'other'\n",
		"outside/Secret.luau":            secret,
		"outside/dir/Secret.luau":        secret,
		"outside/Secret.meta.json":       `{ "properties": { "Disabled": true } }`,
	} {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

const defaultTree = `"ServerScriptService": { "$path": "src" }, "ReplicatedStorage": { "$path": "shared" }`

func (f linkFixture) link(t *testing.T, target, name string) {
	t.Helper()
	p := filepath.Join(f.proj, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
}

// load loads the project the way the CLI does: the fs is the repository, the
// project a folder in it.
func (f linkFixture) load(withRoot bool) (*project.Project, error) {
	opts := project.Options{DirName: "game"}
	if withRoot {
		opts.Root = f.repo
	}
	return project.Load(os.DirFS(f.repo), "game/default.project.json", opts)
}

// wantOutside checks err is the symlink_outside_project refusal naming file and link.
func wantOutside(t *testing.T, err error, file, link string) {
	t.Helper()
	var pe *project.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want a *project.Error", err, err)
	}
	if pe.Reason != errcode.ReasonSymlinkOutsideProject || pe.File != file || pe.Link != link || pe.Target == "" {
		t.Errorf("error = %+v, want reason %s, file %s, link %s and its target", pe, errcode.ReasonSymlinkOutsideProject, file, link)
	}
	ce := project.AsCoded(err)
	if ce.Code != errcode.ProjectInvalid || ce.ReasonCode() != errcode.ReasonSymlinkOutsideProject {
		t.Errorf("AsCoded = %s/%s, want %s/%s", ce.Code, ce.ReasonCode(), errcode.ProjectInvalid, errcode.ReasonSymlinkOutsideProject)
	}
	if len(ce.NextActions()) == 0 || ce.NextActions()[0] != errcode.NextFixSymlink {
		t.Errorf("next actions = %v, want %s first", ce.NextActions(), errcode.NextFixSymlink)
	}
	if ce.Details["link"] != link || ce.Details["file"] != file || ce.Details["target"] == "" {
		t.Errorf("details = %v, want file %s, link %s and target", ce.Details, file, link)
	}
	if !strings.Contains(err.Error(), link) {
		t.Errorf("message %q does not name the link %s", err.Error(), link)
	}
}

// A symbolic link that leads outside the project folder is refused wherever the
// loader meets it, and nothing is read through it.
func TestLoadRefusesSymlinksOutside(t *testing.T) {
	tests := []struct {
		name       string
		tree       string
		target     func(f linkFixture) string
		link       string
		wantFile   string
		wantLink   string
		onlyNoRoot bool // an absolute target inside the project: outside only without Options.Root
	}{
		{name: "script file to a file outside", target: func(f linkFixture) string { return filepath.Join(f.outside, "Secret.luau") },
			link: "src/Leak.luau", wantFile: "src/Leak.luau", wantLink: "src/Leak.luau"},
		{name: "script file by a relative link", target: func(linkFixture) string { return "../../../outside/Secret.luau" },
			link: "src/Leak.luau", wantFile: "src/Leak.luau", wantLink: "src/Leak.luau"},
		{name: "file in the repository outside the project", target: func(linkFixture) string { return "../../other/Other.luau" },
			link: "src/Other.luau", wantFile: "src/Other.luau", wantLink: "src/Other.luau"},
		{name: "folder to a folder outside", target: func(f linkFixture) string { return filepath.Join(f.outside, "dir") },
			link: "src/Ext", wantFile: "src/Ext", wantLink: "src/Ext"},
		{name: "init script", target: func(f linkFixture) string { return filepath.Join(f.outside, "Secret.luau") },
			link: "src/Pkg/init.server.luau", wantFile: "src/Pkg/init.server.luau", wantLink: "src/Pkg/init.server.luau"},
		{name: "meta file", target: func(f linkFixture) string { return filepath.Join(f.outside, "Secret.meta.json") },
			link: "src/Main.meta.json", wantFile: "src/Main.meta.json", wantLink: "src/Main.meta.json"},
		{name: "$path through a linked folder", tree: `"ServerScriptService": { "$path": "linked/dir" }`,
			target: func(f linkFixture) string { return f.outside }, link: "linked", wantFile: "linked/dir", wantLink: "linked"},
		{name: "$path to a linked file", tree: `"ServerScriptService": { "$className": "ServerScriptService", "Leak": { "$path": "leak.server.luau" } }`,
			target: func(f linkFixture) string { return filepath.Join(f.outside, "Secret.luau") }, link: "leak.server.luau", wantFile: "leak.server.luau", wantLink: "leak.server.luau"},
		{name: "absolute link into the project, fs root unknown", target: func(f linkFixture) string { return filepath.Join(f.proj, "shared", "Util.luau") },
			link: "src/Abs.luau", wantFile: "src/Abs.luau", wantLink: "src/Abs.luau", onlyNoRoot: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := tt.tree
			if tree == "" {
				tree = defaultTree
			}
			f := newLinkFixture(t, tree)
			f.link(t, tt.target(f), tt.link)
			p, err := f.load(!tt.onlyNoRoot)
			if err == nil {
				t.Fatalf("Load succeeded through %s; the tree is:\n%s", tt.link, dump(p))
			}
			wantOutside(t, err, tt.wantFile, tt.wantLink)
		})
	}
}

// Links that stay inside the project folder keep working, and read what they
// point at.
func TestLoadFollowsSymlinksInside(t *testing.T) {
	tests := []struct {
		name, link string
		target     func(f linkFixture) string
		tree       string
		wantPath   string // an instance the link makes
		wantSource string
	}{
		{name: "file to a file", link: "src/Alias.luau", target: func(linkFixture) string { return "../shared/Util.luau" },
			wantPath: "ServerScriptService/Alias", wantSource: "return 'util'\n"},
		{name: "folder to a folder", link: "src/Deep", target: func(linkFixture) string { return "../shared/Deep" },
			wantPath: "ServerScriptService/Deep/A", wantSource: "return 'a'\n"},
		{name: "absolute link, fs root known", link: "src/Abs.luau", target: func(f linkFixture) string { return filepath.Join(f.proj, "shared", "Util.luau") },
			wantPath: "ServerScriptService/Abs", wantSource: "return 'util'\n"},
		{name: "$path through a linked folder", link: "linked", target: func(linkFixture) string { return "shared" },
			tree: `"ServerScriptService": { "$path": "linked/Deep" }`, wantPath: "ServerScriptService/A", wantSource: "return 'a'\n"},
		{name: "a link out and back in", link: "src/Round.luau", target: func(f linkFixture) string { return filepath.Join(f.outside, "back") },
			wantPath: "ServerScriptService/Round", wantSource: "return 'util'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := tt.tree
			if tree == "" {
				tree = defaultTree
			}
			f := newLinkFixture(t, tree)
			if err := os.Symlink(filepath.Join(f.proj, "shared", "Util.luau"), filepath.Join(f.outside, "back")); err != nil {
				t.Skipf("cannot make a symlink here: %v", err)
			}
			f.link(t, tt.target(f), tt.link)
			p, err := f.load(true)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			inst := findPath(p.Root, tt.wantPath)
			if inst == nil {
				t.Fatalf("no %s in:\n%s", tt.wantPath, dump(p))
			}
			if got := inst.Properties.Get("Source"); got != dom.String(tt.wantSource) {
				t.Errorf("%s.Source = %v, want %q", tt.wantPath, got, tt.wantSource)
			}
		})
	}
}

func findPath(root *dom.Instance, p string) *dom.Instance {
	cur := root
	for _, name := range strings.Split(p, "/") {
		var next *dom.Instance
		for _, c := range cur.Children {
			if c.Name == name {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// The Cache refuses a link leading outside the project however it learns of it:
// an Update naming the new link, a link retargeted, a file replaced by a link,
// and a restart from a persisted index.
func TestCacheRefusesSymlinksOutside(t *testing.T) {
	tests := []struct {
		name   string
		before func(t *testing.T, f linkFixture) // before the first load
		change func(t *testing.T, f linkFixture) []string
	}{
		{name: "new link, Update", change: func(t *testing.T, f linkFixture) []string {
			f.link(t, filepath.Join(f.outside, "Secret.luau"), "src/Leak.luau")
			return []string{"game/src/Leak.luau"}
		}},
		{name: "new link in a nested folder, Update", change: func(t *testing.T, f linkFixture) []string {
			f.link(t, filepath.Join(f.outside, "Secret.luau"), "shared/Deep/Leak.luau")
			return []string{"game/shared/Deep/Leak.luau"}
		}},
		{name: "file replaced by a link, Update", change: func(t *testing.T, f linkFixture) []string {
			if err := os.Remove(filepath.Join(f.proj, "shared", "Deep", "A.luau")); err != nil {
				t.Fatal(err)
			}
			f.link(t, filepath.Join(f.outside, "Secret.luau"), "shared/Deep/A.luau")
			return []string{"game/shared/Deep/A.luau"}
		}},
		{name: "link inside retargeted outside, Update",
			before: func(t *testing.T, f linkFixture) { f.link(t, "../shared/Util.luau", "src/Leak.luau") },
			change: func(t *testing.T, f linkFixture) []string {
				p := filepath.Join(f.proj, "src", "Leak.luau")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				f.link(t, filepath.Join(f.outside, "Secret.luau"), "src/Leak.luau")
				return []string{"game/src/Leak.luau"}
			}},
		{name: "new link, restart from the index", change: func(t *testing.T, f linkFixture) []string {
			f.link(t, filepath.Join(f.outside, "Secret.luau"), "src/Leak.luau")
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newLinkFixture(t, defaultTree)
			if tt.before != nil {
				tt.before(t, f)
			}
			opts := project.Options{DirName: "game", Root: f.repo}
			c := project.NewCache(os.DirFS(f.repo), "game/default.project.json", opts)
			if _, err := c.Load(); err != nil {
				t.Fatalf("first Load: %v", err)
			}
			index := filepath.Join(t.TempDir(), "index")
			if err := c.WriteIndex(index); err != nil {
				t.Fatal(err)
			}
			changed := tt.change(t, f)
			var err error
			if changed != nil {
				var p *project.Project
				p, err = c.Update(changed)
				if err == nil {
					t.Fatalf("Update succeeded; the tree is:\n%s", dump(p))
				}
			} else {
				c2 := project.NewCache(os.DirFS(f.repo), "game/default.project.json", opts)
				if err := c2.ReadIndex(index); err != nil {
					t.Fatal(err)
				}
				var p *project.Project
				p, err = c2.Load()
				if err == nil {
					t.Fatalf("Load from the index succeeded; the tree is:\n%s", dump(p))
				}
			}
			var pe *project.Error
			if !errors.As(err, &pe) || pe.Reason != errcode.ReasonSymlinkOutsideProject {
				t.Fatalf("error = %v, want %s", err, errcode.ReasonSymlinkOutsideProject)
			}
			// A later full load says the same.
			if _, err := c.Load(); project.AsCoded(err).ReasonCode() != errcode.ReasonSymlinkOutsideProject {
				t.Errorf("Load after = %v, want %s", err, errcode.ReasonSymlinkOutsideProject)
			}
		})
	}
}

// A commit's tree holds a link as a blob of its target's path; loaded from the
// commit, a link inside the project reads as what it points at, as on disk, so
// the base of a linked script is its text, not the link's.
func TestLoadCommitFollowsSymlinksInside(t *testing.T) {
	f := newLinkFixture(t, defaultTree)
	f.link(t, "../shared/Util.luau", "src/Alias.luau")
	f.link(t, "../shared/Deep", "src/Deep")
	if _, err := git(f.repo, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	commit := commitAll(t, f.repo)
	repo, err := gitblob.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.CommitFS(commit)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := f.load(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, hashOnly := range []bool{false, true} {
		base, err := project.Load(fsys, "game/default.project.json", project.Options{DirName: "game", HashOnly: hashOnly})
		if err != nil {
			t.Fatalf("Load of the commit (HashOnly %v): %v", hashOnly, err)
		}
		for _, p := range []string{"ServerScriptService/Alias", "ServerScriptService/Deep/A"} {
			d, b := findPath(disk.Root, p), findPath(base.Root, p)
			if d == nil || b == nil {
				t.Fatalf("%s: on disk %v, in the commit %v", p, d != nil, b != nil)
			}
			if d.RawHash != b.RawHash || b.RawHash == "" {
				t.Errorf("%s (HashOnly %v): blob %s in the commit, %s on disk", p, hashOnly, b.RawHash, d.RawHash)
			}
			if !hashOnly && b.Properties.Get("Source") != d.Properties.Get("Source") {
				t.Errorf("%s: Source %v in the commit, %v on disk", p, b.Properties.Get("Source"), d.Properties.Get("Source"))
			}
		}
	}
	// A link leaving the project is refused in a commit too; one to an absolute
	// path, which a commit cannot place, reads as missing.
	f.link(t, filepath.Join(f.outside, "Secret.luau"), "src/Abs.luau")
	commit = commitAll(t, f.repo)
	if fsys, err = repo.CommitFS(commit); err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(fsys, "game/default.project.json", project.Options{DirName: "game"})
	if err != nil || findPath(p.Root, "ServerScriptService/Abs") != nil {
		t.Fatalf("Load of a commit with an absolute link = %v; want it loaded without the link", err)
	}
	f.link(t, "../../../outside/Secret.luau", "src/Leak.luau")
	commit = commitAll(t, f.repo)
	if fsys, err = repo.CommitFS(commit); err != nil {
		t.Fatal(err)
	}
	_, err = project.Load(fsys, "game/default.project.json", project.Options{DirName: "game"})
	if project.AsCoded(err).ReasonCode() != errcode.ReasonSymlinkOutsideProject {
		t.Errorf("Load of a commit with a link leaving the project = %v, want %s", err, errcode.ReasonSymlinkOutsideProject)
	}
}

// A $path through a linked folder reads the same from a commit as from disk.
func TestLoadCommitPathThroughLink(t *testing.T) {
	f := newLinkFixture(t, `"ServerScriptService": { "$path": "linked/Deep" }`)
	f.link(t, "shared", "linked")
	if _, err := git(f.repo, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	commit := commitAll(t, f.repo)
	repo, err := gitblob.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.CommitFS(commit)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := f.load(true)
	if err != nil {
		t.Fatal(err)
	}
	base, err := project.Load(fsys, "game/default.project.json", project.Options{DirName: "game"})
	if err != nil {
		t.Fatalf("Load of the commit: %v", err)
	}
	if got, want := dump(base), dump(disk); got != want {
		t.Errorf("the commit loads as\n%s\nthe disk as\n%s", got, want)
	}
}
