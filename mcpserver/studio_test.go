package mcpserver_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/protocol"
)

// studioHook answers query, logs and state as the plugin does (the real plugin's
// answers are tested in plugin/tests and through atlas mcp --emulate).
func studioHook(context_ string) func(method string, params json.RawMessage) (any, error, bool) {
	return func(method string, params json.RawMessage) (any, error, bool) {
		switch method {
		case protocol.MethodQuery:
			return protocol.QueryResult{Instance: &protocol.QueryNode{Name: "Block", ClassName: "Part", ChildCount: 2,
				Properties: protocol.Values{"Size": json.RawMessage(`{"Vector3":[1,2,3]}`)}, Unreadable: []string{"Nope"},
				Attributes: protocol.Values{"Speed": json.RawMessage(`{"Float64":5}`)}, Tags: []string{"Hot"}, Duplicates: []protocol.Duplicate{{Name: "Twin", Count: 2}},
				Children: []*protocol.QueryNode{{Name: "Twin", ClassName: "Folder"}, {Name: "Twin", ClassName: "Folder", Ordinal: 1}}},
				Services: []protocol.QueryService{{Name: "Workspace", ClassName: "Workspace"}}}, nil, true
		case protocol.MethodLogs:
			return protocol.LogsResult{Entries: []protocol.LogEntry{{Seq: 7, Time: 1700000000.5, Level: "warning", Text: "careful in " + context_}},
				TotalSeen: 7, Capacity: 1000}, nil, true
		case protocol.MethodState:
			mode := "Edit"
			if context_ != "edit" {
				mode = "Play"
			}
			return protocol.StateResult{RunMode: mode, Context: context_, PlaceID: 0, PlaceName: "Game", GameID: 9}, nil, true
		}
		return nil, nil, false
	}
}

