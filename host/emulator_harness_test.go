package host_test

// The harness of the emulator tests: a host with the real plugin in the emulator
// connected, and the snapshots, plans and comparisons the tests assert with.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// startEmulated starts a host for files and an emulator whose place is the project at
// HEAD, changed by mutate.
func startEmulated(t testing.TB, files map[string]string, mutate func(*host.PlaceFile)) *emuEnv {
	t.Helper()
	return startEmulatedAs(t, files, mutate, false)
}

// startEmulatedAs is startEmulated with the place file written packed (as serve
// --emulate writes it) or as JSON.
func startEmulatedAs(t testing.TB, files map[string]string, mutate func(*host.PlaceFile), packed bool) *emuEnv {
	t.Helper()
	pluginDir := emulatorPluginDir(t)
	dir, loc, h := startHost(t, files)
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(pf)
	}
	placePath, write := filepath.Join(t.TempDir(), "place.json"), host.WritePlace
	if packed {
		placePath, write = filepath.Join(t.TempDir(), "place"+host.PackedPlaceExt), host.WritePackedPlace
	}
	if err := write(placePath, pf); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	emu, err := host.StartEmulator(ctx, host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: placePath})
	if err != nil {
		t.Fatalf("start the emulator: %v", err)
	}
	t.Cleanup(func() { emu.Stop() })
	if _, err := h.Bridge().WaitSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	return &emuEnv{dir: dir, loc: loc, host: h, emu: emu}
}

