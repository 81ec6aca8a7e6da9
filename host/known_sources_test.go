package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
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
	// Every other Studio script has the disk's text.
	studio := e.host.CachedStudioTree()
	studio.Walk(func(x *dom.Instance) bool {
		if x.IsScript() && x.Name != "Main" {
			if src, ok := x.Properties["Source"].(dom.String); !ok || src == "" {
				t.Errorf("%s has no Source in the host's Studio tree", x.Path())
			}
		}
		return true
	})
}
