package host_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/project"
)

// incrementalProject has scripts in nested folders, meta files, init scripts,
// models and text files: what a disk edit can touch.
func incrementalProject() map[string]string {
	files := map[string]string{
		"default.project.json": `{
  "name": "Incremental",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "$path": "src/shared" },
    "ServerScriptService": { "$path": "src/server" }
  }
}`,
	}
	for _, root := range []string{"src/shared", "src/server"} {
		for f := range 3 {
			dir := fmt.Sprintf("%s/Folder%d", root, f)
			for s := range 3 {
				files[fmt.Sprintf("%s/Script%d.luau", dir, s)] = fmt.Sprintf("return %d\n", s)
			}
			files[dir+"/Script0.meta.json"] = `{ "attributes": { "Index": 0 } }`
			files[dir+"/Note.txt"] = "a note\n"
			files[dir+"/Part.model.json"] = `{ "className": "Part", "properties": { "Anchored": true } }`
		}
		files[root+"/Lib/init.luau"] = "return {}\n"
	}
	return files
}

// TestDiskIncrementalEqualsFresh makes random disk edits (scripts written, added,
// removed and renamed, folders added, renamed and removed, meta, model and text files
// changed) under a running host, plans after each, and compares the disk tree the
// plan used with the project loaded from scratch: the same instances, ids, classes,
// properties and files, in the same order. It runs with the watcher (inotify, the
// cache updated by the paths events name) and without it (ATLAS_NO_WATCH: updated by
// comparing every file's stat data).
func TestDiskIncrementalEqualsFresh(t *testing.T) {
	for _, mode := range []struct {
		name    string
		noWatch bool
	}{{"watcher", false}, {"stat", true}} {
		t.Run(mode.name, func(t *testing.T) {
			if mode.noWatch {
				t.Setenv("ATLAS_NO_WATCH", "1")
			}
			e := hosttest.Start(t, incrementalProject(), nil)
			r := rand.New(rand.NewPCG(7, uint64(len(mode.name))))
			const rounds = 300
			mismatches, edits := 0, 0
			for round := range rounds {
				for range 1 + r.IntN(3) {
					if op := randomDiskEdit(t, r, e.Dir, round); op != "" {
						edits++
					}
				}
				if _, err := e.Host.Plan(context.Background(), host.PlanRequest{}); err != nil {
					t.Fatalf("round %d: plan: %v", round, err)
				}
				fresh, err := project.LoadDisk(e.Location)
				if err != nil {
					t.Fatalf("round %d: load: %v", round, err)
				}
				got, want := treeLines(e.Host.LastDiskTree()), treeLines(fresh.Root)
				if !slices.Equal(got, want) {
					mismatches++
					t.Errorf("round %d: the plan's disk tree differs from a fresh load:\n%s", round, lineDiff(got, want))
				}
			}
			updates, full := e.Host.DiskLoads()
			t.Logf("%d rounds, %d edits, %d mismatches; %d loads by named paths, %d by stat", rounds, edits, mismatches, updates, full)
			// Without a watcher every load is by stat; with one, most are by the
			// paths events named (folder renames and creations go by stat).
			if mode.noWatch && updates != 0 || !mode.noWatch && updates < rounds/2 {
				t.Errorf("%d loads by named paths and %d by stat: not the mode under test", updates, full)
			}
		})
	}
}

