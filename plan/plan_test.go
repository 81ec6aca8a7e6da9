package plan

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// side describes one instance on one side: absent, or a script source and a property.
type side struct {
	present bool
	source  string
	size    float32
}

var (
	absent = side{}
	v1     = side{true, "print(1)\n", 1}
	v2     = side{true, "print(2)\n", 2}
	v3     = side{true, "print(3)\n", 3}
)

// tree builds a place with ServerScriptService/Lib (a ModuleScript; its Source and an
// attribute-like property) when s is present. The property is "managed" because the
// disk/base instances set it.
func tree(s side, kind string) *dom.Instance {
	root := dom.New("Game", "DataModel")
	sss := dom.New("ServerScriptService", "ServerScriptService")
	sss.IgnoreUnknown = false
	root.AddChild(sss)
	if s.present {
		var lib *dom.Instance
		if kind == "script" {
			lib = dom.New("Lib", "ModuleScript")
			lib.Properties.Set("Source", dom.String(s.source))
			lib.SourceHash = gitblob.Hash([]byte(s.source))
		} else {
			lib = dom.New("Lib", "Part")
			lib.Properties.Set("Size", dom.Vector3{s.size, 1, 1})
		}
		lib.FsPath = "src/Lib.luau"
		sss.AddChild(lib)
	}
	root.AssignIDs()
	return root
}

func TestDecisionTable(t *testing.T) {
	cases := []struct {
		name         string
		disk, studio side
		base         *side // nil: no base at all
		wantPatch    PatchType
		dir          Direction
		wantReason   Reason
		wantNoChange bool
	}{
		{name: "equal", disk: v1, studio: v1, base: &v2, wantNoChange: true},
		{name: "all equal", disk: v1, studio: v1, base: &v1, wantNoChange: true},
		{name: "disk changed", disk: v2, studio: v1, base: &v1, wantPatch: Edit, dir: Push, wantReason: DiskChanged},
		{name: "studio changed", disk: v1, studio: v2, base: &v1, wantPatch: Edit, dir: Pull, wantReason: StudioChanged},
		{name: "both changed", disk: v2, studio: v3, base: &v1, wantPatch: Edit, dir: "", wantReason: BothChanged},
		{name: "new on disk", disk: v1, studio: absent, base: &absent, wantPatch: Add, dir: Push, wantReason: NewOnDisk},
		{name: "new in studio", disk: absent, studio: v1, base: &absent, wantPatch: Remove, dir: Pull, wantReason: NewInStudio},
		{name: "deleted on disk", disk: absent, studio: v1, base: &v1, wantPatch: Remove, dir: Push, wantReason: DeletedOnDisk},
		{name: "deleted in studio", disk: v1, studio: absent, base: &v1, wantPatch: Add, dir: Pull, wantReason: DeletedInStudio},
		{name: "deleted on disk, edited in studio", disk: absent, studio: v2, base: &v1, wantPatch: Remove, dir: "", wantReason: DeleteEditConflict},
		{name: "deleted in studio, edited on disk", disk: v2, studio: absent, base: &v1, wantPatch: Add, dir: "", wantReason: DeleteEditConflict},
		{name: "deleted on both", disk: absent, studio: absent, base: &v1, wantNoChange: true},
		{name: "no base, differ", disk: v1, studio: v2, base: nil, wantPatch: Edit, dir: "", wantReason: NoBase},
		{name: "no base, only disk", disk: v1, studio: absent, base: nil, wantPatch: Add, dir: "", wantReason: NoBase},
		{name: "no base, only studio", disk: absent, studio: v1, base: nil, wantPatch: Remove, dir: "", wantReason: NoBase},
		{name: "untracked on both, differ", disk: v1, studio: v2, base: &absent, wantPatch: Edit, dir: "", wantReason: NoBase},
		{name: "no base, equal", disk: v1, studio: v1, base: nil, wantNoChange: true},
	}
	for _, kind := range []string{"script", "property"} {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				in := Input{Disk: tree(tc.disk, kind), Studio: tree(tc.studio, kind), SessionID: "s1"}
				if tc.base != nil {
					in.Base = tree(*tc.base, kind)
					in.BaseCommit = "c1"
				}
				p := Compute(in)
				// The indexes a caller keeps give the same plan.
				indexed := in
				indexed.DiskIndex = in.Disk.Index()
				if in.Base != nil {
					indexed.BaseIndex = in.Base.Index()
				}
				if q := Compute(indexed); q.Hash != p.Hash || len(q.Changes) != len(p.Changes) {
					t.Errorf("with the indexes given, Compute = %s, want %s", dump(q), dump(p))
				}
				if tc.wantNoChange {
					if len(p.Changes) != 0 {
						t.Fatalf("Compute = %d changes, want none: %s", len(p.Changes), dump(p))
					}
					return
				}
				if len(p.Changes) != 1 {
					t.Fatalf("Compute = %d changes, want 1: %s", len(p.Changes), dump(p))
				}
				c := p.Changes[0]
				got := [3]string{string(c.PatchType), string(c.Direction), string(c.Reason)}
				want := [3]string{string(tc.wantPatch), string(tc.dir), string(tc.wantReason)}
				if got != want {
					t.Fatalf("change = %v, want %v", got, want)
				}
				// defaultSelection is exactly the table's result: push, pull or null.
				if c.DefaultSelection != tc.dir {
					t.Errorf("defaultSelection = %q, want %q", c.DefaultSelection, tc.dir)
				}
				checkChangeJSON(t, c)
				if c.Path != "ServerScriptService/Lib" {
					t.Errorf("path = %q", c.Path)
				}
				if kind == "script" && c.PatchType == Edit {
					if c.DiskHash != gitblob.Hash([]byte(tc.disk.source)) || c.StudioHash != gitblob.Hash([]byte(tc.studio.source)) {
						t.Errorf("hashes disk %s studio %s", c.DiskHash, c.StudioHash)
					}
				}
				if kind == "property" && c.PatchType == Edit {
					pd, ok := c.Properties["Size"]
					if !ok || !dom.Equal(pd.Current.V, dom.Vector3{tc.studio.size, 1, 1}) || !dom.Equal(pd.Incoming.V, dom.Vector3{tc.disk.size, 1, 1}) {
						t.Errorf("properties = %s", dump(p))
					}
				}
			})
		}
	}
}

