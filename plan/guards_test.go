package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// place builds a place project: for each container name (a folder the project file
// maps with $path, under ServerScriptService) the given number of module scripts,
// each from its own file. keep, when set, says which scripts exist ("Box/M3").
func place(containers map[string]int, keep func(path string) bool) *dom.Instance {
	root := dom.New("Game", "DataModel")
	sss := dom.New("ServerScriptService", "ServerScriptService")
	sss.Kind, sss.IgnoreUnknown = dom.KindProject, true
	sss.SetProjectNode("default.project.json", nil)
	root.AddChild(sss)
	names := make([]string, 0, len(containers))
	for name := range containers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		box := dom.New(name, "Folder")
		box.Kind, box.FsPath = dom.KindDir, "src/"+name
		box.SetProjectNode("default.project.json", nil)
		sss.AddChild(box)
		for i := range containers[name] {
			m := dom.New(fmt.Sprintf("M%d", i), "ModuleScript")
			if keep != nil && !keep(name+"/"+m.Name) {
				continue
			}
			src := fmt.Sprintf("return %d\n", i)
			m.Properties.Set("Source", dom.String(src))
			m.SourceHash = gitblob.Hash([]byte(src))
			m.Kind, m.FsPath = dom.KindScript, box.FsPath+"/"+m.Name+".luau"
			box.AddChild(m)
		}
	}
	root.AssignIDs()
	return root
}

// outcome lists each change as "path reason/direction".
func outcome(p *Plan) map[string]string {
	out := map[string]string{}
	for _, c := range p.Changes {
		out[c.Path] = string(c.Reason) + "/" + string(c.Direction)
		if c.DefaultSelection != c.Direction {
			out[c.Path] += " defaultSelection=" + string(c.DefaultSelection)
		}
	}
	return out
}

func countReasons(p *Plan) map[Reason]int {
	n := map[Reason]int{}
	for _, c := range p.Changes {
		n[c.Reason]++
	}
	return n
}

func TestPlaceGuard(t *testing.T) {
	project := map[string]int{"Shared": 3, "Server": 3}
	disk := place(project, nil)
	cases := []struct {
		name      string
		studio    *dom.Instance
		identity  PlaceState
		wantPlace PlaceState
		want      map[Reason]int
	}{
		{"empty place, same identity", place(map[string]int{"Shared": 0, "Server": 0}, nil), PlaceSame, PlaceEmpty, map[Reason]int{PlaceChanged: 6}},
		{"empty place, unknown identity", place(nil, nil), "", PlaceEmpty, map[Reason]int{PlaceChanged: 2}},
		{"another place", place(project, func(p string) bool { return p != "Server/M1" }), PlaceDifferent, PlaceDifferent, map[Reason]int{PlaceChanged: 1}},
		{"same place", place(project, func(p string) bool { return p != "Server/M1" }), PlaceSame, PlaceSame, map[Reason]int{DeletedInStudio: 1}},
		{"unknown place", place(project, func(p string) bool { return p != "Server/M1" }), "", PlaceUnknown, map[Reason]int{DeletedInStudio: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(Input{Disk: disk, Studio: tc.studio, Base: disk, BaseCommit: "c", Place: tc.identity})
			if p.Place != tc.wantPlace {
				t.Errorf("Place = %q, want %q", p.Place, tc.wantPlace)
			}
			if got := countReasons(p); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("reasons = %v, want %v: %v", got, tc.want, outcome(p))
			}
			for _, c := range p.Changes {
				if c.Reason == PlaceChanged && (c.Direction != "" || c.DefaultSelection != "") {
					t.Errorf("%s: direction %q defaultSelection %q, want both null", c.Path, c.Direction, c.DefaultSelection)
				}
			}
			if held := tc.want[PlaceChanged]; held > 0 && (p.Guards == nil || len(p.Guards.PlaceChanged) != held || len(p.Warnings) == 0) {
				t.Errorf("guards %+v, warnings %q", p.Guards, p.Warnings)
			}
		})
	}
}

