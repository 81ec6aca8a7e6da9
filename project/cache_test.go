package project_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

var (
	randomSteps = flag.Int("random-steps", 400, "steps of each random edit sequence in TestCacheRandomEdits")
	randomSeeds = flag.Int("random-seeds", 3, "random edit sequences in TestCacheRandomEdits")
)

// fullDump is every field of every instance, children in order, then the
// project's settings and warnings in order: two loads are the same load when
// their dumps are equal. It checks that each child's Parent is its parent.
// readTextsBack gives the scripts of p, a tree of c, the texts c let go: a record
// restored from an index holds none, and a script whose stat data proves it
// unchanged keeps its hashes only. Each is read from its file and checked against
// them, as the host does before it writes one.
func readTextsBack(t *testing.T, c *project.Cache, p *project.Project) {
	t.Helper()
	if p == nil {
		return
	}
	p.Root.Walk(func(x *dom.Instance) bool {
		if _, ok := x.Source(); !ok && project.TextDroppable(x) {
			text, err := c.ReadText(x)
			if err != nil {
				t.Fatalf("ReadText(%s): %v", x.FsPath, err)
			}
			x.Properties.Set("Source", dom.String(text))
		}
		return true
	})
}

func fullDump(t *testing.T, p *project.Project) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "file=%s dir=%s name=%q port=%d places=%v blocked=%v place=%d game=%d legacy=%v\n",
		p.File, p.Dir, p.Name, p.ServePort, p.ServePlaceIDs, p.BlockedPlaceIDs, p.PlaceID, p.GameID, p.EmitLegacyScripts)
	var walk func(i *dom.Instance, depth int)
	walk = func(i *dom.Instance, depth int) {
		ind := strings.Repeat(" ", depth)
		fmt.Fprintf(&b, "%s%s %q %s kind=%s fs=%s meta=%s node=%s:%q ign=%v ref=%q src=%s raw=%s h=%s\n",
			ind, i.ID, i.Name, i.ClassName, i.Kind, i.FsPath, i.MetaPath(), i.ProjectFile(), i.ProjectKeys(),
			i.IgnoreUnknown, i.RefID(), i.SourceHash, i.RawHash, i.Handle)
		for _, name := range i.PropertyNames() {
			data, err := dom.Marshal(i.Properties.Get(name))
			if err != nil {
				t.Fatalf("marshal %s.%s: %v", i.Path(), name, err)
			}
			fmt.Fprintf(&b, "%s .%s=%s\n", ind, name, data)
		}
		for _, c := range i.Children {
			// The previous tree of an Update shares subtrees whose Parent is
			// the new tree's instance of the same id; its ids must still agree.
			if c.Parent == nil || c.Parent.ID != i.ID {
				fmt.Fprintf(&b, "%s !parent of %s is not %s\n", ind, c.Name, i.Name)
			}
			walk(c, depth+1)
		}
	}
	walk(p.Root, 0)
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// sameLoad fails when got (and gotErr) is not what want (and wantErr) is: same
// error text, or the same tree, settings and warnings, and the same plan hash
// against a fixed Studio tree.
func sameLoad(t *testing.T, what string, got *project.Project, gotErr error, want *project.Project, wantErr error, studio *dom.Instance) bool {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Errorf("%s: error %v, want %v", what, gotErr, wantErr)
		return false
	}
	if wantErr != nil {
		return true
	}
	if diff := cmp.Diff(fullDump(t, want), fullDump(t, got)); diff != "" {
		t.Errorf("%s: the tree differs from Load's (-Load +got):\n%s", what, diff)
		return false
	}
	// The index an Update carries over from the tree before is the tree's.
	idx := got.Index()
	full := got.Root.Index()
	if len(idx) != len(full) {
		t.Errorf("%s: Index has %d instances, the tree %d", what, len(idx), len(full))
		return false
	}
	for id, x := range full {
		if idx[id] != x {
			t.Errorf("%s: Index()[%s] is not the tree's %s", what, id, x.Path())
			return false
		}
	}
	bad := ""
	got.Root.Walk(func(x *dom.Instance) bool {
		for _, c := range x.Children {
			if c.Parent != x && bad == "" {
				bad = c.Path()
			}
		}
		return true
	})
	if bad != "" {
		t.Errorf("%s: %s's Parent is not the instance that holds it", what, bad)
		return false
	}
	if studio != nil {
		in := plan.Input{Disk: got.Root, Studio: studio, Base: studio, BaseCommit: "c", SessionID: "s"}
		h1 := plan.Compute(in).Hash
		in.Disk = want.Root
		if h2 := plan.Compute(in).Hash; h1 != h2 {
			t.Errorf("%s: plan hash %s, want %s", what, h1, h2)
			return false
		}
	}
	return true
}

