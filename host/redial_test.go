package host_test

import (
	"context"
	"testing"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// TestClientFindsTheNextHost: a client of a host that stopped (an `atlas mcp` in
// front of another one's host) finds the project's next host on its next call, over
// the state dir, instead of dialling the old port for ever.
func TestClientFindsTheNextHost(t *testing.T) {
	ctx := context.Background()
	dir := hosttest.Repo(t, incrementalProject())
	state := t.TempDir()
	first := hosttest.StartWith(t, hosttest.Config{Dir: dir, StateDir: state})
	cl, err := host.Dial(state, first.Location.File)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Status(ctx); err != nil {
		t.Fatal(err)
	}
	oldURL := first.Host.URL()
	first.Host.Close()
	if _, err := cl.Status(ctx); err == nil {
		t.Fatal("a call with no host running answered")
	}
	next := hosttest.StartWith(t, hosttest.Config{Dir: dir, StateDir: state})
	if next.Host.URL() == oldURL {
		t.Fatalf("the next host took the same address %s", oldURL)
	}
	if _, err := cl.Status(ctx); err != nil {
		t.Fatalf("status after the next host started: %v", err)
	}
	if got := cl.Registration().URL; got != next.Host.URL() {
		t.Errorf("the client calls %s, want the next host's %s", got, next.Host.URL())
	}
}
