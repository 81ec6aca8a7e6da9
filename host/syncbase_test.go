package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// TestBaseMovedSinceTheSync, through the real plugin in the emulator: the three-way
// base is HEAD, so a disk edit committed before syncing (or a checkout, or a reset)
// looks like a change made in Studio, whose default would pull Studio's old text
// over the commit. The plan decides such changes again against the last sync's
// base commit: Studio still holds what it held then, so the change is disk's and
// is pushed. Drift does not report it. A change truly made in Studio since stays a
// pull.
func TestBaseMovedSinceTheSync(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	// A plan that finds Studio and disk equal is in step with HEAD: a commit made
	// before the next sync is pushed.
	mustPlan(t, h, nil)
	hosttest.Write(t, e.dir, "src/shared/Lib/X.luau", "return 'x2'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "x2")
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/Lib/X": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}

	// An apply records its base commit.
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'a2'\n")
	d = mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "a2")

	// Edited and committed before the next sync.
	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'my new work'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "b")
	// Edited in Studio since the sync: still Studio's.
	mustExec(t, h, `game.ServerScriptService.Main.Source = "print('studio')\n"`)
	d = mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/B": "disk_changed/push",
		"ServerScriptService/Main":   "studio_changed/pull",
	})
	if !strings.Contains(warningsOf(d), "the base moved since Studio was last in step") {
		t.Errorf("warnings = %q, want the moved base said", d.Warnings)
	}
	drift, err := h.Drift(ctx, host.DriftRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(drift.Changes) != 1 || drift.Changes[0].Path != "ServerScriptService/Main" {
		t.Errorf("drift = %+v, want Main alone", drift.Changes)
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared.B.Source`).Returns[0]; got != "return 'my new work'\n" {
		t.Errorf("Studio's B after the apply = %q", got)
	}
	if got := readFile(t, e.dir, "src/shared/B.luau"); got != "return 'my new work'\n" {
		t.Errorf("B.luau after the apply = %q, want the committed work", got)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "main from studio")
	mustPlan(t, h, nil)

	// A checkout of a branch that adds a file and drops another: pushed too.
	hosttest.Git(t, e.dir, "checkout", "-qb", "feature")
	hosttest.Write(t, e.dir, "src/shared/F.luau", "return 'f'\n")
	hosttest.Git(t, e.dir, "rm", "-q", "src/shared/A.luau")
	hosttest.Git(t, e.dir, "add", "-A")
	hosttest.Git(t, e.dir, "commit", "-qm", "feature")
	hosttest.Git(t, e.dir, "checkout", "-q", "main")
	d = mustPlan(t, h, nil) // nothing moved since the sync on main
	hosttest.Git(t, e.dir, "checkout", "-q", "feature")
	mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/F": "new_on_disk/push",
		"ReplicatedStorage/Shared/A": "deleted_on_disk/push",
	})
}

// TestMergeConflictIsHeld, through the real plugin in the emulator: a file git holds
// in conflict (a merge stopped on it) may hold conflict markers; its change is held
// back (merge_conflict), not pushed into Studio, and drift does not call it Studio's.
// Once the merge is resolved and added, it is pushed.
func TestMergeConflictIsHeld(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil) // in step with the first commit
	hosttest.Git(t, e.dir, "checkout", "-qb", "other")
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'theirs'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "theirs")
	hosttest.Git(t, e.dir, "checkout", "-q", "main")
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'ours'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "ours")
	if out, err := hosttest.GitErr(e.dir, "merge", "-q", "other"); err == nil {
		t.Fatalf("the merge did not stop on a conflict:\n%s", out)
	}
	if !strings.Contains(readFile(t, e.dir, "src/shared/A.luau"), "<<<<<<<") {
		t.Fatal("no conflict markers in A.luau")
	}
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "merge_conflict/"})
	if d.Guards == nil || len(d.Guards.MergeConflict) != 1 || !strings.Contains(warningsOf(d), "src/shared/A.luau") {
		t.Errorf("guards %+v, warnings %q: want A held, its file named", d.Guards, d.Warnings)
	}
	_, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonMergeConflict {
		t.Fatalf("apply = %v (reason %q), want E_UNRESOLVED merge_conflict", err, ce.ReasonCode())
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared.A.Source`).Returns[0]; got != "return 'a'\n" {
		t.Errorf("Studio's A = %q, want it untouched", got)
	}
	if drift, err := h.Drift(ctx, host.DriftRequest{}); err != nil || len(drift.Changes) != 0 {
		t.Errorf("drift = %+v, %v; want none", drift, err)
	}
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'both'\n")
	hosttest.Git(t, e.dir, "add", "src/shared/A.luau")
	mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
}

