package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
)

// freePort returns a port on 127.0.0.1 nobody listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startHostOn starts a host for loc on port with state as its state dir.
func startHostOn(t testing.TB, loc *project.Location, state string, port int) *host.Host {
	t.Helper()
	h, err := host.New(host.Options{Location: loc, StateDir: state, Port: port, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err = h.Start(context.Background())
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // the port of the host before may linger a moment
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// restartSetup gives the emulator's folder, the delta project and the emulator's place
// for it (the project at HEAD), for hosts the test starts and restarts itself.
func restartSetup(t *testing.T) (pluginDir string, loc *project.Location, placePath string) {
	t.Helper()
	pluginDir = emulatorPluginDir(t)
	_, loc, first := startHost(t, deltaProject)
	pf, err := first.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	placePath = filepath.Join(t.TempDir(), "place.json")
	if err := host.WritePlace(placePath, pf); err != nil {
		t.Fatal(err)
	}
	return pluginDir, loc, placePath
}

// startKeptStudio starts a host for the delta project and an emulator that outlives
// it (as a Studio left open does), for tests that restart the host on the same port
// and state dir.
func startKeptStudio(t *testing.T) (h *host.Host, loc *project.Location, state string, port int, emu *host.Emulator) {
	t.Helper()
	pluginDir, loc, placePath := restartSetup(t)
	state, port = t.TempDir(), freePort(t)
	h = startHostOn(t, loc, state, port)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	emu, err := host.StartEmulator(ctx, host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: placePath, Keep: true})
	if err != nil {
		t.Fatalf("start the emulator: %v", err)
	}
	t.Cleanup(func() { emu.Stop() })
	return h, loc, state, port, emu
}

// TestStudioSnapshotAcrossHostRestart: a host keeps its latest Studio snapshot in the
// state dir when it stops, and the plugin keeps watching Studio while no host
// listens. So the next host's first plan asks the same Studio session for a delta,
// not the whole place, and that delta holds the edits made after the kept snapshot.
// Each round edits Studio at random, restarts the host, plans (a delta), then
// forces a whole snapshot and plans again: both must agree.
func TestStudioSnapshotAcrossHostRestart(t *testing.T) {
	h, loc, state, port, emu := startKeptStudio(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	waitSession := func(h *host.Host) string {
		t.Helper()
		s, err := h.Bridge().WaitSession(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Info().ID
	}
	session := waitSession(h)
	plan := func(h *host.Host) (*host.PlanData, string, string) {
		t.Helper()
		d, err := h.Plan(context.Background(), host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := json.Marshal(d.Changes)
		return d, string(c), dumpTree(h.CachedStudioTree())
	}
	plan(h)

	const restarts = 12
	rounds, mismatches := 0, 0
	for i := range restarts {
		// An edit after the kept snapshot: only a delta off it can carry it.
		mustExec(t, h, fmt.Sprintf(emuEdit, i+1))
		h.Close()
		if _, err := os.Stat(filepath.Join(host.ProjectStateDir(state, loc.File), "studio.snapshot")); err != nil {
			t.Fatalf("round %d: the host kept no Studio snapshot: %v", i, err)
		}
		select {
		case err := <-emu.Done():
			t.Fatalf("round %d: the emulator exited with its host: %v", i, err)
		default:
		}
		h = startHostOn(t, loc, state, port)
		if got := waitSession(h); got != session {
			t.Fatalf("round %d: session %s came back as %s", i, session, got)
		}
		da, ca, ta := plan(h)
		if h.StudioWholes() != 0 || h.StudioDeltas() != 1 {
			t.Fatalf("round %d: the restarted host took %d whole snapshots and %d deltas, want 0 and 1", i, h.StudioWholes(), h.StudioDeltas())
		}
		mustExec(t, h, emuPlayStop) // the tracker gives up: the next snapshot is whole
		db, cb, tb := plan(h)
		if h.StudioWholes() != 1 {
			t.Fatalf("round %d: no whole snapshot after a Play/Stop", i)
		}
		rounds++
		if ta != tb || da.PlanHash != db.PlanHash || ca != cb {
			mismatches++
			t.Errorf("round %d: the restarted host's delta and a whole snapshot differ\ntree equal %v, hash %s vs %s\nchanges:\n%s\n%s",
				i, ta == tb, da.PlanHash, db.PlanHash, ca, cb)
		}
	}
	t.Logf("%d host restarts, %d mismatches", rounds, mismatches)
}

// TestStudioSnapshotOfAnotherRun: a kept snapshot whose plugin run is gone (Studio
// restarted: a new emulator, a new run, another session) is not trusted: the next
// host takes the whole place.
func TestStudioSnapshotOfAnotherRun(t *testing.T) {
	pluginDir, loc, placePath := restartSetup(t)
	state, port := t.TempDir(), freePort(t)
	for round := range 2 {
		h := startHostOn(t, loc, state, port)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		emu, err := host.StartEmulator(ctx, host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: placePath})
		if err != nil {
			cancel()
			t.Fatalf("start the emulator: %v", err)
		}
		if _, err := h.Bridge().WaitSession(ctx, ""); err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
			t.Fatal(err)
		}
		if h.StudioWholes() != 1 || h.StudioDeltas() != 0 {
			t.Fatalf("round %d: %d whole snapshots and %d deltas with a new Studio, want 1 and 0", round, h.StudioWholes(), h.StudioDeltas())
		}
		emu.Stop()
		h.Close()
	}
}

// TestWarmAtStart: a host with Prewarm loads the disk and base trees as it starts,
// before any Studio or command asks, so a restarted host's Studio finds them ready.
func TestWarmAtStart(t *testing.T) {
	_, loc, first := startHost(t, deltaProject)
	first.Close()
	h, err := host.New(host.Options{Location: loc, StateDir: t.TempDir(), Version: "test", Prewarm: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// the caches, and the first snapshot's request: no Studio has connected
		if _, full := h.DiskLoads(); full > 0 && h.BaseSources()[project.BaseFromDisk] > 0 && h.ScopeMade() {
			break
		}
		if time.Now().After(deadline) {
			_, full := h.DiskLoads()
			t.Fatalf("no warm-up: %d full disk loads, bases %v, scope made %v", full, h.BaseSources(), h.ScopeMade())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCommandWaitsForStudioAfterARestart: the plugin reconnects to a restarted host
// by itself, within a backoff that grows to 10 s. A plan sent as soon as the new
// host listens waits for that Studio (the previous host had it when it stopped, or
// kept its in-step state when killed) instead of failing with E_STUDIO_NOT_CONNECTED,
// round after round.
func TestCommandWaitsForStudioAfterARestart(t *testing.T) {
	h, loc, state, port, _ := startKeptStudio(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := h.Bridge().WaitSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Plan(ctx, host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	const rounds = 4
	waited := 0
	for i := range rounds {
		h.Close()
		if i == rounds-1 {
			// As a host killed with SIGKILL leaves it: no snapshot of Studio, only the
			// in-step state it kept as it went.
			if err := os.Remove(filepath.Join(host.ProjectStateDir(state, loc.File), "studio.snapshot")); err != nil {
				t.Fatal(err)
			}
		}
		// Down long enough for the plugin's backoff to grow past a second.
		time.Sleep(time.Duration(1500+500*i) * time.Millisecond)
		h = startHostOn(t, loc, state, port)
		started := time.Now()
		if _, err := h.Plan(ctx, host.PlanRequest{}); err != nil {
			t.Fatalf("round %d: a plan right after the restart: %v", i, err)
		}
		if time.Since(started) > 100*time.Millisecond {
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("no plan waited for Studio: the test did not restart before the plugin reconnected")
	}
	t.Logf("%d restarts, %d plans waited for Studio to reconnect, 0 refused", rounds, waited)
}
