package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/protocol"
)

// playtest connects another fake plugin to e's host, as a playtest's DataModel of
// the same place in context ("server" or "client"), answering exec with its context.
func playtest(t *testing.T, e *hosttest.Env, context_ string) *bridgetest.Plugin {
	t.Helper()
	p := bridgetest.New(e.Plugin.Place().Clone())
	p.Context = context_
	p.Exec = func(string) (any, error) {
		return protocol.ExecResult{Success: true, Output: []protocol.OutputLine{}, Returns: []string{context_}}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Connect(ctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	for len(e.Host.Bridge().Sessions()) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	waitSession(t, e, p.SessionID)
	return p
}

func waitSession(t *testing.T, e *hosttest.Env, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.Host.Bridge().WaitSession(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// refused asserts err's code and reason, and that it lists the connected sessions.
func refused(t *testing.T, what string, err error, code errcode.Code, reason errcode.Reason, sessions int) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, code)
	}
	ce := errcode.As(err)
	if ce.Code != code || ce.ReasonCode() != reason {
		t.Fatalf("%s: %s %s (%v), want %s %s", what, ce.Code, ce.ReasonCode(), err, code, reason)
	}
	b, _ := json.Marshal(ce.Details["sessions"])
	var list []map[string]any
	if json.Unmarshal(b, &list) != nil || len(list) != sessions {
		t.Fatalf("%s: details.sessions %s, want %d sessions", what, b, sessions)
	}
}

// The session selection table (README "Which Studio session a command uses"), row by
// row, with an edit session and a playtest's server and client connected.
func TestSessionSelectionTable(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	e.Plugin.Exec = func(string) (any, error) {
		return protocol.ExecResult{Success: true, Output: []protocol.OutputLine{}, Returns: []string{"edit"}}, nil
	}
	server := playtest(t, e, "server")
	client := playtest(t, e, "client")
	ctx := context.Background()
	ran := func(req host.ExecRequest) (string, error) {
		d, err := e.Host.Exec(ctx, req)
		if err != nil {
			return "", err
		}
		if d.Session.Context != d.Returns[0] {
			t.Fatalf("%+v ran in %s, but the data names session context %s", req, d.Returns[0], d.Session.Context)
		}
		return d.Returns[0], nil
	}
	for _, row := range []struct {
		name string
		req  host.ExecRequest
		want string
	}{
		{"neither: the edit session", host.ExecRequest{}, "edit"},
		{"sessionId of the server", host.ExecRequest{SessionID: server.SessionID}, "server"},
		{"sessionId of the edit session", host.ExecRequest{SessionID: e.Plugin.SessionID}, "edit"},
		{"context client", host.ExecRequest{Context: "client"}, "client"},
		{"context edit", host.ExecRequest{Context: "edit"}, "edit"},
		{"sessionId and its own context", host.ExecRequest{SessionID: client.SessionID, Context: "client"}, "client"},
	} {
		row.req.Code = "return 1"
		got, err := ran(row.req)
		if err != nil || got != row.want {
			t.Errorf("%s: ran in %q (%v), want %q", row.name, got, err, row.want)
		}
	}
	_, err := ran(host.ExecRequest{Code: "x", SessionID: "0123456789abcdef0123456789abcdef"})
	refused(t, "unknown sessionId", err, errcode.StudioNotConnected, errcode.ReasonNoStudio, 3)
	_, err = ran(host.ExecRequest{Code: "x", SessionID: server.SessionID, Context: "client"})
	refused(t, "sessionId of another context", err, errcode.StudioNotConnected, errcode.ReasonSessionContextMismatch, 3)
	_, err = ran(host.ExecRequest{Code: "x", Context: "playtest"})
	if errcode.Of(err) != errcode.BadRequest {
		t.Fatalf("unknown context: %v", err)
	}

	// Sync never runs against a playtest: named by id, it is refused.
	_, err = e.Host.Plan(ctx, host.PlanRequest{SessionID: server.SessionID})
	refused(t, "plan on the server", err, errcode.StudioReadOnly, errcode.ReasonReadOnlySession, 3)
	_, err = e.Host.Undo(ctx, host.UndoRequest{SessionID: client.SessionID})
	refused(t, "undo on the client", err, errcode.StudioReadOnly, errcode.ReasonReadOnlySession, 3)
	// (with a good token, which an apply checks first: the edit session's)
	p, err := e.Host.Plan(ctx, host.PlanRequest{SessionID: e.Plugin.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Host.Apply(ctx, host.ApplyRequest{SessionID: server.SessionID, Token: p.ConfirmToken})
	refused(t, "apply on the server", err, errcode.StudioReadOnly, errcode.ReasonReadOnlySession, 3)
	// By default it picks the edit session, the playtest's notwithstanding.
	if d, err := e.Host.Plan(ctx, host.PlanRequest{}); err != nil || d.Session.ID != e.Plugin.SessionID {
		t.Fatalf("plan by default: %v", err)
	}

	// Without the edit session: the default finds none, and says which are there.
	e.Plugin.Close()
	for len(e.Host.Bridge().Sessions()) != 2 {
		time.Sleep(5 * time.Millisecond)
	}
	_, err = ran(host.ExecRequest{Code: "x"})
	refused(t, "no edit session", err, errcode.StudioNotConnected, errcode.ReasonNoSessionInContext, 2)
	_, err = e.Host.Plan(ctx, host.PlanRequest{})
	refused(t, "plan without an edit session", err, errcode.StudioNotConnected, errcode.ReasonNoSessionInContext, 2)
	if got, err := ran(host.ExecRequest{Code: "x", Context: "server"}); err != nil || got != "server" {
		t.Fatalf("context server without the edit session: %q %v", got, err)
	}

	// Two playtest clients: naming the context is ambiguous.
	playtest(t, e, "client")
	_, err = ran(host.ExecRequest{Code: "x", Context: "client"})
	refused(t, "two clients", err, errcode.StudioAmbiguous, errcode.ReasonSeveralStudios, 3)
	server.Close()
	client.Close()
}

// Two edit sessions: the default is ambiguous, and the error lists both.
func TestSessionSelectionTwoEditSessions(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	other := bridgetest.New(e.Plugin.Place().Clone())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := other.Connect(ctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	waitSession(t, e, other.SessionID)
	_, err := e.Host.Exec(ctx, host.ExecRequest{Code: "return 1"})
	refused(t, "run_code", err, errcode.StudioAmbiguous, errcode.ReasonSeveralStudios, 2)
	_, err = e.Host.Query(ctx, host.QueryRequest{Path: "Workspace"})
	refused(t, "query", err, errcode.StudioAmbiguous, errcode.ReasonSeveralStudios, 2)
	if _, err := e.Host.Exec(ctx, host.ExecRequest{Code: "return 1", SessionID: other.SessionID}); err != nil {
		t.Fatal(err)
	}
}

// Concurrent execs on one session take turns: the plugin never has two running at
// once, whatever the number of callers; execs on two sessions do not wait for each
// other's turn.
func TestExecTakesTurnsPerSession(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	var running, most, calls atomic.Int32
	e.Plugin.Exec = func(code string) (any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		calls.Add(1)
		time.Sleep(2 * time.Millisecond) // the exec yields: room for another to start
		return protocol.ExecResult{Success: true, Output: []protocol.OutputLine{}, Returns: []string{code}}, nil
	}
	const callers, rounds = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, callers*rounds)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				code := fmt.Sprintf("return %d", c*rounds+r)
				d, err := e.Host.Exec(context.Background(), host.ExecRequest{Code: code})
				if err != nil {
					errs <- err
					return
				}
				if d.Returns[0] != code {
					errs <- fmt.Errorf("call %q got the answer of %q", code, d.Returns[0])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := calls.Load(); got != callers*rounds {
		t.Fatalf("%d execs reached the plugin, want %d", got, callers*rounds)
	}
	if m := most.Load(); m != 1 {
		t.Fatalf("%d execs ran at once on one session, want 1", m)
	}
	t.Logf("%d callers × %d rounds: %d execs, at most %d at once", callers, rounds, calls.Load(), most.Load())
}

// studio query, logs, state and run_code against the real plugin in the emulator,
// with a playtest's server connected beside the edit session.
func TestStudioToolsWithTheEmulator(t *testing.T) {
	env := startEmulated(t, hosttest.Project, func(pf *host.PlaceFile) {
		pf.GameID = 777
		ws := findNode(pf.Root, "Workspace")
		part := &host.PlaceNode{Name: "Block", ClassName: "Part", Properties: dom.Properties{"Size": dom.Vector3{2, 4, 6}}, Children: []*host.PlaceNode{}}
		dup1 := &host.PlaceNode{Name: "Twin", ClassName: "Folder", Properties: dom.Properties{}, Children: []*host.PlaceNode{}}
		dup2 := &host.PlaceNode{Name: "Twin", ClassName: "Model", Properties: dom.Properties{}, Children: []*host.PlaceNode{}}
		dup3 := &host.PlaceNode{Name: "Twin", ClassName: "Folder", Properties: dom.Properties{}, Children: []*host.PlaceNode{}}
		ws.Children = append(ws.Children, part, dup1, dup2, dup3)
	})
	h := env.host
	ctx := context.Background()

	q, err := h.Query(ctx, host.QueryRequest{Path: "Workspace/Block", Properties: []string{"Size", "Anchored", "Nope"}})
	if err != nil {
		t.Fatal(err)
	}
	b := q.Instances[0]
	if got := string(dom.MustMarshal(b.Properties["Size"].V)); got != `{"Vector3":[2,4,6]}` {
		t.Fatalf("Size %s", got)
	}
	if got := string(dom.MustMarshal(b.Properties["Anchored"].V)); got != `{"Bool":false}` {
		t.Fatalf("Anchored %s", got)
	}
	if len(b.Unreadable) != 1 || b.Unreadable[0] != "Nope" {
		t.Fatalf("unreadable %v", b.Unreadable)
	}
	wsID := dom.ChildID(dom.RootID, "Workspace", 0)
	if b.ID != dom.ChildID(wsID, "Block", 0) || b.ParentID == nil || *b.ParentID != wsID || b.Path != "Workspace/Block" {
		t.Fatalf("ids and path: %+v", b)
	}
	// Every readable property by default, each decoded as the tagged encoding.
	all, err := h.Query(ctx, host.QueryRequest{ID: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all.Instances[0].Properties); n < 10 {
		t.Fatalf("all properties: %d", n)
	}
	if _, ok := all.Instances[0].Properties["Size"]; !ok {
		t.Fatal("all properties lack Size")
	}

	// Workspace's children: the twins reported with their ids, a path through them refused.
	w, err := h.Query(ctx, host.QueryRequest{Path: "Workspace", Properties: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Instances[0].Duplicates) != 1 || w.Instances[0].Duplicates[0].Name != "Twin" || len(w.Instances[0].Duplicates[0].IDs) != 3 {
		t.Fatalf("duplicates %+v", w.Instances[0].Duplicates)
	}
	_, err = h.Query(ctx, host.QueryRequest{Path: "Workspace/Twin"})
	if ce := errcode.As(err); err == nil || ce.Code != errcode.BadRequest || ce.ReasonCode() != errcode.ReasonDuplicatePath {
		t.Fatalf("a path through twins: %v", err)
	}
	twin, err := h.Query(ctx, host.QueryRequest{Path: "Workspace", Properties: []string{}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]string{}
	for _, n := range twin.Instances[1:] {
		if n.Name == "Twin" {
			classes[n.ID] = n.ClassName
		}
	}
	if classes[w.Instances[0].Duplicates[0].IDs[1]] != "Model" {
		t.Fatalf("the second twin's id does not name the Model: %v", classes)
	}

	// A missing path names its nearest ancestor.
	_, err = h.Query(ctx, host.QueryRequest{Path: "Workspace/Block/Gone/Deeper"})
	ce := errcode.As(err)
	if err == nil || ce.Code != errcode.NotFound || ce.Details["nearest"] != "Workspace/Block" || ce.Details["nearestId"] != b.ID {
		t.Fatalf("missing path: %v %v", err, ce.Details)
	}

	// run_code: tagged values, and its print feeds the Output log.
	x, err := h.Exec(ctx, host.ExecRequest{Code: `print("marker-line") warn("careful") return Vector3.new(0, 5, 0), workspace.Block, 3`})
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := json.Marshal(x.Values)
	if string(vals) != `[{"Vector3":[0,5,0]},null,{"Float64":3}]` || x.Returns[1] != "Block" {
		t.Fatalf("values %s returns %v", vals, x.Returns)
	}
	logs, err := h.Logs(ctx, host.LogsRequest{Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs.Entries) != 2 || logs.Entries[0].Text != "marker-line" || logs.Entries[0].Level != "output" || logs.Entries[1].Level != "warning" {
		t.Fatalf("logs %+v", logs.Entries)
	}
	if logs.TotalSeen < 2 || logs.Capacity < 100 || logs.Entries[0].Time.Year() < 2024 {
		t.Fatalf("logs totals %+v", logs)
	}
	warnings, err := h.Logs(ctx, host.LogsRequest{Levels: []string{"warning"}, Since: logs.Entries[0].Seq - 1})
	if err != nil || len(warnings.Entries) != 1 || warnings.Entries[0].Text != "careful" {
		t.Fatalf("warnings since: %+v %v", warnings, err)
	}

	st, err := h.State(ctx, host.StateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.RunMode != host.RunEdit || st.GameID != 777 || len(st.Sessions) != 1 || st.Sessions[0].Context != "edit" {
		t.Fatalf("state %+v", st)
	}

	// A playtest's server of the same place: Studio is playing; query, logs and
	// run_code reach it by context; sync refuses it.
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	pf.Context, pf.PlaceName = "server", st.PlaceName
	placePath := filepath.Join(t.TempDir(), "server.json")
	if err := host.WritePlace(placePath, pf); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	emu, err := host.StartEmulator(sctx, host.EmulatorOptions{PluginDir: emulatorPluginDir(t), URL: h.PluginURL(), Place: placePath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Stop() })
	for len(h.Bridge().Sessions()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	st, err = h.State(ctx, host.StateRequest{})
	if err != nil || st.RunMode != host.RunPlay || len(st.Sessions) != 2 {
		t.Fatalf("state while playing: %+v %v", st, err)
	}
	sx, err := h.Exec(ctx, host.ExecRequest{Context: "server", Code: `print("on-server") return game:GetService("RunService"):IsServer()`})
	if err != nil || sx.Session.Context != "server" || !sx.Session.ReadOnly {
		t.Fatalf("exec on the server: %+v %v", sx, err)
	}
	sl, err := h.Logs(ctx, host.LogsRequest{Context: "server", Count: 1})
	if err != nil || len(sl.Entries) != 1 || sl.Entries[0].Text != "on-server" {
		t.Fatalf("server logs: %+v %v", sl, err)
	}
	if _, err := h.Query(ctx, host.QueryRequest{Context: "server", Path: "Workspace", Properties: []string{"Name"}}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Plan(ctx, host.PlanRequest{SessionID: sx.Session.ID})
	if errcode.Of(err) != errcode.StudioReadOnly {
		t.Fatalf("plan on the server: %v", err)
	}
	if d, err := h.Plan(ctx, host.PlanRequest{}); err != nil || d.Session.Context != "edit" {
		t.Fatalf("plan while playing: %v", err)
	}

	// The playtest paused: Studio's run mode says so; and it ends: Edit again.
	emu.Stop()
	for len(h.Bridge().Sessions()) != 1 {
		time.Sleep(10 * time.Millisecond)
	}
	pf.Paused = true
	if err := host.WritePlace(placePath, pf); err != nil {
		t.Fatal(err)
	}
	paused, err := host.StartEmulator(sctx, host.EmulatorOptions{PluginDir: emulatorPluginDir(t), URL: h.PluginURL(), Place: placePath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { paused.Stop() })
	for len(h.Bridge().Sessions()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if st, err = h.State(ctx, host.StateRequest{}); err != nil || st.RunMode != host.RunPaused {
		t.Fatalf("state while paused: %+v %v", st, err)
	}
	paused.Stop()
	for len(h.Bridge().Sessions()) != 1 {
		time.Sleep(10 * time.Millisecond)
	}
	if st, err = h.State(ctx, host.StateRequest{}); err != nil || st.RunMode != host.RunEdit {
		t.Fatalf("state after the playtest: %+v %v", st, err)
	}
}

func findNode(n *host.PlaceNode, name string) *host.PlaceNode {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}