// The inspection tools' results validate against their published and closed
// outputSchemas, and a playtest's session is reached by context.
func TestStudioToolsResultsMatchTheirSchemas(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Hook = studioHook("edit")
	server := bridgetest.New(e.Plugin.Place().Clone())
	server.Context = "server"
	server.Hook = studioHook("server")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := server.Connect(ctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	if _, err := e.Host.Bridge().WaitSession(ctx, server.SessionID); err != nil {
		t.Fatal(err)
	}

	_, q := call(t, cs, "studio_query", map[string]any{"path": "Workspace/Block", "children": true, "attributes": true, "tags": true, "listServices": true, "depth": 1})
	if !q.OK || !strings.Contains(string(q.Data), `"Size":{"Vector3":[1,2,3]}`) || !strings.Contains(string(q.Data), `"duplicates":[{"ids":["`) {
		t.Fatalf("studio_query: %s %+v", q.Data, q.Errors)
	}
	_, bad := call(t, cs, "studio_query", map[string]any{"path": "A", "id": "b"})
	if code(bad) != "E_BAD_REQUEST" {
		t.Fatalf("path and id: %s", code(bad))
	}
	_, bad = call(t, cs, "studio_query", map[string]any{"depth": 99, "path": ""})
	if code(bad) != "E_BAD_REQUEST" {
		t.Fatalf("depth 99: %s", code(bad))
	}
	_, l := call(t, cs, "studio_logs", map[string]any{"context": "server", "levels": []string{"warning"}})
	if !l.OK || !strings.Contains(string(l.Data), `"text":"careful in server"`) || !strings.Contains(string(l.Data), `"time":"2023-11-14T22:13:20.5Z"`) {
		t.Fatalf("studio_logs on the server: %s %+v", l.Data, l.Errors)
	}
	_, st := call(t, cs, "studio_state", map[string]any{})
	var sd struct {
		RunMode  string `json:"runMode"`
		GameID   int64  `json:"gameId"`
		Sessions []struct {
			Context  string `json:"context"`
			ReadOnly bool   `json:"readOnly"`
			RunMode  string `json:"runMode"`
		} `json:"sessions"`
	}
	json.Unmarshal(st.Data, &sd)
	if sd.RunMode != "Play" || sd.GameID != 9 || len(sd.Sessions) != 2 {
		t.Fatalf("studio_state while a playtest runs: %s", st.Data)
	}
	_, r := call(t, cs, "run_code", map[string]any{"code": "return 1", "context": "server"})
	if !r.OK || !strings.Contains(string(r.Data), `"context":"server"`) || !strings.Contains(string(r.Data), `"values":[]`) {
		t.Fatalf("run_code on the server: %s %+v", r.Data, r.Errors)
	}
	// Sync never targets the playtest.
	_, p := call(t, cs, "sync_plan", map[string]any{"sessionId": server.SessionID})
	if code(p) != "E_STUDIO_READ_ONLY" || p.Errors[0].Details["reasonCode"] != "read_only_session" {
		t.Fatalf("sync_plan on the server: %+v", p.Errors)
	}
	_, u := call(t, cs, "sync_undo", map[string]any{"yes": true, "sessionId": server.SessionID})
	if code(u) != "E_STUDIO_READ_ONLY" {
		t.Fatalf("sync_undo on the server: %+v", u.Errors)
	}
}

// sync_undo has the rules of atlas sync undo, and the resources read the journal.
func TestSyncUndoAndTransactionResources(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 2 }\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 1 {
		t.Fatalf("plan: %s", pe.Data)
	}
	_, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true})
	if !ae.OK {
		t.Fatalf("apply: %+v", ae.Errors)
	}
	var applied struct {
		TxID string `json:"txId"`
	}
	json.Unmarshal(ae.Data, &applied)

	read := func(uri string) env {
		t.Helper()
		r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(r.Contents) != 1 || r.Contents[0].URI != uri || r.Contents[0].MIMEType != "application/json" {
			t.Fatalf("read %s: %+v", uri, r.Contents)
		}
		var e env
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &e); err != nil || !e.OK {
			t.Fatalf("read %s: %s", uri, r.Contents[0].Text)
		}
		return e
	}
	var list struct {
		Transactions []struct {
			TxID   string         `json:"txId"`
			State  string         `json:"state"`
			Counts map[string]int `json:"counts"`
		} `json:"transactions"`
	}
	json.Unmarshal(read("atlas://transactions").Data, &list)
	if len(list.Transactions) != 1 || list.Transactions[0].TxID != applied.TxID || list.Transactions[0].State != "committed" ||
		list.Transactions[0].Counts["changes"] != 1 || list.Transactions[0].Counts["studioOps"] != 1 {
		t.Fatalf("atlas://transactions: %+v", list)
	}
	var tx struct {
		Changes   []struct{ ID, Path string } `json:"changes"`
		StudioOps []struct {
			Op       string   `json:"op"`
			ChangeID string   `json:"changeId"`
			Set      []string `json:"set"`
		} `json:"studioOps"`
		Outcome struct {
			State string `json:"state"`
			Open  bool   `json:"open"`
		} `json:"outcome"`
	}
	json.Unmarshal(read("atlas://transactions/"+applied.TxID).Data, &tx)
	if len(tx.Changes) != 1 || tx.Changes[0].ID != p.Changes[0].ID || tx.Changes[0].Path != "ReplicatedStorage/Shared/Util" ||
		len(tx.StudioOps) != 1 || tx.StudioOps[0].Op != "edit" || tx.StudioOps[0].Set[0] != "Source" || tx.Outcome.State != "committed" || tx.Outcome.Open {
		t.Fatalf("atlas://transactions/{id}: %+v", tx)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "atlas://transactions/missing"}); err == nil {
		t.Fatal("an unknown transaction was read")
	}
	var status struct {
		Sessions []struct {
			Context string `json:"context"`
		} `json:"sessions"`
	}
	json.Unmarshal(read("atlas://status").Data, &status)
	if len(status.Sessions) != 1 || status.Sessions[0].Context != "edit" {
		t.Fatalf("atlas://status: %+v", status)
	}

	// Without yes: refused, nothing undone.
	_, u := call(t, cs, "sync_undo", map[string]any{"txId": applied.TxID})
	if code(u) != "E_CONFIRM_REQUIRED" {
		t.Fatalf("undo without yes: %s", code(u))
	}
	_, u = call(t, cs, "sync_undo", map[string]any{"txId": applied.TxID, "yes": true})
	if !u.OK {
		t.Fatalf("undo: %+v", u.Errors)
	}
	if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return {}\n" {
		t.Fatalf("Studio after undo: %q", got)
	}
	json.Unmarshal(read("atlas://transactions").Data, &list)
	if list.Transactions[0].State != "undone" {
		t.Fatalf("after undo: %+v", list)
	}
	_, u = call(t, cs, "sync_undo", map[string]any{"yes": true})
	if code(u) == "" || u.Errors[0].Details["reasonCode"] != "nothing_to_undo" {
		t.Fatalf("a second undo: %+v", u.Errors)
	}

	// A pull writes a file and no Studio op: the record names its change too.
	e.Plugin.Edit(func(root *bridgetest.Node) {
		root.Child("ServerScriptService").Child("Main").SetSource("print('from studio')\n")
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return {}\n")
	_, pe = call(t, cs, "sync_plan", map[string]any{})
	var pulled planData
	json.Unmarshal(pe.Data, &pulled)
	var mainID string
	for _, c := range pulled.Changes {
		if c.Path == "ServerScriptService/Main" {
			mainID = c.ID
		}
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": pulled.ConfirmToken, "yes": true, "skipUnresolved": true})
	if !ae.OK || mainID == "" {
		t.Fatalf("the pull: %+v %s", ae.Errors, pe.Data)
	}
	var pullTx struct {
		TxID string `json:"txId"`
	}
	json.Unmarshal(ae.Data, &pullTx)
	json.Unmarshal(read("atlas://transactions/"+pullTx.TxID).Data, &tx)
	if len(tx.Changes) != 1 || tx.Changes[0].ID != mainID || tx.Changes[0].Path != "ServerScriptService/Main" {
		t.Fatalf("the pull's record: %+v", tx)
	}
}

// game itself: no path, and a missing service's nearest instance is game (null).
func TestStudioQueryOfGame(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != protocol.MethodQuery {
			return nil, nil, false
		}
		var p protocol.QueryParams
		json.Unmarshal(params, &p)
		if len(p.Path) > 0 {
			return nil, &errcode.Error{Code: errcode.NotFound, Message: "no instance", Details: map[string]any{"nearest": []string{}, "missing": p.Path[0]}}, true
		}
		return protocol.QueryResult{Instance: &protocol.QueryNode{Name: "Game", ClassName: "DataModel", ChildCount: 1}}, nil, true
	}
	_, q := call(t, cs, "studio_query", map[string]any{"path": ""})
	if !q.OK || strings.Contains(string(q.Data), `"path"`) || !strings.Contains(string(q.Data), `"parentId":null`) {
		t.Fatalf("studio_query of game: %s %+v", q.Data, q.Errors)
	}
	_, m := call(t, cs, "studio_query", map[string]any{"path": "Nope"})
	if code(m) != "E_NOT_FOUND" || m.Errors[0].Details["nearest"] != nil || m.Errors[0].Details["nearestId"] != dom.RootID {
		t.Fatalf("missing service: %+v", m.Errors)
	}
}

// An apply with nothing to write (an empty plan, or every change skipped) journals
// no transaction, so it names none: its data has no txId (never an id that undo and
// the journal do not know), in sync_apply and atlas_sync alike. It does not hide
// the transaction before it: the journal still lists only that one, and sync_undo
// (the newest by default) undoes it.
func TestApplyOfNothingNamesNoTransaction(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 2 }\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	_, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true})
	var first struct {
		TxID string `json:"txId"`
	}
	json.Unmarshal(ae.Data, &first)
	if !ae.OK || first.TxID == "" {
		t.Fatalf("apply: %+v %s", ae.Errors, ae.Data)
	}

	noTx := func(what string, data json.RawMessage) {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v: %s", what, err, data)
		}
		if v, ok := m["txId"]; ok {
			t.Errorf("%s names transaction %v, which nothing journaled: %s", what, v, data)
		}
	}
	// An empty plan's token.
	_, pe = call(t, cs, "sync_plan", map[string]any{})
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 0 {
		t.Fatalf("plan after the apply: %s", pe.Data)
	}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true})
	if !ae.OK {
		t.Fatalf("apply of an empty plan: %+v", ae.Errors)
	}
	noTx("sync_apply of an empty plan", ae.Data)

	// Every change skipped.
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	_, pe = call(t, cs, "sync_plan", map[string]any{})
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 1 {
		t.Fatalf("plan: %s", pe.Data)
	}
	skip := []map[string]any{{"id": p.Changes[0].ID, "direction": "skip"}}
	_, ae = call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true, "overrides": skip})
	if !ae.OK {
		t.Fatalf("apply of skips: %+v", ae.Errors)
	}
	noTx("sync_apply of skips", ae.Data)
	res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": skip})
	var d struct {
		Status  string          `json:"status"`
		Applied json.RawMessage `json:"applied"`
	}
	json.Unmarshal(se.Data, &d)
	if !se.OK || d.Status != "success" || d.Applied == nil {
		t.Fatalf("atlas_sync of skips: %+v %s", se.Errors, se.Data)
	}
	noTx("atlas_sync's applied", d.Applied)
	if text := textOf(res); !strings.HasPrefix(text, "Applied nothing") || strings.Contains(text, "transaction") {
		t.Errorf("atlas_sync's summary = %q", text)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
		t.Errorf("a skipped change reached Studio: %q", got)
	}

	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "atlas://transactions"})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data struct {
			Transactions []struct {
				TxID string `json:"txId"`
			} `json:"transactions"`
		} `json:"data"`
	}
	json.Unmarshal([]byte(r.Contents[0].Text), &list)
	if len(list.Data.Transactions) != 1 || list.Data.Transactions[0].TxID != first.TxID {
		t.Fatalf("atlas://transactions = %s, want only %s", r.Contents[0].Text, first.TxID)
	}
	_, u := call(t, cs, "sync_undo", map[string]any{"yes": true})
	var undone struct {
		TxID string `json:"txId"`
	}
	json.Unmarshal(u.Data, &undone)
	if !u.OK || undone.TxID != first.TxID {
		t.Fatalf("sync_undo after applies of nothing: %+v %s, want %s undone", u.Errors, u.Data, first.TxID)
	}
}

