package project

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

func TestPullRemove(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		path  string
		gone  []string // files and folders removed
		kept  []string // files that stay
	}{
		{
			name: "script with its meta file",
			files: map[string]string{
				"src/Main.server.luau": "print(1)\n", "src/Main.meta.json": `{"properties": {"Disabled": true}}`,
				"src/Other.luau": "return 1\n",
			},
			path: "ReplicatedStorage/Main",
			gone: []string{"src/Main.server.luau", "src/Main.meta.json"},
			kept: []string{"src/Other.luau"},
		},
		{
			name: "meta file shared with a same-named sibling stays",
			files: map[string]string{
				"src/Main.luau": "return 1\n", "src/Main.txt": "x", "src/Main.meta.json": `{"properties": {"Tags": ["A"]}}`,
			},
			path: "ReplicatedStorage/Main",
			gone: []string{"src/Main.luau"},
			kept: []string{"src/Main.txt", "src/Main.meta.json"},
		},
		{
			name:  "model file",
			files: map[string]string{"src/Box.model.json": `{"className": "Part"}`},
			path:  "ReplicatedStorage/Box",
			gone:  []string{"src/Box.model.json"},
		},
		{
			name: "folder",
			files: map[string]string{
				"src/Things/A.luau": "return 1\n", "src/Things/init.meta.json": `{"properties": {"Tags": ["T"]}}`,
				"src/Things/Sub/B.txt": "b", "src/Things/Sub/Empty/": "", "src/Things/Sub/Empty/.gitkeep": "", "src/Keep.luau": "return 2\n",
				"src/Things/Sub/.DS_Store": "\x00\x00\x00\x01Bud1", "src/Things/init.meta.jsonc": `{"properties": {}}`,
			},
			path: "ReplicatedStorage/Things",
			gone: []string{"src/Things"},
			kept: []string{"src/Keep.luau"},
		},
		{
			name:  "script folder",
			files: map[string]string{"src/Main/init.server.luau": "print(1)\n", "src/Main/Util.luau": "return 1\n"},
			path:  "ReplicatedStorage/Main",
			gone:  []string{"src/Main"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			ops, err := PullRemove(p, os.DirFS(dir), find(t, p, tt.path))
			if err != nil {
				t.Fatalf("PullRemove: %v", err)
			}
			for _, op := range ops {
				if !op.Delete || op.Data != nil || (op.Dir != (op.Expect == "")) {
					t.Errorf("PullRemove op %+v: want a delete with Expect for files only", op)
				}
			}
			apply(t, dir, ops)
			for _, f := range tt.gone {
				if exists(dir, f) {
					t.Errorf("%s exists after PullRemove", f)
				}
			}
			for _, f := range tt.kept {
				if !exists(dir, f) {
					t.Errorf("%s is gone after PullRemove", f)
				}
			}
			removed := find(t, p, tt.path).FsPath
			load(t, dir).Root.Walk(func(x *dom.Instance) bool {
				if x.Path() == tt.path && x.FsPath == removed {
					t.Errorf("%s still loads from %s after PullRemove", tt.path, removed)
				}
				return true
			})
		})
	}
}

func TestPullRemoveRefusals(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		path   string
		reason string
	}{
		{"project node", nil, "Workspace/Spawn", ReasonProjectNode},
		{"target of a $path", nil, "ReplicatedStorage", ReasonProjectNode},
		{"folder holding a file no instance comes from",
			map[string]string{"src/Things/A.luau": "return 1\n", "src/Things/Sub/B.luau": "return 2\n", "src/Things/Sub/notes.md": "mine"},
			"ReplicatedStorage/Things", ReasonUnmanagedFiles},
		{"folder holding a file the project's rules ignore",
			map[string]string{"src/Things/A.luau": "return 1\n", "src/Things/icon.png": "\x89PNG"},
			"ReplicatedStorage/Things", ReasonUnmanagedFiles},
		{"folder holding a meta file no instance has",
			map[string]string{"src/Things/A.luau": "return 1\n", "src/Things/Old.meta.json": `{"properties": {"Disabled": true}}`},
			"ReplicatedStorage/Things", ReasonUnmanagedFiles},
		{"folder holding an init file the loader does not pick",
			map[string]string{"src/Main/init.luau": "return 1\n", "src/Main/init.lua": "return 'older'\n"},
			"ReplicatedStorage/Main", ReasonUnmanagedFiles},
		{"inside a model file",
			map[string]string{"src/Car.model.json": `{"className": "Model", "children": [{"name": "Seat", "className": "Seat"}]}`},
			"ReplicatedStorage/Car/Seat", ReasonInModelFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, p := setup(t, tt.files)
			ops, err := PullRemove(p, os.DirFS(dir), find(t, p, tt.path))
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("PullRemove = %v, %v; want a refusal %s", ops, err, tt.reason)
			}
			if r.Reason != tt.reason || r.Path != tt.path || r.Msg == "" {
				t.Errorf("PullRemove refusal = %+v, want reason %s at %s with a message", r, tt.reason, tt.path)
			}
		})
	}
}

func TestPullRemoveSymlink(t *testing.T) {
	dir, _ := setup(t, map[string]string{"src/Things/A.luau": "return 1\n", "outside/B.luau": "return 2\n"})
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(dir, "src", "Things", "Link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	p := load(t, dir)
	_, err := PullRemove(p, os.DirFS(dir), find(t, p, "ReplicatedStorage/Things"))
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ReasonSymlink {
		t.Errorf("PullRemove of a folder holding a link = %v, want a refusal %s", err, ReasonSymlink)
	}
}
