package syncback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/project"
)

func inst(name, class string, props dom.Properties, children ...*dom.Instance) *dom.Instance {
	i := dom.New(name, class)
	for k, v := range props {
		i.Properties.Set(k, v)
	}
	for _, c := range children {
		i.AddChild(c)
	}
	return i
}

func script(name, class, src string) *dom.Instance {
	return inst(name, class, dom.Properties{"Source": dom.String(src)})
}

// samplePlace has an instance of every shape the extraction handles.
func samplePlace() *dom.Instance {
	part := func(name string) *dom.Instance {
		return inst(name, "Part", dom.Properties{"Anchored": dom.Bool(true), "Size": dom.Vector3{4, 1, 2}, "CFrame": dom.CFrame{Position: [3]float32{0, 5, 0}, Orientation: dom.IdentityCFrame.Orientation}})
	}
	return inst("Game", "DataModel", nil,
		inst("Workspace", "Workspace", dom.Properties{"Gravity": dom.Float32(100)},
			inst("Camera", "Camera", nil),
			part("Baseplate"),
			inst("Car", "Model", nil, part("Body"), script("Drive", "Script", "print('drive')\n")),
			inst("Props", "Folder", nil, part("Crate"), part("Crate"), part("crate")),
		),
		inst("ReplicatedStorage", "ReplicatedStorage", nil,
			inst("Shared", "Folder", nil,
				script("Util", "ModuleScript", "return {}\n"),
				inst("Lib", "ModuleScript", dom.Properties{"Source": dom.String("return require(script.Inner)\n")}, script("Inner", "ModuleScript", "return 1\n")),
				inst("Greeting", "StringValue", dom.Properties{"Value": dom.String("hello")}),
				inst("MaxPlayers", "IntValue", dom.Properties{"Value": dom.Int64(8)}),
				inst("Fire", "RemoteEvent", nil),
				inst("Settings", "Configuration", dom.Properties{"Attributes": dom.Attributes{"Speed": dom.Float64(16)}}),
				inst("Empty", "Folder", nil),
				inst("Text", "StringValue", dom.Properties{"Value": dom.String("parent text")}, inst("Child", "Folder", nil)),
			),
			inst("Weird", "Folder", nil, inst("CON", "Folder", nil), inst("ok", "Folder", nil)),
			inst("Slash", "Folder", nil, inst("Odd/Name", "Folder", nil, script("X", "ModuleScript", "return 'x'\n"))),
			inst("Case", "Folder", nil, inst("Crate", "Folder", nil), inst("crate", "Folder", nil)),
			inst("Tagged.server", "ModuleScript", dom.Properties{"Source": dom.String("return 2\n")}),
		),
		inst("ServerScriptService", "ServerScriptService", nil,
			inst("Main", "Script", dom.Properties{"Source": dom.String("print('main')\r\n"), "Disabled": dom.Bool(true)}),
		),
		inst("StarterPlayer", "StarterPlayer", nil,
			inst("StarterPlayerScripts", "StarterPlayerScripts", nil, script("Client", "LocalScript", "print('client')\n")),
		),
		inst("Lighting", "Lighting", dom.Properties{"ClockTime": dom.Float32(6)}),
		inst("Players", "Players", nil),
	)
}

