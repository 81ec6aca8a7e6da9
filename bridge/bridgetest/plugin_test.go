package bridgetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
)

const placeJSON = `{"placeId":1,"placeName":"Test","root":{"name":"Game","className":"DataModel","properties":{},"children":[
 {"name":"ReplicatedStorage","className":"ReplicatedStorage","properties":{},"children":[
  {"name":"Shared","className":"Folder","properties":{},"children":[
   {"name":"Util","className":"ModuleScript","properties":{"Source":{"String":"return {}\n"}}}]}]},
 {"name":"ServerScriptService","className":"ServerScriptService","properties":{},"children":[
  {"name":"Main","className":"Script","properties":{"Source":{"String":"print(1)\n"},"RunContext":{"Enum":1},"Disabled":{"Bool":false}}},
  {"name":"Main","className":"Script","properties":{"Source":{"String":"print(2)\n"}}}]},
 {"name":"Workspace","className":"Workspace","properties":{},"children":[
  {"name":"Part","className":"Part","properties":{"Anchored":{"Bool":true},"Size":{"Vector3":[4,1,2]},"Material":{"Enum":256}}},
  {"name":"Model","className":"Model","properties":{},"children":[
   {"name":"Part","className":"Part","properties":{"Anchored":{"Bool":false}}}]}]},
 {"name":"StarterPlayer","className":"StarterPlayer","properties":{},"children":[
  {"name":"Client","className":"LocalScript","properties":{"Source":{"String":"-- client\n"}}}]}]},
 "drafts":{"ReplicatedStorage/Shared/Util":"return { draft = true }\n"}}`

func testPlace(t testing.TB) *bridgetest.Place {
	t.Helper()
	place, err := bridgetest.LoadPlace(strings.NewReader(placeJSON))
	if err != nil {
		t.Fatalf("LoadPlace: %v", err)
	}
	return place
}

// connect serves a bridge on loopback, connects a plugin for place and returns both
// ends.
func connect(t testing.TB, place *bridgetest.Place) (*bridgetest.Plugin, *bridge.Session) {
	t.Helper()
	var p *bridgetest.Plugin
	sess := connectWith(t, place, func(q *bridgetest.Plugin) { p = q })
	return p, sess
}

type instance struct {
	Handle     string                     `json:"handle"`
	Parent     *string                    `json:"parent"`
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Properties map[string]json.RawMessage `json:"properties"`
	SourceHash string                     `json:"sourceHash"`
}

type snapshot struct {
	Instances []instance `json:"instances"`
}

// flat is an instance as tests compare it: its path and its properties as text.
type flat struct {
	Path  string
	Class string
	Props map[string]string
}

func (s snapshot) flatten() []flat {
	paths := map[string]string{}
	var out []flat
	for _, in := range s.Instances {
		path := in.Name
		if in.Parent != nil {
			path = paths[*in.Parent] + "/" + in.Name
		}
		paths[in.Handle] = path
		f := flat{Path: path, Class: in.ClassName}
		for k, v := range in.Properties {
			if f.Props == nil {
				f.Props = map[string]string{}
			}
			f.Props[k] = string(v)
		}
		out = append(out, f)
	}
	return out
}

// handle returns the handle of the first instance at path ("Game/Workspace/Part").
func (s snapshot) handle(t testing.TB, path string) string {
	t.Helper()
	for i, f := range s.flatten() {
		if f.Path == path {
			return s.Instances[i].Handle
		}
	}
	t.Fatalf("snapshot has no %s", path)
	return ""
}

func takeSnapshot(t testing.TB, sess *bridge.Session, params any) snapshot {
	t.Helper()
	var s snapshot
	if err := sess.Call(context.Background(), "snapshot", params, &s); err != nil {
		t.Fatalf("Call(snapshot %v): %v", params, err)
	}
	return s
}

func all() map[string]any { return map[string]any{"roots": [][]string{{}}} }