func TestMixedFieldsAreUnresolved(t *testing.T) {
	// Source changed on disk, a property changed in Studio: each field resolves, but
	// in different directions, so the change is unresolved.
	mk := func(src string, size float32) *dom.Instance {
		root := dom.New("Game", "DataModel")
		s := dom.New("Lib", "Script")
		s.Properties.Set("Source", dom.String(src))
		s.Properties.Set("Disabled", dom.Bool(size > 1))
		s.SourceHash = gitblob.Hash([]byte(src))
		root.AddChild(s)
		root.AssignIDs()
		return root
	}
	p := Compute(Input{Disk: mk("b", 1), Studio: mk("a", 2), Base: mk("a", 1), BaseCommit: "c"})
	if len(p.Changes) != 1 || p.Changes[0].Direction != "" || p.Changes[0].Reason != BothChanged {
		t.Fatalf("Compute = %s, want one both_changed", dump(p))
	}
	if d := cmp.Diff([]string{"Source", "Disabled"}, p.Changes[0].Fields); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
}

func TestUnmanagedStudioPropertiesAreIgnored(t *testing.T) {
	disk := tree(v1, "property")
	studio := tree(v1, "property")
	studio.Find("ServerScriptService", "Lib").Properties.Set("Transparency", dom.Float32(0.5))
	if p := Compute(Input{Disk: disk, Studio: studio, Base: tree(v1, "property"), BaseCommit: "c"}); len(p.Changes) != 0 {
		t.Fatalf("an unmanaged Studio property made a change: %s", dump(p))
	}
}

