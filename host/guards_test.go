package host_test

// The guards over the decision table through the real host and the Go fake plugin
// on a real WebSocket: a wrong or empty place, mass deletion, duplicate names and
// case-folding file systems.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// guardProject has 12 scripts in two mapped folders.
func guardProject() map[string]string {
	files := map[string]string{
		"default.project.json": `{
  "name": "Guarded",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" }
  }
}`,
	}
	for i := range 8 {
		files[fmt.Sprintf("src/shared/M%d.luau", i)] = fmt.Sprintf("return %d\n", i)
	}
	for i := range 4 {
		files[fmt.Sprintf("src/server/S%d.server.luau", i)] = fmt.Sprintf("print(%d)\n", i)
	}
	return files
}

// countFiles counts the files under the project's src folder.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// newPlace leaves only Workspace in the place: a new place in Studio.
func newPlace(p *bridgetest.Place) {
	p.Root.Children = slices.DeleteFunc(p.Root.Children, func(n *bridgetest.Node) bool { return n.ClassName != "Workspace" })
}

// emptiedPlace keeps the mapped folders but nothing in them.
func emptiedPlace(p *bridgetest.Place) {
	p.Find("ReplicatedStorage", "Shared").Children = nil
	p.Find("ServerScriptService").Children = nil
}

// An empty place deletes nothing by default, round after round: every deletion is
// unresolved (place_changed), status says so, and only an override deletes.
func TestEmptyPlaceDeletesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*bridgetest.Place)
	}{{"new place", newPlace}, {"emptied folders", emptiedPlace}} {
		t.Run(tc.name, func(t *testing.T) { testEmptyPlace(t, tc.mutate) })
	}
}

func testEmptyPlace(t *testing.T, mutate func(*bridgetest.Place)) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{Files: guardProject(), Mutate: mutate})
	before := countFiles(t, e.Dir)
	const rounds = 5
	deleted := 0
	for round := range rounds {
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Summary.Pull != 0 || d.Summary.Unresolved != d.Summary.Total || d.Summary.Total == 0 {
			t.Fatalf("round %d: summary %+v, want every change unresolved", round, d.Summary)
		}
		for _, c := range d.Changes {
			if c.Reason != plan.PlaceChanged || c.DefaultSelection != "" {
				t.Fatalf("round %d: %s is %s/%s, want place_changed with no default", round, c.Path, c.Reason, c.DefaultSelection)
			}
		}
		if d.Session.PlaceCheck == nil || d.Session.PlaceCheck.State != plan.PlaceEmpty || d.Guards == nil || len(d.Guards.PlaceChanged) != d.Summary.Total {
			t.Fatalf("round %d: placeCheck %+v, guards %+v", round, d.Session.PlaceCheck, d.Guards)
		}
		// Apply as it is: refused, nothing written.
		_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
		if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonPlaceChanged {
			t.Fatalf("round %d: apply = %v, want E_UNRESOLVED place_changed", round, err)
		}
		// With --skip-unresolved: applied, nothing deleted.
		d, err = e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
		if err != nil {
			t.Fatalf("round %d: apply --skip-unresolved: %v", round, err)
		}
		if len(res.Applied) != 0 {
			t.Fatalf("round %d: applied %+v", round, res.Applied)
		}
		deleted += before - countFiles(t, e.Dir)
	}
	t.Logf("empty place: %d rounds, %d files deleted", rounds, deleted)
	if deleted != 0 {
		t.Fatalf("%d files deleted over %d rounds", deleted, rounds)
	}
	st, err := e.Host.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.PlaceCheck == nil || st.PlaceCheck.State != plan.PlaceEmpty {
		t.Fatalf("status placeCheck = %+v, want empty", st.PlaceCheck)
	}

	// A person's explicit choice deletes what it names, and only that: a script's
	// file; a node of the project file is refused even then.
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	target, want := d.Changes[0], before
	for _, c := range d.Changes {
		if c.Path == "ReplicatedStorage/Shared/M3" {
			target, want = c, before-1
		}
	}
	_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true,
		Overrides: []apply.Override{{ID: target.ID, Direction: plan.Pull}}})
	if want == before {
		if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonProjectNode {
			t.Fatalf("pull of %s's deletion = %v, want refused as a project node", target.Path, err)
		}
	} else if err != nil {
		t.Fatalf("pull of %s's deletion: %v", target.Path, err)
	}
	if n := countFiles(t, e.Dir); n != want {
		t.Fatalf("%d files after pulling %s, want %d", n, target.Path, want)
	}
}

