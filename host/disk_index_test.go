package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// startHostAt starts a host for the project in dir with the given state dir and
// connects a fake plugin whose place is the project at HEAD.
func startHostAt(t *testing.T, dir, stateDir string) *host.Host {
	t.Helper()
	return hosttest.StartWith(t, hosttest.Config{Dir: dir, StateDir: stateDir}).Host
}

// TestDiskIndexAcrossRestart: a host keeps its disk cache's records in the state
// dir, so the next host for the project reads only the scripts (whose texts the
// index does not hold) and the files changed while no host ran, and still plans
// exactly what a host without an index plans.
func TestDiskIndexAcrossRestart(t *testing.T) {
	files := incrementalProject()
	dir := hosttest.Repo(t, files)
	// Files written an hour ago: not racily clean (a file modified within a
	// moment of a load is compared by content, which reads it).
	old := time.Now().Add(-time.Hour)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	h := startHostAt(t, dir, state)
	if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	first := h.DiskParsed()
	// The index is written once the host is idle, not beside the first plan (its
	// base tree would wait for the write).
	indexes := func() int {
		found, _ := filepath.Glob(filepath.Join(state, "projects", "*", "disk.index"))
		return len(found)
	}
	if indexes() != 0 {
		t.Errorf("the index was written before the host was idle")
	}
	h.Idle()
	if n := indexes(); n != 1 {
		t.Errorf("%d indexes were written when the host was idle, want 1", n)
	}
	h.Close()

	// While no host runs: a model and a meta file change, a script is added.
	hosttest.Write(t, dir, "src/shared/Folder0/Part.model.json", `{ "className": "Part", "properties": { "Anchored": false } }`)
	hosttest.Write(t, dir, "src/server/Folder2/Script0.meta.json", `{ "attributes": { "Index": 5 } }`)
	hosttest.Write(t, dir, "src/server/Folder2/Added.luau", "return 'added'\n")

	h2 := startHostAt(t, dir, state)
	defer h2.Close()
	p2, err := h2.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	scripts := 0
	for name := range files {
		if len(name) > 5 && name[len(name)-5:] == ".luau" {
			scripts++
		}
	}
	// The scripts (texts are not in the index), the project file, and the three
	// files changed.
	if got, most := h2.DiskParsed(), scripts+1+3+1; got > most || got >= first {
		t.Errorf("the restarted host read %d files (the first read %d), want at most %d", got, first, most)
	}
	// The same plan as a host with no index (its own state dir).
	h3 := startHostAt(t, dir, t.TempDir())
	defer h3.Close()
	p3, err := h3.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeLines(p2.Changes), changeLines(p3.Changes); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("with the index the plan is\n%v\nwithout it\n%v", got, want)
	}
	if len(p2.Changes) == 0 {
		t.Errorf("the plan after the edits is empty")
	}
}

func changeLines(changes []*plan.Change) []string {
	var out []string
	for _, c := range changes {
		b, _ := json.Marshal(c)
		out = append(out, string(b))
	}
	return out
}