func (e *emuEnv) session(t testing.TB) *bridge.Session {
	t.Helper()
	s, err := e.host.Bridge().Session("")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapInstance is one instance of a snapshot answer.
type snapInstance struct {
	Handle     string                     `json:"handle"`
	Parent     *string                    `json:"parent"`
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// fullSnapshot asks the plugin for all of game with props (class → property → type).
func fullSnapshot(t testing.TB, s *bridge.Session, props map[string]map[string]string) []snapInstance {
	t.Helper()
	var res struct {
		Instances []snapInstance `json:"instances"`
	}
	params := map[string]any{"roots": [][]string{{}}, "nodes": [][]string{}, "properties": props}
	if err := s.Call(context.Background(), "snapshot", params, &res); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return res.Instances
}

// snapTree turns a snapshot into an instance tree rooted at game.
func snapTree(t testing.TB, insts []snapInstance) *dom.Instance {
	t.Helper()
	byHandle := map[string]*dom.Instance{}
	var root *dom.Instance
	for _, w := range insts {
		i := dom.New(w.Name, w.ClassName)
		i.Handle = w.Handle
		for name, raw := range w.Properties {
			v, err := dom.Unmarshal(raw)
			if err != nil {
				t.Fatalf("%s.%s: bad value %s: %v", w.Name, name, raw, err)
			}
			i.Properties.Set(name, v)
		}
		if w.Parent == nil {
			if root != nil {
				t.Fatalf("snapshot has two roots")
			}
			root = i
		} else {
			p := byHandle[*w.Parent]
			if p == nil {
				t.Fatalf("snapshot lists %s before its parent %s", w.Name, *w.Parent)
			}
			p.AddChild(i)
		}
		byHandle[w.Handle] = i
	}
	if root == nil {
		t.Fatal("snapshot has no root")
	}
	return root
}

// canonical lists a snapshot as lines "path class prop=value…" without handles, so two
// snapshots compare equal exactly when the DataModel did not change.
func canonical(t testing.TB, insts []snapInstance) []string {
	t.Helper()
	root := snapTree(t, insts)
	var out []string
	var walk func(i *dom.Instance, path string)
	walk = func(i *dom.Instance, path string) {
		line := path + " " + i.ClassName
		for _, name := range i.PropertyNames() {
			b, err := dom.Marshal(i.Properties.Get(name))
			if err != nil {
				t.Fatal(err)
			}
			line += " " + name + "=" + string(b)
		}
		out = append(out, line)
		seen := map[string]int{}
		for _, c := range i.Children {
			seen[c.Name]++
			walk(c, fmt.Sprintf("%s/%s#%d", path, c.Name, seen[c.Name]))
		}
	}
	walk(root, "game")
	return out
}

// headProject loads the project as committed at HEAD, with script sources.
func headProject(t testing.TB, e *emuEnv) *project.Project {
	t.Helper()
	repo, err := gitblob.Discover(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	commit, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.CommitFS(commit)
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(fsys, e.loc.FileInFS, project.Options{DirName: e.loc.DirName()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// propsOf lists, by class, the properties a tree uses with their wire types.
func propsOf(root *dom.Instance) map[string]map[string]string {
	out := map[string]map[string]string{}
	root.Walk(func(i *dom.Instance) bool {
		for name, v := range i.Properties.All() {
			if name == "Source" {
				continue
			}
			typ := v.Type()
			if typ == "Enum" {
				if _, enum, ok := dom.PropertyType(i.ClassName, name); ok && enum != "" {
					typ = "Enum:" + enum
				}
			}
			if out[i.ClassName] == nil {
				out[i.ClassName] = map[string]string{}
			}
			out[i.ClassName][name] = typ
		}
		return true
	})
	return out
}

// assertMatches checks that studio holds every instance of want (the project) with the
// same class, and every property want sets with an equal value (Source included).
// Studio may have more only where the project leaves room: empty services at the top
// of game that the plugin itself uses (HttpService and the like), and the
// Workspace's Terrain and Camera.
func assertMatches(t testing.TB, want, studio *dom.Instance) int {
	t.Helper()
	matched := 0
	var walk func(w, s *dom.Instance, path string)
	walk = func(w, s *dom.Instance, path string) {
		matched++
		if w.ClassName != s.ClassName {
			t.Errorf("%s: class %s in Studio, %s in the project", path, s.ClassName, w.ClassName)
		}
		for _, name := range w.PropertyNames() {
			sv, ok := s.Properties.Lookup(name)
			if !ok {
				t.Errorf("%s.%s: missing in Studio (project has %s)", path, name, mustJSON(t, w.Properties.Get(name)))
				continue
			}
			if !dom.Equal(w.Properties.Get(name), sv) {
				t.Errorf("%s.%s: Studio has %s, the project %s", path, name, mustJSON(t, sv), mustJSON(t, w.Properties.Get(name)))
			}
		}
		byName := map[string][]*dom.Instance{}
		for _, c := range s.Children {
			byName[c.Name] = append(byName[c.Name], c)
		}
		for _, c := range w.Children {
			if len(byName[c.Name]) == 0 {
				t.Errorf("%s/%s: missing in Studio", path, c.Name)
				continue
			}
			walk(c, byName[c.Name][0], path+"/"+c.Name)
			byName[c.Name] = byName[c.Name][1:]
		}
		for _, rest := range byName {
			for _, c := range rest {
				if path == "game" && c.Name == c.ClassName && len(c.Children) == 0 &&
					(strings.HasSuffix(c.ClassName, "Service") || c.ClassName == protocol.PlaceMarkerClass) {
					continue // an empty service Studio made, or the one that keeps the place marker
				}
				if w.ClassName == "Workspace" && (c.ClassName == "Terrain" || c.ClassName == "Camera") {
					continue // the Workspace's own, which Studio makes in every place
				}
				t.Errorf("%s/%s (%s): in Studio, not in the project", path, c.Name, c.ClassName)
			}
		}
	}
	walk(want, studio, "game")
	return matched
}

func mustJSON(t testing.TB, v dom.Value) string {
	t.Helper()
	b, err := dom.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// describe lists a plan's changes as path → "reason/direction" ("" direction: unresolved).
func describe(d *host.PlanData) map[string]string {
	out := map[string]string{}
	for _, c := range d.Changes {
		out[c.Path] = string(c.Reason) + "/" + string(c.Direction)
	}
	return out
}

// planOf returns a func that plans on h, failing t on an error.
func planOf(t testing.TB, h *host.Host) func() *host.PlanData {
	return func() *host.PlanData {
		t.Helper()
		d, err := h.Plan(context.Background(), host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

func mustPlan(t testing.TB, h *host.Host, want map[string]string) *host.PlanData {
	t.Helper()
	d, err := h.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if want == nil {
		want = map[string]string{}
	}
	if got := describe(d); !equalMaps(got, want) {
		b, _ := json.MarshalIndent(d.Changes, "", "  ")
		t.Fatalf("plan changes = %v, want %v\n%s", got, want, b)
	}
	return d
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func mustExec(t testing.TB, h *host.Host, code string) *host.ExecData {
	t.Helper()
	d, err := h.Exec(context.Background(), host.ExecRequest{Code: code})
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	if !d.Success {
		t.Fatalf("exec %q failed: %s (output %v)", code, d.Error, d.Output)
	}
	return d
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type scriptResult struct {
	Source     string   `json:"source"`
	SourceSha1 string   `json:"sourceSha1"`
	ClassName  string   `json:"className"`
	IsDraft    bool     `json:"isDraft"`
	Path       []string `json:"path"`
}

func getScript(s *bridge.Session, params map[string]any) (*scriptResult, error) {
	var r scriptResult
	if err := s.Call(context.Background(), "getScript", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
