package project_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/benchgen"
	"github.com/atlas-rbx/atlas/project"
)

// commitProject commits files in a new repository and loads the project from the
// commit with HashOnly, as the host loads its base.
func commitProject(t *testing.T, files map[string]string) (*project.Project, *gitblob.Repo) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed: %v", err)
	}
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--no-verify", "-m", "base"}} {
		if _, err := benchgen.Git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := gitblob.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.CommitFS("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(fsys, "default.project.json", project.Options{DirName: "game", HashOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, repo
}

func TestResolveSourceHashes(t *testing.T) {
	const crlf, lf = "print(1)\r\nprint(2)\r\n", "print(1)\nprint(2)\n"
	files := map[string]string{
		"default.project.json": `{"name":"game","tree":{"$className":"DataModel","ServerScriptService":{"$path":"src"}}}`,
		"src/CRLF.server.luau": crlf,
		"src/LF.server.luau":   lf,
	}
	tests := []struct {
		name string
		// others gives, by script name, the Source hash another tree has for it.
		others     map[string]string
		wantHash   map[string]string // Source hash by script name
		wantSource map[string]bool   // whether the blob was read (Source set)
	}{
		{
			name:       "no other tree: every file is read, CRLF normalized",
			wantHash:   map[string]string{"CRLF": gitblob.Hash([]byte(lf)), "LF": gitblob.Hash([]byte(lf))},
			wantSource: map[string]bool{"CRLF": true, "LF": true},
		},
		{
			name:       "another tree has the raw hash: nothing is read",
			others:     map[string]string{"CRLF": gitblob.Hash([]byte(crlf)), "LF": gitblob.Hash([]byte(lf))},
			wantHash:   map[string]string{"CRLF": gitblob.Hash([]byte(crlf)), "LF": gitblob.Hash([]byte(lf))},
			wantSource: map[string]bool{"CRLF": false, "LF": false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, repo := commitProject(t, files)
			fsys, err := repo.CommitFS("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			others := map[string]*dom.Instance{}
			for name, hash := range tt.others {
				x := p.Root.Find("ServerScriptService", name)
				o := dom.New(name, x.ClassName)
				o.ID, o.SourceHash = x.ID, hash
				others[x.ID] = o
			}
			for name := range tt.wantHash {
				if x := p.Root.Find("ServerScriptService", name); x.SourceHash != "" {
					t.Fatalf("%s has a Source hash before ResolveSourceHashes", name)
				}
			}
			p.ResolveSourceHashes(fsys, others)
			for name, want := range tt.wantHash {
				x := p.Root.Find("ServerScriptService", name)
				if x.SourceHash != want {
					t.Errorf("%s: SourceHash = %s, want %s", name, x.SourceHash, want)
				}
				if _, read := x.Source(); read != tt.wantSource[name] {
					t.Errorf("%s: Source read = %v, want %v", name, read, tt.wantSource[name])
				}
			}
		})
	}
}
