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
	// The first snapshot has nothing to reuse; every plan after it offers the last id.
	if len(reuses) < 4 || reuses[0] != "" || !strings.HasPrefix(reuses[len(reuses)-1], "s") || !strings.HasPrefix(reuses[1], "s") {
		t.Fatalf("reuse ids sent = %q", reuses)
	}
}

// With nothing changed anywhere, a plan costs a round trip: Studio answers
// "unchanged", the previous tree and plan stand; any Studio edit ends that.
func TestUnchangedStudioReusesThePlan(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	var mu sync.Mutex
	var allowed []bool
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method == "snapshot" {
			var p struct {
				AllowUnchanged bool `json:"allowUnchanged"`
			}
			json.Unmarshal(params, &p)
			mu.Lock()
			allowed = append(allowed, p.AllowUnchanged)
			mu.Unlock()
		}
		return nil, nil, false
	}
	a, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if a.PlanHash != b.PlanHash {
		t.Fatal("an unchanged place planned differently")
	}
	// The reused tree's handles still work: a push applies.
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	c, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Changes) != 1 {
		t.Fatalf("disk edit after an unchanged Studio: %d changes", len(c.Changes))
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: c.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
		t.Fatalf("Studio = %q", got)
	}
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 0 {
		t.Fatalf("after the apply the plan has %d changes (a stale 'unchanged'?)", len(d.Changes))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(allowed) < 2 || allowed[0] || !allowed[1] {
		t.Fatalf("allowUnchanged sent = %v", allowed)
	}
}
