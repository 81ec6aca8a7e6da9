package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

var removeGuardProject = map[string]string{
	"default.project.json": `{
  "name": "Guarded",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": {
      "Systems": { "$className": "Folder", "Combat": { "$path": "src/combat" } }
    },
    "Workspace": { "$ignoreUnknownInstances": true, "Spawn": { "$className": "Part" } }
  }
}`,
	"src/shared/A.luau":      "return 'a'\n",
	"src/combat/Damage.luau": "return 'dmg'\n",
}

// TestRemovedProjectNodesAreHeldAndUnmanagedWorkIsKept, through the real plugin in the
// emulator: a project file that no longer declares a node (or declares nothing at
// all) would have the table push the deletion of a folder or of whole services in
// Studio, with what Studio holds there that the project never managed. The plan
// leaves those deletions unresolved (project_node_removed); an apply refuses them
// (E_UNRESOLVED), and one told to push anyway is refused by the plugin, nothing
// removed, while the folder holds an instance no plan showed (remove_loses_children).
func TestRemovedProjectNodesAreHeldAndUnmanagedWorkIsKept(t *testing.T) {
	e := startEmulated(t, removeGuardProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `local m = Instance.new("ModuleScript") m.Name = "HandWritten" m.Source = "return 'mine'" m.Parent = game.ServerScriptService.Systems`)
	d, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 0 {
		t.Fatalf("changes before the project file changed: %+v (HandWritten is not managed)", d.Changes)
	}

	hosttest.Write(t, e.dir, "default.project.json", `{
  "name": "Guarded",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": {},
    "Workspace": { "$ignoreUnknownInstances": true, "Spawn": { "$className": "Part" } }
  }
}`)
	d, err = h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Path != "ServerScriptService/Systems" || d.Changes[0].Reason != plan.ProjectNodeRemoved || d.Changes[0].Direction != "" {
		for _, c := range d.Changes {
			t.Logf("change %s %s %s %q", c.Path, c.PatchType, c.Reason, c.Direction)
		}
		t.Fatalf("want Systems's deletion unresolved (project_node_removed)")
	}
	systems := d.Changes[0]
	if d.Guards == nil || !slices.Equal(d.Guards.ProjectNodeRemoved, []string{systems.ID}) {
		t.Fatalf("guards = %+v, want projectNodeRemoved [%s]", d.Guards, systems.ID)
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonProjectNodeRemoved {
		t.Fatalf("apply without a choice: %v (reason %q), want E_UNRESOLVED project_node_removed", err, ce.ReasonCode())
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: systems.ID, Direction: plan.Push}}})
	ce := errcode.As(err)
	if ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonRemoveLosesChildren {
		t.Fatalf("apply told to push: %v (reason %q), want E_PRECONDITION_FAILED remove_loses_children", err, ce.ReasonCode())
	}
	failures, _ := ce.Details["failures"].([]any)
	if len(failures) != 1 {
		t.Fatalf("failures = %v, want one", ce.Details["failures"])
	}
	f, _ := failures[0].(map[string]any)
	unknown, _ := f["unknown"].([]any)
	if f["field"] != "Descendants" || f["id"] != systems.ID || len(unknown) != 1 || unknown[0] != "ServerScriptService.Systems.HandWritten" {
		t.Fatalf("failure = %v, want Systems's unknown descendant HandWritten", f)
	}
	if got := mustExec(t, h, `return game.ServerScriptService.Systems.HandWritten.Source`).Returns; len(got) != 1 || got[0] != "return 'mine'" {
		t.Fatalf("HandWritten after the refused apply: %v", got)
	}

	// A project file that declares nothing: every service's deletion is held.
	hosttest.Write(t, e.dir, "default.project.json", `{ "name": "Guarded", "tree": { "$className": "DataModel" } }`)
	d, err = h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, c := range d.Changes {
		if c.Reason != plan.ProjectNodeRemoved || c.Direction != "" {
			t.Errorf("change %s: reason %s, direction %q; want project_node_removed, unresolved", c.Path, c.Reason, c.Direction)
		}
		held = append(held, c.Path)
	}
	slices.Sort(held)
	if want := []string{"ReplicatedStorage", "ServerScriptService", "Workspace"}; !slices.Equal(held, want) {
		t.Fatalf("held deletions = %v, want %v", held, want)
	}
	// Pushed anyway: Studio cannot delete a service (its Parent is locked).
	var pushAll []apply.Override
	for _, c := range d.Changes {
		pushAll = append(pushAll, apply.Override{ID: c.ID, Direction: plan.Push})
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: pushAll})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonServiceNotRemovable {
		t.Fatalf("pushed deletion of the services: %v (reason %q), want E_UNRESOLVED service_not_removable", err, ce.ReasonCode())
	}
	if got, err := h.Exec(ctx, host.ExecRequest{Code: `workspace:Destroy()`}); err != nil || got.Success || !strings.Contains(got.Error, "locked") {
		t.Errorf("workspace:Destroy() in the emulator: %+v, %v; want refused, its Parent locked", got, err)
	}
}

