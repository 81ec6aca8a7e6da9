package main

import (
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
)

// Every next action has words for a person at a terminal, and they name the CLI,
// not MCP tools.
func TestEveryNextActionHasACLIHint(t *testing.T) {
	for _, n := range errcode.AllNextActions {
		h := cliHint(n, map[string]any{})
		if h == "" || h == string(n) {
			t.Errorf("cliHint(%s) = %q, want words for a person", n, h)
		}
		for _, tool := range []string{"sync_plan", "sync_apply", "get_script", "studio_status"} {
			if strings.Contains(h, tool) {
				t.Errorf("cliHint(%s) = %q names the MCP tool %s", n, h, tool)
			}
		}
	}
}

func TestCLIHintNamesDetails(t *testing.T) {
	tests := []struct {
		next    errcode.NextAction
		details map[string]any
		want    string
	}{
		{errcode.NextFixProject, map[string]any{"file": "default.project.json"}, "fix default.project.json"},
		{errcode.NextResolveTransaction, map[string]any{"txId": "tx-1"}, "transaction tx-1"},
		{errcode.NextPassOverride, map[string]any{"ids": []any{"a1", "b2"}}, "for each of a1, b2"},
		{errcode.NextPassOverride, map[string]any{}, "--override ID=push|pull|skip"},
	}
	for _, tt := range tests {
		if got := cliHint(tt.next, tt.details); !strings.Contains(got, tt.want) {
			t.Errorf("cliHint(%s, %v) = %q, want it to contain %q", tt.next, tt.details, got, tt.want)
		}
	}
}

// A refused undo (its details name the transaction) is taken up again as an undo.
func TestSaveInStudioHintOfAnUndo(t *testing.T) {
	got := cliHint(errcode.NextSaveInStudio, map[string]any{"txId": "tx-1"})
	if !strings.Contains(got, "then run 'atlas sync undo --tx tx-1' again") || strings.Contains(got, "sync plan") {
		t.Errorf("hint = %q", got)
	}
	if got := cliHint(errcode.NextSaveInStudio, map[string]any{}); !strings.Contains(got, "'atlas sync plan' again") {
		t.Errorf("hint of an apply's refusal = %q", got)
	}
}
