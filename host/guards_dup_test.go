package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// addScripts adds ModuleScripts under ReplicatedStorage/Shared, one per name, each
// returning its position.
func addScripts(names ...string) func(*bridgetest.Place) {
	return func(p *bridgetest.Place) {
		shared := p.Find("ReplicatedStorage", "Shared")
		for i, n := range names {
			node := &bridgetest.Node{Name: n, ClassName: "ModuleScript", Properties: map[string]json.RawMessage{}}
			node.SetSource(fmt.Sprintf("return %q -- %d\n", n, i))
			shared.Children = append(shared.Children, node)
		}
	}
}

// Two Studio scripts named Dup: distinct ids, each found by its own id, neither
// pulled by default, and a pull of one refused with both named: nothing written,
// nothing reported kept.
func TestDuplicateNamesAreNeverGuessed(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, addScripts("Dup", "Dup"))
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 2 || d.Changes[0].ID == d.Changes[1].ID {
		t.Fatalf("plan = %v", describe(d))
	}
	for _, c := range d.Changes {
		if c.Reason != plan.DuplicateName || c.Direction != "" || c.DefaultSelection != "" {
			t.Fatalf("%s (%s): %s/%s, want duplicate_name unresolved", c.Path, c.ID, c.Reason, c.Direction)
		}
	}
	if d.Guards == nil || len(d.Guards.Duplicates) != 2 {
		t.Fatalf("guards = %+v", d.Guards)
	}

	// get_script by id reads each one, not the first twice.
	for _, c := range d.Changes {
		sd, err := e.Host.Script(ctx, host.ScriptRequest{ID: c.ID})
		if err != nil {
			t.Fatal(err)
		}
		if sd.StudioHash != c.StudioHash {
			t.Errorf("Script(%s) = %q (hash %s), want the hash the plan shows, %s", c.ID, sd.Source, sd.StudioHash, c.StudioHash)
		}
	}
	a, b := e.Host.Script(ctx, host.ScriptRequest{ID: d.Changes[0].ID})
	c, _ := e.Host.Script(ctx, host.ScriptRequest{ID: d.Changes[1].ID})
	if b != nil || a.Source == c.Source {
		t.Fatalf("both ids read the same script: %q, %q (%v)", a.Source, c.Source, b)
	}

	before := snapshotWorld(t, e)
	// Applied as planned: refused, with the duplicates named.
	_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	ce := mustCode(t, err, errcode.Unresolved)
	if ce.ReasonCode() != errcode.ReasonDuplicateName || !strings.Contains(fmt.Sprint(ce.Details["duplicates"]), d.Changes[1].ID) {
		t.Fatalf("apply = %v %v", ce.ReasonCode(), ce.Details)
	}
	assertUnchanged(t, e, before)

	// A person asks to pull one: still refused, both named, nothing written.
	for _, pick := range d.Changes {
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true,
			Overrides: []apply.Override{{ID: pick.ID, Direction: plan.Pull}}})
		ce := mustCode(t, err, errcode.Unresolved)
		details := fmt.Sprint(ce.Details["duplicates"])
		if ce.ReasonCode() != errcode.ReasonDuplicateName || !strings.Contains(details, d.Changes[0].ID) || !strings.Contains(details, d.Changes[1].ID) {
			t.Fatalf("pull of %s = %s %s", pick.ID, ce.ReasonCode(), details)
		}
		if !strings.Contains(details, "ReplicatedStorage/Shared/Dup") {
			t.Errorf("details name no paths: %s", details)
		}
		assertUnchanged(t, e, before)
	}

	// Skipped, nothing happens and nothing is "kept".
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Action == "kept" {
			t.Errorf("%s reported kept", f.Path)
		}
	}
	assertUnchanged(t, e, before)

	// Renamed in Studio, both pull, each to its own file.
	studioRename(t, e, []string{"ReplicatedStorage", "Shared", "Dup"}, 1, "Dup2")
	d = mustPlan(t, e.Host, map[string]string{
		"ReplicatedStorage/Shared/Dup":  "new_in_studio/pull",
		"ReplicatedStorage/Shared/Dup2": "new_in_studio/pull",
	})
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	one, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Dup.luau"))
	two, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Dup2.luau"))
	if string(one) != "return \"Dup\" -- 0\n" || string(two) != "return \"Dup\" -- 1\n" {
		t.Fatalf("Dup.luau = %q, Dup2.luau = %q", one, two)
	}
}

// studioRename renames the n-th instance a path reaches, through the protocol.
func studioRename(t *testing.T, e *hosttest.Env, path []string, n int, name string) {
	t.Helper()
	s, err := e.Host.Bridge().Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var snap struct {
		Instances []struct {
			Handle string `json:"handle"`
			Name   string `json:"name"`
		} `json:"instances"`
	}
	if err := s.Call(ctx, "snapshot", map[string]any{"roots": [][]string{}, "nodes": [][]string{path}, "properties": map[string]any{}}, &snap); err != nil {
		t.Fatal(err)
	}
	var handles []string
	for _, i := range snap.Instances {
		if i.Name == path[len(path)-1] {
			handles = append(handles, i.Handle)
		}
	}
	op := map[string]any{"op": "edit", "handle": handles[n], "set": map[string]any{"Name": map[string]string{"String": name}}}
	if err := s.Call(ctx, "apply", map[string]any{"txId": "person-" + time.Now().Format("150405.000000"), "ops": []any{op}}, nil); err != nil {
		t.Fatal(err)
	}
}

// On a file system that folds case (simulated: this machine has none, see
// TestCaseFoldingProbe), Studio siblings Foo and foo would be one file: neither is
// pulled, and a pull of one is refused. Where case matters, both are pulled.
func TestCaseFoldingCollisions(t *testing.T) {
	ctx := context.Background()
	for _, folds := range []bool{true, false} {
		t.Run(fmt.Sprintf("folds=%v", folds), func(t *testing.T) {
			e := hosttest.StartWith(t, hosttest.Config{Mutate: addScripts("Foo", "foo"),
				Options: func(o *host.Options) { o.FoldsCase = &folds }})
			d, err := e.Host.Plan(ctx, host.PlanRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if !folds {
				if got := describe(d); got["ReplicatedStorage/Shared/Foo"] != "new_in_studio/pull" || got["ReplicatedStorage/Shared/foo"] != "new_in_studio/pull" {
					t.Fatalf("plan = %v", got)
				}
				if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{"Foo.luau", "foo.luau"} {
					if _, err := os.Stat(filepath.Join(e.Dir, "src/shared", f)); err != nil {
						t.Errorf("%s: %v", f, err)
					}
				}
				return
			}
			if got := describe(d); got["ReplicatedStorage/Shared/Foo"] != "duplicate_name/" || got["ReplicatedStorage/Shared/foo"] != "duplicate_name/" {
				t.Fatalf("plan = %v", got)
			}
			before := snapshotWorld(t, e)
			for _, c := range d.Changes {
				d, err := e.Host.Plan(ctx, host.PlanRequest{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true,
					Overrides: []apply.Override{{ID: c.ID, Direction: plan.Pull}}})
				if ce := mustCode(t, err, errcode.Unresolved); ce.ReasonCode() != errcode.ReasonDuplicateName {
					t.Fatalf("pull of %s: %s", c.Path, ce.ReasonCode())
				}
				assertUnchanged(t, e, before)
			}
		})
	}
}
