package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// TestIncrementalPlanEqualsScratch makes random edits on disk (files and folders
// written, added, removed, renamed; meta, model and text files), in Studio (sources,
// properties, renames, moves, additions, deletions, duplicates) and sometimes in
// git (a commit moves the base), and after each round compares the host's plan,
// which compares only what changed (the disk cache's and the Studio delta's shared
// subtrees, the snapshot scope's and the plan's memory), with the plan computed from
// scratch on copies of the same trees: the same hash, changes, warnings, guards and
// place check, from the same snapshot request.
func TestIncrementalPlanEqualsScratch(t *testing.T) {
	e := hosttest.Start(t, incrementalProject(), nil)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(17, 3))
	const rounds = 300
	mismatches, reused, commits := 0, 0, 0
	for round := range rounds {
		switch k := r.IntN(10); {
		case k < 4:
			for range 1 + r.IntN(3) {
				randomDiskEdit(t, r, e.Dir, round)
			}
		case k < 8:
			e.Plugin.Edit(func(root *bridgetest.Node) {
				for range 1 + r.IntN(3) {
					randomStudioEdit(r, root)
				}
			})
		case k < 9:
			randomDiskEdit(t, r, e.Dir, round)
			e.Plugin.Edit(func(root *bridgetest.Node) { randomStudioEdit(r, root) })
		default:
			hosttest.Git(t, e.Dir, "add", "-A")
			hosttest.Git(t, e.Dir, "commit", "-q", "--allow-empty", "-m", "round")
			commits++
			if r.IntN(2) == 0 {
				// Scripts written before the next plan: when they were there, the
				// base is the disk tree's copy with the commit's blob ids for them.
				for _, p := range []string{"src/shared/Folder1/Script2.luau", "src/server/Folder0/Script1.luau"}[:1+r.IntN(2)] {
					hosttest.Write(t, e.Dir, p, fmt.Sprintf("return %q\r\n", fmt.Sprint("round ", round)))
				}
			}
		}
		got, want, scopeDiff, err := e.Host.PlanAndScratch(ctx)
		if err != nil {
			t.Fatalf("round %d: plan: %v", round, err)
		}
		if scopeDiff != "" {
			mismatches++
			t.Errorf("round %d: the snapshot request differs from the one computed from scratch:\n%s", round, scopeDiff)
		}
		reused += e.Host.MemoStats().Reused
		if diff := planDiff(got, want); diff != "" {
			mismatches++
			t.Errorf("round %d: the incremental plan differs from the plan from scratch: %s", round, diff)
		}
	}
	t.Logf("%d rounds (%d commits), %d mismatches; %d subtree results reused; base trees from %v", rounds, commits, mismatches, reused, e.Host.BaseSources())
	if e.Host.BaseSources()[project.BaseFromDiskScripts] == 0 {
		t.Errorf("no base tree was a copy of the disk tree (%v)", e.Host.BaseSources())
	}
	if reused < rounds {
		t.Errorf("%d subtree results reused in %d rounds: the plans were not incremental", reused, rounds)
	}
}

// planDiff says how two plans differ, or "" when they do not.
func planDiff(got, want *plan.Plan) string {
	gc, _ := json.Marshal(got.Changes)
	wc, _ := json.Marshal(want.Changes)
	gg, _ := json.Marshal(got.Guards)
	wg, _ := json.Marshal(want.Guards)
	switch {
	case string(gc) != string(wc):
		return "changes\n" + string(gc) + "\nwant\n" + string(wc)
	case got.Hash != want.Hash:
		return "hash " + got.Hash + ", want " + want.Hash
	case !slices.Equal(got.Warnings, want.Warnings):
		return "warnings " + jsonString(got.Warnings) + ", want " + jsonString(want.Warnings)
	case string(gg) != string(wg):
		return "guards " + string(gg) + ", want " + string(wg)
	case got.Place != want.Place:
		return "place " + string(got.Place) + ", want " + string(want.Place)
	}
	return ""
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestBaseFromDisk: the base tree is the disk tree when HEAD holds the files the
// disk tree was loaded from (after a commit of the disk's state, nothing is read
// from git), is built from the commit otherwise, and is kept in the state dir for
// a restarted host; every plan is the one against the base loaded from the commit.
func TestBaseFromDisk(t *testing.T) {
	dir := hosttest.Repo(t, incrementalProject())
	state := t.TempDir()
	h := startHostAt(t, dir, state)
	ctx := context.Background()
	check := func(what string, want map[project.BaseSource]int) {
		t.Helper()
		got, scratch, scopeDiff, err := h.PlanAndScratch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := planDiff(got, scratch); diff != "" || scopeDiff != "" {
			t.Errorf("%s: the plan differs from the plan against the commit's tree: %s%s", what, diff, scopeDiff)
		}
		if got := h.BaseSources(); !maps.Equal(got, want) {
			t.Errorf("%s: base trees from %v, want %v", what, got, want)
		}
	}
	check("clean", map[project.BaseSource]int{project.BaseFromDisk: 1})
	hosttest.Write(t, dir, "src/shared/Folder0/Script1.luau", "return 'edited'\n")
	check("edited, same commit", map[project.BaseSource]int{project.BaseFromDisk: 1})
	hosttest.Git(t, dir, "commit", "-qam", "edit")
	check("committed", map[project.BaseSource]int{project.BaseFromDisk: 2})
	hosttest.Write(t, dir, "src/shared/Folder0/Script1.luau", "return 'again'\n")
	hosttest.Git(t, dir, "commit", "-qam", "again")
	hosttest.Write(t, dir, "src/shared/Folder0/Script1.luau", "return 'edited'\n")
	// (only a script differs: the disk tree's copy with the commit's blob id for it)
	check("HEAD differs from disk", map[project.BaseSource]int{project.BaseFromDisk: 2, project.BaseFromDiskScripts: 1})
	// A text file differs too: a load of the commit (once HEAD has moved: the base
	// is the commit's tree, whatever the disk holds).
	hosttest.Write(t, dir, "src/shared/Folder0/Script1.luau", "return 'third'\n")
	hosttest.Git(t, dir, "commit", "-qam", "third")
	hosttest.Write(t, dir, "src/shared/Folder0/Script1.luau", "return 'edited'\n")
	hosttest.Write(t, dir, "src/shared/Folder0/Note.txt", "edited\n")
	check("a text file differs too", map[project.BaseSource]int{project.BaseFromDisk: 2, project.BaseFromDiskScripts: 1, project.BaseFromCommit: 1})
	// The base built from the commit is kept in the state dir once the host has been
	// idle a moment, not by the plan that built it.
	if _, err := h.Plan(ctx, host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		found, _ := filepath.Glob(filepath.Join(state, "projects", "*", "base.tree"))
		if len(found) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no base tree in the state dir after the host was idle (%v)", found)
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.Close()

	h = startHostAt(t, dir, state)
	defer h.Close()
	check("restarted", map[project.BaseSource]int{project.BaseFromFile: 1})
}