// run_code and studio_logs name levels alike, as Enum.MessageType does (output,
// info, warning, error): the plugin's exec says print and warn, its log
// MessageOutput and MessageWarning, and the same messages read the same through both
// tools, so a level read from one filters the other.
func TestRunCodeAndLogsNameLevelsAlike(t *testing.T) {
	e, cs := connect(t, nil)
	lines := []struct{ exec, log, text string }{
		{"print", "output", "made it"}, {"warn", "warning", "careful"}, {"error", "error", "boom"},
	}
	e.Plugin.Exec = func(string) (any, error) {
		out := []map[string]string{}
		for _, l := range lines {
			out = append(out, map[string]string{"level": l.exec, "text": l.text})
		}
		return map[string]any{"success": false, "error": "boom", "output": out, "returns": []string{}}, nil
	}
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != protocol.MethodLogs {
			return nil, nil, false
		}
		var p protocol.LogsParams
		json.Unmarshal(params, &p)
		var entries []protocol.LogEntry
		for i, l := range lines {
			if len(p.Levels) == 0 || slices.Contains(p.Levels, l.log) {
				entries = append(entries, protocol.LogEntry{Seq: int64(i + 1), Time: 1700000000, Level: l.log, Text: l.text})
			}
		}
		return protocol.LogsResult{Entries: entries, TotalSeen: int64(len(lines)), Capacity: 1000}, nil, true
	}
	levels := func(data json.RawMessage, key string) map[string]string {
		t.Helper()
		var d map[string]json.RawMessage
		var list []struct{ Level, Text string }
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(d[key], &list); err != nil {
			t.Fatalf("%s: %v: %s", key, err, data)
		}
		m := map[string]string{}
		for _, l := range list {
			m[l.Text] = l.Level
		}
		return m
	}
	_, re := call(t, cs, "run_code", map[string]any{"code": "print('made it') warn('careful') error('boom')"})
	_, le := call(t, cs, "studio_logs", map[string]any{})
	ran, logged := levels(re.Data, "output"), levels(le.Data, "entries")
	want := map[string]string{"made it": "output", "careful": "warning", "boom": "error"}
	if !maps.Equal(ran, want) || !maps.Equal(logged, want) {
		t.Fatalf("levels: run_code %v, studio_logs %v; want both %v", ran, logged, want)
	}
	// A level run_code gave is one studio_logs filters by.
	_, le = call(t, cs, "studio_logs", map[string]any{"levels": []string{ran["careful"]}})
	if got := levels(le.Data, "entries"); !le.OK || len(got) != 1 || got["careful"] != "warning" {
		t.Fatalf("studio_logs levels [%s]: %+v %s", ran["careful"], le.Errors, le.Data)
	}
}

