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

// scriptTree is a place with ServerScriptService/Main (Source src), and a Folder
// ServerScriptService/Lib holding a ModuleScript when lib.
func scriptTree(src string, lib bool) *dom.Instance {
	root := dom.New("Game", "DataModel")
	sss := dom.New("ServerScriptService", "ServerScriptService")
	root.AddChild(sss)
	main := dom.New("Main", "Script")
	main.Properties.Set("Source", dom.String(src))
	main.SourceHash = gitblob.HashString(src)
	sss.AddChild(main)
	if lib {
		m := dom.New("Lib", "ModuleScript")
		m.Properties.Set("Source", dom.String("return {}\n"))
		m.SourceHash = gitblob.HashString("return {}\n")
		sss.AddChild(m)
	}
	root.AssignIDs()
	return root
}

// A change that would write or remove a Studio script whose Script Editor holds
// unsaved text (EditorSha1) is named by a warning; a pull of it, or a script without
// such text, is not; the plan's hash and directions are the same either way.
func TestEditorTextWarning(t *testing.T) {
	edited := func(studio *dom.Instance, name string) {
		studio.Children[0].FindChild(name).SetEditorSha1(gitblob.HashString("print('typing')\n"))
	}
	count := func(p *Plan) (n int, path string) {
		for _, w := range p.Warnings {
			if strings.Contains(w, "Script Editor holds unsaved text") {
				n++
				path, _, _ = strings.Cut(w, ":")
			}
		}
		return n, path
	}
	base := scriptTree("print(1)\n", true)

	// disk changed Main: a push of its Source.
	plain := Compute(Input{Disk: scriptTree("print(2)\n", true), Studio: scriptTree("print(1)\n", true), Base: base, BaseCommit: "c"})
	studio := scriptTree("print(1)\n", true)
	edited(studio, "Main")
	p := Compute(Input{Disk: scriptTree("print(2)\n", true), Studio: studio, Base: base, BaseCommit: "c"})
	if n, path := count(p); n != 1 || path != "ServerScriptService/Main" {
		t.Fatalf("push: warnings = %q, want one naming ServerScriptService/Main", p.Warnings)
	}
	if n, _ := count(plain); n != 0 {
		t.Fatalf("push without editor text: warnings = %q", plain.Warnings)
	}
	if p.Hash != plain.Hash || len(p.Changes) != 1 || p.Changes[0].Direction != plain.Changes[0].Direction {
		t.Fatalf("the warning changed the plan: hash %s vs %s", p.Hash, plain.Hash)
	}

	// Studio changed Main: a pull, which writes no script in Studio.
	studio = scriptTree("print(3)\n", true)
	edited(studio, "Main")
	p = Compute(Input{Disk: scriptTree("print(1)\n", true), Studio: studio, Base: base, BaseCommit: "c"})
	if n, _ := count(p); n != 0 || len(p.Changes) != 1 || p.Changes[0].Direction != Pull {
		t.Fatalf("pull: warnings = %q, changes %d", p.Warnings, len(p.Changes))
	}

	// disk deleted Lib: its removal from Studio.
	studio = scriptTree("print(1)\n", true)
	edited(studio, "Lib")
	p = Compute(Input{Disk: scriptTree("print(1)\n", false), Studio: studio, Base: base, BaseCommit: "c"})
	if n, path := count(p); n != 1 || path != "ServerScriptService/Lib" || p.Changes[0].PatchType != Remove {
		t.Fatalf("remove: warnings = %q", p.Warnings)
	}
}
