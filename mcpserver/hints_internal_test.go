package mcpserver

import (
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
)

// Every next action has words for an agent.
func TestEveryNextActionHasAnMCPHint(t *testing.T) {
	for _, n := range errcode.AllNextActions {
		if h := mcpHint(n, map[string]any{}); h == "" || h == string(n) {
			t.Errorf("mcpHint(%s) = %q, want words for an agent", n, h)
		}
	}
}
