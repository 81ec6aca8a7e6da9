package plan

import (
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// meshTree is a place with Workspace/Rock, a MeshPart with the given MeshId and size.
func meshTree(meshID string, size float32) *dom.Instance {
	root := dom.New("Game", "DataModel")
	ws := dom.New("Workspace", "Workspace")
	root.AddChild(ws)
	rock := dom.New("Rock", "MeshPart")
	rock.Properties.Set("MeshId", dom.ContentId(meshID))
	rock.Properties.Set("Size", dom.Vector3{size, 1, 1})
	ws.AddChild(rock)
	root.AssignIDs()
	return root
}

// A property Studio's scripts cannot write (MeshPart.MeshId is read-only) is never a
// difference, is left out of an edit's fields, and is named in a warning.
func TestUnsyncablePropertyLeftOut(t *testing.T) {
	disk := meshTree("rbxassetid://1", 4)
	studio := meshTree("", 4)
	studio.Children[0].Children[0].Properties.Delete("MeshId") // Studio may not report it at all
	p := Compute(Input{Disk: disk, Studio: studio, Base: meshTree("rbxassetid://1", 4), BaseCommit: "c"})
	if len(p.Changes) != 0 {
		t.Fatalf("changes = %+v, want none: MeshId is not managed", p.Changes[0])
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "MeshPart.MeshId") || !strings.Contains(p.Warnings[0], "Workspace/Rock") {
		t.Errorf("warnings = %q, want one naming MeshPart.MeshId at Workspace/Rock", p.Warnings)
	}

	// A real difference next to it: only Size is a field.
	studio = meshTree("", 5)
	p = Compute(Input{Disk: disk, Studio: studio, Base: meshTree("rbxassetid://1", 5), BaseCommit: "c"})
	if len(p.Changes) != 1 {
		t.Fatalf("changes = %d, want 1", len(p.Changes))
	}
	if got := p.Changes[0].Fields; len(got) != 1 || got[0] != "Size" {
		t.Errorf("fields = %v, want [Size]", got)
	}
	if _, ok := p.Changes[0].Properties["MeshId"]; ok {
		t.Errorf("MeshId is in the change's properties")
	}
}

func TestWarningsCountAndNonUTF8(t *testing.T) {
	disk := meshTree("rbxassetid://1", 4)
	ws := disk.Children[0]
	for _, name := range []string{"A", "B"} {
		m := dom.New(name, "MeshPart")
		m.Properties.Set("MeshId", dom.ContentId("rbxassetid://2"))
		ws.AddChild(m)
	}
	studio := meshTree("", 4)
	bad := "print('\xf0\x28\x8c\x28')\n"
	s := dom.New("Bad", "Script")
	s.Properties.Set("Source", dom.String(bad))
	s.SourceHash = gitblob.Hash([]byte(bad))
	studio.Children[0].AddChild(s)
	disk.AssignIDs()
	studio.AssignIDs()
	p := Compute(Input{Disk: disk, Studio: studio})
	joined := strings.Join(p.Warnings, "\n")
	if !strings.Contains(joined, "MeshPart.MeshId is set by the project (Workspace/A and 2 more)") {
		t.Errorf("warnings = %q, want MeshPart.MeshId once with a count", p.Warnings)
	}
	if !strings.Contains(joined, "Workspace/Bad: the Studio Source is not valid UTF-8") {
		t.Errorf("warnings = %q, want the non-UTF-8 Studio script named", p.Warnings)
	}
}
