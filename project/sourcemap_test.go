package project_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/project"
)

// files builds an fs from name → content pairs.
func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

// TestSourcemap pins Rojo 7.7's sourcemap rules (src/cli/sourcemap.rs and the
// relevant_paths of each snapshot middleware) on fixtures of our own.
func TestSourcemap(t *testing.T) {
	tests := []struct {
		name              string
		fs                fstest.MapFS
		includeNonScripts bool
		want              string
	}{
		{
			name: "a script lists itself, then its meta files; non-scripts are dropped",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
				"src/Main.server.luau", "print(1)",
				"src/Main.meta.json", `{"properties": {"Disabled": true}}`,
				"src/Main.meta.jsonc", `{}`,
				"src/Lib.luau", "return 1",
				"src/notes.txt", "text",
			),
			want: `{"name":"game","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Lib","className":"ModuleScript","filePaths":["src/Lib.luau"]},` +
				`{"name":"Main","className":"Script","filePaths":["src/Main.server.luau","src/Main.meta.json","src/Main.meta.jsonc"]}]}`,
		},
		{
			name: "with --include-non-scripts every instance is kept",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
				"src/Lib.luau", "return 1",
				"src/notes.txt", "text",
				"src/notes.meta.json", `{}`,
				"src/Empty/.gitkeep", "",
			),
			includeNonScripts: true,
			want: `{"name":"game","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Empty","className":"Folder"},` +
				`{"name":"Lib","className":"ModuleScript","filePaths":["src/Lib.luau"]},` +
				`{"name":"notes","className":"StringValue","filePaths":["src/notes.txt","src/notes.meta.json"]}]}`,
		},
		{
			name: "an init folder lists every init file in Rojo's order, then init.meta.json, not the folder's own meta",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
				"src/Pkg/init.luau", "return 1",
				"src/Pkg/init.lua", "return 2",
				"src/Pkg/init.meta.json", `{"properties": {}}`,
				"src/Pkg/Pkg.meta.json", `{"properties": {}}`,
				"src/Pkg/Child.luau", "return 3",
			),
			want: `{"name":"game","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Pkg","className":"ModuleScript","filePaths":["src/Pkg/init.lua","src/Pkg/init.luau","src/Pkg/init.meta.json"],"children":[` +
				`{"name":"Child","className":"ModuleScript","filePaths":["src/Pkg/Child.luau"]}]}]}`,
		},
		{
			name: "a folder lists its init.meta.json; a model lists its file on its root only",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
				"src/Assets/init.meta.json", `{"className": "Configuration"}`,
				"src/Assets/Part.model.json", `{"className": "Model", "children": [{"name": "Handle", "className": "Part"}]}`,
			),
			includeNonScripts: true,
			want: `{"name":"game","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Assets","className":"Configuration","filePaths":["src/Assets/init.meta.json"],"children":[` +
				`{"name":"Part","className":"Model","filePaths":["src/Assets/Part.model.json"],"children":[` +
				`{"name":"Handle","className":"Part"}]}]}]}`,
		},
		{
			name: "a project file is listed on the root of its tree only, after the root's own files",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$className": "DataModel",
					"ReplicatedStorage": {"Shared": {"$path": "shared"}},
					"ServerScriptService": {"$path": "server.project.json"}}}`,
				"server.project.json", `{"name": "other", "tree": {"$path": "server"}}`,
				"server/init.meta.json", `{}`,
				"server/Main.server.luau", "print(1)",
				"shared/Util.luau", "return 1",
				"shared/lib/default.project.json", `{"tree": {"$className": "Folder", "Inner": {"$path": "Inner.luau"}}}`,
				"shared/lib/Inner.luau", "return 2",
			),
			want: `{"name":"game","className":"DataModel","filePaths":["default.project.json"],"children":[` +
				`{"name":"ReplicatedStorage","className":"ReplicatedStorage","children":[` +
				`{"name":"Shared","className":"Folder","children":[` +
				`{"name":"Util","className":"ModuleScript","filePaths":["shared/Util.luau"]},` +
				`{"name":"lib","className":"Folder","filePaths":["shared/lib/default.project.json"],"children":[` +
				`{"name":"Inner","className":"ModuleScript","filePaths":["shared/lib/Inner.luau"]}]}]}]},` +
				`{"name":"ServerScriptService","className":"ServerScriptService","filePaths":["server/init.meta.json","server.project.json"],"children":[` +
				`{"name":"Main","className":"Script","filePaths":["server/Main.server.luau"]}]}]}`,
		},
		{
			name: "a file taken by a sync rule lists the meta file named after its instance",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"},
					"syncRules": [{"pattern": "*.mod", "use": "moduleScript", "suffix": ".mod"}, {"pattern": "*.skip", "use": "ignore"}]}`,
				"src/Thing.mod", "return 1",
				"src/Thing.meta.json", `{}`,
				"src/Other.skip", "x",
			),
			want: `{"name":"game","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Thing","className":"ModuleScript","filePaths":["src/Thing.mod","src/Thing.meta.json"]}]}`,
		},
		{
			name: "a project with no script is null",
			fs: files(
				"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
				"src/notes.txt", "text",
			),
			want: `null`,
		},
		{
			name: "names are escaped as serde_json does: quotes, backslashes and control characters only",
			fs: files(
				"default.project.json", `{"name": "a\"b\\c\t<&>`+"\u2028"+`", "tree": {"$path": "src"}}`,
				"src/Ä.luau", "return 1",
			),
			want: `{"name":"a\"b\\c\t<&>` + "\u2028" + `","className":"Folder","filePaths":["default.project.json"],"children":[` +
				`{"name":"Ä","className":"ModuleScript","filePaths":["src/Ä.luau"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := project.Load(tt.fs, "default.project.json", project.Options{DirName: "proj", RecordFiles: true})
			if err != nil {
				t.Fatal(err)
			}
			sm := p.Sourcemap(project.SourcemapOptions{IncludeNonScripts: tt.includeNonScripts})
			if got := string(sm.AppendJSON(nil)); got != tt.want {
				t.Errorf("Sourcemap() =\n%s\nwant\n%s", got, tt.want)
			}
			// What Rojo writes is plain JSON that decodes to the same tree.
			var back *project.SourcemapNode
			if err := json.Unmarshal(sm.AppendJSON(nil), &back); err != nil {
				t.Fatalf("the sourcemap is not JSON: %v", err)
			}
			if diff := cmp.Diff(sm, back); diff != "" {
				t.Errorf("decoded sourcemap differs (-built +decoded):\n%s", diff)
			}
		})
	}
}

func TestSourcemapAbsolute(t *testing.T) {
	fsys := files(
		"default.project.json", `{"name": "game", "tree": {"$path": "src"}}`,
		"src/Lib.luau", "return 1",
	)
	p, err := project.Load(fsys, "default.project.json", project.Options{RecordFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join("some", "project"))
	if err != nil {
		t.Fatal(err)
	}
	sm := p.Sourcemap(project.SourcemapOptions{AbsDir: abs})
	want := []string{filepath.ToSlash(filepath.Join(abs, "default.project.json")), filepath.ToSlash(filepath.Join(abs, "src", "Lib.luau"))}
	got := []string{sm.FilePaths[0], sm.Children[0].FilePaths[0]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("absolute filePaths differ (-want +got):\n%s", diff)
	}
	for _, f := range got {
		if strings.Contains(f, `\`) {
			t.Errorf("filePath %q has a backslash; sourcemaps use '/' on every OS", f)
		}
	}
}

// TestLoadRecordsFilesOnlyWhenAsked: a plan's load must not pay for the sourcemap.
func TestLoadRecordsFilesOnlyWhenAsked(t *testing.T) {
	fsys := files("default.project.json", `{"tree": {"$path": "src"}}`, "src/Lib.luau", "return 1")
	p, err := project.Load(fsys, "default.project.json", project.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Files != nil {
		t.Errorf("Files = %v without RecordFiles, want nil", p.Files)
	}
}
