package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/mcpserver"
)

// refusal calls a tool that must refuse and returns its error's details.
func refusal(t *testing.T, cs *mcp.ClientSession, tool string, args any) (code string, details map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s succeeded, want a refusal", tool)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env struct {
		Errors []struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(b, &env); err != nil || len(env.Errors) != 1 {
		t.Fatalf("%s: envelope %s", tool, b)
	}
	return env.Errors[0].Code, env.Errors[0].Details
}

// A refusal names what to do next twice: as stable identifiers in nextActions, and
// in an agent's words, naming tools and arguments, in hint.
func TestRefusalsNameToolsNotCommands(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	srv := mcpserver.New(e.Host, "test")
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { v = 2 }\n")
	stale, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Write(t, e.Dir, "src/shared/New.luau", "return 1\n")

	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		wantCode string
		wantNext []any
		hintHas  []string
	}{
		{"not confirmed", "sync_apply", map[string]any{"confirmToken": stale.ConfirmToken},
			"E_CONFIRM_REQUIRED", []any{"confirm"}, []string{"sync_apply", "yes: true"}},
		{"undo not confirmed", "sync_undo", map[string]any{},
			"E_CONFIRM_REQUIRED", []any{"confirm"}, []string{"sync_undo", "yes: true"}},
		{"recover not confirmed", "sync_recover", map[string]any{"action": "finish"},
			"E_CONFIRM_REQUIRED", []any{"confirm"}, []string{"sync_recover", "yes: true"}},
		{"stale token", "sync_apply", map[string]any{"confirmToken": stale.ConfirmToken, "yes": true},
			"E_CONFIRM_TOKEN_MISMATCH", []any{"replan"}, []string{"sync_plan", "sync_apply"}},
		{"neither id nor fsPath", "get_script", map[string]any{},
			"E_BAD_REQUEST", []any{"pass_script"}, []string{"id", "fsPath"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, details := refusal(t, cs, tt.tool, tt.args)
			if code != tt.wantCode {
				t.Fatalf("%s = %s, want %s", tt.tool, code, tt.wantCode)
			}
			next, _ := details["nextActions"].([]any)
			if len(next) != len(tt.wantNext) || next[0] != tt.wantNext[0] {
				t.Errorf("nextActions = %v, want %v", details["nextActions"], tt.wantNext)
			}
			hint, _ := details["hint"].(string)
			for _, w := range tt.hintHas {
				if !strings.Contains(hint, w) {
					t.Errorf("hint %q does not mention %q", hint, w)
				}
			}
			if (tt.tool == "sync_undo" || tt.tool == "sync_recover") && strings.Contains(hint, "sync_apply") {
				t.Errorf("hint %q sends an agent to sync_apply from %s", hint, tt.tool)
			}
			if strings.Contains(hint, "atlas sync") || strings.Contains(hint, "--") {
				t.Errorf("hint %q names CLI commands or flags", hint)
			}
		})
	}

	// The mismatch names each change that moved by id and by path.
	_, details := refusal(t, cs, "sync_apply", map[string]any{"confirmToken": stale.ConfirmToken, "yes": true})
	appeared, _ := details["appeared"].([]any)
	if len(appeared) != 1 {
		t.Fatalf("appeared = %v, want the new script", details["appeared"])
	}
	if m, _ := appeared[0].(map[string]any); m["path"] != "ReplicatedStorage/Shared/New" || m["id"] == "" {
		t.Errorf("appeared[0] = %v, want its id and path ReplicatedStorage/Shared/New", appeared[0])
	}
}
