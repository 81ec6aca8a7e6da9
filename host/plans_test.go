package host

import (
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
)

// TestRememberDetachesTrees: the plans a host remembers (to explain a stale token)
// do not hold the trees they were computed from, which would keep sixteen disk and
// Studio trees alive; the plan handed out keeps its instances.
func TestRememberDetachesTrees(t *testing.T) {
	root := dom.New("Game", "DataModel")
	x := dom.New("Script", "Script")
	root.AddChild(x)
	p := &plan.Plan{Hash: "sha256:1", Changes: []*plan.Change{{ID: "a", Disk: x, Studio: x, Base: x}}}
	var c planCache
	c.remember(p, "HEAD")
	got := c.recall("sha256:1")
	if got == nil || len(got.plan.Changes) != 1 || got.plan.Changes[0].ID != "a" {
		t.Fatalf("recall = %+v, want the plan with its one change", got)
	}
	if ch := got.plan.Changes[0]; ch.Disk != nil || ch.Studio != nil || ch.Base != nil {
		t.Errorf("the remembered change still points into the trees: %+v", ch)
	}
	if p.Changes[0].Disk != x {
		t.Errorf("remember changed the plan it was given")
	}
}