// TestFolderDeletionKeepsFilesNoPlanShowed, through the real plugin in the emulator: a
// pull of a folder deleted in Studio deletes the files its instances come from, and
// never a file no instance comes from (notes, images, a file saved there after the
// plan): the apply refuses (E_UNRESOLVED, unmanaged_files) and writes nothing.
func TestFolderDeletionKeepsFilesNoPlanShowed(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `game.ReplicatedStorage.Shared.Lib.Parent = nil`)
	d, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Path != "ReplicatedStorage/Shared/Lib" || d.Changes[0].Direction != "pull" {
		t.Fatalf("changes = %+v, want Lib's deletion pulled", d.Changes)
	}
	// A file saved there after the plan: the apply's plan holds the pull back, so
	// the token's plan moved.
	hosttest.Write(t, e.dir, "src/shared/Lib/todo.bak", "written after the plan\n")
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.ConfirmTokenMismatch || ce.ReasonCode() != errcode.ReasonPlanChanged {
		t.Fatalf("apply = %v (reason %q), want E_CONFIRM_TOKEN_MISMATCH plan_changed", err, ce.ReasonCode())
	}
	// The next plan holds it back, naming the file; an apply of it, or a pull chosen
	// anyway, is refused.
	d, err = h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Direction != "" || d.Changes[0].Reason != "unmanaged_files" {
		t.Fatalf("changes = %+v, want Lib's deletion held as unmanaged_files", d.Changes)
	}
	if g := d.Guards; g == nil || len(g.Unwritable) != 1 || !strings.Contains(g.Unwritable[0].Message, "todo.bak") {
		t.Fatalf("guards = %+v, want the pull held, naming todo.bak", d.Guards)
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonUnmanagedFiles {
		t.Fatalf("apply = %v (reason %q), want E_UNRESOLVED unmanaged_files", err, ce.ReasonCode())
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: d.Changes[0].ID, Direction: "pull"}}})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonUnmanagedFiles {
		t.Fatalf("apply with a pull chosen = %v (reason %q), want E_UNRESOLVED unmanaged_files", err, ce.ReasonCode())
	}
	for _, f := range []string{"src/shared/Lib/init.luau", "src/shared/Lib/X.luau", "src/shared/Lib/Deep/Y.luau", "src/shared/Lib/todo.bak"} {
		if readFile(t, e.dir, f) == "" {
			t.Errorf("%s is gone or empty after the refused apply", f)
		}
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared:FindFirstChild("Lib") == nil`).Returns; len(got) != 1 || got[0] != "true" {
		t.Errorf("Studio after the refused apply: Lib back = %v", got)
	}
}

// TestClassChangeKeepsAttributesAndTagsNoPlanShowed, through the real plugin in the
// emulator: a pushed class change replaces the Studio instance (Studio cannot change a
// class), and the new one has neither the old one's attributes nor its tags. Where the
// plan did not compare them (the project does not manage them), Studio refuses the
// replacement (E_PRECONDITION_FAILED, class_change_loses_state) and nothing is
// written; once they are gone, the push goes through.
func TestClassChangeKeepsAttributesAndTagsNoPlanShowed(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	if err := os.Rename(filepath.Join(e.dir, "src", "server", "Main.server.luau"), filepath.Join(e.dir, "src", "server", "Main.client.luau")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, h, `local m = game.ServerScriptService.Main m:SetAttribute("Owner", "bob") m:AddTag("Important")`)
	push := func() error {
		t.Helper()
		d, err := h.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var id string
		for _, c := range d.Changes {
			if c.Path == "ServerScriptService/Main" {
				id = c.ID
			}
		}
		if id == "" {
			t.Fatalf("no change of ServerScriptService/Main in %+v", d.Changes)
		}
		_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: id, Direction: plan.Push}}})
		return err
	}
	err := push()
	ce := errcode.As(err)
	if ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonClassChangeLosesState {
		t.Fatalf("push of the class change: %v (reason %q), want E_PRECONDITION_FAILED class_change_loses_state", err, ce.ReasonCode())
	}
	var fields []string
	failures, _ := ce.Details["failures"].([]any)
	for _, f := range failures {
		m, _ := f.(map[string]any)
		fields = append(fields, fmt.Sprint(m["field"]))
	}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"Attributes", "Tags"}) {
		t.Fatalf("failures = %v, want Attributes and Tags", ce.Details["failures"])
	}
	if got := mustExec(t, h, `local m = game.ServerScriptService.Main return m.ClassName .. " " .. tostring(m:GetAttribute("Owner")) .. " " .. #m:GetTags()`).Returns; len(got) != 1 || got[0] != "Script bob 1" {
		t.Fatalf("Studio's Main after the refused push: %v", got)
	}
	mustExec(t, h, `local m = game.ServerScriptService.Main m:SetAttribute("Owner", nil) m:RemoveTag("Important")`)
	if err := push(); err != nil {
		t.Fatalf("push once the attributes and tags are gone: %v", err)
	}
	if got := mustExec(t, h, `return game.ServerScriptService.Main.ClassName`).Returns; len(got) != 1 || got[0] != "LocalScript" {
		t.Fatalf("Studio's Main after the push: %v", got)
	}
}