func TestSnapshot(t *testing.T) {
	main1 := map[string]string{"Source": `{"String":"print(1)\n"}`, "RunContext": `{"Enum":1}`}
	main2 := map[string]string{"Source": `{"String":"print(2)\n"}`}
	tests := []struct {
		name   string
		params map[string]any
		want   []flat
	}{
		{"root with descendants", map[string]any{"roots": [][]string{{"ReplicatedStorage"}}}, []flat{
			{Path: "Game", Class: "DataModel"},
			{Path: "Game/ReplicatedStorage", Class: "ReplicatedStorage"},
			{Path: "Game/ReplicatedStorage/Shared", Class: "Folder"},
			{Path: "Game/ReplicatedStorage/Shared/Util", Class: "ModuleScript", Props: map[string]string{"Source": `{"String":"return {}\n"}`}},
		}},
		{"node without descendants", map[string]any{"nodes": [][]string{{"Workspace"}}}, []flat{
			{Path: "Game", Class: "DataModel"},
			{Path: "Game/Workspace", Class: "Workspace"},
		}},
		{"duplicate siblings all match", map[string]any{"roots": [][]string{{"ServerScriptService", "Main"}}}, []flat{
			{Path: "Game", Class: "DataModel"},
			{Path: "Game/ServerScriptService", Class: "ServerScriptService"},
			{Path: "Game/ServerScriptService/Main", Class: "Script", Props: main1},
			{Path: "Game/ServerScriptService/Main", Class: "Script", Props: main2},
		}},
		{"asked properties that exist", map[string]any{
			"roots":      [][]string{{"Workspace"}},
			"properties": map[string]any{"Part": map[string]string{"Anchored": "Bool", "Size": "Vector3", "Missing": "Bool"}},
		}, []flat{
			{Path: "Game", Class: "DataModel"},
			{Path: "Game/Workspace", Class: "Workspace"},
			{Path: "Game/Workspace/Part", Class: "Part", Props: map[string]string{"Anchored": `{"Bool":true}`, "Size": `{"Vector3":[4,1,2]}`}},
			{Path: "Game/Workspace/Model", Class: "Model"},
			{Path: "Game/Workspace/Model/Part", Class: "Part", Props: map[string]string{"Anchored": `{"Bool":false}`}},
		}},
		{"each instance once", map[string]any{
			"roots": [][]string{{"Workspace", "Model"}, {"Workspace"}},
			"nodes": [][]string{{"Workspace"}, {"Workspace", "Model", "Part"}, {}},
		}, []flat{
			{Path: "Game", Class: "DataModel"},
			{Path: "Game/Workspace", Class: "Workspace"},
			{Path: "Game/Workspace/Part", Class: "Part"},
			{Path: "Game/Workspace/Model", Class: "Model"},
			{Path: "Game/Workspace/Model/Part", Class: "Part"},
		}},
		{"game itself", map[string]any{"nodes": [][]string{{}}}, []flat{
			{Path: "Game", Class: "DataModel"},
		}},
		{"no match", map[string]any{"roots": [][]string{{"Nowhere"}}}, nil},
	}
	_, sess := connect(t, testPlace(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := takeSnapshot(t, sess, tt.params).flatten()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("snapshot(%v) mismatch (-want +got):\n%s", tt.params, diff)
			}
		})
	}
}