// editor makes random edits to a project folder and says which paths each
// touched, as a file system watcher would report them.
type editor struct {
	t    *testing.T
	dir  string
	rng  *rand.Rand
	step int
}

func (e *editor) abs(p string) string { return filepath.Join(e.dir, filepath.FromSlash(p)) }

func (e *editor) write(p string, data string) []string {
	e.t.Helper()
	var changed []string
	// Folders made on the way are reported too, as a watcher would.
	for d := path.Dir(p); d != "." && !e.exists(d); d = path.Dir(d) {
		changed = append(changed, d)
	}
	if err := os.MkdirAll(filepath.Dir(e.abs(p)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.abs(p), []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return append(changed, p)
}

func (e *editor) exists(p string) bool {
	_, err := os.Lstat(e.abs(p))
	return err == nil
}

// walk lists the folders (with "" for the root) and files of the project.
func (e *editor) walk() (dirs, files []string) {
	err := filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		if d.IsDir() {
			dirs = append(dirs, rel)
		} else {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return dirs, files
}

func (e *editor) pick(s []string) string { return s[e.rng.IntN(len(s))] }

// srcDirs are the folders scripts may go in: under the mapped folders.
func (e *editor) srcDirs() []string {
	dirs, _ := e.walk()
	var out []string
	for _, d := range dirs {
		if strings.HasPrefix(d, "src") || strings.HasPrefix(d, "server") {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = []string{"src"}
	}
	return out
}

var (
	names   = []string{"a", "b", "Foo", "init", "Shared", "x"}
	scripts = []string{".luau", ".server.luau", ".client.luau", ".lua"}
)

func (e *editor) source() string {
	s := fmt.Sprintf("-- step %d\nreturn %d\n", e.step, e.rng.IntN(5))
	switch e.rng.IntN(40) {
	case 0, 1, 2, 3:
		s = strings.ReplaceAll(s, "\n", "\r\n")
	case 4:
		s = "\xff\xfe bad utf-8"
	}
	return s
}

func (e *editor) meta() string {
	switch e.rng.IntN(30) {
	case 0:
		return `{ "properties": { "Disabled": true } }`
	case 1:
		return `{ "attributes": { "Tag": "x", "N": 3 } }`
	case 2:
		return `{ "ignoreUnknownInstances": true }`
	case 3:
		return `{ "className": "Configuration" }`
	case 4:
		return `{ "id": "target", "attributes": { "Rojo_Target_Value": "target" } }`
	case 5, 9, 10:
		return `{ "properties": `
	case 6, 11, 12:
		return `// comment
{ "attributes": { "Step": ` + fmt.Sprint(e.step) + ` } }`
	case 7, 13, 14:
		return `{ "properties": { "Value": "hi" } }`
	case 8, 15, 16:
		return `{ "attributes": { "Tag": "y" }, "ignoreUnknownInstances": false }`
	}
	return `{}`
}

func (e *editor) model() string {
	switch e.rng.IntN(6) {
	case 0:
		return ``
	case 1:
		return `{ "className": `
	case 2:
		return `{ "name": "ignored", "className": "Model", "children": [ { "name": "P", "className": "Part", "properties": { "Anchored": true } }, { "name": "P", "className": "Part" } ] }`
	}
	return fmt.Sprintf(`{ "className": "Part", "properties": { "Size": [%d, 1, 1] }, "attributes": { "I": %d } }`, e.rng.IntN(4)+1, e.step)
}

var projectFiles = []string{
	`{ "name": "P", "tree": { "$className": "DataModel",
	  "ReplicatedStorage": { "$path": "src" },
	  "ServerScriptService": { "$path": "server", "Extra": { "$className": "Folder" } } } }`,
	`{ "name": "P", "globIgnorePaths": ["**/x.*"], "tree": { "$className": "DataModel",
	  "ReplicatedStorage": { "$path": "src", "$properties": { "Name": "no" } },
	  "ServerScriptService": { "$path": { "optional": "server" } } } }`,
	`{ "name": "P", "emitLegacyScripts": false, "tree": { "$className": "DataModel",
	  "ReplicatedStorage": { "Code": { "$path": "src" }, "Lib": { "$path": "src/lib" } } } }`,
	`{ "name": "P", "tree": `,
}

// repair undoes what broke the last load, half the time, so that sequences spend
// most steps on a valid project: the file an error names is removed (or, for the
// project file, rewritten).
func (e *editor) repair(err error) (what string, changed []string, ok bool) {
	var pe *project.Error
	if !errors.As(err, &pe) || e.rng.IntN(2) == 0 {
		return "", nil, false
	}
	e.step++
	if pe.File == "default.project.json" || pe.File == "" {
		return "repair project", e.write("default.project.json", projectFiles[e.rng.IntN(3)]), true
	}
	if !e.exists(pe.File) {
		return "", nil, false
	}
	if err := os.RemoveAll(e.abs(pe.File)); err != nil {
		e.t.Fatal(err)
	}
	return "repair " + pe.File, []string{pe.File}, true
}

// edit makes one random edit and returns the paths it touched.
func (e *editor) edit() (what string, changed []string) {
	e.step++
	dir := e.pick(e.srcDirs())
	name := e.pick(names)
	switch op := e.rng.IntN(20); {
	case op < 5:
		p := path.Join(dir, name+e.pick(scripts))
		return "script " + p, e.write(p, e.source())
	case op < 7:
		_, files := e.walk()
		var cands []string
		for _, f := range files {
			if f != "default.project.json" {
				cands = append(cands, f)
			}
		}
		if len(cands) == 0 {
			return "nothing", nil
		}
		p := e.pick(cands)
		if err := os.Remove(e.abs(p)); err != nil {
			e.t.Fatal(err)
		}
		return "remove " + p, []string{p}
	case op < 9:
		p := path.Join(dir, name+".meta.json")
		return "meta " + p, e.write(p, e.meta())
	case op < 10:
		p := path.Join(dir, name+".model.json")
		return "model " + p, e.write(p, e.model())
	case op < 12:
		ext := e.pick([]string{".txt", ".csv", ".json", ".toml"})
		data := map[string]string{
			".txt":  fmt.Sprintf("text %d\n", e.step),
			".csv":  "Key,Source,Context,Example,en\nk,v,,," + fmt.Sprint(e.step) + "\n",
			".json": fmt.Sprintf(`{ "n": %d }`, e.step),
			".toml": fmt.Sprintf("n = %d\n", e.step),
		}[ext]
		if e.rng.IntN(8) == 0 {
			data = "{ \"broken\": " // a parse error for most kinds
		}
		p := path.Join(dir, name+ext)
		return "data " + p, e.write(p, data)
	case op < 13:
		p := path.Join(dir, name+fmt.Sprint(e.rng.IntN(3)))
		if e.exists(p) {
			return "nothing", nil
		}
		if err := os.MkdirAll(e.abs(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		return "mkdir " + p, []string{p}
	case op < 14:
		if dir == "src" && e.rng.IntN(4) != 0 {
			return "nothing", nil
		}
		if err := os.RemoveAll(e.abs(dir)); err != nil {
			e.t.Fatal(err)
		}
		return "rmdir " + dir, []string{dir}
	case op < 16:
		dirs, files := e.walk()
		var from string
		if e.rng.IntN(2) == 0 {
			from = e.pick(files)
		} else {
			from = e.pick(dirs)
		}
		if from == "" || from == "default.project.json" {
			return "nothing", nil
		}
		to := path.Join(dir, name+path.Ext(from))
		if strings.HasSuffix(from, ".luau") && e.rng.IntN(2) == 0 {
			to = path.Join(dir, name+e.pick(scripts))
		}
		if to == from || strings.HasPrefix(to, from+"/") || e.exists(to) {
			return "nothing", nil
		}
		if err := os.MkdirAll(filepath.Dir(e.abs(to)), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.Rename(e.abs(from), e.abs(to)); err != nil {
			e.t.Fatal(err)
		}
		return "move " + from + " → " + to, []string{from, to}
	case op < 17:
		return "project", e.write("default.project.json", e.pick(projectFiles))
	case op < 18:
		p := path.Join(dir, "default.project.json")
		if e.exists(p) {
			if err := os.Remove(e.abs(p)); err != nil {
				e.t.Fatal(err)
			}
			return "remove nested " + p, []string{p}
		}
		body := `{ "name": "Nested", "tree": { "$className": "Folder", "Inner": { "$path": "inner" } } }`
		if e.rng.IntN(2) == 0 {
			body = `{ "tree": { "$path": "inner" } }`
		}
		return "nested " + p, e.write(p, body)
	case op < 19:
		// Two files for one name: a duplicate sibling.
		a := e.write(path.Join(dir, "dup.luau"), e.source())
		return "duplicate in " + dir, append(a, e.write(path.Join(dir, "dup.server.luau"), e.source())...)
	default:
		p := path.Join(dir, e.pick([]string{"init.luau", "init.server.luau", "init.meta.json", "init.csv"}))
		if e.exists(p) {
			if err := os.Remove(e.abs(p)); err != nil {
				e.t.Fatal(err)
			}
			return "remove init " + p, []string{p}
		}
		data := e.source()
		if strings.HasSuffix(p, ".json") {
			data = e.meta()
		} else if strings.HasSuffix(p, ".csv") {
			data = "Key,Source,Context,Example,en\nk,v,,,x\n"
		}
		return "init " + p, e.write(p, data)
	}
}

// TestCacheRandomEdits checks the incremental load against Load after every step
// of random edit sequences: scripts, metas, models, data files, folders, moves,
// project files, init files, duplicates, broken files and their repair.
func TestCacheRandomEdits(t *testing.T) {
	for _, mode := range []string{"update", "stat"} {
		t.Run(mode, func(t *testing.T) { randomEdits(t, mode) })
	}
}

// randomEdits is TestCacheRandomEdits with the changes told to Update ("update", as a
// watcher does) or found by Load from stat data and listings ("stat").
func randomEdits(t *testing.T, mode string) {
	total, incremental, restarts := 0, 0, 0
	for seed := range *randomSeeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			dir := t.TempDir()
			e := &editor{t: t, dir: dir, rng: rand.New(rand.NewPCG(uint64(seed), 7))}
			e.write("default.project.json", projectFiles[0])
			for _, p := range []string{"src/lib/a.luau", "src/lib/b.server.luau", "src/Foo/init.luau", "server/x.server.luau", "src/Shared.txt"} {
				e.write(p, "return 1\n")
			}
			fsys := project.DirFS(dir)
			opts := project.Options{DirName: "proj"}
			c := project.NewCache(fsys, "default.project.json", opts)
			got, gotErr := c.Load()
			want, wantErr := project.Load(fsys, "default.project.json", opts)
			if !sameLoad(t, "first load", got, gotErr, want, wantErr, nil) || wantErr != nil {
				t.Fatalf("first load: %v", wantErr)
			}
			studio := want.Root.Clone()
			studio.AssignIDs()
			for range *randomSteps {
				before := ""
				if got != nil {
					before = fullDump(t, got)
				}
				prev := got
				what, changed, ok := e.repair(wantErr)
				if !ok {
					what, changed = e.edit()
				}
				if mode == "stat" {
					got, gotErr = c.Load()
				} else {
					got, gotErr = c.Update(changed)
				}
				want, wantErr = project.Load(fsys, "default.project.json", opts)
				readTextsBack(t, c, got)
				total++
				if !c.Stats().Full {
					incremental++
				}
				if !sameLoad(t, fmt.Sprintf("step %d (%s)", e.step, what), got, gotErr, want, wantErr, studio) {
					return
				}
				if e.step%25 == 0 {
					// A restart: the index written now, read by a new cache,
					// which then takes over.
					index := filepath.Join(t.TempDir(), "index")
					if err := c.WriteIndex(index); err != nil {
						t.Fatal(err)
					}
					c = project.NewCache(fsys, "default.project.json", opts)
					if err := c.ReadIndex(index); err != nil {
						t.Fatal(err)
					}
					got, gotErr = c.Load()
					readTextsBack(t, c, got)
					if !sameLoad(t, fmt.Sprintf("step %d (restart)", e.step), got, gotErr, want, wantErr, studio) {
						return
					}
					restarts++
					prev = nil
				}
				if prev != nil {
					if after := fullDump(t, prev); after != before {
						t.Fatalf("step %d (%s): the previous tree changed:\n%s", e.step, what, cmp.Diff(before, after))
					}
				}
			}
		})
	}
	t.Logf("%s: %d random steps, %d of them incremental, %d restarts from an index, 0 mismatches", mode, total, incremental, restarts)
	if incremental < total/2 {
		t.Errorf("%d of %d loads were incremental", incremental, total)
	}
}

// TestCacheLoadTestdata loads every test project through a Cache, twice (the
// second time from the records), and compares each with Load.
func TestCacheLoadTestdata(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		t.Run(ent.Name(), func(t *testing.T) {
			dir := filepath.Join("testdata", ent.Name())
			var file string
			for _, f := range project.DefaultFiles {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					file = f
				}
			}
			if file == "" {
				// A project file of another name (root-name-*): the only one there.
				found, _ := filepath.Glob(filepath.Join(dir, "*.project.json*"))
				if len(found) != 1 {
					t.Fatalf("%s has no default project file and %d others", dir, len(found))
				}
				file = filepath.Base(found[0])
			}
			fsys := project.DirFS(dir)
			opts := project.Options{DirName: ent.Name()}
			want, wantErr := project.Load(fsys, file, opts)
			c := project.NewCache(fsys, file, opts)
			for i, what := range []string{"first load", "second load"} {
				got, gotErr := c.Load()
				sameLoad(t, what, got, gotErr, want, wantErr, nil)
				if i == 1 && wantErr == nil && c.Stats().Parsed != countOpaque(want) {
					t.Errorf("second load read %d files, want only the %d .rbxm(x) models", c.Stats().Parsed, countOpaque(want))
				}
			}
			got, gotErr := c.Update([]string{"nothing-here.luau"})
			sameLoad(t, "update", got, gotErr, want, wantErr, nil)
		})
	}
}

// countOpaque counts the .rbxm and .rbxmx models, which every load reads.
func countOpaque(p *project.Project) int {
	n := 0
	p.Root.Walk(func(x *dom.Instance) bool {
		if x.Kind == dom.KindRbxmx || x.Kind == dom.KindRbxm {
			n++
		}
		return true
	})
	return n
}

// TestCacheReadAhead: a first load reads its files ahead on other goroutines
// (scripts, text, meta and model files), and gives what Load gives. In order, every
// such file of the default rules is read ahead; a file a sync rule reads as another
// kind, a link and an ignored folder are left to the loader, and errors are the
// loader's own.
func TestCacheReadAhead(t *testing.T) {
	defer project.SetReadAheadInOrder(true)()
	dir := t.TempDir()
	e := &editor{t: t, dir: dir}
	e.write("default.project.json", `{
  "name": "ahead",
  "globIgnorePaths": ["src/ignored/**"],
  "syncRules": [{ "pattern": "*.notes.luau", "use": "text" }],
  "tree": { "$className": "DataModel", "ReplicatedStorage": { "$path": "src" } }
}`)
	want := 0
	for i := range 40 {
		d := fmt.Sprintf("src/pkg%d", i%7)
		e.write(fmt.Sprintf("%s/mod%d.server.luau", d, i), fmt.Sprintf("print(%d)\r\n", i))
		e.write(fmt.Sprintf("%s/mod%d.meta.json", d, i), `{"properties": {"Disabled": false}, "attributes": {"N": 1}}`)
		e.write(fmt.Sprintf("%s/part%d.model.json", d, i), `{"className": "Part", "properties": {"Size": [1, 2, 3]}, "children": [{"name": "A", "className": "Attachment"}]}`)
		e.write(fmt.Sprintf("%s/value%d.txt", d, i), fmt.Sprintf("value %d", i))
		want += 4
	}
	e.write("src/init.meta.json", "{ // JSONC\n \"ignoreUnknownInstances\": true, }")
	e.write("src/pkg1/readme.notes.luau", "a script read as text by a sync rule")
	e.write("src/ignored/skip.luau", "return 'ignored'")
	want++ // init.meta.json
	if err := os.Symlink("mod0.server.luau", filepath.Join(dir, "src/pkg0/link.luau")); err != nil {
		t.Fatal(err)
	}
	fsys := project.DirFS(dir)
	opts := project.Options{DirName: "ahead"}
	c := project.NewCache(fsys, "default.project.json", opts)
	got, gotErr := c.Load()
	wantP, wantErr := project.Load(fsys, "default.project.json", opts)
	if !sameLoad(t, "first load", got, gotErr, wantP, wantErr, nil) || gotErr != nil {
		t.Fatalf("first load: %v", gotErr)
	}
	if st := c.Stats(); st.Ahead != want {
		t.Errorf("%d files were read ahead, want %d (%+v)", st.Ahead, want, st)
	}
	// The records made ahead serve the next load as the loader's own would (it
	// compares the contents of these files, written within its racy window).
	got, gotErr = c.Load()
	sameLoad(t, "second load", got, gotErr, wantP, wantErr, nil)
	if st := c.Stats(); st.Ahead != 0 {
		t.Errorf("a load with records read %d files ahead, want none", st.Ahead)
	}

	// A file that fails is read again by the loader, which reports it.
	for _, bad := range []struct{ path, data string }{
		{"src/pkg3/part3.model.json", `{"className": "Part", "properties": {"Size": "big"}}`},
		{"src/pkg4/mod4.meta.json", `[1]`},
		{"src/pkg5/value5.txt", "\xff"},
		{"src/pkg6/mod6.server.luau", "\xfe"},
	} {
		old, err := os.ReadFile(filepath.Join(dir, bad.path))
		if err != nil {
			t.Fatal(err)
		}
		e.write(bad.path, bad.data)
		c := project.NewCache(fsys, "default.project.json", opts)
		_, gotErr := c.Load()
		_, wantErr := project.Load(fsys, "default.project.json", opts)
		if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() {
			t.Fatalf("with %s: error %v, want Load's %v", bad.path, gotErr, wantErr)
		}
		e.write(bad.path, string(old))
	}
}

// TestCacheReadAheadTestdata loads every test project cold with every file read
// ahead in order, and compares each with Load (errors included).
func TestCacheReadAheadTestdata(t *testing.T) {
	defer project.SetReadAheadInOrder(true)()
	TestCacheLoadTestdata(t)
}
