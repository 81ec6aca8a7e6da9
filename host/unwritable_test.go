package host_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// TestPlanHoldsPullsTheFilesCannotTake, through the real plugin in the emulator:
// the plan runs the apply's own checks of the writes its pulls would make, and holds
// back (unresolved, with the refusal's reason, in data.guards.unwritable) the ones
// an apply would refuse: a script added in Studio under a script stored as a single
// file, and a class changed in Studio. The pull beside them stays a pull, and an
// apply that skips the held ones carries it out. Drift reports the held ones: they
// are work in Studio that git does not have.
func TestPlanHoldsPullsTheFilesCannotTake(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `
		local m = Instance.new("ModuleScript") m.Name = "Helper" m.Source = "return 1\n" m.Parent = game.ServerScriptService.Main
		local shared = game.ReplicatedStorage.Shared
		local old = shared.A
		local n = Instance.new("Script") n.Name = "A" n.Source = old.Source
		old:Destroy() n.Parent = shared
		shared.B.Source = "return 'bb'\n"`)
	d := mustPlan(t, h, map[string]string{
		"ServerScriptService/Main/Helper": "parent_not_a_folder/",
		"ReplicatedStorage/Shared/A":      "class_changed/",
		"ReplicatedStorage/Shared/B":      "studio_changed/pull",
	})
	var held []string
	if d.Guards != nil {
		for _, u := range d.Guards.Unwritable {
			held = append(held, u.Path+" "+string(u.Reason))
			if u.Message == "" || u.ID == "" {
				t.Errorf("unwritable entry %+v lacks its id or message", u)
			}
		}
	}
	slices.Sort(held)
	if want := []string{"ReplicatedStorage/Shared/A class_changed", "ServerScriptService/Main/Helper parent_not_a_folder"}; !slices.Equal(held, want) {
		t.Fatalf("data.guards.unwritable = %v, want %v", held, want)
	}
	if !strings.Contains(warningsOf(d), "cannot be written to the project's files") {
		t.Errorf("warnings = %q, want the held pulls named", d.Warnings)
	}

	drift, err := h.Drift(ctx, host.DriftRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var drifted []string
	for _, c := range drift.Changes {
		drifted = append(drifted, c.Path)
	}
	slices.Sort(drifted)
	if want := []string{"ReplicatedStorage/Shared/A", "ReplicatedStorage/Shared/B", "ServerScriptService/Main/Helper"}; !slices.Equal(drifted, want) {
		t.Errorf("drift = %v, want %v", drifted, want)
	}

	// An apply of the plan as it is refuses the held pulls, naming each refusal;
	// a pull chosen for one anyway is refused by the writes themselves.
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	ce := errcode.As(err)
	if ce.Code != errcode.Unresolved || ce.Details["unwritable"] == nil {
		t.Fatalf("apply = %v (details %v), want E_UNRESOLVED with details.unwritable", err, ce.Details)
	}
	var a string
	for _, c := range d.Changes {
		if c.Path == "ReplicatedStorage/Shared/A" {
			a = c.ID
		}
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true,
		Overrides: []apply.Override{{ID: a, Direction: "pull"}}})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != "class_changed" {
		t.Fatalf("apply with A pulled = %v (reason %q), want E_UNRESOLVED class_changed", err, ce.ReasonCode())
	}
	if got := readFile(t, e.dir, "src/shared/B.luau"); got != "return 'b'\n" {
		t.Fatalf("B.luau after the refused applies = %q", got)
	}

	res, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	if err != nil {
		t.Fatalf("apply skipping the held pulls: %v", err)
	}
	if len(res.Applied) != 1 || res.Applied[0].Path != "ReplicatedStorage/Shared/B" {
		t.Errorf("applied = %+v, want B's pull alone", res.Applied)
	}
	if got := readFile(t, e.dir, "src/shared/B.luau"); got != "return 'bb'\n" {
		t.Errorf("B.luau after the apply = %q", got)
	}
	mustPlan(t, h, map[string]string{
		"ServerScriptService/Main/Helper": "parent_not_a_folder/",
		"ReplicatedStorage/Shared/A":      "class_changed/",
	})
}

// TestPullsIntoOneProjectFile, through the real plugin in the emulator: two
// properties changed in Studio on two nodes of the project file are two pulls that
// edit one file; the apply writes it once with both edits, keeping the rest of it,
// and the next plan is empty.
func TestPullsIntoOneProjectFile(t *testing.T) {
	project := `{
  // the place's look
  "name": "OneFile",
  "tree": {
    "$className": "DataModel",
    "Lighting": { "$className": "Lighting", "$properties": { "Brightness": 3 } },
    "Workspace": {
      "$className": "Workspace",
      "Marker": { "$className": "Part", "$properties": { "Anchored": true } }
    }
  }
}
`
	e := startEmulated(t, map[string]string{"default.project.json": project}, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `game.Lighting.Brightness = 5 workspace.Marker.Anchored = false`)
	d := mustPlan(t, h, map[string]string{"Lighting": "studio_changed/pull", "Workspace/Marker": "studio_changed/pull"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply of both pulls: %v", err)
	}
	got := readFile(t, e.dir, "default.project.json")
	for _, want := range []string{"// the place's look", `"Brightness": 5`, `"Anchored": false`} {
		if !strings.Contains(got, want) {
			t.Errorf("default.project.json lacks %s:\n%s", want, got)
		}
	}
	mustPlan(t, h, nil)
}

// A rename in Studio to a name no file can take is a deletion and a Studio-only
// instance the files cannot take: the deletion is held back with it, so that an apply
// never deletes the file and writes nothing in its place.
func TestRenameToANameNoFileCanTake(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `game.ReplicatedStorage.Shared.B.Name = "B/v2"`)
	d := mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/B":    "rename_unwritable/",
		"ReplicatedStorage/Shared/B/v2": "unsafe_name/",
	})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "src/shared/B.luau")); err != nil {
		t.Errorf("B.luau after the apply: %v, want it kept", err)
	}
}
