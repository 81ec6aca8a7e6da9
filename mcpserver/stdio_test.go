package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/mcpserver"
)

// lineClient speaks raw lines to a server on a LineTransport.
type lineClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error // the server's Run result
}

// serveLines runs a server (whose tools need no engine for these calls) on a
// LineTransport over pipes.
func serveLines(t *testing.T) *lineClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &lineClient{t: t, in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	srv := mcpserver.New(nil, "test")
	go func() {
		c.done <- srv.Run(context.Background(), &mcpserver.LineTransport{Reader: inR, Writer: outW})
		outW.Close()
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range c.lines {
		}
	})
	return c
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads the server's next line as a JSON-RPC message.
func (c *lineClient) next() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
			c.t.Fatalf("not a JSON-RPC 2.0 line: %v: %s", err, line)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no answer from the server")
	}
	return nil
}

// rpcError reads the next line as an error response.
func (c *lineClient) rpcError() (id string, code int, message string) {
	c.t.Helper()
	m := c.next()
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	raw, ok := m["id"]
	if !ok || m["result"] != nil || json.Unmarshal(m["error"], &e) != nil {
		c.t.Fatalf("want an error response with an id, got %s", mustMarshal(m))
	}
	return string(raw), e.Code, e.Message
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *lineClient) initialize(version string) string {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := c.next()
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if string(m["id"]) != `"init"` || json.Unmarshal(m["result"], &res) != nil {
		c.t.Fatalf("initialize: %s", mustMarshal(m))
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	return res.ProtocolVersion
}

// TestLineTransportSurvivesBadLines: each line that is not a JSON-RPC message gets
// its JSON-RPC error, and the session goes on.
func TestLineTransportSurvivesBadLines(t *testing.T) {
	c := serveLines(t)
	for _, tc := range []struct {
		name, line string
		id         string
		code       int
		message    string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, "null", -32700, "Parse error"},
		{"not JSON either", `hello`, "null", -32700, "Parse error"},
		{"two values on a line", `{} {}`, "null", -32700, "Parse error"},
		{"JSON but not a message", `42`, "null", -32600, "Invalid Request"},
		{"no jsonrpc version", `{"id":5,"method":"ping"}`, "5", -32600, "Invalid Request"},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":"x","method":"ping"}`, `"x"`, -32600, "Invalid Request"},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "null", -32600, "Invalid Request"},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null", -32600, "batches are not supported"},
		{"too long", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("x", mcpserver.MaxMessageBytes) + `"}}`, "null", -32600, "larger than"},
	} {
		c.send(tc.line)
		id, code, msg := c.rpcError()
		if id != tc.id || code != tc.code || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: error id=%s code=%d %q, want id=%s code=%d %q", tc.name, id, code, msg, tc.id, tc.code, tc.message)
		}
	}
	c.send("")
	c.send("   ")
	// The session goes on: initialize, list the tools, call one.
	if v := c.initialize("2025-06-18"); v != "2025-06-18" {
		t.Fatalf("initialize 2025-06-18 answered %s", v)
	}
	c.send(`not json after initialize`)
	if _, code, _ := c.rpcError(); code != -32700 {
		t.Fatalf("code %d, want -32700", code)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m := c.next()
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if string(m["id"]) != "2" || json.Unmarshal(m["result"], &list) != nil || len(list.Tools) != 12 {
		t.Fatalf("tools/list: %s", mustMarshal(m))
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":{}}}`)
	m = c.next()
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Errors []struct{ Code string } `json:"errors"`
		} `json:"structuredContent"`
	}
	if string(m["id"]) != "3" || json.Unmarshal(m["result"], &res) != nil || !res.IsError ||
		len(res.StructuredContent.Errors) != 1 || res.StructuredContent.Errors[0].Code != "E_BAD_REQUEST" {
		t.Fatalf("run_code without code: %s", mustMarshal(m))
	}
	// The end of the input ends the session cleanly.
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop at the end of its input")
	}
}

// TestProtocolVersionNegotiation: a supported revision is echoed; any other is
// answered with the newest revision the server supports (MCP lifecycle).
func TestProtocolVersionNegotiation(t *testing.T) {
	latest := mcpserver.ProtocolVersions[0]
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", latest},
		{"2026-07-28", latest}, // no initialize handshake in that revision
		{"not a version", latest},
	} {
		c := serveLines(t)
		if got := c.initialize(tc.asked); got != tc.want {
			t.Errorf("initialize %q answered %q, want %q", tc.asked, got, tc.want)
		}
	}
	if latest != "2025-11-25" {
		t.Errorf("newest supported revision %s, want 2025-11-25", latest)
	}
}

// TestNewProtocolProbeIsRefused: a client probing the sessionless revision
// (server/discover, 2026-07-28) is told which revisions the server supports, so
// that it falls back to initialize.
func TestNewProtocolProbeIsRefused(t *testing.T) {
	c := serveLines(t)
	meta := map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
	}
	c.send(mustMarshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{"_meta": meta}}))
	m := c.next()
	var e struct {
		Code int `json:"code"`
		Data struct {
			Supported []string `json:"supported"`
		} `json:"data"`
	}
	if json.Unmarshal(m["error"], &e) != nil || e.Code != mcp.CodeUnsupportedProtocolVersion || !slices.Equal(e.Data.Supported, mcpserver.ProtocolVersions) {
		t.Fatalf("server/discover: %s, want error %d listing %v", mustMarshal(m), mcp.CodeUnsupportedProtocolVersion, mcpserver.ProtocolVersions)
	}
	if v := c.initialize("2025-11-25"); v != "2025-11-25" {
		t.Fatalf("initialize after the probe: %s", v)
	}
}

// TestEndOfInputAnswersWhatWasRead: input that ends right after its requests still
// gets every answer before the session ends.
func TestEndOfInputAnswersWhatWasRead(t *testing.T) {
	for range 5 {
		c := serveLines(t)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"atlas_sync","arguments":{"mode":1}}}`)
		c.in.Close()
		ids := map[string]bool{}
		for range 3 {
			m := c.next()
			if m["result"] == nil {
				t.Fatalf("not a result: %s", mustMarshal(m))
			}
			ids[string(m["id"])] = true
		}
		if !ids["1"] || !ids["2"] || !ids["3"] {
			t.Fatalf("answered %v, want 1, 2 and 3", ids)
		}
		select {
		case err := <-c.done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the server did not stop at the end of its input")
		}
	}
}
