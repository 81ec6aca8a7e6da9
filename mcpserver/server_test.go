package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/mcpserver"
)

var updateSnaps = flag.Bool("update", false, "rewrite the tool schema snapshots")

// connect starts a host with the fake plugin and an MCP client over in-memory transports.
func connect(t *testing.T, mutate func(*bridgetest.Place)) (*hosttest.Env, *mcp.ClientSession) {
	t.Helper()
	e := hosttest.Start(t, nil, mutate)
	return e, connectTo(t, e.Host)
}

// connectTo serves eng over in-memory transports and connects the go-sdk client.
func connectTo(t *testing.T, eng host.Engine) *mcp.ClientSession {
	t.Helper()
	srv := mcpserver.New(eng, "test")
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// env is the envelope as a client sees it.
type env struct {
	SchemaVersion int             `json:"schemaVersion"`
	OK            bool            `json:"ok"`
	Command       string          `json:"command"`
	Data          json.RawMessage `json:"data"`
	Warnings      []string        `json:"warnings"`
	Errors        []struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"errors"`
}

// schemas holds, per tool, the outputSchema a client gets from tools/list and the
// closed one (every struct with additionalProperties: false), which also finds a
// field the schema does not declare.
var schemas struct {
	sync.Mutex
	published, closed map[string]*jsonschema.Resolved
}

// checkOutput validates a tool result's structured content against the tool's
// outputSchema, as published and closed.
func checkOutput(t *testing.T, cs *mcp.ClientSession, name string, structured any) {
	t.Helper()
	schemas.Lock()
	defer schemas.Unlock()
	if schemas.published == nil {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas.published, schemas.closed = map[string]*jsonschema.Resolved{}, map[string]*jsonschema.Resolved{}
		for _, tool := range res.Tools {
			schemas.published[tool.Name] = resolve(t, tool.OutputSchema)
		}
		for n, s := range mcpserver.ClosedOutputSchemas() {
			schemas.closed[n] = resolve(t, s)
		}
	}
	b, err := json.Marshal(structured)
	if err != nil {
		t.Fatal(err)
	}
	for kind, m := range map[string]map[string]*jsonschema.Resolved{"published": schemas.published, "closed": schemas.closed} {
		rs := m[name]
		if rs == nil {
			t.Fatalf("%s: no %s output schema", name, kind)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(&v); err != nil {
			t.Fatalf("%s: structured content does not match the %s outputSchema: %v\n%s", name, kind, err, b)
		}
	}
}

// resolve reads a JSON Schema from any JSON-shaped value.
func resolve(t *testing.T, v any) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v\n%s", err, b)
	}
	return rs
}

// call calls a tool and returns its result and envelope, after checking that the
// structured content is the envelope, valid against the tool's outputSchema, and
// that the text carries the same envelope.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, env) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkOutput(t, cs, name, res.StructuredContent)
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	if p := emptyString(v, ""); p != "" && !strings.HasPrefix(p, "/data/output/") {
		t.Fatalf("%s: %s is \"\" (a field that does not apply is null or absent): %s", name, p, b)
	}
	var e env
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%s: structured content is not an envelope: %s", name, b)
	}
	if e.SchemaVersion != 1 {
		t.Fatalf("%s: schemaVersion %d", name, e.SchemaVersion)
	}
	if res.IsError == e.OK {
		t.Fatalf("%s: isError=%v but ok=%v", name, res.IsError, e.OK)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if i := strings.Index(text, "<json>"); i >= 0 {
		text = strings.TrimSuffix(text[i+len("<json>"):], "</json>")
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("%s: text content does not carry the envelope: %v: %s", name, err, text)
	}
	if a, _ := json.Marshal(fromText); string(a) != canon(t, b) {
		t.Fatalf("%s: text and structured content differ:\n%s\n%s", name, a, b)
	}
	return res, e
}

// emptyString returns the path of the first "" in a decoded JSON value, or "".
func emptyString(v any, path string) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return path + "/"
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p := emptyString(x[k], path+"/"+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range x {
			if p := emptyString(e, fmt.Sprintf("%s/%d", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func canon(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func code(e env) string {
	if len(e.Errors) == 0 {
		return ""
	}
	return e.Errors[0].Code
}

type planData struct {
	PlanHash     string       `json:"planHash"`
	ConfirmToken string       `json:"confirmToken"`
	Changes      []planChange `json:"changes"`
}

type planChange struct {
	ID         string  `json:"id"`
	Path       string  `json:"path"`
	Direction  *string `json:"direction"`
	Reason     string  `json:"reason"`
	StudioHash *string `json:"studioHash"`
	DiskHash   *string `json:"diskHash"`
	FsPath     *string `json:"fsPath"`
}

func TestToolSchemasSnapshot(t *testing.T) {
	_, cs := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"atlas_sync", "drift", "get_script", "run_code", "studio_logs", "studio_query", "studio_state", "studio_status",
		"sync_apply", "sync_plan", "sync_recover", "sync_undo"}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		b, _ := json.MarshalIndent(tool, "", "  ")
		path := filepath.Join("testdata", "toolsnaps", tool.Name+".snap")
		if *updateSnaps {
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		snap, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("no schema snapshot for %s (run go test ./mcpserver -update): %v", tool.Name, err)
			continue
		}
		if d := cmp.Diff(string(snap), string(b)+"\n"); d != "" {
			t.Errorf("schema of %s changed (-snapshot +now); run with -update if intended:\n%s", tool.Name, d)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	_, cs := connect(t, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("calling an unknown tool succeeded")
	}
}

func TestPlanGetScriptApplyWithOverride(t *testing.T) {
	e, cs := connect(t, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = 1 }\n")
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 1 }\n")

	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 1 || p.Changes[0].Direction != nil || p.Changes[0].Reason != "both_changed" {
		t.Fatalf("want one unresolved both_changed change, got %s", pe.Data)
	}
	ch := p.Changes[0]

	_, se := call(t, cs, "get_script", map[string]any{"id": ch.ID})
	var s struct {
		Source     string `json:"source"`
		StudioHash string `json:"studioHash"`
	}
	json.Unmarshal(se.Data, &s)
	if s.Source != "return { studio = 1 }\n" || ch.StudioHash == nil || s.StudioHash != *ch.StudioHash {
		t.Fatalf("get_script = %s", se.Data)
	}
	_, fe := call(t, cs, "get_script", map[string]any{"fsPath": "src/shared/Util.luau"})
	if !fe.OK {
		t.Fatalf("get_script by fsPath: %+v", fe.Errors)
	}

	// Without yes: refused before any token check.
	_, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": "garbage"})
	if code(ae) != "E_CONFIRM_REQUIRED" {
		t.Fatalf("apply without yes: %s", code(ae))
	}
	// Unresolved without overrides.
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true})
	if code(ae) != "E_UNRESOLVED" {
		t.Fatalf("apply unresolved: %s", code(ae))
	}
	// A wrong studioHash is a failed precondition.
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true,
		"overrides": []map[string]any{{"id": ch.ID, "direction": "push", "studioHash": strings.Repeat("0", 40)}}})
	if code(ae) != "E_PRECONDITION_FAILED" {
		t.Fatalf("apply with a wrong hash: %s", code(ae))
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true,
		"overrides": []map[string]any{{"id": "00000000000000000000000000000000", "direction": "push"}}})
	if code(ae) != "E_OVERRIDE_UNKNOWN_ID" {
		t.Fatalf("apply with an unknown id: %s", code(ae))
	}
	// The hint says to drop or correct the id, never to override it.
	if hint, _ := ae.Errors[0].Details["hint"].(string); !strings.Contains(hint, "drop or correct the overrides") || strings.Contains(hint, "for each listed change") {
		t.Errorf("unknown id hint = %q", hint)
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true,
		"overrides": []map[string]any{{"id": ch.ID, "direction": "push", "studioHash": s.StudioHash}}})
	if !ae.OK {
		t.Fatalf("apply with the right hash: %+v", ae.Errors)
	}
	if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return { disk = 1 }\n" {
		t.Fatalf("Studio has %q", got)
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true})
	if c := code(ae); c != "E_CONFIRM_TOKEN_REPLAYED" && c != "E_CONFIRM_TOKEN_MISMATCH" {
		t.Fatalf("replayed token: %s", c)
	}
	_, pe = call(t, cs, "sync_plan", map[string]any{})
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 0 {
		t.Fatalf("plan after apply: %s", pe.Data)
	}
}

func TestApplyRefusals(t *testing.T) {
	_, cs := connect(t, nil)
	_, ae := call(t, cs, "sync_apply", map[string]any{"yes": true})
	if code(ae) != "E_CONFIRM_TOKEN_REQUIRED" {
		t.Fatalf("no token: %s", code(ae))
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"yes": true, "confirmToken": "not.a.jwt"})
	if code(ae) != "E_CONFIRM_TOKEN_INVALID" {
		t.Fatalf("bad token: %s", code(ae))
	}
}

func TestGetScriptRefusals(t *testing.T) {
	_, cs := connect(t, nil)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"id": "0123456789abcdef0123456789abcdef"}, "E_NOT_FOUND"},
		{map[string]any{"fsPath": "../../etc/passwd"}, "E_NOT_FOUND"},
		{map[string]any{"id": dom.ChildID(dom.ChildID(dom.RootID, "Workspace", 0), "Spawn", 0)}, "E_NOT_A_SCRIPT"},
		{map[string]any{}, "E_BAD_REQUEST"},
	} {
		_, e := call(t, cs, "get_script", tc.args)
		if code(e) != tc.want {
			t.Errorf("get_script(%v) = %s, want %s", tc.args, code(e), tc.want)
		}
	}
}

// A script deleted in Studio since is not found there, and the next plan shows it.
func TestGetScriptOfAScriptGoneFromStudio(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Edit(func(root *bridgetest.Node) {
		sss := root.Child("ServerScriptService")
		sss.Children = slices.DeleteFunc(sss.Children, func(n *bridgetest.Node) bool { return n.Name == "Main" })
	})
	_, se := call(t, cs, "get_script", map[string]any{"fsPath": "src/server/Main.server.luau"})
	if code(se) != "E_NOT_FOUND" {
		t.Fatalf("get_script of a script deleted in Studio: %+v", se.Errors)
	}
	if next := fmt.Sprint(se.Errors[0].Details["nextActions"]); next != "[replan]" {
		t.Errorf("nextActions = %s, want [replan]", next)
	}
}

func TestAtlasSyncModes(t *testing.T) {
	e, cs := connect(t, nil)
	_, se := call(t, cs, "atlas_sync", map[string]any{"mode": "dryrun"})
	if !strings.Contains(string(se.Data), `"status":"empty"`) {
		t.Fatalf("in sync: %s", se.Data)
	}
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	_, se = call(t, cs, "atlas_sync", map[string]any{"mode": "dryrun"})
	if !strings.Contains(string(se.Data), `"status":"dryrun"`) {
		t.Fatalf("dryrun: %s", se.Data)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
		t.Fatalf("dryrun wrote Studio: %q", got)
	}
	_, se = call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail"})
	if !strings.Contains(string(se.Data), `"status":"success"`) {
		t.Fatalf("fastfail: %s", se.Data)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
		t.Fatalf("fastfail did not push: %q", got)
	}
	_, se = call(t, cs, "atlas_sync", map[string]any{"mode": "bogus"})
	if code(se) != "E_BAD_REQUEST" {
		t.Fatalf("bad mode: %s", code(se))
	}
}

func TestRunCodeAndStatus(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Exec = func(code string) (any, error) {
		return map[string]any{"success": true, "output": []map[string]string{{"level": "print", "text": code}}, "returns": []string{"2"}}, nil
	}
	_, re := call(t, cs, "run_code", map[string]any{"code": "print(1)"})
	if !re.OK || !strings.Contains(string(re.Data), `"returns":["2"]`) {
		t.Fatalf("run_code: %s %+v", re.Data, re.Errors)
	}
	_, st := call(t, cs, "studio_status", map[string]any{})
	if !strings.Contains(string(st.Data), `"sessions":[{`) {
		t.Fatalf("studio_status: %s", st.Data)
	}
	_, de := call(t, cs, "drift", map[string]any{})
	if !de.OK || !strings.Contains(string(de.Data), `"drift":false`) {
		t.Fatalf("drift: %s", de.Data)
	}
}

func TestPayloadGuard(t *testing.T) {
	_, cs := connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": strings.Repeat("x", mcpserver.MaxArgumentBytes+10)}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "E_PAYLOAD_TOO_LARGE") {
		t.Fatalf("oversized call: %+v", res)
	}
}

func TestAtlasSyncReviewPanel(t *testing.T) {
	conflict := func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = 1 }\n")
	}
	t.Run("standard with a conflict asks the person, who picks pull", func(t *testing.T) {
		e, cs := connect(t, conflict)
		hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 1 }\n")
		var reviewed json.RawMessage
		e.Plugin.Review = func(params json.RawMessage) (any, error) {
			reviewed = params
			var req struct {
				Changes []struct {
					ID string `json:"id"`
				} `json:"changes"`
			}
			json.Unmarshal(params, &req)
			return map[string]any{"decision": "accept", "selections": map[string]string{req.Changes[0].ID: "pull"}}, nil
		}
		_, se := call(t, cs, "atlas_sync", map[string]any{"mode": "standard"})
		if !strings.Contains(string(se.Data), `"status":"success"`) {
			t.Fatalf("standard: %s %+v", se.Data, se.Errors)
		}
		if !strings.Contains(string(reviewed), `"mode":"standard"`) {
			t.Errorf("review request = %s", reviewed)
		}
		got, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Util.luau"))
		if string(got) != "return { studio = 1 }\n" {
			t.Errorf("the person's pull was not applied: %q", got)
		}
	})
	t.Run("manual asks even when everything resolves; abort is rejected", func(t *testing.T) {
		e, cs := connect(t, nil)
		hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
		asked := false
		e.Plugin.Review = func(json.RawMessage) (any, error) {
			asked = true
			return map[string]any{"decision": "abort", "selections": map[string]string{}}, nil
		}
		_, se := call(t, cs, "atlas_sync", map[string]any{"mode": "manual"})
		if !asked || !strings.Contains(string(se.Data), `"status":"rejected"`) {
			t.Fatalf("manual abort: asked=%v %s", asked, se.Data)
		}
		if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
			t.Errorf("a rejected sync wrote Studio: %q", got)
		}
	})
	t.Run("fastfail with a conflict applies nothing", func(t *testing.T) {
		e, cs := connect(t, conflict)
		hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 1 }\n")
		res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail"})
		if !strings.Contains(string(se.Data), `"status":"fastfail_unresolved"`) || !strings.Contains(string(se.Data), `"unresolved":["`) {
			t.Fatalf("fastfail: %s", se.Data)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, "<json>") || !strings.Contains(text, "need a direction") {
			t.Errorf("text = %s", text)
		}
		if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return { studio = 1 }\n" {
			t.Errorf("fastfail wrote Studio: %q", got)
		}
	})
}

