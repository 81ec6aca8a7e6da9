package host_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
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
	// The code may have run: no retry is offered.
	if ce := mustCode(t, err, errcode.StudioTimeout); slices.Contains(ce.NextActions(), errcode.NextRetry) || !strings.Contains(ce.Message, "may still be running") {
		t.Errorf("exec: %v, next %v; want no retry, and the code said to be maybe running", ce, ce.NextActions())
	}
	// Status does not ask Studio: it answers.
	if _, err := call(t, func() (*host.StatusData, error) { return e.Host.Status(ctx) }); err != nil {
		t.Fatal(err)
	}
}

// The warm-up plan started when Studio connected holds the Studio lock while it
// waits for a stalled snapshot (its own deadline is minutes). A plan asked meanwhile
// waits for it only as long as the Studio timeout, and then cancels it: the next
// plan takes the lock at once and sends its own snapshot.
func TestWarmUpGivesWayToACommand(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond; o.Prewarm = true },
		Plugin:  func(p *bridgetest.Plugin) { p.Stall = true },
	})
	waitForRequest(t, e.Plugin, "snapshot")
	_, err := call(t, func() (*host.PlanData, error) { return e.Host.Plan(ctx, host.PlanRequest{}) })
	if ce := mustCode(t, err, errcode.StudioTimeout); !strings.Contains(ce.Message, "warm-up") {
		t.Errorf("the timeout does not say it waited for the warm-up: %q", ce.Message)
	}
	e.Plugin.SetStall(false)
	if _, err := call(t, func() (*host.PlanData, error) { return e.Host.Plan(ctx, host.PlanRequest{}) }); err != nil {
		t.Fatalf("the plan after the warm-up gave up: %v", err)
	}
	if n := count(e.Plugin.Requests(), "snapshot"); n < 2 {
		t.Fatalf("the plugin saw %d snapshot requests, want the warm-up's and the plan's", n)
	}
}

// A plan asked while the warm-up's whole snapshot is under way waits for it rather
// than starting another: the plugin sends one whole snapshot, and the plan's own is
// answered off it. An exec asked meanwhile does not wait: it takes the lock from the
// warm-up at once.
func TestAPlanWaitsForTheWarmUpsSnapshot(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	var once sync.Once
	first := make(chan struct{})
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = hangGuard; o.Prewarm = true },
		Plugin: func(p *bridgetest.Plugin) {
			p.Hook = func(method string, _ json.RawMessage) (any, error, bool) {
				if method == "snapshot" {
					held := false
					once.Do(func() { held = true; close(first) })
					if held {
						<-release // the warm-up's snapshot, answered once released
					}
				}
				return nil, nil, false
			}
		},
	})
	<-first
	done := make(chan error, 1)
	go func() {
		_, err := e.Host.Plan(ctx, host.PlanRequest{})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if n := count(e.Plugin.Requests(), "snapshot"); n != 1 {
		t.Fatalf("the plugin saw %d snapshot requests while the warm-up's was under way, want 1", n)
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("no plan within %s", hangGuard)
	}
	if whole, _ := e.Plugin.Snapshots(); whole != 1 {
		t.Fatalf("the plugin sent %d whole snapshots, want 1 (the warm-up's)", whole)
	}
}

// An exec does not wait for the warm-up's snapshot: it takes the lock from it.
func TestExecTakesTheLockFromTheWarmUp(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	defer close(release)
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = hangGuard; o.Prewarm = true },
		Plugin: func(p *bridgetest.Plugin) {
			p.Hook = func(method string, _ json.RawMessage) (any, error, bool) {
				if method == "snapshot" {
					<-release // never answered while the test runs
				}
				return nil, nil, false
			}
		},
	})
	waitForRequest(t, e.Plugin, "snapshot")
	if _, err := call(t, func() (*host.ExecData, error) { return e.Host.Exec(ctx, host.ExecRequest{Code: "return 1"}) }); err != nil {
		t.Fatalf("exec while the warm-up's snapshot hangs: %v", err)
	}
}

// waitForRequest waits until the plugin has seen a request for method.
func waitForRequest(t *testing.T, p *bridgetest.Plugin, method string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !slices.Contains(p.Requests(), method) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s request came", method)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// count is how many of list are m.
func count(list []string, m string) int {
	n := 0
	for _, x := range list {
		if x == m {
			n++
		}
	}
	return n
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
