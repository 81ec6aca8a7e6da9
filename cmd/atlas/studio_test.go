package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// fakeInspector is the engine of the inspection commands; it records its calls.
type fakeInspector struct {
	queries []host.QueryRequest
	logs    []host.LogsRequest
	states  []host.StateRequest
}

func (f *fakeInspector) Query(_ context.Context, req host.QueryRequest) (*host.QueryData, error) {
	f.queries = append(f.queries, req)
	parent := "p"
	return &host.QueryData{Instances: []host.QueryNode{{ID: "i1", ParentID: &parent, Path: "Workspace/Block", Name: "Block", ClassName: "Part", ChildCount: 1,
		Properties: map[string]dom.Tagged{"Size": {V: dom.Vector3{1, 2, 3}}}, Attributes: map[string]dom.Tagged{"Speed": {V: dom.Float64(5)}},
		Tags: []string{"Hot"}, Duplicates: []host.DuplicateName{{Name: "Twin", IDs: []string{"a", "b"}}},
		Children: []host.ChildRef{{ID: "c1", Name: "Twin", ClassName: "Folder"}}}}}, nil
}

func (f *fakeInspector) Logs(_ context.Context, req host.LogsRequest) (*host.LogsData, error) {
	f.logs = append(f.logs, req)
	return &host.LogsData{Entries: []host.LogEntry{{Seq: 3, Time: time.Unix(1700000000, 0), Level: "warning", Text: "careful"}}, TotalSeen: 3, Capacity: 1000, LastSeq: 3}, nil
}

func (f *fakeInspector) State(_ context.Context, req host.StateRequest) (*host.StateData, error) {
	f.states = append(f.states, req)
	return &host.StateData{RunMode: "Play", PlaceName: "Game", GameID: 4, Sessions: []host.SessionState{
		{SessionData: host.SessionData{ID: "s1", Context: "edit"}, RunMode: "Edit"},
		{SessionData: host.SessionData{ID: "s2", Context: "server", ReadOnly: true}, RunMode: "Play"},
	}}, nil
}

func TestStudioQueryView(t *testing.T) {
	f := &fakeInspector{}
	io, out, _ := testStreams("")
	code, err := runQuery(context.Background(), &queryOptions{IO: io, Req: host.QueryRequest{Path: "Workspace/Block", Context: "server"}}, f)
	if err != nil || code != exitOK {
		t.Fatalf("%d %v", code, err)
	}
	for _, want := range []string{"Workspace/Block (Part)  id i1", "  Size = 1, 2, 3", "  @Speed = 5", "  tags: Hot",
		`2 children are named "Twin": name them by id (a, b)`, "  - Twin (Folder, 0 children)  id c1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("query view lacks %q:\n%s", want, out)
		}
	}
	if len(f.queries) != 1 || f.queries[0].Context != "server" {
		t.Fatalf("queries %+v", f.queries)
	}
	io, out, _ = testStreams("")
	if _, err := runQuery(context.Background(), &queryOptions{IO: io, JSON: true, Req: host.QueryRequest{ID: "i1"}}, f); err != nil {
		t.Fatal(err)
	}
	ok, _, data := envelopeData(t, out.String())
	if !ok || !strings.Contains(string(data), `"Size":{"Vector3":[1,2,3]}`) {
		t.Fatalf("--json: %s", data)
	}
}

func TestStudioLogsAndStateViews(t *testing.T) {
	f := &fakeInspector{}
	io, out, _ := testStreams("")
	if _, err := runLogs(context.Background(), &logsOptions{IO: io, Req: host.LogsRequest{Levels: []string{"warning"}}}, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "warning: careful") || !strings.Contains(out.String(), "(1 shown; 3 seen since the plugin started; the buffer keeps 1000)") {
		t.Fatalf("logs view:\n%s", out)
	}
	io, out, _ = testStreams("")
	if _, err := runState(context.Background(), &stateOptions{IO: io}, f); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mode     Play", `place    "Game" (place 0, game 4)`, "session  s2  server, read-only  Play"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("state view lacks %q:\n%s", want, out)
		}
	}
}

// Bad requests are refused as usage errors before the engine is called.
func TestStudioCommandsRefuseBadFlags(t *testing.T) {
	f := &fakeInspector{}
	io, _, _ := testStreams("")
	for name, run := range map[string]func() (int, error){
		"logs count": func() (int, error) {
			return runLogs(context.Background(), &logsOptions{IO: io, Req: host.LogsRequest{Count: 5000}}, f)
		},
		"logs level": func() (int, error) {
			return runLogs(context.Background(), &logsOptions{IO: io, Req: host.LogsRequest{Levels: []string{"loud"}}}, f)
		},
		"logs direction": func() (int, error) {
			return runLogs(context.Background(), &logsOptions{IO: io, Req: host.LogsRequest{Direction: "up"}}, f)
		},
		"query depth": func() (int, error) {
			return runQuery(context.Background(), &queryOptions{IO: io, Req: host.QueryRequest{Depth: 11}}, f)
		},
		"query both": func() (int, error) {
			return runQuery(context.Background(), &queryOptions{IO: io, Req: host.QueryRequest{Path: "A", ID: "b"}}, f)
		},
	} {
		code, err := run()
		if code != exitError || errcode.Of(err) != errcode.BadRequest || errcode.As(err).ReasonCode() != errcode.ReasonUsage {
			t.Errorf("%s: %d %v", name, code, err)
		}
	}
	if len(f.queries)+len(f.logs) != 0 {
		t.Fatalf("the engine was called: %+v %+v", f.queries, f.logs)
	}
}
