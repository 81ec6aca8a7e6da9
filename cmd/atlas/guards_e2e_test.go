package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/host/hosttest"
)

// emptyPlaceJSON is a place whose mapped folders are there and empty: a new place,
// or the wrong one.
const emptyPlaceJSON = `{"placeId":0,"placeName":"Game","root":{"name":"Game","className":"DataModel","properties":{},"children":[
 {"name":"ReplicatedStorage","className":"ReplicatedStorage","properties":{},"children":[
  {"name":"Shared","className":"Folder","properties":{},"children":[]}]},
 {"name":"ServerScriptService","className":"ServerScriptService","properties":{},"children":[]},
 {"name":"Workspace","className":"Workspace","properties":{},"children":[]}]}}`

// testEmptyPlaceOverMCP runs atlas_sync in standard mode, round after round,
// against the emulator holding an empty place, its review panel answered "accept"
// as a person clicking through would: the deletions are unresolved, the panel
// starts them at skip, and no file is deleted.
func (x *e2e) testEmptyPlaceOverMCP(t *testing.T) {
	t.Parallel()
	files := map[string]string{"default.project.json": mcpProject["default.project.json"]}
	for i := range 10 {
		files[fmt.Sprintf("src/shared/M%d.luau", i)] = fmt.Sprintf("return %d\n", i)
	}
	files["src/server/Main.server.luau"] = "print(1)\n"
	dir := hosttest.Repo(t, files)
	place := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(place, []byte(emptyPlaceJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	env := x.env(t, t.TempDir())
	cs, _, _ := x.startMCP(t, dir, env, "--emulate", "--port", "0", "--place", place, "--review", "accept")
	waitSession(t, cs)

	count := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(dir, "src"), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return err
		})
		return n
	}
	before := count()
	const rounds = 5
	deleted := 0
	for round := range rounds {
		res := callTool(t, cs, "atlas_sync", map[string]any{})
		out := decode[struct {
			Status string `json:"status"`
			Plan   struct {
				Summary struct{ Total, Pull, Unresolved int }
				Changes []struct {
					Reason           string  `json:"reason"`
					DefaultSelection *string `json:"defaultSelection"`
				} `json:"changes"`
			} `json:"plan"`
			Review  struct{ Selections map[string]string } `json:"review"`
			Applied struct {
				Applied []any `json:"applied"`
			} `json:"applied"`
		}](t, res)
		if !res.OK || out.Status != "success" || out.Plan.Summary.Total != 11 || out.Plan.Summary.Pull != 0 {
			t.Fatalf("round %d: atlas_sync = %s", round, res.Data)
		}
		for _, c := range out.Plan.Changes {
			if c.Reason != "place_changed" || c.DefaultSelection != nil {
				t.Fatalf("round %d: a change is %s with default %v", round, c.Reason, c.DefaultSelection)
			}
		}
		for id, sel := range out.Review.Selections {
			if sel != "skip" {
				t.Fatalf("round %d: the review selected %s for %s", round, sel, id)
			}
		}
		if len(out.Applied.Applied) != 0 {
			t.Fatalf("round %d: applied %v", round, out.Applied.Applied)
		}
		deleted += before - count()
	}
	t.Logf("empty place over MCP: %d atlas_sync rounds (standard, review accepted), %d files deleted", rounds, deleted)
	if deleted != 0 {
		t.Fatalf("%d files deleted", deleted)
	}
	res := callTool(t, cs, "atlas_sync", map[string]any{"mode": "fastfail"})
	if res.OK || res.Errors[0].Code != "E_UNRESOLVED" || count() != before {
		t.Fatalf("fastfail: %s", res.Data)
	}
	st := callTool(t, cs, "studio_status", map[string]any{})
	if s := decode[struct {
		PlaceCheck struct{ State string } `json:"placeCheck"`
	}](t, st); s.PlaceCheck.State != "empty" {
		t.Fatalf("studio_status placeCheck = %+v", s.PlaceCheck)
	}
}