// TestSnapshotKnownSources: a plugin whose engine hashes sends a known Source as its
// git blob id, and every other Source as text; one that does not hash sends text.
func TestSnapshotKnownSources(t *testing.T) {
	known := gitblob.Hash([]byte("print(1)\n"))
	params := map[string]any{"roots": [][]string{{"ServerScriptService"}}, "knownSources": []string{known, gitblob.Hash([]byte("other"))}}
	for _, hashes := range []bool{true, false} {
		t.Run(fmt.Sprint("hashes=", hashes), func(t *testing.T) {
			sess := connectWith(t, testPlace(t), func(p *bridgetest.Plugin) { p.HashSources = hashes })
			var got []string
			for _, in := range takeSnapshot(t, sess, params).Instances {
				if in.ClassName == "Script" {
					got = append(got, fmt.Sprintf("hash=%q source=%s", in.SourceHash, in.Properties["Source"]))
				}
			}
			want := []string{`hash="" source={"String":"print(1)\n"}`, `hash="" source={"String":"print(2)\n"}`}
			if hashes {
				want[0] = fmt.Sprintf("hash=%q source=", known)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("scripts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSnapshotFrames reads the plugin's frames on a bare WebSocket server to check
// the chunking itself.
func TestSnapshotFrames(t *testing.T) {
	frames := make(chan []string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var hello map[string]any
		ws.ReadJSON(&hello)
		ws.WriteJSON(map[string]any{"type": "welcome", "protocol": 1})
		ws.WriteJSON(map[string]any{"type": "request", "id": "r1", "method": "snapshot",
			"params": map[string]any{"roots": [][]string{{"Workspace"}}, "chunkSize": 2}})
		var got []string
		for {
			var f struct {
				Type   string
				ID     string
				Seq    int
				Result struct{ Instances []instance }
			}
			if err := ws.ReadJSON(&f); err != nil {
				break
			}
			var names []string
			for _, in := range f.Result.Instances {
				names = append(names, in.Name)
			}
			got = append(got, fmt.Sprintf("%s %s %d %v", f.Type, f.ID, f.Seq, names))
			if f.Type == "response" {
				break
			}
		}
		frames <- got
	}))
	defer ts.Close()
	p := bridgetest.New(testPlace(t))
	if err := p.Connect(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http")); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := []string{
		"partial r1 0 [Game Workspace]",
		"partial r1 1 [Part Model]",
		"response r1 0 [Part]",
	}
	select {
	case got := <-frames:
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("frames mismatch (-want +got):\n%s", diff)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer to snapshot")
	}
}

func TestStaleHandle(t *testing.T) {
	_, sess := connect(t, testPlace(t))
	first := takeSnapshot(t, sess, all())
	old := first.handle(t, "Game/ServerScriptService/Main")
	takeSnapshot(t, sess, all())

	err := sess.Call(context.Background(), "getScript", map[string]string{"handle": old}, nil)
	if errcode.Of(err) != errcode.NotFound {
		t.Errorf("getScript(stale %s) = %v, want E_NOT_FOUND", old, err)
	}
	apply := map[string]any{"txId": "tx-1", "ops": []map[string]any{
		{"op": "edit", "handle": old, "set": map[string]any{"Source": map[string]string{"String": "x"}}}}}
	err = sess.Call(context.Background(), "apply", apply, nil)
	if errcode.Of(err) != errcode.NotFound {
		t.Errorf("apply(stale %s) = %v, want E_NOT_FOUND", old, err)
	}
}

type applyResult struct {
	TxID    string `json:"txId"`
	Results []struct {
		Op     int    `json:"op"`
		OK     bool   `json:"ok"`
		Handle string `json:"handle"`
	} `json:"results"`
}

func TestApplyRefusalChangesNothing(t *testing.T) {
	sha := bridgetest.BlobSHA1
	tests := []struct {
		name     string
		op       func(s snapshot) map[string]any // the op after two good ones
		wantCode errcode.Code
		wantFail string // JSON of details.failures, when wantCode is E_PRECONDITION_FAILED
	}{
		{"wrong source hash", func(s snapshot) map[string]any {
			return map[string]any{"op": "remove", "handle": s.handle(t, "Game/ReplicatedStorage/Shared/Util"),
				"expect": map[string]any{"sourceSha1": sha("return nil\n")}}
		}, errcode.PreconditionFailed, fmt.Sprintf(`[{"op":2,"handle":"h4","field":"Source","expected":%q,"actual":%q}]`,
			sha("return nil\n"), sha("return {}\n"))},
		{"property beyond tolerance", func(s snapshot) map[string]any {
			return map[string]any{"op": "edit", "handle": s.handle(t, "Game/Workspace/Part"),
				"expect": map[string]any{"properties": map[string]any{"Size": map[string]any{"Vector3": []float64{4.001, 1, 2}}}},
				"set":    map[string]any{"Anchored": map[string]bool{"Bool": false}}}
		}, errcode.PreconditionFailed, `[{"op":2,"handle":"h9","field":"Size","expected":{"Vector3":[4.001,1,2]},"actual":{"Vector3":[4,1,2]}}]`},
		{"property absent", func(s snapshot) map[string]any {
			return map[string]any{"op": "edit", "handle": s.handle(t, "Game/Workspace/Model"),
				"expect": map[string]any{"properties": map[string]any{"Transparency": map[string]float64{"Float32": 0}}},
				"set":    map[string]any{"Transparency": map[string]float64{"Float32": 1}}}
		}, errcode.PreconditionFailed, `[{"op":2,"handle":"h10","field":"Transparency","expected":{"Float32":0},"actual":null}]`},
		{"unknown handle", func(s snapshot) map[string]any {
			return map[string]any{"op": "remove", "handle": "h999"}
		}, errcode.NotFound, ""},
		{"unknown parent", func(s snapshot) map[string]any {
			return map[string]any{"op": "add", "parent": "h999", "instance": map[string]any{"name": "X", "className": "Folder"}}
		}, errcode.NotFound, ""},
		{"value that is not tagged, after other ops ran", func(s snapshot) map[string]any {
			return map[string]any{"op": "edit", "handle": s.handle(t, "Game/Workspace/Part"),
				"set": map[string]any{"Anchored": map[string]bool{"Bool": false}, "Transparency": 0.5}}
		}, errcode.ApplyFailed, ""},
		{"sets Parent", func(s snapshot) map[string]any {
			return map[string]any{"op": "edit", "handle": s.handle(t, "Game/Workspace/Part"),
				"set": map[string]any{"Parent": map[string]string{"Ref": "h1"}}}
		}, errcode.BadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, sess := connect(t, testPlace(t))
			s := takeSnapshot(t, sess, all())
			before := p.Place()
			ops := []map[string]any{
				{"op": "edit", "handle": s.handle(t, "Game/ServerScriptService/Main"),
					"expect": map[string]any{"sourceSha1": sha("print(1)\n")},
					"set":    map[string]any{"Source": map[string]string{"String": "print(10)\n"}}},
				{"op": "add", "parent": s.handle(t, "Game/Workspace"),
					"instance": map[string]any{"className": "Folder"}},
				tt.op(s),
				{"op": "remove", "handle": s.handle(t, "Game/ServerScriptService/Main"),
					"expect": map[string]any{"sourceSha1": sha("print(1)\n")}},
			}
			err := sess.Call(context.Background(), "apply", map[string]any{"txId": "tx-1", "ops": ops}, nil)
			var e *errcode.Error
			if !errors.As(err, &e) || e.Code != tt.wantCode {
				t.Fatalf("apply = %v, want %s", err, tt.wantCode)
			}
			if tt.wantFail != "" {
				got, _ := json.Marshal(e.Details["failures"])
				var want any
				json.Unmarshal([]byte(tt.wantFail), &want)
				var gotV any
				json.Unmarshal(got, &gotV)
				if diff := cmp.Diff(want, gotV); diff != "" {
					t.Errorf("details.failures mismatch (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(before, p.Place()); diff != "" {
				t.Errorf("place changed by a refused apply (-before +after):\n%s", diff)
			}
			var txs struct{ TxIDs []string }
			if err := sess.Call(context.Background(), "transactions", nil, &txs); err != nil || len(txs.TxIDs) != 0 {
				t.Errorf("transactions = %v, %v; want none", txs.TxIDs, err)
			}
		})
	}
}

func TestApply(t *testing.T) {
	place := testPlace(t)
	place.Drafts = nil // (TestApplyRefusesUnsavedEditorText has them)
	p, sess := connect(t, place)
	s := takeSnapshot(t, sess, all())
	main := s.handle(t, "Game/ServerScriptService/Main")
	ops := []map[string]any{
		{"op": "edit", "handle": s.handle(t, "Game/Workspace/Part"),
			// Within 1e-4 of the stored value: Studio's float round trip.
			"expect": map[string]any{"properties": map[string]any{
				"Size": map[string]any{"Vector3": []float64{4.00005, 1, 1.99995}}, "Anchored": map[string]bool{"Bool": true}}},
			"set": map[string]any{"Anchored": map[string]bool{"Bool": false}, "Material": map[string]int{"Enum": 512},
				"Name": map[string]string{"String": "Floor"}}},
		{"op": "add", "parent": s.handle(t, "Game/ReplicatedStorage/Shared"), "instance": map[string]any{
			"name": "Lib", "className": "Folder", "children": []map[string]any{
				{"name": "Init", "className": "ModuleScript", "properties": map[string]any{"Source": map[string]string{"String": "return 1\n"}}},
				{"className": "Configuration"}}}},
		// Removes run after edits, as in Studio: editing then removing works.
		{"op": "remove", "handle": main},
		{"op": "edit", "handle": main, "set": map[string]any{"Source": map[string]string{"String": "print(10)\n"}}},
		{"op": "remove", "handle": s.handle(t, "Game/ReplicatedStorage/Shared/Util"),
			"expect": map[string]any{"sourceSha1": bridgetest.BlobSHA1("return {}\n")}},
	}
	var res applyResult
	if err := sess.Call(context.Background(), "apply", map[string]any{"txId": "tx-9", "ops": ops}, &res); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.TxID != "tx-9" || len(res.Results) != len(ops) || res.Results[1].Handle == "" {
		t.Fatalf("apply result = %+v, want tx-9 with %d results and a handle for the add", res, len(ops))
	}

	want := testPlace(t)
	part := want.Find("Workspace", "Part")
	part.Name = "Floor"
	part.Properties["Anchored"] = json.RawMessage(`{"Bool":false}`)
	part.Properties["Material"] = json.RawMessage(`{"Enum":512}`)
	shared := want.Find("ReplicatedStorage", "Shared")
	init := &bridgetest.Node{Name: "Init", ClassName: "ModuleScript", Properties: map[string]json.RawMessage{}}
	init.SetSource("return 1\n")
	config := &bridgetest.Node{Name: "Configuration", ClassName: "Configuration", Properties: map[string]json.RawMessage{}}
	shared.Children = []*bridgetest.Node{{Name: "Lib", ClassName: "Folder", Properties: map[string]json.RawMessage{},
		Children: []*bridgetest.Node{init, config}}}
	sss := want.Find("ServerScriptService")
	sss.Children = sss.Children[1:]
	want.Drafts = nil
	if diff := cmp.Diff(want, p.Place(), cmp.Transformer("compact", compactJSON)); diff != "" {
		t.Errorf("place after apply mismatch (-want +got):\n%s", diff)
	}

	// The added instance's handle is live.
	var lib struct{ Path []string }
	err := sess.Call(context.Background(), "getScript", map[string]string{"handle": res.Results[1].Handle}, &lib)
	if errcode.Of(err) != errcode.NotAScript {
		t.Errorf("getScript(added folder) = %v, want E_NOT_A_SCRIPT", err)
	}
	// The removed instance's handle is not.
	err = sess.Call(context.Background(), "getScript", map[string]string{"handle": s.handle(t, "Game/ReplicatedStorage/Shared/Util")}, nil)
	if errcode.Of(err) != errcode.NotFound {
		t.Errorf("getScript(removed) = %v, want E_NOT_FOUND", err)
	}
}

// TestApplyRefusesUnsavedEditorText: as the plugin in Studio, the fake refuses to
// write or remove a script whose editor text (a draft) differs from its Source, or to
// remove a folder holding one, marking the failure editor (and descendant).
func TestApplyRefusesUnsavedEditorText(t *testing.T) {
	p, sess := connect(t, testPlace(t)) // a draft on ReplicatedStorage/Shared/Util
	s := takeSnapshot(t, sess, all())
	util, shared := s.handle(t, "Game/ReplicatedStorage/Shared/Util"), s.handle(t, "Game/ReplicatedStorage/Shared")
	for _, tc := range []struct {
		name       string
		op         map[string]any
		descendant string
	}{
		{"write", map[string]any{"op": "edit", "handle": util, "set": map[string]any{"Source": map[string]string{"String": "return 2\n"}}}, ""},
		{"remove", map[string]any{"op": "remove", "handle": util}, ""},
		{"remove its folder", map[string]any{"op": "remove", "handle": shared}, "Util"},
	} {
		err := sess.Call(context.Background(), "apply", map[string]any{"txId": "tx-" + tc.name, "ops": []map[string]any{tc.op}}, nil)
		ce := errcode.As(err)
		list, _ := ce.Details["failures"].([]any)
		if ce.Code != errcode.PreconditionFailed || len(list) != 1 {
			t.Fatalf("%s: %v, want one precondition failure", tc.name, err)
		}
		f, _ := list[0].(map[string]any)
		if f["editor"] != true || f["field"] != "Source" || f["actual"] != bridgetest.BlobSHA1("return { draft = true }\n") || (f["descendant"] != nil) != (tc.descendant != "") ||
			(tc.descendant != "" && f["descendant"] != tc.descendant) {
			t.Errorf("%s: failure %v", tc.name, f)
		}
	}
	if got := p.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return {}\n" {
		t.Errorf("Util after the refusals: %q", got)
	}
}

func compactJSON(r json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return string(r)
	}
	return b.String()
}

// canonicalJSON is r compact with its object keys sorted, so answers compare by
// content whatever order the plugin wrote their fields in.
func canonicalJSON(r json.RawMessage) string {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTransactionsKeepsLast32(t *testing.T) {
	_, sess := connect(t, testPlace(t))
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("tx-%d", i)
		if err := sess.Call(context.Background(), "apply", map[string]any{"txId": id, "ops": []any{}}, nil); err != nil {
			t.Fatal(err)
		}
		if i >= 8 {
			want = append(want, id)
		}
	}
	var got struct{ TxIDs []string }
	if err := sess.Call(context.Background(), "transactions", nil, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.TxIDs); diff != "" {
		t.Errorf("transactions mismatch (-want +got):\n%s", diff)
	}
}

func TestGetScript(t *testing.T) {
	p, sess := connect(t, testPlace(t))
	// Util's draft comes with the place; Client's is set here.
	if err := p.SetDraft([]string{"StarterPlayer", "Client"}, "-- typing\n"); err != nil {
		t.Fatal(err)
	}
	s := takeSnapshot(t, sess, all())
	type result struct {
		Source     string   `json:"source"`
		SourceSHA1 string   `json:"sourceSha1"`
		ClassName  string   `json:"className"`
		IsDraft    bool     `json:"isDraft"`
		Path       []string `json:"path"`
	}
	util := []string{"ReplicatedStorage", "Shared", "Util"}
	tests := []struct {
		name     string
		params   map[string]any
		want     result
		wantCode errcode.Code
	}{
		{"by path", map[string]any{"path": util},
			result{"return {}\n", bridgetest.BlobSHA1("return {}\n"), "ModuleScript", false, util}, ""},
		{"by handle", map[string]any{"handle": s.handle(t, "Game/ServerScriptService/Main")},
			result{"print(1)\n", bridgetest.BlobSHA1("print(1)\n"), "Script", false, []string{"ServerScriptService", "Main"}}, ""},
		{"draft", map[string]any{"path": util, "draft": true},
			result{"return { draft = true }\n", bridgetest.BlobSHA1("return { draft = true }\n"), "ModuleScript", true, util}, ""},
		{"draft set by SetDraft", map[string]any{"path": []string{"StarterPlayer", "Client"}, "draft": true},
			result{"-- typing\n", bridgetest.BlobSHA1("-- typing\n"), "LocalScript", true, []string{"StarterPlayer", "Client"}}, ""},
		{"draft without a document", map[string]any{"path": []string{"ServerScriptService", "Main"}, "draft": true},
			result{"print(1)\n", bridgetest.BlobSHA1("print(1)\n"), "Script", false, []string{"ServerScriptService", "Main"}}, ""},
		{"not a script", map[string]any{"path": []string{"Workspace"}}, result{}, errcode.NotAScript},
		{"no such path", map[string]any{"path": []string{"Workspace", "Nope"}}, result{}, errcode.NotFound},
		{"unknown handle", map[string]any{"handle": "h0"}, result{}, errcode.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			err := sess.Call(context.Background(), "getScript", tt.params, &got)
			if tt.wantCode != "" {
				if errcode.Of(err) != tt.wantCode {
					t.Fatalf("getScript(%v) = %v, want %s", tt.params, err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("getScript(%v): %v", tt.params, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("getScript(%v) mismatch (-want +got):\n%s", tt.params, diff)
			}
		})
	}
}

func TestExecReviewPing(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(p *bridgetest.Plugin)
		method string
		params any
		want   string
	}{
		{"exec default", nil, "exec", map[string]string{"code": "print(1)"},
			`{"output":[],"returns":[],"success":true}`},
		{"exec func", func(p *bridgetest.Plugin) {
			p.Exec = func(code string) (any, error) {
				return map[string]any{"success": false, "error": "boom: " + code, "output": []any{}}, nil
			}
		}, "exec", map[string]string{"code": "error('x')"}, `{"error":"boom: error('x')","output":[],"success":false}`},
		{"review default", nil, "review", map[string]any{"planHash": "sha256:00", "mode": "standard", "changes": []map[string]any{
			{"id": "a", "defaultSelection": "pull"}, {"id": "b", "direction": "push"}, {"id": "c", "direction": nil}}},
			`{"decision":"accept","selections":{"a":"pull","b":"push","c":"skip"}}`},
		{"review func", func(p *bridgetest.Plugin) {
			p.Review = func(json.RawMessage) (any, error) { return map[string]any{"decision": "abort"}, nil }
		}, "review", map[string]any{"changes": []any{}}, `{"decision":"abort"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := connectWith(t, testPlace(t), tt.setup)
			var got json.RawMessage
			if err := sess.Call(context.Background(), tt.method, tt.params, &got); err != nil {
				t.Fatalf("Call(%s): %v", tt.method, err)
			}
			if diff := cmp.Diff(tt.want, canonicalJSON(got)); diff != "" {
				t.Errorf("Call(%s) mismatch (-want +got):\n%s", tt.method, diff)
			}
		})
	}
	t.Run("ping", func(t *testing.T) {
		sess := connectWith(t, testPlace(t), nil)
		var got struct{ Time *float64 }
		if err := sess.Call(context.Background(), "ping", nil, &got); err != nil || got.Time == nil {
			t.Errorf("ping = %v, %v; want a time", got.Time, err)
		}
	})
}

// connectWith serves a bridge on loopback and connects a plugin for place, its fields
// set by setup (if not nil) first.
func connectWith(t testing.TB, place *bridgetest.Place, setup func(*bridgetest.Plugin)) *bridge.Session {
	t.Helper()
	srv := bridge.NewServer(bridge.Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { srv.Close() })
	p := bridgetest.New(place)
	if setup != nil {
		setup(p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Connect(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/plugin"); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	sess, err := srv.WaitSession(ctx, p.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}