func TestFloatsWithinToleranceAreEqual(t *testing.T) {
	disk := tree(v1, "property")
	studio := tree(v1, "property")
	studio.Find("ServerScriptService", "Lib").Properties.Set("Size", dom.Vector3{1.00005, 1, 1})
	if p := Compute(Input{Disk: disk, Studio: studio, Base: tree(v1, "property"), BaseCommit: "c"}); len(p.Changes) != 0 {
		t.Fatalf("a float within 1e-4 made a change: %s", dump(p))
	}
}

func TestIgnoreUnknownInstances(t *testing.T) {
	disk := tree(absent, "script")
	studio := tree(v1, "script")
	disk.Find("ServerScriptService").IgnoreUnknown = true
	if p := Compute(Input{Disk: disk, Studio: studio, Base: tree(absent, "script"), BaseCommit: "c"}); len(p.Changes) != 0 {
		t.Fatalf("a Studio child of an ignoreUnknownInstances folder made a change: %s", dump(p))
	}
	disk.Find("ServerScriptService").IgnoreUnknown = false
	if p := Compute(Input{Disk: disk, Studio: studio, Base: tree(absent, "script"), BaseCommit: "c"}); len(p.Changes) != 1 {
		t.Fatalf("a Studio child under a $path folder was not reported: %s", dump(p))
	}
}

func TestSubtreeChangeCountsDescendants(t *testing.T) {
	disk := tree(absent, "script")
	folder := dom.New("Lib", "Folder")
	folder.AddChild(dom.New("A", "Folder"))
	folder.AddChild(dom.New("B", "Folder"))
	disk.Find("ServerScriptService").AddChild(folder)
	disk.AssignIDs()
	p := Compute(Input{Disk: disk, Studio: tree(absent, "script"), Base: tree(absent, "script"), BaseCommit: "c"})
	if len(p.Changes) != 1 || p.Changes[0].Descendants != 2 || p.Changes[0].PatchType != Add {
		t.Fatalf("Compute = %s, want one Add with 2 descendants", dump(p))
	}
}

func TestHashIsCanonical(t *testing.T) {
	in := Input{Disk: tree(v2, "script"), Studio: tree(v1, "script"), Base: tree(v1, "script"), BaseCommit: "c", SessionID: "s"}
	a, b := Compute(in), Compute(in)
	if a.Hash != b.Hash || len(a.Hash) != len("sha256:")+64 {
		t.Fatalf("hashes %s and %s", a.Hash, b.Hash)
	}
	in.SessionID = "other"
	if Compute(in).Hash == a.Hash {
		t.Fatal("the session id is not part of the hash")
	}
	in.SessionID = "s"
	in.Disk = tree(v3, "script")
	if Compute(in).Hash == a.Hash {
		t.Fatal("a different disk source gave the same hash")
	}
	empty := Compute(Input{Disk: tree(v1, "script"), Studio: tree(v1, "script"), Base: tree(v1, "script"), BaseCommit: "c", SessionID: "s"})
	if empty.Hash != Compute(Input{Disk: tree(v1, "script"), Studio: tree(v1, "script"), Base: tree(v1, "script"), BaseCommit: "c", SessionID: "s"}).Hash {
		t.Fatal("empty plans hash differently")
	}
}

