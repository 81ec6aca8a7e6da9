package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// A second plan asks Studio to skip unchanged sources, and still sees every change.
func TestPlansReuseUnchangedSources(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	var mu sync.Mutex
	var reuses []string
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method == "snapshot" {
			var p struct {
				Reuse string `json:"reuse"`
			}
			json.Unmarshal(params, &p)
			mu.Lock()
			reuses = append(reuses, p.Reuse)
			mu.Unlock()
		}
		return nil, nil, false
	}
	first, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first.PlanHash != second.PlanHash {
		t.Fatalf("plans differ: %s vs %s", first.PlanHash, second.PlanHash)
	}
	studioEdit(t, e, []string{"ServerScriptService", "Main"}, "print('studio')\n")
	third, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Changes) != 1 || third.Changes[0].Reason != "studio_changed" {
		t.Fatalf("a Studio edit after a reused snapshot: %+v", third.Changes)
	}
	fourth, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if fourth.PlanHash != third.PlanHash {
		t.Fatalf("the same state planned twice differs")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reuses) < 4 || reuses[0] != "" || reuses[1] == "" || !strings.HasPrefix(reuses[3], "s") {
		t.Fatalf("reuse ids sent = %q", reuses)
	}
}
