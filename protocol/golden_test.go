package protocol_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

var update = flag.Bool("update", false, "rewrite the wire goldens in testdata")

func ptr[T any](v T) *T { return &v }

// messages are representative values of every protocol type, named after their
// golden file: the examples of docs/PROTOCOL.md, filled in.
func messages() []struct {
	name string
	v    any
} {
	sha := "da39a3ee5e6b4b0d3255bfef95601890afd80709"
	return []struct {
		name string
		v    any
	}{
		{"hello", protocol.Hello{Type: protocol.FrameHello, Protocol: 1, PluginVersion: "0.1.0", PlaceID: 0, PlaceName: "Place1", SessionID: "5f0c7a3e9b1d4c2a8e6f0b1d2c3a4e5f", Context: "edit",
			PlaceMarker: "0b7e4f9a2c1d48e6a3f5b8c9d0e1f2a3"}},
		{"welcome", protocol.Welcome{Type: protocol.FrameWelcome, Protocol: 1, HostVersion: "0.1.0", Project: "Name",
			FrameLimit: protocol.DefaultFrameLimit, PartBytes: protocol.DefaultPartBytes}},
		{"request-part", protocol.RequestPart{Type: protocol.FrameRequestPart, ID: "r18", Seq: 0, Count: 13,
			Data: `{"type":"request","id":"r18","method":"apply","params":{"txId":"tx-2","ops":[{"op":"edit","handle":"h12","set":{"Source":{"String":"-- 50 MB of Luau`}},
		{"bye", protocol.Bye{Type: protocol.FrameBye, Reason: "unsupported protocol 2; this host speaks 1"}},
		{"request", protocol.Request{Type: protocol.FrameRequest, ID: "r17", Method: protocol.MethodSnapshot, Params: json.RawMessage(`{}`)}},
		{"cancel", protocol.Cancel{Type: protocol.FrameCancel, ID: "r17"}},
		{"response-ok", protocol.Response{Type: protocol.FrameResponse, ID: "r17", OK: true, Result: protocol.TransactionsResult{TxIDs: []string{}}}},
		{"response-error", protocol.Response{Type: protocol.FrameResponse, ID: "r17", Error: &protocol.Error{
			Code: errcode.NotFound, Message: "no instance has handle \"h9\"; take a new snapshot", Details: map[string]any{"handle": "h9"}}}},
		{"partial", protocol.Partial{Type: protocol.FramePartial, ID: "r17", Seq: 0, Result: protocol.SnapshotPart{Instances: []protocol.SnapshotInstance{
			{Handle: "h1", Name: "Game", ClassName: "DataModel", Properties: protocol.Values{}}}}}},

		{"snapshot-params", protocol.SnapshotParams{
			Roots: [][]string{{"ReplicatedStorage"}, {"ServerScriptService", "Main"}},
			Nodes: [][]string{{"Workspace"}},
			Properties: map[string]map[string]string{
				"Part":   {"Anchored": "Bool", "Size": "Vector3", "Material": "Enum:Material"},
				"Script": {"RunContext": "Enum:RunContext"},
			},
			ChunkSize: 2000, Reuse: "s3-9f2c01ab", AllowUnchanged: true,
		}},
		{"snapshot-result", protocol.SnapshotResult{SnapshotID: "s4-9f2c01ab", Instances: []protocol.SnapshotInstance{
			{Handle: "h1", Name: "Game", ClassName: "DataModel", Properties: protocol.Values{}},
			{Handle: "h3", Parent: ptr("h1"), Name: "ServerScriptService", ClassName: "ServerScriptService", Properties: protocol.Values{}},
			{Handle: "h12", Parent: ptr("h3"), Name: "Main", ClassName: "Script", Properties: protocol.Values{
				"Source": json.RawMessage(`{"String":"print(1)\n"}`), "RunContext": json.RawMessage(`{"Enum":0}`)}},
			{Handle: "h13", Parent: ptr("h3"), Name: "Util", ClassName: "ModuleScript", Properties: protocol.Values{}, SourceFrom: "h4_12"},
		}}},
		{"snapshot-unchanged", protocol.SnapshotResult{Instances: []protocol.SnapshotInstance{}, SnapshotID: "s4-9f2c01ab", Unchanged: true}},

		{"apply-params", protocol.ApplyParams{TxID: "tx-1", Ops: []protocol.Op{
			{Op: protocol.OpEdit, Handle: "h12", ChangeID: "3f2a",
				Expect: &protocol.Expect{SourceSha1: sha, Properties: protocol.Values{"Anchored": json.RawMessage(`{"Bool":true}`)}},
				Set:    protocol.Values{"Source": json.RawMessage(`{"String":"print(2)\n"}`), "Size": json.RawMessage(`{"Vector3":[1,2,3]}`)}},
			{Op: protocol.OpAdd, Parent: "h3", Instance: &protocol.NewInstance{Name: "Util", ClassName: "ModuleScript",
				Properties: protocol.Values{"Source": json.RawMessage(`{"String":"return {}\n"}`)},
				Children:   []*protocol.NewInstance{{Name: "Data", ClassName: "Folder", Properties: protocol.Values{}, Children: []*protocol.NewInstance{}}}}},
			{Op: protocol.OpRemove, Handle: "h9", Expect: &protocol.Expect{SourceSha1: sha}},
		}}},
		{"apply-result", protocol.ApplyResult{TxID: "tx-1", Results: []protocol.OpResult{{Op: 0, OK: true}, {Op: 1, OK: true, Handle: "h40"}, {Op: 2, OK: true}}}},
		{"apply-failures", []protocol.Failure{
			{Op: 0, Handle: "h12", Field: "Source", Expected: sha, Actual: "2e65efe2a145dda7ee51d1741299f848e5bf752e"},
			{Op: 0, Handle: "h12", Field: "Anchored", Expected: json.RawMessage(`{"Bool":true}`), Actual: nil},
		}},
		{"apply-stale-handles", []protocol.StaleHandle{{Op: 2, Handle: "h9"}}},
		{"transactions-result", protocol.TransactionsResult{TxIDs: []string{"tx-1", "tx-2"}}},
		{"getscript-params-handle", protocol.GetScriptParams{Handle: "h12"}},
		{"getscript-params-path", protocol.GetScriptParams{Path: []string{"ServerScriptService", "Main"}, Draft: true}},
		{"getscript-params-ordinals", protocol.GetScriptParams{Path: []string{"ServerScriptService", "Dup"}, Ordinals: []int{0, 1}}},
		{"markplace-params", protocol.MarkPlaceParams{Marker: "0b7e4f9a2c1d48e6a3f5b8c9d0e1f2a3"}},
		{"markplace-result", protocol.MarkPlaceResult{Marker: "0b7e4f9a2c1d48e6a3f5b8c9d0e1f2a3"}},
		{"getscript-result", protocol.GetScriptResult{Source: "print(1)\n", SourceSha1: sha, ClassName: "Script", Path: []string{"ServerScriptService", "Main"}}},
		{"exec-params", protocol.ExecParams{Code: "print(1) return 2"}},
		{"exec-result", protocol.ExecResult{Success: true, Output: []protocol.OutputLine{{Level: "print", Text: "1"}}, Returns: []string{"2", "nil"},
			Values: []json.RawMessage{json.RawMessage(`{"Float64":2}`), json.RawMessage(`null`)}}},
		{"exec-error", protocol.ExecResult{Success: false, Error: "boom", Output: []protocol.OutputLine{}, Returns: []string{}}},
		{"review-params", protocol.ReviewParams{PlanHash: "sha256:00", Mode: protocol.ReviewStandard, Changes: []*plan.Change{{
			ID: "3f2a", Path: "ServerScriptService/Main", ClassName: "Script", PatchType: plan.Edit, Direction: plan.Push,
			DefaultSelection: plan.Push, Reason: plan.DiskChanged, StudioHash: sha, DiskHash: sha, BaseHash: sha,
			FsPath: "src/server/Main.server.luau", Fields: []string{"Source"},
			Properties: map[string]plan.PropertyDiff{"Anchored": {Current: dom.Tagged{V: dom.Bool(true)}, Incoming: dom.Tagged{V: dom.Bool(false)}}},
		}}}},
		{"review-result", protocol.ReviewResult{Decision: protocol.Accept, Selections: map[string]plan.Direction{"3f2a": plan.Push, "9b1c": plan.Skip}}},
		{"ping-result", protocol.PingResult{Time: 12.5}},
		{"query-params", protocol.QueryParams{Path: []string{"Workspace", "Q"}, Ordinals: []int{0, 1}, Depth: 1, Children: true, Attributes: true, Tags: true,
			Properties: map[string]map[string]string{"Part": {"Size": "Vector3", "Material": "Enum:Material"}}, ListServices: true, MaxNodes: 2000}},
		{"query-result", protocol.QueryResult{Instance: &protocol.QueryNode{Name: "Q", ClassName: "Folder", Ordinal: 1, ChildCount: 2,
			Attributes: protocol.Values{"Speed": json.RawMessage(`{"Float64":5}`)}, Tags: []string{"Hot"}, Duplicates: []protocol.Duplicate{{Name: "Dup", Count: 2}},
			Children: []*protocol.QueryNode{
				{Name: "Dup", ClassName: "Part", ChildCount: 0, Properties: protocol.Values{"Size": json.RawMessage(`{"Vector3":[1,2,3]}`)}, Unreadable: []string{"Nope"}},
				{Name: "Dup", ClassName: "Part", Ordinal: 1, ChildCount: 0, Properties: protocol.Values{"Size": json.RawMessage(`{"Vector3":[4,1,2]}`)}},
			}},
			Services: []protocol.QueryService{{Name: "Workspace", ClassName: "Workspace"}}}},
		{"logs-params", protocol.LogsParams{Count: 50, Direction: "newest", Levels: []string{"warning", "error"}, Since: 120}},
		{"logs-result", protocol.LogsResult{Entries: []protocol.LogEntry{{Seq: 121, Time: 1763942400.25, Level: "warning", Text: "careful"}}, TotalSeen: 130, Capacity: 1000}},
		{"state-result", protocol.StateResult{RunMode: "Play", Context: "server", PlaceID: 0, PlaceName: "Place1", GameID: 0}},
	}
}

