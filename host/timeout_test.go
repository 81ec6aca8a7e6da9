package host_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// hangGuard bounds the waits of these tests: far above the Studio timeouts they
// set, it only turns a hang into a failure (no timing is asserted).
const hangGuard = 30 * time.Second

// call runs fn and fails the test if it does not return within hangGuard.
func call[T any](t *testing.T, fn func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(hangGuard):
		t.Fatalf("no answer within %s", hangGuard)
		panic("unreachable")
	}
}

// A Studio that answers WebSocket pings but never a request: a plan fails with
// E_STUDIO_TIMEOUT (after the Studio timeout), and so do get_script and exec.
func TestStalledStudioTimesOut(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond },
		Plugin:  func(p *bridgetest.Plugin) { p.Stall = true },
	})
	_, err := call(t, func() (*host.PlanData, error) { return e.Host.Plan(ctx, host.PlanRequest{}) })
	if ce := mustCode(t, err, errcode.StudioTimeout); ce.ReasonCode() != errcode.ReasonStudioTimeout {
		t.Errorf("plan: reason %s", ce.ReasonCode())
	}
	_, err = call(t, func() (*host.ScriptData, error) {
		return e.Host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Main.server.luau"})
	})
	mustCode(t, err, errcode.StudioTimeout)
	_, err = call(t, func() (*host.ExecData, error) { return e.Host.Exec(ctx, host.ExecRequest{Code: "return 1"}) })
	mustCode(t, err, errcode.StudioTimeout)
	// Status does not ask Studio: it answers.
	if _, err := call(t, func() (*host.StatusData, error) { return e.Host.Status(ctx) }); err != nil {
		t.Fatal(err)
	}
}

// The warm-up plan started when Studio connected holds the Studio lock while it
// waits for a stalled snapshot (its own deadline is minutes). A plan asked meanwhile
// takes the lock from it and times out after the Studio timeout, not the warm-up's.
func TestWarmUpGivesWayToACommand(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond; o.Prewarm = true },
		Plugin:  func(p *bridgetest.Plugin) { p.Stall = true },
	})
	// Prewarm starts when the session connects; wait until its snapshot is with
	// the plugin, so that it holds the Studio lock.
	deadline := time.Now().Add(hangGuard)
	for !slices.Contains(e.Plugin.Requests(), "snapshot") {
		if time.Now().After(deadline) {
			t.Fatal("the warm-up plan never asked for a snapshot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := call(t, func() (*host.PlanData, error) { return e.Host.Plan(ctx, host.PlanRequest{}) })
	mustCode(t, err, errcode.StudioTimeout)
	// The plan's own snapshot reached the plugin: it had the lock.
	n := 0
	for _, m := range e.Plugin.Requests() {
		if m == "snapshot" {
			n++
		}
	}
	if n < 2 {
		t.Fatalf("the plugin saw %d snapshot requests, want the warm-up's and the plan's", n)
	}
}

// A command gives up its snapshot off the cached one when its own context ends (the
// client went away), even though background work may not: only a warm-up's snapshot
// outlasts the command that takes the lock from it.
func TestCommandGivesUpItsDelta(t *testing.T) {
	e := hosttest.StartWith(t, hosttest.Config{
		// far above hangGuard: only the command's own context can end the wait
		Options: func(o *host.Options) { o.StudioTimeout = 10 * time.Minute },
	})
	if _, err := e.Host.Plan(context.Background(), host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	e.Plugin.SetStall(true)
	snapshots := func() int {
		n := 0
		for _, m := range e.Plugin.Requests() {
			if m == "snapshot" {
				n++
			}
		}
		return n
	}
	before := snapshots()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for snapshots() == before {
			time.Sleep(10 * time.Millisecond)
		}
		cancel() // the plan's snapshot (off the cached one) is with the plugin
	}()
	_, err := call(t, func() (*host.PlanData, error) { return e.Host.Plan(ctx, host.PlanRequest{}) })
	if err == nil {
		t.Fatal("the plan answered although Studio never did")
	}
}
