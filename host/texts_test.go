package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// heldTexts counts the scripts of a tree that hold their text, of those whose text
// a file holds (project.TextDroppable) and of the others.
func heldTexts(root *dom.Instance) (files, others int) {
	root.Walk(func(x *dom.Instance) bool {
		if _, ok := x.Properties.Lookup("Source"); ok && x.IsScript() {
			if project.TextDroppable(x) {
				files++
			} else {
				others++
			}
		}
		return true
	})
	return files, others
}

// studioSource reads a script's Source in the emulator.
func studioSource(t *testing.T, h *host.Host, path string) string {
	t.Helper()
	d := mustExec(t, h, "return "+path+".Source")
	if len(d.Returns) != 1 {
		t.Fatalf("exec returned %v", d.Returns)
	}
	return d.Returns[0]
}

// TestTextsLetGoAreReadBack: after a plan that read every text, the host holds the
// hashes of the scripts a file or the commit holds, not their texts (texts.go). What
// needs a text reads it back, checked against the planned hash, through the real
// plugin in the emulator:
//   - a push's journal takes Studio's old text from the commit, and undo puts it back;
//   - a push over a text only Studio had (pulled to disk, then edited on disk) takes
//     it from Studio, and undo puts it back;
//   - a plan asked for sources has all three texts of a change.
func TestTextsLetGoAreReadBack(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	planned := func(req host.PlanRequest) *host.PlanData {
		t.Helper()
		d, err := h.Plan(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	change := func(d *host.PlanData, path string) *plan.Change {
		t.Helper()
		for _, c := range d.Changes {
			if c.Path == path {
				return c
			}
		}
		t.Fatalf("no change of %s in %+v", path, d.Changes)
		return nil
	}
	// pushedAndUndone applies req, whose push writes pushed into Studio's script
	// at path, then undoes it, which must put before back.
	pushedAndUndone := func(what, path, pushed, before string, req host.ApplyRequest) {
		t.Helper()
		if _, err := h.Apply(ctx, req); err != nil {
			t.Fatalf("%s: apply: %v", what, err)
		}
		if got := studioSource(t, h, path); got != pushed {
			t.Fatalf("%s: Studio's %s after the push = %q, want %q", what, path, got, pushed)
		}
		if _, err := h.Undo(ctx, host.UndoRequest{}); err != nil {
			t.Fatalf("%s: undo: %v", what, err)
		}
		if got := studioSource(t, h, path); got != before {
			t.Fatalf("%s: Studio's %s after undo = %q, want %q back", what, path, got, before)
		}
	}
	planned(host.PlanRequest{}) // a whole snapshot and disk load
	if files, _ := heldTexts(h.LastDiskTree()); files != 0 {
		t.Fatalf("the disk tree holds %d texts its files hold after a whole plan", files)
	}
	if files, _ := heldTexts(h.CachedStudioTree()); files != 0 {
		t.Fatalf("the Studio tree holds %d texts the files hold after a whole plan", files)
	}

	// 1. A push: Studio's old text is the commit's.
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'A2'\n")
	d := planned(host.PlanRequest{Sources: true})
	a := change(d, "ReplicatedStorage/Shared/A")
	src := d.Sources[a.ID]
	if src.Disk == nil || *src.Disk != "return 'A2'\n" || src.Studio == nil || *src.Studio != "return 'a'\n" || src.Base == nil || *src.Base != "return 'a'\n" {
		t.Fatalf("sources of A = %s", showSources(src))
	}
	h.Idle()
	pushedAndUndone("the commit's text", "game.ReplicatedStorage.Shared.A", "return 'A2'\n", "return 'a'\n",
		host.ApplyRequest{Token: planned(host.PlanRequest{}).ConfirmToken})
	// Studio's A and the commit's are the same instance: its text is read from the
	// commit's A, with no index of every script by hash.
	if n := h.TextIndexes(); n != 0 {
		t.Errorf("the push indexed every script by hash %d times, want its text found by id", n)
	}
	hosttest.Write(t, e.dir, "src/shared/A.luau", "return 'a'\n")

	// 2. A text only Studio had: pulled to disk, let go, then the disk edited and
	// pushed over it with an override.
	mustExec(t, h, `game.ReplicatedStorage.Shared.B.Source = "return 'studio b'\n"`)
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: planned(host.PlanRequest{}).ConfirmToken}); err != nil {
		t.Fatalf("apply the pull: %v", err)
	}
	if d := planned(host.PlanRequest{}); len(d.Changes) != 0 {
		t.Fatalf("changes after the pull: %+v", d.Changes)
	}
	h.Idle()
	if files, _ := heldTexts(h.CachedStudioTree()); files != 0 {
		t.Fatalf("the Studio tree holds %d texts the files hold once idle", files)
	}
	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'disk b'\n")
	d = planned(host.PlanRequest{})
	b := change(d, "ReplicatedStorage/Shared/B")
	// Studio still holds the text the pull took: the disk edit since is a push.
	if b.Direction != plan.Push || b.Reason != plan.DiskChanged || b.StudioHash == "" {
		t.Fatalf("B = %+v, want disk's edit pushed", b)
	}
	h.Idle()
	pushedAndUndone("the text only Studio had", "game.ReplicatedStorage.Shared.B", "return 'disk b'\n", "return 'studio b'\n",
		host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: b.ID, Direction: plan.Push, StudioHash: &b.StudioHash}}})
	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'studio b'\n")

	// 3. A new Studio script with a disk script's text: let go once idle, then laid
	// out for a plan (files) and pulled with its text read back from that file.
	mustExec(t, h, `local c = game.ReplicatedStorage.Shared.A:Clone() c.Name = "ACopy" c.Parent = game.ReplicatedStorage.Shared`)
	planned(host.PlanRequest{})
	h.Idle()
	if files, _ := heldTexts(h.CachedStudioTree()); files != 0 {
		t.Fatalf("the Studio tree holds %d texts a file holds once idle", files)
	}
	d = planned(host.PlanRequest{Files: true})
	cp := change(d, "ReplicatedStorage/Shared/ACopy")
	if got := d.Files[cp.ID]; got != "src/shared/ACopy.luau" {
		t.Errorf("the file of the new Studio script = %q, want src/shared/ACopy.luau", got)
	}
	h.Idle()
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply the pull of ACopy: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(e.dir, "src", "shared", "ACopy.luau")); err != nil || string(got) != "return 'a'\n" {
		t.Errorf("the pulled ACopy.luau = %q, %v; want A's text", got, err)
	}
	if h.TextIndexes() == 0 {
		t.Errorf("ACopy's text was read back with no index by hash: no script has its id")
	}
}