// TestUndoOfAnAddedSubtree, through the real plugin in the emulator: undo removes a
// subtree a push added, children and all (they are the transaction's own), but not
// once Studio holds something under it that the transaction did not add.
func TestUndoOfAnAddedSubtree(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	pushNewLib := func() {
		t.Helper()
		hosttest.Write(t, e.dir, "src/shared/NewLib/init.luau", "return {}\n")
		hosttest.Write(t, e.dir, "src/shared/NewLib/Child.luau", "return 'child'\n")
		hosttest.Write(t, e.dir, "src/shared/NewLib/Deep/Leaf.luau", "return 'leaf'\n")
		d, err := h.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
			t.Fatalf("push NewLib: %v", err)
		}
	}
	hasNewLib := func() string {
		t.Helper()
		return mustExec(t, h, `return tostring(game.ReplicatedStorage.Shared:FindFirstChild("NewLib") ~= nil)`).Returns[0]
	}
	pushNewLib()
	if got := hasNewLib(); got != "true" {
		t.Fatalf("NewLib in Studio after the push: %s", got)
	}
	if _, err := h.Undo(ctx, host.UndoRequest{}); err != nil {
		t.Fatalf("undo the push of a subtree: %v", err)
	}
	if got := hasNewLib(); got != "false" {
		t.Fatalf("NewLib in Studio after undo: %s", got)
	}

	for _, f := range []string{"src/shared/NewLib/init.luau", "src/shared/NewLib/Child.luau", "src/shared/NewLib/Deep/Leaf.luau"} {
		if err := os.Remove(filepath.Join(e.dir, filepath.FromSlash(f))); err != nil {
			t.Fatal(err)
		}
	}
	pushNewLib()
	mustExec(t, h, `local m = Instance.new("ModuleScript") m.Name = "Mine" m.Source = "return 'mine'" m.Parent = game.ReplicatedStorage.Shared.NewLib.Deep`)
	_, err := h.Undo(ctx, host.UndoRequest{})
	if ce := errcode.As(err); ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonChangedSince {
		t.Fatalf("undo over a script added since: %v (reason %q), want E_PRECONDITION_FAILED changed_since", err, ce.ReasonCode())
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared.NewLib.Deep.Mine.Source`).Returns; len(got) != 1 || got[0] != "return 'mine'" {
		t.Fatalf("Mine after the refused undo: %v", got)
	}
	// Nor once a script the transaction added was edited in Studio since.
	mustExec(t, h, `game.ReplicatedStorage.Shared.NewLib.Deep.Mine.Parent = nil game.ReplicatedStorage.Shared.NewLib.Deep.Leaf.Source = "return 'edited'"`)
	_, err = h.Undo(ctx, host.UndoRequest{})
	if ce := errcode.As(err); ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonChangedSince {
		t.Fatalf("undo over a script edited since: %v (reason %q), want E_PRECONDITION_FAILED changed_since", err, ce.ReasonCode())
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared.NewLib.Deep.Leaf.Source`).Returns; len(got) != 1 || got[0] != "return 'edited'" {
		t.Fatalf("Leaf after the refused undo: %v", got)
	}
}

