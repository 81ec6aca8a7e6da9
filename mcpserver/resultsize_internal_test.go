package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// A result over MaxResultBytes is refused, and one that did its work (an apply)
// says it succeeded, with the gist of its result: the transaction to undo or look
// at. One whose two copies would pass the limit goes in structuredContent alone.
func TestResultSizeCap(t *testing.T) {
	big := &host.ApplyData{Result: apply.Result{TxID: "tx-big", PlanHash: "sha256:x", Skipped: []string{}, Files: []apply.FileChange{}}}
	for i := 0; len(big.Applied)*120 < MaxResultBytes+1<<20; i++ {
		big.Applied = append(big.Applied, apply.Applied{ID: strings.Repeat("a", 32), Path: "ServerScriptService/" + strings.Repeat("x", 60), PatchType: plan.Edit, Direction: plan.Push})
	}
	res := reply("sync.apply", result[host.ApplyData]{data: big})
	if !res.IsError {
		t.Fatal("a result over the limit went out as it is")
	}
	var env struct {
		Errors []struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &env); err != nil {
		t.Fatal(err)
	}
	e := env.Errors[0]
	gist, _ := e.Details["result"].(map[string]any)
	if e.Code != "E_PAYLOAD_TOO_LARGE" || !strings.Contains(e.Message, "the call succeeded") || gist["txId"] != "tx-big" || gist["applied"] != float64(len(big.Applied)) {
		t.Errorf("error = %+v, want the call said to have succeeded, with its transaction", e)
	}

	// Under the limit, but not twice: the envelope in structuredContent alone.
	half := &host.ApplyData{Result: apply.Result{TxID: "tx-half", Skipped: []string{}, Files: []apply.FileChange{}}}
	half.Applied = big.Applied[:len(big.Applied)*5/8]
	res = reply("sync.apply", result[host.ApplyData]{data: half})
	if res.IsError || len(res.StructuredContent.(json.RawMessage)) > MaxResultBytes {
		t.Fatalf("a result under the limit: isError %v", res.IsError)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "structuredContent only") || len(text) > 1000 {
		t.Errorf("text = %.200q, want a short note pointing to structuredContent", text)
	}
}