// TestToolSchemasArePortable checks every published schema against what clients
// and linters reject: the official TypeScript SDK refuses a boolean subschema in an
// outputSchema, and single-type dialects refuse type arrays. Output schemas hold no
// boolean anywhere; input schemas only additionalProperties: false. Every subschema
// says what its value is, and each tool's data is its own object type.
func TestToolSchemasArePortable(t *testing.T) {
	_, cs := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		for kind, schema := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			var v any
			b, _ := json.Marshal(schema)
			json.Unmarshal(b, &v)
			root, ok := v.(map[string]any)
			if !ok || root["type"] != "object" {
				t.Errorf("%s %s: root is not an object schema: %s", tool.Name, kind, b)
				continue
			}
			for _, p := range lint(v, "", "", kind == "outputSchema") {
				t.Errorf("%s %s: %s", tool.Name, kind, p)
			}
		}
		out, _ := json.Marshal(tool.OutputSchema)
		var o struct {
			Properties struct {
				Data struct {
					AnyOf []struct {
						Type       string         `json:"type"`
						Properties map[string]any `json:"properties"`
					} `json:"anyOf"`
				} `json:"data"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		json.Unmarshal(out, &o)
		d := o.Properties.Data.AnyOf
		if len(d) != 2 || d[0].Type != "object" || len(d[0].Properties) == 0 || d[1].Type != "null" {
			t.Errorf("%s: data is not the tool's object type or null: %s", tool.Name, out)
		}
		if want := []string{"schemaVersion", "ok", "command", "data", "warnings", "errors"}; !cmp.Equal(o.Required, want) {
			t.Errorf("%s: envelope requires %v, want %v", tool.Name, o.Required, want)
		}
	}
}

// lint walks a JSON Schema and lists what is not portable: a boolean where a
// schema is expected (in an input schema, additionalProperties: false is
// allowed), a type array, or a schema with no keyword that says what its value is.
func lint(node any, path, keyword string, output bool) []string {
	var out []string
	switch n := node.(type) {
	case bool:
		if output || keyword != "additionalProperties" || n {
			out = append(out, fmt.Sprintf("%s: boolean schema %v", path, n))
		}
		return out
	case map[string]any:
		if _, ok := n["type"].([]any); ok {
			out = append(out, fmt.Sprintf("%s: type array %v", path, n["type"]))
		}
		typed := false
		for _, k := range []string{"type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref", "not"} {
			if _, ok := n[k]; ok {
				typed = true
			}
		}
		if !typed {
			out = append(out, fmt.Sprintf("%s: untyped schema %v", path, n))
		}
		for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
			if m, ok := n[k].(map[string]any); ok {
				for name, sub := range m {
					out = append(out, lint(sub, path+"/"+k+"/"+name, k, output)...)
				}
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
			if a, ok := n[k].([]any); ok {
				for i, sub := range a {
					out = append(out, lint(sub, fmt.Sprintf("%s/%s/%d", path, k, i), k, output)...)
				}
			}
		}
		for _, k := range []string{"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems"} {
			if sub, ok := n[k]; ok {
				out = append(out, lint(sub, path+"/"+k, k, output)...)
			}
		}
	default:
		out = append(out, fmt.Sprintf("%s: %T where a schema is expected", path, node))
	}
	return out
}

// TestInvalidArguments: arguments that do not match a tool's input schema get one
// answer, an isError result whose envelope has E_BAD_REQUEST (invalid_arguments),
// and nothing runs.
func TestInvalidArguments(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	ran := false
	e.Plugin.Exec = func(string) (any, error) {
		ran = true
		return map[string]any{"success": true, "output": []any{}, "returns": []string{}}, nil
	}
	for _, tc := range []struct {
		tool string
		args any
		want string // in the message
	}{
		{"atlas_sync", map[string]any{"mode": "bogus"}, "mode"},
		{"atlas_sync", map[string]any{"mode": 3}, "mode"},
		{"atlas_sync", map[string]any{"overrides": []map[string]any{{"id": "x", "direction": "sideways"}}}, "direction"},
		{"atlas_sync", map[string]any{"overrides": []map[string]any{{"direction": "push"}}}, "id"},
		{"sync_apply", map[string]any{"yes": "true", "confirmToken": "t"}, "yes"},
		{"sync_plan", map[string]any{"sesionId": "typo"}, "sesionId"},
		{"run_code", map[string]any{}, "code"},
		{"run_code", map[string]any{"code": nil}, "code"},
		{"get_script", map[string]any{"id": 7}, "id"},
		{"drift", json.RawMessage(`[1,2]`), "object"},
		{"studio_status", json.RawMessage(`"x"`), "object"},
	} {
		res, env := call(t, cs, tc.tool, tc.args)
		if !res.IsError || code(env) != "E_BAD_REQUEST" || env.Errors[0].Details["reasonCode"] != "invalid_arguments" ||
			!strings.Contains(env.Errors[0].Message, tc.want) || string(env.Data) != "null" {
			t.Errorf("%s %v: isError=%v %+v, want E_BAD_REQUEST invalid_arguments naming %q, data null", tc.tool, tc.args, res.IsError, env.Errors, tc.want)
		}
	}
	if ran {
		t.Error("run_code ran with invalid arguments")
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
		t.Errorf("an invalid call wrote Studio: %q", got)
	}
}

// TestNullWhereAFieldDoesNotApply: through MCP, a plan's fields that do not apply
// are null (never ""), and defaultSelection is push, pull or null.
func TestNullWhereAFieldDoesNotApply(t *testing.T) {
	e, cs := connect(t, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = 1 }\n")
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 1 }\n")
	hosttest.Write(t, e.Dir, "src/server/New.server.luau", "print('new')\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p struct {
		Changes []map[string]any `json:"changes"`
	}
	json.Unmarshal(pe.Data, &p)
	byPath := map[string]map[string]any{}
	for _, c := range p.Changes {
		byPath[c["path"].(string)] = c
		for _, k := range []string{"direction", "defaultSelection", "studioHash", "diskHash", "baseHash", "fsPath"} {
			if v, ok := c[k]; !ok || v == "" {
				t.Errorf("%s: %s is %#v (present %v), want a value or null", c["path"], k, v, ok)
			}
		}
		if sel := c["defaultSelection"]; sel != nil && sel != "push" && sel != "pull" {
			t.Errorf("%s: defaultSelection %#v", c["path"], sel)
		}
		if c["defaultSelection"] != c["direction"] {
			t.Errorf("%s: defaultSelection %#v, direction %#v", c["path"], c["defaultSelection"], c["direction"])
		}
	}
	conflict, added := byPath["ReplicatedStorage/Shared/Util"], byPath["ServerScriptService/New"]
	if conflict == nil || added == nil {
		t.Fatalf("plan: %s", pe.Data)
	}
	if conflict["defaultSelection"] != nil || conflict["reason"] != "both_changed" || conflict["studioHash"] == nil || conflict["fsPath"] != "src/shared/Util.luau" {
		t.Errorf("conflict: %v", conflict)
	}
	if added["defaultSelection"] != "push" || added["studioHash"] != nil || added["baseHash"] != nil || added["diskHash"] == nil {
		t.Errorf("new script: %v", added)
	}
}