func showSources(s host.ChangeSources) string {
	show := func(p *string) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprintf("%q", *p)
	}
	return fmt.Sprintf("disk %s, studio %s, base %s", show(s.Disk), show(s.Studio), show(s.Base))
}

// TestTextReadBackRefusesAFileChangedBehindItsStat: a file rewritten with the same
// size and modification time (as a tool that restores times does) looks unchanged to
// the disk cache, as it does to git. The apply that reads its text back finds
// another text than the planned hash and refuses (disk_moved): nothing is written on
// either side, where pushing the file's new text would have written what no plan
// showed.
//
// A change the apply skips is not read: the same rewrite of a skipped file leaves
// the rest of the apply alone.
func TestTextReadBackRefusesAFileChangedBehindItsStat(t *testing.T) {
	t.Setenv("ATLAS_NO_WATCH", "1") // changes are found by stat alone
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	old := time.Now().Add(-time.Hour)
	write := func(rel, text string) {
		t.Helper()
		file := filepath.Join(e.Dir, filepath.FromSlash(rel))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, old, old); err != nil {
			t.Fatal(err)
		}
	}
	const main, util = "src/server/Main.server.luau", "src/shared/Util.luau"
	write(main, "print('v2')\n")
	write(util, "return {2}\n")
	plan2 := func() *host.PlanData {
		t.Helper()
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Changes) != 2 || d.Changes[0].Direction != plan.Push || d.Changes[1].Direction != plan.Push {
			t.Fatalf("changes = %+v, want Main and Util pushed", d.Changes)
		}
		e.Host.Idle()
		if files, _ := heldTexts(e.Host.LastDiskTree()); files != 0 {
			t.Fatalf("the disk tree holds %d texts once idle", files)
		}
		return d
	}
	d := plan2()
	write(main, "print('v3')\n") // the same size and time
	before := snapshotWorld(t, e)
	_, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	ce := mustCode(t, err, errcode.PreconditionFailed)
	if ce.ReasonCode() != errcode.ReasonDiskMoved {
		t.Errorf("reason %s, want %s", ce.ReasonCode(), errcode.ReasonDiskMoved)
	}
	assertUnchanged(t, e, before)

	// Skipped, the changed file is not read; Util is pushed.
	write(main, "print('v4')\n")
	d = plan2()
	write(main, "print('v5')\n")
	var mainID string
	for _, c := range d.Changes {
		if c.FsPath == main {
			mainID = c.ID
		}
	}
	res, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: mainID, Direction: plan.Skip}}})
	if err != nil {
		t.Fatalf("apply with the moved file skipped: %v", err)
	}
	if len(res.Applied) != 1 || res.Applied[0].FsPath != util {
		t.Errorf("applied %+v, want Util alone", res.Applied)
	}
}

// TestClassChangePushReadsTheSubtreesTexts: an init script deleted on disk makes its
// folder a Folder; the push replaces Studio's ModuleScript with the disk's subtree,
// whose scripts' texts the host let go: they are read back, and Studio's scripts
// below keep their texts.
func TestClassChangePushReadsTheSubtreesTexts(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	if _, err := h.Plan(ctx, host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.dir, "src", "shared", "Lib", "init.luau")); err != nil {
		t.Fatal(err)
	}
	d, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	h.Idle()
	if files, _ := heldTexts(h.LastDiskTree()); files != 0 {
		t.Fatalf("the disk tree holds %d texts once idle", files)
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if got := mustExec(t, h, "return game.ReplicatedStorage.Shared.Lib.ClassName").Returns; len(got) != 1 || got[0] != "Folder" {
		t.Fatalf("Lib's class in Studio = %v, want Folder", got)
	}
	for path, want := range map[string]string{"Lib.X": "return 'x'\n", "Lib.Deep.Y": "return 'y'\n"} {
		if got := studioSource(t, h, "game.ReplicatedStorage.Shared."+path); got != want {
			t.Errorf("Studio's %s = %q, want %q", path, got, want)
		}
	}
}
