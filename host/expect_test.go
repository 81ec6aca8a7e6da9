package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// TestPlanWaitsForAnExpectedStudio: while a Studio is expected (serve --emulate starting
// its emulator), a plan that finds no session waits for one and answers once it
// connects; once it will not come, a waiting plan fails at once with
// E_STUDIO_NOT_CONNECTED, not at the end of the Studio timeout.
func TestPlanWaitsForAnExpectedStudio(t *testing.T) {
	e := hosttest.StartWith(t, hosttest.Config{Options: func(o *host.Options) { o.StudioTimeout = hangGuard }})
	ctx := context.Background()
	gone := func() {
		t.Helper()
		e.Plugin.Close()
		deadline := time.Now().Add(hangGuard)
		for len(e.Host.Bridge().Sessions()) > 0 {
			if time.Now().After(deadline) {
				t.Fatal("the session did not go")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	plan := func() <-chan error {
		out := make(chan error, 1)
		go func() {
			_, err := e.Host.Plan(ctx, host.PlanRequest{})
			out <- err
		}()
		return out
	}
	gone()
	if _, err := e.Host.Plan(ctx, host.PlanRequest{}); errcode.Of(err) != errcode.StudioNotConnected {
		t.Fatalf("plan without Studio, none expected: %v, want E_STUDIO_NOT_CONNECTED", err)
	}

	done := e.Host.ExpectStudio()
	answered := plan()
	select {
	case err := <-answered:
		t.Fatalf("the plan answered before the expected Studio came: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cctx, cancel := context.WithTimeout(ctx, hangGuard)
	defer cancel()
	if err := e.Plugin.Connect(cctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	done()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("the plan that waited for Studio: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("the plan did not answer once Studio connected")
	}

	gone()
	done = e.Host.ExpectStudio()
	answered = plan()
	time.Sleep(100 * time.Millisecond)
	started := time.Now()
	done() // the Studio will not come
	select {
	case err := <-answered:
		if errcode.Of(err) != errcode.StudioNotConnected {
			t.Fatalf("plan once the expected Studio will not come: %v, want E_STUDIO_NOT_CONNECTED", err)
		}
		if waited := time.Since(started); waited > hangGuard/2 {
			t.Errorf("the plan failed %s after the Studio was no longer expected", waited)
		}
	case <-time.After(hangGuard):
		t.Fatal("the plan did not answer once the Studio was no longer expected")
	}
}
