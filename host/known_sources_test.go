package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// TestKnownSourcesComeByHash: a whole snapshot of the real plugin (in the emulator,
// whose EncodingService hashes) carries no text for the scripts whose Source the
// disk holds, only their blob ids, and the text of the one script edited in Studio;
// the plan sees Studio's texts exactly.
func TestKnownSourcesComeByHash(t *testing.T) {
	const edited = "print('edited in Studio')\n"
	e := startEmulated(t, deltaProject, func(pf *host.PlaceFile) {
		sss := pf.Root.Find("ServerScriptService", "Main")
		if sss == nil {
			t.Fatal("no ServerScriptService/Main in the place")
		}
		sss.Properties["Source"] = dom.String(edited)
	})
	d, err := e.host.Plan(context.Background(), host.PlanRequest{Sources: true})
	if err != nil {
		t.Fatal(err)
	}
	scripts := 0
	for name := range deltaProject {
		if strings.HasSuffix(name, ".luau") {
			scripts++
		}
	}
	if got := e.host.SourcesByHash(); got != scripts-1 {
		t.Errorf("%d Sources came by hash, want %d (every script but the edited one)", got, scripts-1)
	}
	if len(d.Changes) != 1 || d.Changes[0].Path != "ServerScriptService/Main" {
		t.Fatalf("changes = %+v, want the Studio edit of Main alone", d.Changes)
	}
	if src := d.Sources[d.Changes[0].ID].Studio; src == nil || *src != edited {
		t.Errorf("Studio's Main = %v, want %q", src, edited)
	}
	// Every other Studio script has the disk's text, by hash. The plan read every
	// text (a whole snapshot), so the host let go of the ones a file holds: only
	// Main's, which no file holds, is kept.
	disk := e.host.LastDiskTree().Index()
	studio := e.host.CachedStudioTree()
	held := 0
	studio.Walk(func(x *dom.Instance) bool {
		if !x.IsScript() {
			return true
		}
		_, ok := x.Properties.Lookup("Source")
		if ok {
			held++
		}
		switch {
		case x.Name == "Main":
			if !ok {
				t.Errorf("%s: the host let go of a text only Studio holds", x.Path())
			}
		case disk[x.ID] == nil || x.SourceHash != disk[x.ID].SourceHash:
			t.Errorf("%s: Studio's hash %s is not the disk's", x.Path(), x.SourceHash)
		case ok && dom.IsScriptClass(disk[x.ID].ClassName) && disk[x.ID].Kind == dom.KindScript:
			t.Errorf("%s: the host still holds a text its file holds", x.Path())
		}
		return true
	})
	t.Logf("%d of the Studio tree's scripts hold their text", held)
}

// TestPushedSourcesComeBackByHash: the snapshot after an apply names the Sources the
// apply wrote into Studio in knownSources, so the real plugin sends their blob ids
// instead of the texts (an edited script and a new one under a new folder); a script
// edited in Studio after that comes as text again.
func TestPushedSourcesComeBackByHash(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h := e.host
	ctx := context.Background()
	plan := planOf(t, h)
	plan()
	const b, z = "return 'b, pushed'\n", "return 'z, new'\n"
	hosttest.Write(t, e.dir, "src/shared/B.luau", b)
	hosttest.Write(t, e.dir, "src/shared/New/Z.luau", z)
	d := plan()
	if len(d.Changes) != 2 {
		t.Fatalf("plan = %+v, want the edit of B and the new folder", d.Changes)
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	byHash, deltas := h.SourcesByHash(), h.StudioDeltas()
	if d := plan(); len(d.Changes) != 0 {
		t.Fatalf("after the apply the plan has %d changes: %+v", len(d.Changes), d.Changes)
	}
	if h.StudioDeltas() != deltas+1 {
		t.Fatalf("the snapshot after the apply was not a delta")
	}
	if got := h.SourcesByHash() - byHash; got != 2 {
		t.Errorf("%d Sources came by hash after the apply, want 2 (B and New/Z)", got)
	}
	studio := h.CachedStudioTree()
	for path, want := range map[string]string{"ReplicatedStorage/Shared/B": b, "ReplicatedStorage/Shared/New/Z": z} {
		x := studio.Find(strings.Split(path, "/")...)
		if x == nil {
			t.Fatalf("no %s in the host's Studio tree", path)
		}
		if src, _ := x.Properties.Get("Source").(dom.String); string(src) != want {
			t.Errorf("Studio's %s = %q, want %q", path, src, want)
		}
	}

	// The next snapshot names nothing: an edit in Studio comes as text.
	byHash = h.SourcesByHash()
	mustExec(t, h, `game.ReplicatedStorage.Shared.B.Source = "return 'b, studio'\n"`)
	d = plan()
	if len(d.Changes) != 1 || d.Changes[0].Path != "ReplicatedStorage/Shared/B" {
		t.Fatalf("plan = %+v, want the Studio edit of B", d.Changes)
	}
	if got := h.SourcesByHash() - byHash; got != 0 {
		t.Errorf("%d Sources came by hash after a Studio edit, want 0", got)
	}
	if src, _ := h.CachedStudioTree().Find("ReplicatedStorage", "Shared", "B").Properties.Get("Source").(dom.String); src != "return 'b, studio'\n" {
		t.Errorf("Studio's B = %q after the Studio edit", src)
	}
}
