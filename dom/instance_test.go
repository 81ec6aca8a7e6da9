package dom

import (
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var idRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestChildID(t *testing.T) {
	// Ids are stored (plans, state) and compared across processes: they must never
	// change for the same inputs.
	if got, want := RootID, "a120407571118e583fa9e0f53b5d9caa"; got != want {
		t.Errorf("RootID = %s, want %s", got, want)
	}
	if got, want := ChildID(RootID, "Workspace", 0), "350dd9a7c8e0265937a4c59938cdd9a9"; got != want {
		t.Errorf("ChildID(RootID, Workspace, 0) = %s, want %s", got, want)
	}

	base := ChildID(RootID, "Part", 0)
	if got := ChildID(RootID, "Part", 0); got != base {
		t.Errorf("ChildID(RootID, Part, 0) = %s then %s, want the same", base, got)
	}
	tests := []struct {
		name     string
		parentID string
		child    string
		ordinal  int
	}{
		{"root", RootID, "Part", 0},
		{"ordinal", RootID, "Part", 1},
		{"ordinal 10", RootID, "Part", 10},
		{"name", RootID, "Part2", 0},
		{"name case", RootID, "part", 0},
		{"empty name", RootID, "", 0},
		{"parent", ChildID(RootID, "Workspace", 0), "Part", 0},
		{"name and ordinal shifted", RootID, "Part\x001", 0},
		{"unicode name", RootID, "Pärt", 0},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		id := ChildID(tt.parentID, tt.child, tt.ordinal)
		if !idRe.MatchString(id) {
			t.Errorf("ChildID(%s, %q, %d) = %q, want 32 lower-case hex digits", tt.parentID, tt.child, tt.ordinal, id)
		}
		if id == RootID {
			t.Errorf("ChildID(%s, %q, %d) = RootID", tt.parentID, tt.child, tt.ordinal)
		}
		if other, ok := seen[id]; ok {
			t.Errorf("ChildID for %q = %s, the same as for %q", tt.name, id, other)
		}
		seen[id] = tt.name
	}
}

// buildTree returns a tree with a duplicate name at two levels:
//
//	root: Workspace{Part, Part, Model{Part}, Part}, ReplicatedStorage{Folder{Part}, Folder}
func buildTree(rootName string) *Instance {
	root := New(rootName, "DataModel")
	ws := New("Workspace", "Workspace")
	root.AddChild(ws)
	ws.AddChild(New("Part", "Part"))
	ws.AddChild(New("Part", "Part"))
	model := New("Model", "Model")
	ws.AddChild(model)
	model.AddChild(New("Part", "Part"))
	ws.AddChild(New("Part", "Part"))
	rs := New("ReplicatedStorage", "ReplicatedStorage")
	root.AddChild(rs)
	f1 := New("Folder", "Folder")
	rs.AddChild(f1)
	f1.AddChild(New("Part", "Part"))
	rs.AddChild(New("Folder", "Folder"))
	return root
}

func TestAssignIDs(t *testing.T) {
	root := buildTree("game")
	dups := root.AssignIDs()

	if diff := cmp.Diff([]string{"Workspace/Part", "ReplicatedStorage/Folder"}, dups); diff != "" {
		t.Errorf("AssignIDs() duplicates mismatch (-want +got):\n%s", diff)
	}
	if root.ID != RootID {
		t.Errorf("root ID = %s, want RootID %s", root.ID, RootID)
	}
	ids := map[string]bool{}
	root.Walk(func(i *Instance) bool {
		if !idRe.MatchString(i.ID) {
			t.Errorf("ID of %q = %q, want 32 hex digits", i.Path(), i.ID)
		}
		if ids[i.ID] {
			t.Errorf("ID of %q = %s, already taken", i.Path(), i.ID)
		}
		ids[i.ID] = true
		return true
	})
	if got, want := len(root.Index()), root.Count(); got != want {
		t.Errorf("len(Index()) = %d, want Count() = %d", got, want)
	}

	ws := root.Children[0]
	for i, ord := range map[int]int{0: 0, 1: 1, 3: 2} {
		if got, want := ws.Children[i].ID, ChildID(ws.ID, "Part", ord); got != want {
			t.Errorf("Workspace child %d ID = %s, want ChildID(Workspace, Part, %d) = %s", i, got, ord, want)
		}
	}
	if got, want := ws.ID, ChildID(RootID, "Workspace", 0); got != want {
		t.Errorf("Workspace ID = %s, want %s", got, want)
	}
	// The Part inside Model is the first Part of its parent: ordinal 0 again, but
	// under another parent.
	inModel := root.Find("Workspace", "Model", "Part")
	if got, want := inModel.ID, ChildID(root.Find("Workspace", "Model").ID, "Part", 0); got != want {
		t.Errorf("Workspace/Model/Part ID = %s, want %s", got, want)
	}
}

func TestAssignIDsStable(t *testing.T) {
	idsByPosition := func(root *Instance) []string {
		var ids []string
		root.Walk(func(i *Instance) bool { ids = append(ids, i.Path()+" "+i.ID); return true })
		return ids
	}
	a, b, c := buildTree("game"), buildTree("game"), buildTree("MyProject")
	a.AssignIDs()
	b.AssignIDs()
	c.AssignIDs()
	if diff := cmp.Diff(idsByPosition(a), idsByPosition(b)); diff != "" {
		t.Errorf("ids of the same tree built twice differ (-first +second):\n%s", diff)
	}
	// The root's name does not count: a project root and Studio's game are the same.
	if diff := cmp.Diff(idsByPosition(a), idsByPosition(c)); diff != "" {
		t.Errorf("ids differ with the root's name (-game +MyProject):\n%s", diff)
	}
	// Assigning again changes nothing.
	before := idsByPosition(a)
	if dups := a.AssignIDs(); len(dups) != 2 {
		t.Errorf("AssignIDs() again = %v, want 2 duplicates", dups)
	}
	if diff := cmp.Diff(before, idsByPosition(a)); diff != "" {
		t.Errorf("AssignIDs() again changed ids (-before +after):\n%s", diff)
	}
}

func TestAssignIDsNoDuplicates(t *testing.T) {
	root := New("game", "DataModel")
	root.AddChild(New("Workspace", "Workspace"))
	root.AddChild(New("Lighting", "Lighting"))
	if dups := root.AssignIDs(); len(dups) != 0 {
		t.Errorf("AssignIDs() = %v, want no duplicates", dups)
	}
}

func TestPath(t *testing.T) {
	root := buildTree("game")
	tests := []struct {
		names []string
		path  string
	}{
		{nil, ""},
		{[]string{"Workspace"}, "Workspace"},
		{[]string{"Workspace", "Model", "Part"}, "Workspace/Model/Part"},
		{[]string{"ReplicatedStorage", "Folder", "Part"}, "ReplicatedStorage/Folder/Part"},
	}
	for _, tt := range tests {
		i := root.Find(tt.names...)
		if i == nil {
			t.Fatalf("Find(%q) = nil", tt.names)
		}
		if got := i.Path(); got != tt.path {
			t.Errorf("Find(%q).Path() = %q, want %q", tt.names, got, tt.path)
		}
		if got := i.PathNames(); !slices.Equal(got, tt.names) {
			t.Errorf("Find(%q).PathNames() = %q, want %q", tt.names, got, tt.names)
		}
	}
	if got := root.Find(); got != root {
		t.Errorf("Find() = %v, want the root", got)
	}
}

func TestFind(t *testing.T) {
	root := buildTree("game")
	ws := root.Children[0]
	tests := []struct {
		names []string
		want  *Instance
	}{
		{[]string{"Workspace"}, ws},
		{[]string{"Workspace", "Part"}, ws.Children[0]}, // the first of the same-named
		{[]string{"Workspace", "Model"}, ws.Children[2]},
		{[]string{"Workspace", "Nope"}, nil},
		{[]string{"Nope", "Part"}, nil},
		{[]string{"Workspace", "Part", "Part"}, nil},
		{[]string{"workspace"}, nil},
		// The first Folder has the Part; the second is not searched.
		{[]string{"ReplicatedStorage", "Folder", "Part"}, root.Children[1].Children[0].Children[0]},
	}
	for _, tt := range tests {
		if got := root.Find(tt.names...); got != tt.want {
			t.Errorf("Find(%q) = %p, want %p", tt.names, got, tt.want)
		}
	}
	if got := ws.FindChild("Model"); got != ws.Children[2] {
		t.Errorf("FindChild(Model) = %p, want %p", got, ws.Children[2])
	}
}

func TestWalkAndCount(t *testing.T) {
	root := buildTree("game")
	if got, want := root.Count(), 11; got != want {
		t.Errorf("Count() = %d, want %d", got, want)
	}
	var visited []string
	root.Walk(func(i *Instance) bool {
		visited = append(visited, i.Path())
		return i.Name != "Workspace" // skip Workspace's descendants
	})
	want := []string{"", "Workspace", "ReplicatedStorage", "ReplicatedStorage/Folder",
		"ReplicatedStorage/Folder/Part", "ReplicatedStorage/Folder"}
	if diff := cmp.Diff(want, visited); diff != "" {
		t.Errorf("Walk order mismatch (-want +got):\n%s", diff)
	}
}

func TestAddChild(t *testing.T) {
	root := buildTree("game")
	root.Walk(func(i *Instance) bool {
		for _, c := range i.Children {
			if c.Parent != i {
				t.Errorf("%q.Parent = %p, want %p", c.Path(), c.Parent, i)
			}
		}
		return true
	})
}

func TestClone(t *testing.T) {
	root := buildTree("game")
	root.AssignIDs()
	part := root.Find("Workspace", "Part")
	part.Properties.Set("Size", Vector3{4, 1, 2})
	part.SetProjectNode("", []string{"tree", "Workspace", "Part"})
	part.FsPath = "src/Part.model.json"

	ws := root.Find("Workspace")
	c := ws.Clone()

	if c.Parent != nil {
		t.Errorf("Clone().Parent = %p, want nil", c.Parent)
	}
	if got, want := c.Count(), ws.Count(); got != want {
		t.Errorf("Clone().Count() = %d, want %d", got, want)
	}
	// Same content, ids included.
	var orig, copied []string
	ws.Walk(func(i *Instance) bool { orig = append(orig, i.ID+" "+i.Name+" "+i.ClassName); return true })
	c.Walk(func(i *Instance) bool { copied = append(copied, i.ID+" "+i.Name+" "+i.ClassName); return true })
	if diff := cmp.Diff(orig, copied); diff != "" {
		t.Errorf("Clone() content mismatch (-original +clone):\n%s", diff)
	}
	cp := c.FindChild("Part")
	if !Equal(cp.Properties.Get("Size"), Vector3{4, 1, 2}) || cp.FsPath != part.FsPath || !slices.Equal(cp.ProjectKeys(), part.ProjectKeys()) {
		t.Errorf("cloned Part = %+v, want the fields of %+v", cp, part)
	}
	c.Walk(func(i *Instance) bool {
		for _, ch := range i.Children {
			if ch.Parent != i {
				t.Errorf("clone: %q.Parent is not its clone parent", ch.Name)
			}
		}
		return true
	})

	// Changing the clone leaves the original alone.
	cp.Name = "Renamed"
	cp.Properties.Set("Size", Vector3{1, 1, 1})
	cp.Properties.Set("Anchored", Bool(true))
	cp.ProjectKeys()[0] = "changed"
	c.AddChild(New("Extra", "Folder"))
	c.Children[2].Children = nil

	if part.Name != "Part" {
		t.Errorf("original Name = %q after renaming the clone", part.Name)
	}
	if got := part.Properties.Get("Size"); !Equal(got, Vector3{4, 1, 2}) {
		t.Errorf("original Size = %v after changing the clone", got)
	}
	if _, ok := part.Properties.Lookup("Anchored"); ok {
		t.Errorf("original got the clone's Anchored property")
	}
	if part.ProjectKeys()[0] != "tree" {
		t.Errorf("original ProjectKeys = %q after changing the clone", part.ProjectKeys())
	}
	if got, want := len(ws.Children), 4; got != want {
		t.Errorf("original has %d children after adding to the clone, want %d", got, want)
	}
	if ws.Find("Model", "Part") == nil {
		t.Errorf("original lost Model/Part when the clone's Model was emptied")
	}
	if ws.Parent != root {
		t.Errorf("original Workspace.Parent changed by Clone")
	}
}

func TestPropertyNames(t *testing.T) {
	i := New("Part", "Part")
	i.Properties.Set("Size", Vector3{1, 1, 1})
	i.Properties.Set("Anchored", Bool(true))
	i.Properties.Set("Color", Color3{1, 0, 0})
	if diff := cmp.Diff([]string{"Anchored", "Color", "Size"}, i.PropertyNames()); diff != "" {
		t.Errorf("PropertyNames() mismatch (-want +got):\n%s", diff)
	}
	if got := New("Folder", "Folder").PropertyNames(); len(got) != 0 {
		t.Errorf("PropertyNames() of an empty instance = %q, want none", got)
	}
}

func TestScripts(t *testing.T) {
	tests := []struct {
		class string
		want  bool
	}{
		{"Script", true}, {"LocalScript", true}, {"ModuleScript", true},
		{"Part", false}, {"StringValue", false}, {"script", false},
	}
	for _, tt := range tests {
		if got := IsScriptClass(tt.class); got != tt.want {
			t.Errorf("IsScriptClass(%q) = %v, want %v", tt.class, got, tt.want)
		}
		if got := New("x", tt.class).IsScript(); got != tt.want {
			t.Errorf("New(x, %q).IsScript() = %v, want %v", tt.class, got, tt.want)
		}
	}

	s := New("Main", "Script")
	if src, ok := s.Source(); ok || src != "" {
		t.Errorf("Source() of a script without Source = %q, %v, want \"\", false", src, ok)
	}
	s.Properties.Set("Source", String("print(1)"))
	if src, ok := s.Source(); !ok || src != "print(1)" {
		t.Errorf("Source() = %q, %v, want \"print(1)\", true", src, ok)
	}
	s.Properties.Set("Source", ContentId("print(1)"))
	if src, ok := s.Source(); ok {
		t.Errorf("Source() of a non-String Source = %q, %v, want not ok", src, ok)
	}
}