// TestFolderDeletionRemovesTheFolder, through the real plugin in the emulator: a pull
// of a folder deleted in Studio removes its files and the folder itself (whose files'
// aside copies the commit takes away first), reports nothing kept, and the next plan
// is empty.
func TestFolderDeletionRemovesTheFolder(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `game.ReplicatedStorage.Shared.Lib.Parent = nil`)
	d, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Action == "kept" {
			t.Errorf("file change %+v: nothing changed after the plan", f)
		}
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings = %v", res.Warnings)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "src", "shared", "Lib")); !os.IsNotExist(err) {
		t.Errorf("src/shared/Lib after the pull: %v, want it gone", err)
	}
	if d, err := h.Plan(ctx, host.PlanRequest{}); err != nil || len(d.Changes) != 0 {
		t.Fatalf("the plan after the pull: %v, %+v; want no changes", err, d)
	}
}

// TestStudioMassDeleteIsHeld, through the real plugin in the emulator: files deleted on
// disk are deleted in Studio by a push, but not when together they would empty a
// mapped folder (or pass the file thresholds): the plan leaves them unresolved
// (studio_mass_delete), an apply refuses them, and pushing them by choice works.
func TestStudioMassDeleteIsHeld(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	for _, f := range []string{"src/shared/A.luau", "src/shared/B.luau"} {
		if err := os.Remove(filepath.Join(e.dir, filepath.FromSlash(f))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(e.dir, "src", "shared", "Lib")); err != nil {
		t.Fatal(err)
	}
	d, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var overrides []apply.Override
	for _, c := range d.Changes {
		if c.Reason != plan.StudioMassDelete || c.Direction != "" {
			t.Errorf("change %s: %s %q, want studio_mass_delete, unresolved", c.Path, c.Reason, c.Direction)
		}
		overrides = append(overrides, apply.Override{ID: c.ID, Direction: plan.Push})
	}
	if len(d.Changes) != 3 || d.Guards == nil || len(d.Guards.StudioMassDelete) != 3 || d.Guards.StudioMassDeleteRule != "share" || d.Guards.StudioMassDeleteFiles != 5 {
		t.Fatalf("changes %d, guards %+v; want the 3 deletions (5 of the project's 7 files) held", len(d.Changes), d.Guards)
	}
	_, err = h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonStudioMassDelete {
		t.Fatalf("apply without a choice: %v (reason %q), want E_UNRESOLVED studio_mass_delete", err, ce.ReasonCode())
	}
	if got := mustExec(t, h, `return #game.ReplicatedStorage.Shared:GetChildren()`).Returns; len(got) != 1 || got[0] != "3" {
		t.Fatalf("Shared's children after the refused apply: %v, want 3", got)
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: overrides}); err != nil {
		t.Fatalf("push by choice: %v", err)
	}
	if got := mustExec(t, h, `return #game.ReplicatedStorage.Shared:GetChildren()`).Returns; len(got) != 1 || got[0] != "0" {
		t.Fatalf("Shared's children after the push: %v, want 0", got)
	}
}