func TestCanonical(t *testing.T) {
	got, err := Canonical([]byte(`{ "b": 1, "a": {"d": [1, 2.50], "c": "<x>"} }`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"c":"<x>","d":[1,2.50]},"b":1}`; string(got) != want {
		t.Fatalf("Canonical = %s, want %s", got, want)
	}
}

func TestChangeJSONHasNullDirection(t *testing.T) {
	p := Compute(Input{Disk: tree(v2, "script"), Studio: tree(v3, "script"), Base: tree(v1, "script"), BaseCommit: "c"})
	b, _ := json.Marshal(p.Changes[0])
	var m map[string]any
	json.Unmarshal(b, &m)
	if v, ok := m["direction"]; !ok || v != nil {
		t.Fatalf("direction = %v (present %v), want null", v, ok)
	}
	for _, k := range []string{"id", "path", "className", "patchType", "defaultSelection", "reason", "studioHash", "diskHash", "baseHash", "fsPath", "properties"} {
		if _, ok := m[k]; !ok {
			t.Errorf("change JSON lacks %q: %s", k, b)
		}
	}
}

func dump(p *Plan) string {
	b, _ := json.MarshalIndent(p.Changes, "", "  ")
	return string(b)
}

func TestChangeJSONRoundTrip(t *testing.T) {
	p := Compute(Input{Disk: tree(v2, "property"), Studio: tree(v1, "property"), Base: tree(v1, "property"), BaseCommit: "c"})
	b, err := json.Marshal(p.Changes)
	if err != nil {
		t.Fatal(err)
	}
	var back []*Change
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0].Direction != Push || back[0].Reason != DiskChanged {
		t.Fatalf("round trip = %+v", back[0])
	}
	if !dom.Equal(back[0].Properties["Size"].Incoming.V, dom.Vector3{2, 1, 1}) {
		t.Errorf("incoming = %v", back[0].Properties["Size"].Incoming.V)
	}
}

func TestDroppedPropertyIsNotAChange(t *testing.T) {
	disk := tree(v1, "property")
	disk.Find("ServerScriptService", "Lib").Properties.Delete("Size")
	studio := tree(v1, "property")
	if p := Compute(Input{Disk: disk, Studio: studio, Base: tree(v1, "property"), BaseCommit: "c"}); len(p.Changes) != 0 {
		t.Fatalf("a property the project stopped setting is a change: %s", dump(p))
	}
}

func TestSubtreeContentIsInTheHash(t *testing.T) {
	mk := func(src string) *dom.Instance {
		root := tree(absent, "script")
		f := dom.New("New", "Folder")
		s := dom.New("A", "ModuleScript")
		s.Properties.Set("Source", dom.String(src))
		s.SourceHash = gitblob.Hash([]byte(src))
		f.AddChild(s)
		root.Find("ServerScriptService").AddChild(f)
		root.AssignIDs()
		return root
	}
	in := Input{Disk: mk("a"), Studio: tree(absent, "script"), Base: tree(absent, "script"), BaseCommit: "c"}
	a := Compute(in)
	in.Disk = mk("b")
	b := Compute(in)
	if len(a.Changes) != 1 || a.Changes[0].SubtreeHash == "" {
		t.Fatalf("Compute = %s", dump(a))
	}
	if a.Hash == b.Hash {
		t.Fatal("editing a script inside a new folder left the plan hash unchanged")
	}
}

// checkChangeJSON checks that a change's JSON carries every field of the contract,
// with null (never "") where a field does not apply, and that it reads back the same.
func checkChangeJSON(t *testing.T, c *Change) {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"direction": string(c.Direction), "defaultSelection": string(c.DefaultSelection),
		"studioHash": c.StudioHash, "diskHash": c.DiskHash, "baseHash": c.BaseHash, "fsPath": c.FsPath,
	}
	for name, want := range fields {
		v, ok := m[name]
		switch {
		case !ok:
			t.Errorf("%s is missing: %s", name, b)
		case want == "" && v != nil:
			t.Errorf("%s = %#v, want null: %s", name, v, b)
		case want != "" && v != want:
			t.Errorf("%s = %#v, want %q: %s", name, v, want, b)
		}
	}
	if sel := m["defaultSelection"]; sel != nil && sel != string(Push) && sel != string(Pull) {
		t.Errorf("defaultSelection = %#v: not push, pull or null", sel)
	}
	var back Change
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := [6]string{string(back.Direction), string(back.DefaultSelection), back.StudioHash, back.DiskHash, back.BaseHash, back.FsPath}
	want := [6]string{string(c.Direction), string(c.DefaultSelection), c.StudioHash, c.DiskHash, c.BaseHash, c.FsPath}
	if got != want {
		t.Errorf("read back %v, want %v", got, want)
	}
}