func TestPlaceGuardLeavesOtherChanges(t *testing.T) {
	// In another place (proven: another marker or published id), a disk edit
	// still pushes; every change to disk (a deletion, and an edit: another place's
	// script is not this project's newer work) is held back.
	project := map[string]int{"Shared": 3}
	disk := place(project, nil)
	studio := place(project, func(p string) bool { return p != "Shared/M2" })
	studio.Find("ServerScriptService", "Shared", "M0").Properties.Set("Source", dom.String("return 'studio'\n"))
	studio.Find("ServerScriptService", "Shared", "M0").SourceHash = gitblob.Hash([]byte("return 'studio'\n"))
	disk.Find("ServerScriptService", "Shared", "M1").Properties.Set("Source", dom.String("return 'disk'\n"))
	disk.Find("ServerScriptService", "Shared", "M1").SourceHash = gitblob.Hash([]byte("return 'disk'\n"))
	base := place(project, nil)
	p := Compute(Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c", Place: PlaceDifferent, OtherPlace: true})
	want := map[string]string{
		"ServerScriptService/Shared/M0": "place_changed/",
		"ServerScriptService/Shared/M1": "disk_changed/push",
		"ServerScriptService/Shared/M2": "place_changed/",
	}
	if got := outcome(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Compute = %v, want %v", got, want)
	}
	if p.Guards == nil || len(p.Guards.PlaceChanged) != 2 || !strings.Contains(strings.Join(p.Warnings, "\n"), "2 change(s) to disk (1 deletion(s) of files)") {
		t.Errorf("guards %+v, warnings %q", p.Guards, p.Warnings)
	}
	// The same place, or one only lacking the marker (the synced place reopened
	// from a save made before the sync marked it): the edit pulls; in the latter,
	// the deletion is still held.
	p = Compute(Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c", Place: PlaceSame})
	if got := outcome(p)["ServerScriptService/Shared/M0"]; got != "studio_changed/pull" {
		t.Errorf("in the same place, M0 = %s", got)
	}
	p = Compute(Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c", Place: PlaceDifferent})
	if got := outcome(p); got["ServerScriptService/Shared/M0"] != "studio_changed/pull" || got["ServerScriptService/Shared/M2"] != "place_changed/" {
		t.Errorf("in a place without the marker: %v", got)
	}
}

func TestMassDeleteGuard(t *testing.T) {
	cases := []struct {
		name     string
		project  map[string]int
		keep     func(string) bool
		wantRule string
		want     map[Reason]int
	}{
		{"more than 20 files", map[string]int{"A": 30}, func(p string) bool { return p >= "A/M3" && p < "A/M4" || p == "A/M1" }, "files", map[Reason]int{MassDelete: 28}},
		{"20 files of 100", map[string]int{"A": 100}, func(p string) bool { return len(p) != 4 }, "", map[Reason]int{DeletedInStudio: 10}},
		{"more than half", map[string]int{"A": 5, "B": 5}, func(p string) bool { return p[0] == 'B' && p != "B/M0" }, "share", map[Reason]int{MassDelete: 6}},
		{"half or less", map[string]int{"A": 5, "B": 6}, func(p string) bool { return p[0] == 'B' || p == "A/M0" }, "", map[Reason]int{DeletedInStudio: 4}},
		{"a whole mapped folder", map[string]int{"A": 3, "B": 40}, func(p string) bool { return p[0] == 'B' }, "container", map[Reason]int{MassDelete: 3}},
		{"a one-file folder", map[string]int{"A": 1, "B": 40}, func(p string) bool { return p[0] == 'B' }, "", map[Reason]int{DeletedInStudio: 1}},
		{"one deletion", map[string]int{"A": 3}, func(p string) bool { return p != "A/M1" }, "", map[Reason]int{DeletedInStudio: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			disk := place(tc.project, nil)
			p := Compute(Input{Disk: disk, Studio: place(tc.project, tc.keep), Base: disk, BaseCommit: "c", Place: PlaceSame})
			if got := countReasons(p); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("reasons = %v, want %v", got, tc.want)
			}
			rule := ""
			if p.Guards != nil {
				rule = p.Guards.MassDeleteRule
			}
			if rule != tc.wantRule {
				t.Errorf("rule = %q, want %q (guards %+v)", rule, tc.wantRule, p.Guards)
			}
			if tc.wantRule != "" && (p.Guards.MassDeleteFiles != tc.want[MassDelete] || len(p.Warnings) == 0) {
				t.Errorf("files %d, warnings %q", p.Guards.MassDeleteFiles, p.Warnings)
			}
			for _, c := range p.Changes {
				if c.Reason == MassDelete && (c.Direction != "" || c.DefaultSelection != "") {
					t.Errorf("%s: direction %q defaultSelection %q, want both null", c.Path, c.Direction, c.DefaultSelection)
				}
			}
		})
	}
}

func TestGuardsMoveTheHash(t *testing.T) {
	project := map[string]int{"A": 3}
	disk := place(project, nil)
	studio := place(project, func(p string) bool { return p != "A/M1" })
	same := Compute(Input{Disk: disk, Studio: studio, Base: disk, BaseCommit: "c", SessionID: "s", Place: PlaceSame})
	other := Compute(Input{Disk: disk, Studio: studio, Base: disk, BaseCommit: "c", SessionID: "s", Place: PlaceDifferent})
	if same.Hash == other.Hash {
		t.Errorf("a deletion held back by the place guard has the hash of the one the table pulls: %s", same.Hash)
	}
	if again := Compute(Input{Disk: disk, Studio: studio, Base: disk, BaseCommit: "c", SessionID: "s", Place: PlaceDifferent}); again.Hash != other.Hash {
		t.Errorf("the same guarded plan hashed %s, then %s", other.Hash, again.Hash)
	}
}

// dupPlace is a place with a folder under ServerScriptService holding scripts named
// names, in that order (Studio's order), none of them on disk or in the base.
func dupPlace(names ...string) *dom.Instance {
	root := place(map[string]int{"A": 1}, nil)
	box := root.Find("ServerScriptService", "A")
	for _, n := range names {
		m := dom.New(n, "ModuleScript")
		src := "return '" + n + "'\n"
		m.Properties.Set("Source", dom.String(src))
		m.SourceHash = gitblob.Hash([]byte(src))
		box.AddChild(m)
	}
	root.AssignIDs()
	return root
}

func TestDuplicateNameGuard(t *testing.T) {
	disk := place(map[string]int{"A": 1}, nil)
	cases := []struct {
		name     string
		studio   *dom.Instance
		foldCase bool
		want     map[Reason]int
	}{
		{"two of one name", dupPlace("Dup", "Dup"), false, map[Reason]int{DuplicateName: 2}},
		{"a Studio twin of a disk script", dupPlace("M0"), false, map[Reason]int{DuplicateName: 1}},
		{"names differing in case, case-sensitive", dupPlace("Foo", "foo"), false, map[Reason]int{NewInStudio: 2}},
		{"names differing in case, folding file system", dupPlace("Foo", "foo"), true, map[Reason]int{DuplicateName: 2}},
		{"distinct names", dupPlace("Foo", "Bar"), true, map[Reason]int{NewInStudio: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(Input{Disk: disk, Studio: tc.studio, Base: disk, BaseCommit: "c", FoldCase: tc.foldCase})
			if got := countReasons(p); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("reasons = %v, want %v: %v", got, tc.want, outcome(p))
			}
			if n := tc.want[DuplicateName]; n > 0 {
				if p.Guards == nil || len(p.Guards.Duplicates) != n {
					t.Fatalf("guards = %+v, want %d duplicates", p.Guards, n)
				}
				for _, d := range p.Guards.Duplicates {
					if len(d.Siblings) == 0 || d.Siblings[0].ID == d.ID {
						t.Errorf("duplicate %s names siblings %+v", d.ID, d.Siblings)
					}
				}
			}
		})
	}
}

func TestDuplicatePushIsNotHeld(t *testing.T) {
	// A disk edit of a script with a same-named Studio sibling writes Studio by its
	// handle: only pulls, which write files, are ambiguous.
	disk := place(map[string]int{"A": 1}, nil)
	m := disk.Find("ServerScriptService", "A", "M0")
	m.Properties.Set("Source", dom.String("return 'disk'\n"))
	m.SourceHash = gitblob.Hash([]byte("return 'disk'\n"))
	base := place(map[string]int{"A": 1}, nil)
	studio := place(map[string]int{"A": 1}, nil)
	twin := dom.New("M0", "Folder")
	studio.Find("ServerScriptService", "A").AddChild(twin)
	studio.AssignIDs()
	disk.Find("ServerScriptService", "A").IgnoreUnknown = true
	p := Compute(Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c"})
	if got := outcome(p); got["ServerScriptService/A/M0"] != "disk_changed/push" {
		t.Fatalf("Compute = %v, want the disk edit pushed", got)
	}
}

// WritableInt64 is whether a Luau number (a double) holds the integer exactly, and is
// within the Int64 range as a double: 2^63 - 1 reads as 2^63, past it.
func TestWritableInt64(t *testing.T) {
	for _, tt := range []struct {
		v    int64
		want bool
	}{
		{0, true}, {-1, true}, {1 << 53, true}, {1<<53 + 1, false}, {-(1<<53 + 1), false},
		{1<<60 + 256, true}, {1<<60 + 1, false}, {math.MaxInt64, false}, {math.MinInt64, true},
		{math.MaxInt64 - 1023, true}, {math.MaxInt64 - 1024, false},
	} {
		if got := WritableInt64(tt.v); got != tt.want {
			t.Errorf("WritableInt64(%d) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
