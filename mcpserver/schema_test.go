package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUntypedFieldIsRefused: a data field whose type says nothing (any) would be
// published as a boolean schema; building the schema fails instead.
func TestUntypedFieldIsRefused(t *testing.T) {
	type loose struct {
		Value any `json:"value"`
	}
	if _, err := outputSchema[loose](false); err == nil || !strings.Contains(err.Error(), "/value") {
		t.Fatalf("outputSchema of an any field: %v, want an error naming it", err)
	}
	type typed struct {
		Value []string          `json:"value"`
		Free  map[string]any    `json:"free"`
		Maybe *string           `json:"maybe"`
		Opt   *struct{ X bool } `json:"opt,omitempty"`
	}
	s, err := outputSchema[typed](false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Properties["data"].AnyOf[0])
	want := `{"type":"object","properties":{"value":{"type":"array","items":{"type":"string"}},"free":{"type":"object"},` +
		`"maybe":{"anyOf":[{"type":"string"},{"type":"null"}]},"opt":{"type":"object","properties":{"X":{"type":"boolean"}},"required":["X"]}},` +
		`"required":["value","free","maybe"]}`
	if string(b) != want {
		t.Errorf("data schema\n%s\nwant\n%s", b, want)
	}
}

// TestNilSlicesGoOutAsEmpty: a nil slice or map in a tool's data (which the project
// writes as [] or {}) does not reach a client as a null its schema forbids.
func TestNilSlicesGoOutAsEmpty(t *testing.T) {
	type item struct {
		Tags []string `json:"tags"`
	}
	type data struct {
		Items   []item            `json:"items"`
		Names   []string          `json:"names"`
		ByName  map[string]string `json:"byName"`
		Skipped []string          `json:"skipped,omitempty"`
		Note    *string           `json:"note"`
	}
	schema, err := outputSchema[data](false)
	if err != nil {
		t.Fatal(err)
	}
	res := replyAs("x", result[data]{data: &data{Items: []item{{}}}}, schema)
	got := string(res.StructuredContent.(json.RawMessage))
	want := `"data":{"byName":{},"items":[{"tags":[]}],"names":[],"note":null}`
	if !strings.Contains(got, want) {
		t.Fatalf("structured content %s, want %s", got, want)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal([]byte(got), &v)
	if err := rs.Validate(&v); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != got {
		t.Fatalf("text %s differs from the structured content %s", text, got)
	}
	// Data without nils is sent as it is encoded.
	clean := replyAs("x", result[data]{data: &data{Items: []item{}, Names: []string{"a"}, ByName: map[string]string{}}}, schema)
	if got := string(clean.StructuredContent.(json.RawMessage)); !strings.Contains(got, `"data":{"items":[],"names":["a"],"byName":{},"note":null}`) {
		t.Fatalf("structured content %s", got)
	}
}

// BenchmarkReplyPlan measures building sync_plan's result for 10,000 changes: the
// envelope's encoding and the walk that looks for nil slices and maps.
func BenchmarkReplyPlan(b *testing.B) {
	schema, err := outputSchema[host.PlanData](false)
	if err != nil {
		b.Fatal(err)
	}
	d := &host.PlanData{PlanHash: "sha256:x", ConfirmToken: "t", Changes: make([]*plan.Change, 10000)}
	for i := range d.Changes {
		d.Changes[i] = &plan.Change{ID: fmt.Sprintf("%032x", i), Path: "ServerScriptService/S" + fmt.Sprint(i), ClassName: "Script",
			PatchType: plan.Edit, Direction: plan.Push, DefaultSelection: plan.Push, Reason: plan.DiskChanged,
			StudioHash: strings.Repeat("a", 40), DiskHash: strings.Repeat("b", 40), BaseHash: strings.Repeat("a", 40),
			FsPath: "src/server/S.server.luau", Fields: []string{"Source"}, Properties: map[string]plan.PropertyDiff{}}
	}
	b.Run("reply", func(b *testing.B) {
		for b.Loop() {
			replyAs("sync.plan", result[host.PlanData]{data: d}, schema)
		}
	})
	b.Run("nil walk only", func(b *testing.B) {
		e := reflect.ValueOf(d)
		for b.Loop() {
			if nilsInside(e) {
				b.Fatal("nil found")
			}
		}
	})
}