// TestBaseMovedAfterAPullAndOnBothSides, through the real plugin in the emulator:
// Studio may hold the version of any commit since the last one it was in step with
// (a pull, committed, then a disk edit committed too: Studio holds the first
// commit's version, and the change is pushed). A change made on both sides since
// the last commit in step stays unresolved after the disk side is committed, never
// a pull over the commit.
func TestBaseMovedAfterAPullAndOnBothSides(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `game.ReplicatedStorage.Shared.B.Source = "return 'from studio'\n"`)
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/B": "studio_changed/pull"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "pulled b")
	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'disk work'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "disk work")
	// Both sides of A since the last sync.
	mustExec(t, h, `game.ReplicatedStorage.Shared.A.Source = "return 'studio a'\n"`)
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'disk a'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "disk a")
	d = mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/B": "disk_changed/push",
		"ReplicatedStorage/Shared/A": "both_changed/",
	})
	if !strings.Contains(warningsOf(d), "1 change(s) where Studio still holds its version then are pushed, and 1 where both sides moved") {
		t.Errorf("warnings = %q", d.Warnings)
	}
}

// TestDriftBlocksAStagedProjectFile: drift on an instance a project file declares
// blocks a commit of that file (the pre-commit hook's --staged), as drift on a
// script blocks a commit of the script's file; other files do not.
func TestDriftBlocksAStagedProjectFile(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustExec(t, h, `workspace.Spawn.Anchored = false`)
	d, err := h.Drift(ctx, host.DriftRequest{Staged: true, Files: []string{"default.project.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Path != "Workspace/Spawn" || len(d.Blocking) != 1 || d.Blocking[0] != d.Changes[0].ID {
		t.Fatalf("drift of a staged project file: changes %+v, blocking %v; want Spawn blocking", d.Changes, d.Blocking)
	}
	d, err = h.Drift(ctx, host.DriftRequest{Staged: true, Files: []string{"src/shared/A.luau"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Blocking) != 0 {
		t.Errorf("drift with another file staged: blocking %v, want none", d.Blocking)
	}
}

// TestBaseMovedAfterSkippedChanges, through the real plugin in the emulator: what an
// apply did not carry out (a Studio edit, a script added in Studio, both skipped) is
// not what Studio held in step with disk: once HEAD moves, they stay Studio's work
// (pulls), never pushed over or deleted.
// studioWork edits Main and adds a script Work in Studio.
func studioWork(t *testing.T, h *host.Host) {
	t.Helper()
	mustExec(t, h, `game.ServerScriptService.Main.Source = "print('studio work')\n"
		local s = Instance.new("ModuleScript") s.Name = "Work" s.Source = "return 'studio only'\n" s.Parent = game.ReplicatedStorage.Shared`)
}

func TestBaseMovedAfterSkippedChanges(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil)
	studioWork(t, h)
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'a2'\n")
	d := mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/A":    "disk_changed/push",
		"ServerScriptService/Main":      "studio_changed/pull",
		"ReplicatedStorage/Shared/Work": "new_in_studio/pull",
	})
	var skip []apply.Override
	for _, c := range d.Changes {
		if c.Direction == plan.Pull {
			skip = append(skip, apply.Override{ID: c.ID, Direction: plan.Skip})
		}
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: skip}); err != nil {
		t.Fatal(err)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "a2")
	mustPlan(t, h, map[string]string{
		"ServerScriptService/Main":      "studio_changed/pull",
		"ReplicatedStorage/Shared/Work": "new_in_studio/pull",
	})
}

