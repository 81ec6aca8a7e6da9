package host_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// The real plugin keeps the marker of a synced place in the place: saved and
// opened again, the place is the same; the project opened in a new place is not.
func TestEmulatorPlaceMarkerSurvivesASave(t *testing.T) {
	ctx := context.Background()
	pluginDir := emulatorPluginDir(t)
	dir, _, h := startHost(t, hosttest.Project)
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.json")
	saved := filepath.Join(t.TempDir(), "saved.json")
	if err := host.WritePlace(fresh, pf); err != nil {
		t.Fatal(err)
	}
	start := func(place, save string) *host.Emulator {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		em, err := host.StartEmulator(sctx, host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: place, Save: save})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { em.Stop() })
		if _, err := h.Bridge().WaitSession(sctx, ""); err != nil {
			t.Fatal(err)
		}
		return em
	}
	stop := func(em *host.Emulator) {
		t.Helper()
		if err := em.Stop(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(hangGuard)
		for len(h.Bridge().Sessions()) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	state := func() *host.PlaceCheck {
		t.Helper()
		st, err := h.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.PlaceCheck
	}

	em := start(fresh, saved)
	hosttest.Write(t, dir, "src/server/Main.server.luau", "print('v2')\n")
	d := mustPlan(t, h, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	pc := state()
	if pc.State != plan.PlaceSame || len(pc.Marker) != 32 || pc.LastSync == nil || pc.LastSync.Marker != pc.Marker {
		t.Fatalf("after the sync: %+v", pc)
	}
	marker := pc.Marker
	// The marker is no difference, and reading Studio shows it where it lives.
	mustPlan(t, h, nil)
	if got := mustExec(t, h, `return game:GetService("ServerStorage"):GetAttribute("AtlasPlace")`); got.Returns[0] != marker {
		t.Fatalf("ServerStorage.AtlasPlace = %v, want %s", got.Returns, marker)
	}
	stop(em)

	// The saved place, opened again: a new plugin start, the same place.
	em = start(saved, "")
	if pc := state(); pc.State != plan.PlaceSame || pc.Marker != marker {
		t.Fatalf("the saved place opened again: %+v", pc)
	}
	stop(em)

	// The project's content in a place never synced: another place.
	start(fresh, "")
	if pc := state(); pc.State != plan.PlaceDifferent || pc.Marker != "" {
		t.Fatalf("a place never synced: %+v", pc)
	}
}