// sync_undo lists what it did in Studio as it lists the files: each instance's path
// and what was done there (restore, with what was put back; delete, for an instance
// the sync added), one per Studio op it counts.
func TestSyncUndoListsStudioOps(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 2 }\n")
	hosttest.Write(t, e.Dir, "src/shared/Extra.luau", "return 'extra'\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 2 {
		t.Fatalf("plan: %s", pe.Data)
	}
	if _, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true}); !ae.OK {
		t.Fatalf("apply: %+v", ae.Errors)
	}
	res, u := call(t, cs, "sync_undo", map[string]any{"yes": true})
	var d struct {
		StudioOps int `json:"studioOps"`
		Studio    []struct {
			Path       string   `json:"path"`
			Action     string   `json:"action"`
			Properties []string `json:"properties"`
		} `json:"studio"`
		Files []json.RawMessage `json:"files"`
	}
	if err := json.Unmarshal(u.Data, &d); err != nil || !u.OK {
		t.Fatalf("sync_undo: %v %+v %s", err, u.Errors, u.Data)
	}
	got := map[string]string{}
	for _, c := range d.Studio {
		got[c.Path] = c.Action + " " + strings.Join(c.Properties, ",")
	}
	want := map[string]string{"ReplicatedStorage/Shared/Util": "restore Source", "ReplicatedStorage/Shared/Extra": "delete "}
	if d.StudioOps != 2 || len(d.Studio) != d.StudioOps || !maps.Equal(got, want) {
		t.Fatalf("sync_undo's studio = %v (studioOps %d), want %v: %s", got, d.StudioOps, want, u.Data)
	}
	if e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Extra") != nil {
		t.Error("the added module is still in Studio")
	}
	text := textOf(res)
	for _, line := range []string{"- Studio: restore ReplicatedStorage/Shared/Util (Source)", "- Studio: delete ReplicatedStorage/Shared/Extra"} {
		if !strings.Contains(text, line) {
			t.Errorf("summary %q lacks %q", text, line)
		}
	}
}