// An undo leaves neither side as the apply left it: after a pull of Studio work is
// undone and a commit moves HEAD, that work is still Studio's, to pull, and is never
// pushed over.
func TestBaseMovedAfterAnUndo(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil)
	studioWork(t, h)
	d := mustPlan(t, h, map[string]string{
		"ServerScriptService/Main":      "studio_changed/pull",
		"ReplicatedStorage/Shared/Work": "new_in_studio/pull",
	})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Undo(ctx, host.UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	hosttest.Write(t, e.dir, "README.md", "unrelated\n")
	hosttest.Git(t, e.dir, "add", "README.md")
	hosttest.Git(t, e.dir, "commit", "-qm", "unrelated")
	mustPlan(t, h, map[string]string{
		"ServerScriptService/Main":      "studio_changed/pull",
		"ReplicatedStorage/Shared/Work": "new_in_studio/pull",
	})
}

// A synced disk edit thrown away with git (a restore, a stash, a reset to HEAD) moves
// disk back while HEAD stays: Studio still holds what the apply wrote, so the change is
// disk's and is pushed, never pulled back over the restore.
func TestDiskRestoredAfterThePush(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'experiment'\n")
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/B": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	hosttest.Git(t, e.dir, "checkout", "--", "src/shared/B.luau")
	d = mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/B": "disk_changed/push"})
	if !strings.Contains(warningsOf(d), "disk moved since Studio was last in step") {
		t.Errorf("warnings = %q, want disk's move back said", d.Warnings)
	}
}

// An undo of a push made after a checkout puts Studio back as it was in step before:
// the branch's file is still disk's, pushed again, never pulled over by the old one.
func TestUndoOfAPushAfterACheckout(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil)
	hosttest.Git(t, e.dir, "checkout", "-qb", "side")
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'side'\n")
	hosttest.Git(t, e.dir, "commit", "-qam", "side")
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Undo(ctx, host.UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
}

// A file new since the base, pushed, then deleted in Studio: Studio's deletion, left
// for a decision (never created there again by default), and drift reports it.
func TestNewFileDeletedInStudioAfterThePush(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	hosttest.Write(t, e.dir, "src/shared/Local.luau", "return 'local'\n")
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/Local": "new_on_disk/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, h, `game.ReplicatedStorage.Shared.Local:Destroy()`)
	mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/Local": "deleted_in_studio/"})
	drift, err := h.Drift(ctx, host.DriftRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(drift.Changes) != 1 || drift.Changes[0].Path != "ReplicatedStorage/Shared/Local" {
		t.Errorf("drift = %+v, want Local's deletion", drift.Changes)
	}
}

// An undo after a commit and a plan that found the two sides in step (another agent's
// plan, a drift check): the text the undo put back in Studio is Studio's state from
// before the apply, not an edit made there. The committed disk work is pushed again,
// never pulled over by the undo's own write, and drift does not report it.
func TestUndoAfterACommitAndAPlanInStep(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil)
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'a4'\n")
	d := mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "a4")
	mustPlan(t, h, nil)
	if _, err := h.Drift(ctx, host.DriftRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Undo(ctx, host.UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
	if drift, err := h.Drift(ctx, host.DriftRequest{}); err != nil || len(drift.Changes) != 0 {
		t.Errorf("drift = %+v, %v; want none (the undo's write is not Studio work)", drift, err)
	}

	d = mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/A": "disk_changed/push"})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := mustExec(t, h, `return game.ReplicatedStorage.Shared.A.Source`).Returns[0]; got != "return 'a4'\n" {
		t.Errorf("Studio's A = %q, want the committed a4", got)
	}
}