// randomDiskEdit makes one random change under dir's src folder and says what it did.
func randomDiskEdit(t *testing.T, r *rand.Rand, dir string, round int) string {
	t.Helper()
	var files, dirs []string
	filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.Count(rel, "/") >= 2 {
				dirs = append(dirs, rel)
			}
		} else {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	sort.Strings(dirs)
	pick := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[r.IntN(len(list))]
	}
	roots := []string{"src/shared", "src/server"}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	switch op := r.IntN(10); op {
	case 0, 1, 2: // a script's text, sometimes the same size (the racy case)
		f := pick(files)
		if !strings.HasSuffix(f, ".luau") {
			return ""
		}
		hosttest.Write(t, dir, f, fmt.Sprintf("return %d\n", r.IntN(10)))
		return "write " + f
	case 3: // a new script
		d := pick(dirs)
		if d == "" {
			d = pick(roots)
		}
		f := fmt.Sprintf("%s/New%d.luau", d, round)
		hosttest.Write(t, dir, f, "return 'new'\n")
		return "add " + f
	case 4: // a file removed
		f := pick(files)
		if f == "" {
			return ""
		}
		os.Remove(abs(f))
		return "remove " + f
	case 5: // a file renamed (moved, maybe to another folder)
		f, d := pick(files), pick(dirs)
		if f == "" || d == "" || strings.HasSuffix(f, ".meta.json") || path.Base(f) == "init.luau" {
			return ""
		}
		to := fmt.Sprintf("%s/Moved%d%s", d, round, path.Ext(f))
		if _, err := os.Stat(abs(to)); err == nil {
			return ""
		}
		if err := os.Rename(abs(f), abs(to)); err != nil {
			t.Fatal(err)
		}
		return "rename " + f + " " + to
	case 6: // a folder renamed
		d := pick(dirs)
		if d == "" {
			return ""
		}
		to := fmt.Sprintf("%s/Renamed%d", path.Dir(d), round)
		if _, err := os.Stat(abs(to)); err == nil {
			return ""
		}
		if err := os.Rename(abs(d), abs(to)); err != nil {
			t.Fatal(err)
		}
		return "rename folder " + d
	case 7: // a new folder with files, or a folder removed
		if r.IntN(2) == 0 {
			d := fmt.Sprintf("%s/Made%d_%d", pick(roots), round, r.IntN(1000))
			hosttest.Write(t, dir, d+"/A.luau", "return 'a'\n")
			hosttest.Write(t, dir, d+"/Sub/B.server.luau", "print('b')\n")
			return "add folder " + d
		}
		d := pick(dirs)
		if d == "" {
			return ""
		}
		os.RemoveAll(abs(d))
		return "remove folder " + d
	case 8: // a meta file's attribute
		f := pick(files)
		if !strings.HasSuffix(f, ".luau") || path.Base(f) == "init.luau" {
			return ""
		}
		meta := strings.TrimSuffix(f, ".luau") + ".meta.json"
		hosttest.Write(t, dir, meta, fmt.Sprintf(`{ "attributes": { "Index": %d } }`, r.IntN(10)))
		return "meta " + meta
	default: // a model's property or a text file
		d := pick(dirs)
		if d == "" {
			return ""
		}
		if r.IntN(2) == 0 {
			hosttest.Write(t, dir, d+"/Part.model.json", fmt.Sprintf(`{ "className": "Part", "properties": { "Anchored": %t } }`, r.IntN(2) == 0))
			return "model " + d
		}
		hosttest.Write(t, dir, d+"/Note.txt", fmt.Sprintf("note %d\n", r.IntN(10)))
		return "text " + d
	}
}

// treeLines is a tree as comparable lines: each instance's path, id, class, file and
// properties (tagged JSON, sorted by name), in tree order.
func treeLines(root *dom.Instance) []string {
	var out []string
	root.Walk(func(x *dom.Instance) bool {
		names := make([]string, 0, len(x.Properties))
		for k := range x.Properties.All() {
			names = append(names, k)
		}
		sort.Strings(names)
		var b strings.Builder
		fmt.Fprintf(&b, "%s id=%s class=%s file=%q kind=%v", x.Path(), x.ID, x.ClassName, x.FsPath, x.Kind)
		for _, k := range names {
			if k == "Source" && project.TextDroppable(x) {
				continue // held or let go (texts.go): the hash below is the text
			}
			v, _ := dom.Marshal(x.Properties.Get(k))
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
		fmt.Fprintf(&b, " hash=%s children=%d", x.SourceHash, len(x.Children))
		out = append(out, b.String())
		return true
	})
	return out
}

func lineDiff(got, want []string) string {
	var b strings.Builder
	g, w := map[string]bool{}, map[string]bool{}
	for _, l := range got {
		g[l] = true
	}
	for _, l := range want {
		w[l] = true
	}
	for _, l := range want {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range got {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	if b.Len() == 0 {
		b.WriteString("(the same lines in another order)\n")
	}
	return b.String()
}