// TestWireGoldens pins the JSON of every protocol type: a change to a type that
// changes the wire fails here, and docs/PROTOCOL.md must change with it.
func TestWireGoldens(t *testing.T) {
	for _, m := range messages() {
		t.Run(m.name, func(t *testing.T) {
			got, err := json.MarshalIndent(m.v, "", "  ")
			if err != nil {
				t.Fatalf("marshal %T: %v", m.v, err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", m.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden for %s (run go test ./protocol -update): %v", m.name, err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("wire shape of %T changed (-golden +now); update docs/PROTOCOL.md and run with -update if intended:\n%s", m.v, diff)
			}
			// What the other end sends decodes into the same type and encodes the
			// same way.
			back := reflect.New(reflect.TypeOf(m.v))
			if err := json.Unmarshal(want, back.Interface()); err != nil {
				t.Fatalf("decode golden into %T: %v", m.v, err)
			}
			again, err := json.MarshalIndent(back.Elem().Interface(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(again, '\n'), want) && !isAnyField(m.v) {
				t.Errorf("%T does not round-trip:\n%s", m.v, again)
			}
		})
	}
}

// isAnyField reports whether v holds a result or a value of type any, which a
// decode fills with generic JSON (key order differs, numbers are floats).
func isAnyField(v any) bool {
	switch v.(type) {
	case protocol.Response, protocol.Partial, []protocol.Failure:
		return true
	}
	return false
}