// TestSyncUndoWarnsInTheEnvelope: sync_undo's warnings are the envelope's too, as
// sync_apply's are: an undo of a sync that removed an instance in Studio says it does
// not rebuild it.
func TestSyncUndoWarnsInTheEnvelope(t *testing.T) {
	e, cs := connect(t, nil)
	if err := os.Remove(filepath.Join(e.Dir, "src", "shared", "Util.luau")); err != nil {
		t.Fatal(err)
	}
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 1 {
		t.Fatalf("plan: %s", pe.Data)
	}
	if _, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true}); !ae.OK {
		t.Fatalf("apply: %+v", ae.Errors)
	}
	_, u := call(t, cs, "sync_undo", map[string]any{"yes": true})
	var d struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(u.Data, &d); err != nil || !u.OK || len(d.Warnings) != 1 {
		t.Fatalf("sync_undo: %v %+v %s", err, u.Errors, u.Data)
	}
	if !slices.Equal(u.Warnings, d.Warnings) || !strings.Contains(u.Warnings[0], "not rebuilt by an undo") {
		t.Fatalf("envelope warnings %q, data's %q", u.Warnings, d.Warnings)
	}
}

// TestSyncUndoOverUnsavedEditorText: an undo that would write a script whose Script
// Editor holds unsaved text is refused as an apply is (studio_unsaved_edit,
// save_in_studio), not as something changed since: Studio's saved Source is as the
// sync left it, so no plan would show anything.
func TestSyncUndoOverUnsavedEditorText(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 2 }\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if _, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true}); !ae.OK {
		t.Fatalf("apply: %+v", ae.Errors)
	}
	if err := e.Plugin.SetDraft([]string{"ReplicatedStorage", "Shared", "Util"}, "return { typing = true }\n"); err != nil {
		t.Fatal(err)
	}
	res, u := call(t, cs, "sync_undo", map[string]any{"yes": true})
	if !res.IsError || code(u) != "E_PRECONDITION_FAILED" || u.Errors[0].Details["reasonCode"] != "studio_unsaved_edit" ||
		!strings.Contains(u.Errors[0].Message, "ReplicatedStorage/Shared/Util") {
		t.Fatalf("sync_undo over unsaved text: isError=%v %+v", res.IsError, u.Errors)
	}
	if next, _ := u.Errors[0].Details["nextActions"].([]any); len(next) != 1 || next[0] != "save_in_studio" {
		t.Errorf("nextActions = %v", u.Errors[0].Details["nextActions"])
	}
	if hint, _ := u.Errors[0].Details["hint"].(string); !strings.Contains(hint, "then call sync_undo {txId:") {
		t.Errorf("hint = %q, want it to say to undo again", hint)
	}
	if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return { disk = 2 }\n" {
		t.Errorf("Util in Studio = %q, want the sync's text", got)
	}
}
