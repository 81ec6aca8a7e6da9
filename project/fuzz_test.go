package project_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project"
)

// fuzzFiles is a small project for the fuzzed bytes to point at: scripts, a
// folder with an init script, models, meta files, a nested project and data files.
var fuzzFiles = map[string]string{
	"src/a.lua":                  "return 1\n",
	"src/b.server.luau":          "print(2)\r\n",
	"src/c.txt":                  "text",
	"src/d.model.json":           `{"className": "Part", "properties": {"Anchored": true}}`,
	"src/d.meta.json":            `{"properties": {"Tags": ["x"]}}`,
	"src/e.csv":                  "Key,Source\nk,v\n",
	"src/f.toml":                 "a = 1\n",
	"src/g.yaml":                 "a: 1\n",
	"src/h.json":                 `{"a": [1, 2]}`,
	"src/Init/init.client.lua":   "print(3)\n",
	"src/Init/init.meta.json":    `{"ignoreUnknownInstances": true}`,
	"src/Tool/init.meta.json":    `{"className": "Tool"}`,
	"src/Tool/Handle.model.json": `{"className": "Part"}`,
	"lib/default.project.json":   `{"tree": {"$className": "Folder", "A": {"$path": "a.lua"}}}`,
	"lib/a.lua":                  "return 'lib'\n",
}

// seedFiles returns the contents of every fixture file whose name ends in one of
// suffixes, for seeding a fuzz corpus.
func seedFiles(f *testing.F, suffixes ...string) [][]byte {
	f.Helper()
	var seeds [][]byte
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				seeds = append(seeds, data)
				break
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if len(seeds) == 0 {
		f.Fatalf("no seed files ending in %v", suffixes)
	}
	return seeds
}

func fuzzFS(extra map[string][]byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, content := range fuzzFiles {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	for name, content := range extra {
		fsys[name] = &fstest.MapFile{Data: content}
	}
	return fsys
}

// loadNoPanic loads fsys: any outcome but a panic is fine, and a failure must be a
// *project.Error, the one error type the CLI reports as E_PROJECT_INVALID.
func loadNoPanic(t *testing.T, fsys fs.FS) {
	p, err := project.Load(fsys, ".", project.Options{DirName: "fuzz"})
	if err != nil {
		var pe *project.Error
		if !errors.As(err, &pe) {
			t.Fatalf("Load error %v (%T), want a *project.Error", err, err)
		}
		return
	}
	if p.Root == nil {
		t.Fatal("Load returned no error and no root")
	}
	// The tree must be well formed: every instance has a class and its parent.
	p.Root.Walk(func(i *dom.Instance) bool {
		if i.ClassName == "" {
			t.Errorf("instance %q has no ClassName", i.Path())
		}
		for _, c := range i.Children {
			if c.Parent != i {
				t.Errorf("instance %q: a child's Parent is not the instance", i.Path())
			}
		}
		return true
	})
}

// FuzzLoad loads fuzzed bytes as default.project.json.
func FuzzLoad(f *testing.F) {
	for _, seed := range seedFiles(f, ".project.json", ".project.jsonc") {
		f.Add(seed)
	}
	for _, seed := range []string{
		`{"tree": {"$path": "."}}`,
		`{"tree": {"$path": ".."}}`,
		`{"tree": {"$path": "default.project.json"}}`,
		`{"tree": {"$path": "/abs"}}`,
		`{"tree": {"$path": "C:\\x"}}`,
		`{"tree": {"$path": {"optional": "lib/default.project.json"}, "$id": "a", "$attributes": {"Rojo_Target_X": "a"}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"tree": {"$className": "DataModel", "ReplicatedStorage": {"$path": "src"}, "Lib": {"$path": "lib"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		loadNoPanic(t, fuzzFS(map[string][]byte{"default.project.json": data}))
	})
}

// fuzzTargets are where FuzzLoadFile writes its bytes, chosen by the fuzzed kind.
var fuzzTargets = []string{
	"src/x.model.json",        // a JSON model
	"src/d.meta.json",         // an adjacent meta file (of d.model.json: not applied)
	"src/a.meta.json",         // an adjacent meta file of a script
	"src/a.meta.jsonc",        // applied after a.meta.json
	"src/Init/init.meta.json", // an init script's meta file
	"src/Tool/init.meta.json", // a folder's meta file (className allowed)
	"src/x.model.jsonc",
	"src/x.json", // a JSON module
}

// FuzzLoadFile loads a fixed project with fuzzed bytes as one of its model or meta
// files.
func FuzzLoadFile(f *testing.F) {
	for _, seed := range seedFiles(f, ".model.json", ".model.jsonc", ".meta.json", ".meta.jsonc") {
		for kind := range fuzzTargets {
			f.Add(uint8(kind), seed)
		}
	}
	projectFile := []byte(`{"tree": {"$className": "DataModel", "ReplicatedStorage": {"$path": "src"}, "Lib": {"$path": "lib"}}}`)
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		target := fuzzTargets[int(kind)%len(fuzzTargets)]
		loadNoPanic(t, fuzzFS(map[string][]byte{"default.project.json": projectFile, target: data}))
	})
}