func writeResult(t *testing.T, res *Result) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range res.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sameTree checks that every instance of want's synced services is in got with
// the same class and the properties a project keeps, and nothing more; but the
// Workspace's camera, which Studio makes.
func sameTree(t *testing.T, want, got *dom.Instance, services []string) {
	t.Helper()
	want.AssignIDs()
	got.AssignIDs()
	gi := got.Index()
	n := 0
	for _, s := range want.Children {
		if !contains(services, s.Name) {
			continue
		}
		s.Walk(func(w *dom.Instance) bool {
			if w.Parent != nil && w.Parent.ClassName == "Workspace" && w.ClassName == "Camera" && w.Name == "Camera" {
				return false // Studio's own camera, left out as Rojo leaves it out
			}
			n++
			g := gi[w.ID]
			if g == nil {
				t.Errorf("%s is missing from the project", w.Path())
				return true
			}
			if g.ClassName != w.ClassName {
				t.Errorf("%s: class %s, want %s", w.Path(), g.ClassName, w.ClassName)
			}
			for k, v := range w.Properties.All() {
				if def, ok := reflection.Default(w.ClassName, k); ok {
					if d, err := dom.Unmarshal(def); err == nil && dom.Equal(d, v) && g.Properties.Get(k) == nil {
						continue
					}
				}
				if k == "Source" {
					if s, _ := g.Source(); s != strings.ReplaceAll(string(v.(dom.String)), "\r\n", "\n") {
						t.Errorf("%s.Source = %q, want %q", w.Path(), s, v)
					}
					continue
				}
				if !dom.Equal(v, g.Properties.Get(k)) {
					t.Errorf("%s.%s = %v, want %v", w.Path(), k, g.Properties.Get(k), v)
				}
			}
			for k, v := range g.Properties.All() {
				if _, ok := w.Properties.Lookup(k); !ok && k != "RunContext" {
					t.Errorf("%s.%s = %v is not in the place", g.Path(), k, v)
				}
			}
			return true
		})
	}
	m := 0
	for _, s := range got.Children {
		if contains(services, s.Name) {
			m += s.Count()
		}
	}
	if m != n {
		t.Errorf("the project has %d instances in the services, the place %d", m, n)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestExtractBuildsBack(t *testing.T) {
	place := samplePlace()
	res, err := Extract(place, Options{Name: "Sample"})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeResult(t, res)
	p, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "x"})
	if err != nil {
		t.Fatalf("the extracted project does not load: %v", err)
	}
	if p.Name != "Sample" {
		t.Errorf("project name %q", p.Name)
	}
	sameTree(t, samplePlace(), p.Root, DefaultServices)

	files := map[string]bool{}
	for _, f := range res.Files {
		files[f.Path] = true
	}
	for _, want := range []string{
		"default.project.json",
		"src/ReplicatedStorage/Shared/Util.luau",
		"src/ReplicatedStorage/Shared/Lib/init.luau",
		"src/ReplicatedStorage/Shared/Lib/Inner.luau",
		"src/ReplicatedStorage/Shared/Greeting.txt",
		"src/ReplicatedStorage/Shared/MaxPlayers.model.json",
		"src/ReplicatedStorage/Shared/Fire.model.json",
		"src/ReplicatedStorage/Shared/Settings/init.meta.json",
		"src/ReplicatedStorage/Shared/Empty/.gitkeep",
		"src/ReplicatedStorage/Shared/Text/init.meta.json",
		"src/ReplicatedStorage/Tagged.server.rbxm",
		"src/ServerScriptService/Main.server.luau",
		"src/ServerScriptService/Main.meta.json",
		"src/StarterPlayer/StarterPlayerScripts/Client.client.luau",
		"src/Workspace/Baseplate.rbxm",
		"src/Workspace/Car/init.meta.json",
		"src/Workspace/Car/Drive.server.luau",
		"src/Workspace/Car/Body.rbxm",
		"src/Workspace/Props.rbxm",
		"src/ReplicatedStorage/Weird.rbxm",
	} {
		if !files[want] {
			t.Errorf("no file %s", want)
		}
	}
	reasons := map[string]string{}
	for _, f := range res.Fallbacks {
		reasons[f.Instance] = f.Reason
	}
	for inst, why := range map[string]string{
		"Workspace/Props":                 "two children are named",
		"ReplicatedStorage/Case":          "differ only in case",
		"ReplicatedStorage/Slash":         "holds '/'",
		"ReplicatedStorage/Shared":        "", // not a fallback
		"ReplicatedStorage/Weird":         "reserved device name",
		"ReplicatedStorage/Tagged.server": "would load as another name",
	} {
		if why == "" {
			if r, ok := reasons[inst]; ok {
				t.Errorf("%s fell back to a model file: %s", inst, r)
			}
			continue
		}
		if !strings.Contains(reasons[inst], why) {
			t.Errorf("fallback of %s: %q, want it to say %q", inst, reasons[inst], why)
		}
	}
	if !contains(res.Skipped, "Players"+NotSynced) {
		t.Errorf("Skipped = %v, want Players among them", res.Skipped)
	}
}
