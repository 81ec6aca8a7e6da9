package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/host/hosttest"
)

// testSymlinkOutsideOverMCP: a script file that is a symbolic link to a file
// outside the project folder makes sync_plan fail with E_PROJECT_INVALID
// (symlink_outside_project, naming the link); nothing reaches Studio and the file
// outside is untouched. Once the link is gone, the plan works again.
func (x *e2e) testSymlinkOutsideOverMCP(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	outside := filepath.Join(t.TempDir(), "Secret.luau")
	const secret = "print('a secret from outside the project')\n"
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	env := x.env(t, t.TempDir())
	cs, _, _ := x.startMCP(t, dir, env, "--emulate", "--port", "0")
	waitSession(t, cs)

	link := filepath.Join(dir, "src", "server", "Leak.server.luau")
	if err := os.Symlink(outside, link); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	res := callTool(t, cs, "sync_plan", map[string]any{})
	if res.OK || len(res.Errors) != 1 {
		t.Fatalf("sync_plan with a link leading outside: %s", res.raw)
	}
	e := res.Errors[0]
	if e.Code != "E_PROJECT_INVALID" || e.Details["reasonCode"] != "symlink_outside_project" ||
		e.Details["link"] != "src/server/Leak.server.luau" || e.Details["target"] != outside {
		t.Fatalf("sync_plan error = %+v", e)
	}
	if next, _ := e.Details["nextActions"].([]any); len(next) == 0 || next[0] != "fix_symlink" {
		t.Errorf("nextActions = %v, want fix_symlink first", e.Details["nextActions"])
	}
	// atlas_sync stops at the same refusal.
	if res := callTool(t, cs, "atlas_sync", map[string]any{}); res.OK || res.Errors[0].Details["reasonCode"] != "symlink_outside_project" {
		t.Fatalf("atlas_sync with a link leading outside: %s", res.raw)
	}
	res = callTool(t, cs, "run_code", map[string]any{"code": `return tostring(game.ServerScriptService:FindFirstChild("Leak"))`})
	var ex struct {
		Returns []string `json:"returns"`
	}
	if err := json.Unmarshal(res.Data, &ex); err != nil || len(ex.Returns) != 1 || ex.Returns[0] != "nil" {
		t.Fatalf("Studio holds the linked script: %v %s", err, res.Data)
	}
	if got, err := os.ReadFile(outside); err != nil || string(got) != secret {
		t.Fatalf("the file outside changed: %q, %v", got, err)
	}

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	res = callTool(t, cs, "sync_plan", map[string]any{})
	if p := decode[planOf](t, res); !res.OK || p.Summary.Total != 0 {
		t.Fatalf("sync_plan once the link is gone: %s", res.raw)
	}
}
