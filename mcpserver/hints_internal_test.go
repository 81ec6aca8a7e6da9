package mcpserver

import (
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// Every next action has words for an agent.
func TestEveryNextActionHasAnMCPHint(t *testing.T) {
	for _, n := range errcode.AllNextActions {
		if h := mcpHint(n, map[string]any{}); h == "" || h == string(n) {
			t.Errorf("mcpHint(%s) = %q, want words for an agent", n, h)
		}
	}
}

// An atlas_sync whose every change was left as it is wrote nothing and journaled no
// transaction: its summary names none (the id would lead nowhere).
func TestAppliedTextOfNothingNamesNoTransaction(t *testing.T) {
	got := appliedText(&host.ApplyData{Result: apply.Result{TxID: "20261127T000000Z-0123456789abcdef", Applied: []apply.Applied{}, Skipped: []string{"a", "b"}}})
	if strings.Contains(got, "20261127T000000Z") || !strings.HasPrefix(got, "Applied nothing") || !strings.Contains(got, "2 change(s): a, b") {
		t.Errorf("summary = %q", got)
	}
	got = appliedText(&host.ApplyData{Result: apply.Result{TxID: "tx-1", Applied: []apply.Applied{{ID: "x", Path: "P", Direction: "push", PatchType: "Edit"}}}})
	if !strings.Contains(got, "Applied 1 change(s) (transaction tx-1)") {
		t.Errorf("summary = %q", got)
	}
}

// An undo refused because what it would put back changed since says to sync, not to
// apply a new token.
func TestUndoRefusalHint(t *testing.T) {
	got := mcpHint(errcode.NextReplan, map[string]any{"reasonCode": string(errcode.ReasonChangedSince)})
	if !strings.Contains(got, "an undo never overwrites that") || strings.Contains(got, "confirmToken") {
		t.Errorf("hint = %q", got)
	}
}