// Mass deletion: Studio lost most of the scripts. The deletions are unresolved
// (mass_delete) until a person chooses them; with their overrides, they happen.
func TestMassDeleteNeedsAnExplicitChoice(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{Files: guardProject(), Mutate: func(p *bridgetest.Place) {
		shared := p.Find("ReplicatedStorage", "Shared")
		shared.Children = shared.Children[:1] // 7 of the 8 shared scripts gone
	}})
	before := countFiles(t, e.Dir)
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Total != 7 || d.Summary.Unresolved != 7 || d.Guards == nil || d.Guards.MassDeleteRule != "share" {
		t.Fatalf("plan = %v, guards %+v", describe(d), d.Guards)
	}
	for _, c := range d.Changes {
		if c.Reason != plan.MassDelete {
			t.Fatalf("%s: %s, want mass_delete", c.Path, c.Reason)
		}
	}
	if !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "mass_delete") }) {
		t.Errorf("no mass_delete warning: %q", d.Warnings)
	}
	var ovs []apply.Override
	for _, c := range d.Changes {
		ovs = append(ovs, apply.Override{ID: c.ID, Direction: plan.Pull})
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: ovs}); err != nil {
		t.Fatalf("apply with explicit pulls: %v", err)
	}
	if n := countFiles(t, e.Dir); n != before-7 {
		t.Fatalf("%d files after pulling 7 deletions, want %d", n, before-7)
	}
}

// The place of a successful sync is remembered by its marker: another place (even
// unpublished, PlaceId 0 like every new place) holds its deletions back; the same
// place does not.
func TestPlaceMarkerTellsPlacesApart(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	st, err := e.Host.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.PlaceCheck == nil || st.PlaceCheck.State != plan.PlaceUnknown || st.PlaceCheck.LastSync != nil {
		t.Fatalf("before any sync: %+v", st.PlaceCheck)
	}
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	marker := e.Plugin.Marker()
	if len(marker) != 32 {
		t.Fatalf("the synced place was not marked: %q", marker)
	}
	if st, err = e.Host.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if pc := st.PlaceCheck; pc == nil || pc.State != plan.PlaceSame || pc.LastSync == nil || pc.LastSync.Marker != marker {
		t.Fatalf("after the sync: %+v", pc)
	}
	if b, err := os.ReadFile(filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "place.json")); err != nil || !strings.Contains(string(b), marker) {
		t.Fatalf("place.json: %v %s", err, b)
	}

	// Studio opens another place: the same content without Util, another marker.
	other := swapPlugin(t, e, func(p *bridgetest.Plugin) { p.PlaceMarker = strings.Repeat("e", 32) }, "ReplicatedStorage", "Shared", "Util")
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(d); got["ReplicatedStorage/Shared/Util"] != "place_changed/" {
		t.Fatalf("in another place: %v", got)
	}
	if d.Session.PlaceCheck.State != plan.PlaceDifferent {
		t.Fatalf("placeCheck = %+v", d.Session.PlaceCheck)
	}
	other.Close()

	// The synced place again, with the same deletion: the table decides.
	swapPlugin(t, e, func(p *bridgetest.Plugin) { p.PlaceMarker = marker }, "ReplicatedStorage", "Shared", "Util")
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(d); got["ReplicatedStorage/Shared/Util"] != "deleted_in_studio/pull" {
		t.Fatalf("in the synced place: %v", got)
	}
	if d.Session.PlaceCheck.State != plan.PlaceSame {
		t.Fatalf("placeCheck = %+v", d.Session.PlaceCheck)
	}
}

// A plugin that cannot mark the place: the place is remembered by its published id.
func TestPlaceRememberedByID(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{
		Mutate: func(p *bridgetest.Place) { p.PlaceID = 1111 },
		Plugin: func(p *bridgetest.Plugin) {
			p.Hook = func(method string, _ json.RawMessage) (any, error, bool) {
				if method == protocol.MethodMarkPlace {
					return nil, errcode.New(errcode.BadRequest, "unknown method markPlace"), true
				}
				return nil, nil, false
			}
		},
	})
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Host.Status(ctx)
	if pc := st.PlaceCheck; pc.State != plan.PlaceSame || pc.LastSync.PlaceID != 1111 || pc.LastSync.Marker != "" {
		t.Fatalf("after the sync: %+v %+v", pc, pc.LastSync)
	}
	swapPlugin(t, e, func(p *bridgetest.Plugin) { p.PlaceID = 2222 }, "ReplicatedStorage", "Shared", "Util")
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(d); got["ReplicatedStorage/Shared/Util"] != "place_changed/" || d.Session.PlaceCheck.State != plan.PlaceDifferent {
		t.Fatalf("in place 2222: %v %+v", got, d.Session.PlaceCheck)
	}
}

// swapPlugin closes the connected plugin and connects another whose place is the
// first one's without the instance at remove, set up by set.
func swapPlugin(t *testing.T, e *hosttest.Env, set func(*bridgetest.Plugin), remove ...string) *bridgetest.Plugin {
	t.Helper()
	place := e.Plugin.Place()
	parent := place.Find(remove[:len(remove)-1]...)
	parent.Children = slices.DeleteFunc(parent.Children, func(n *bridgetest.Node) bool { return n.Name == remove[len(remove)-1] })
	e.Plugin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for len(e.Host.Bridge().Sessions()) > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	p := bridgetest.New(place)
	set(p)
	if err := p.Connect(ctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, err := e.Host.Bridge().WaitSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	e.Plugin = p
	return p
}
