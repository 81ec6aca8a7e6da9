package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// The MCP end-to-end tests run the real atlas binary as separate processes and talk
// to `atlas mcp` over its real stdin and stdout: through external clients pinned in
// e2e/ (the official TypeScript SDK and the MCP Inspector's CLI, on the Node 22 that
// e2e/node fetches from the npm registry), through the go-sdk client, and as raw
// JSON-RPC lines. The Studio side is the emulator (the real Luau plugin on a mock
// place). Every tool result is checked against the tool's outputSchema: by the
// TypeScript SDK itself, and here with jsonschema-go.

// e2eWait bounds every wait of these tests, so that a hang fails instead of blocking.
const e2eWait = 45 * time.Second

// mcpTools are the tools `atlas mcp` serves (ARCHITECTURE §6).
var mcpTools = []string{"atlas_sync", "drift", "get_script", "run_code", "studio_logs", "studio_query", "studio_state", "studio_status",
	"sync_apply", "sync_plan", "sync_recover", "sync_undo"}

// mcpProject is the committed project of these tests.
var mcpProject = map[string]string{
	"default.project.json": `{
  "name": "Game",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" }
  }
}`,
	"src/shared/Util.luau":        "return {}\n",
	"src/server/Main.server.luau": "print(\"version one\")\n",
}

// e2e is what a test needs to run atlas as a process: the binary and the environment.
type e2e struct {
	bin       string // the atlas binary
	pluginDir string // plugin/ (the emulator)
	e2eDir    string // e2e/ (the pinned MCP clients)
	nodeDir   string // the folder of the Node 22 the clients run on
}

// TestMCPEndToEnd builds atlas and runs its MCP server as real processes.
func TestMCPEndToEnd(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	x := &e2e{
		bin:       filepath.Join(t.TempDir(), "atlas"),
		pluginDir: filepath.Join(root, "plugin"),
		e2eDir:    filepath.Join(root, "e2e"),
	}
	if _, err := os.Stat(filepath.Join(x.pluginDir, "node_modules", "luau-web")); err != nil {
		t.Fatalf("the emulator needs 'npm ci' in plugin/ first (make deps does it): %v", err)
	}
	if x.nodeDir, err = clientNode(x.e2eDir); err != nil {
		t.Fatal(err)
	}
	for _, dep := range []string{"@modelcontextprotocol/inspector", "@modelcontextprotocol/sdk"} {
		if _, err := os.Stat(filepath.Join(x.e2eDir, "node_modules", filepath.FromSlash(dep))); err != nil {
			t.Fatalf("the MCP clients need 'make e2e-deps' first: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", x.bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("TypeScriptSDKClient", x.testTypeScriptSDK)
	t.Run("InspectorStrictToolsList", x.testInspectorStrict)
	t.Run("InspectorAsClientOfServe", x.testInspector)
	t.Run("HostWithEmulator", x.testHostWithEmulator)
	t.Run("EmptyPlaceDeletesNothing", x.testEmptyPlaceOverMCP)
	t.Run("SymlinkOutsideRefused", x.testSymlinkOutsideOverMCP)
	t.Run("StdoutIsJSONRPCOnly", x.testStdoutHygiene)
	t.Run("ProtocolRobustness", x.testProtocolRobustness)
	t.Run("UnknownToolIsProtocolError", x.testUnknownTool)
	t.Run("OutsideAProject", x.testOutsideAProject)
}

// testOutsideAProject: `atlas mcp` started where there is no project (an agent host
// starts it where it is configured to) answers initialize and tools/list, and each
// tool says why it cannot work (E_PROJECT_INVALID), instead of closing the pipe.
func (x *e2e) testOutsideAProject(t *testing.T) {
	t.Parallel()
	cs, stderr, closeFn := x.startMCP(t, t.TempDir(), x.env(t, t.TempDir()))
	for _, tool := range []string{"sync_plan", "studio_status"} {
		env := callTool(t, cs, tool, map[string]any{})
		if env.OK || len(env.Errors) != 1 || env.Errors[0].Code != "E_PROJECT_INVALID" {
			t.Errorf("%s outside a project: %s, want E_PROJECT_INVALID", tool, env.raw)
		}
	}
	if err := closeFn(); err != nil {
		t.Fatalf("atlas mcp did not exit cleanly: %v\n%s", err, stderr.String())
	}
}

// nodeEnv is env with the clients' Node 22 first on PATH, so that node and
// whatever it starts run on it.
func (x *e2e) nodeEnv(t *testing.T, env []string) []string {
	t.Helper()
	path := x.nodeDir + string(os.PathListSeparator) + envValue(env, "PATH")
	return append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }),
		"PATH="+path, "npm_config_update_notifier=false")
}

// clientNode finds the Node the MCP clients run on: the Node 22 that e2e/node
// installs from the npm registry (make e2e-deps), or, on a platform it has no
// build for, a Node of at least 22.19 on PATH.
func clientNode(e2eDir string) (string, error) {
	dirs := []string{filepath.Join(e2eDir, "node", "node_modules", ".bin")}
	if p, err := exec.LookPath("node"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, dir := range dirs {
		out, err := exec.Command(filepath.Join(dir, "node"), "--version").Output()
		if err != nil {
			continue
		}
		var major, minor int
		if _, err := fmt.Sscanf(string(out), "v%d.%d", &major, &minor); err == nil && (major > 22 || major == 22 && minor >= 19) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no Node >= 22.19 for the MCP clients: run 'make e2e-deps' (it installs one in e2e/node)")
}

// env is the environment of an atlas process: a state folder and a temp folder of
// its own, the plugin folder, and git set up independently of the machine.
func (x *e2e) env(t *testing.T, stateDir string) []string {
	home := t.TempDir()
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "ATLAS_") || strings.HasPrefix(kv, "GIT_") ||
			strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	return append(env,
		"ATLAS_STATE_DIR="+stateDir,
		"ATLAS_PLUGIN_DIR="+x.pluginDir,
		"HOME="+home,
		"TMPDIR="+t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	)
}

// envValue is the last value of key in env.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// syncBuffer is a bytes.Buffer that a process may write while the test reads it.
type syncBuffer = hosttest.SyncBuffer

// startServe runs `atlas serve --port 0 --emulate` in dir until the test ends and
// waits until the emulated Studio is connected.
func (x *e2e) startServe(t *testing.T, dir string, env []string) {
	t.Helper()
	cmd := exec.Command(x.bin, "serve", "--port", "0", "--emulate")
	cmd.Dir, cmd.Env = dir, env
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		// Ctrl+C stops the host and its emulator.
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("atlas serve did not stop cleanly: %v\n%s", err, stderr.String())
			}
		case <-time.After(e2eWait):
			cmd.Process.Kill()
			<-done
			t.Errorf("atlas serve did not stop on an interrupt\n%s", stderr.String())
		}
	})

	deadline := time.Now().Add(e2eWait)
	var last string
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("atlas serve exited: %v\n%s", err, stderr.String())
		default:
		}
		st := exec.Command(x.bin, "status", "--json")
		st.Dir, st.Env = dir, env
		out, _ := st.Output()
		last = string(out)
		var env struct {
			OK   bool `json:"ok"`
			Data struct {
				Sessions []json.RawMessage `json:"sessions"`
			} `json:"data"`
		}
		if json.Unmarshal(out, &env) == nil && env.OK && len(env.Data.Sessions) == 1 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("atlas serve has no Studio session after %s: %s\n%s", e2eWait, last, stderr.String())
}

// inspected is one run of the MCP Inspector's CLI.
type inspected struct {
	code           int
	stdout, stderr string
	tool           string // --tool-name, for a tools/call
}

// inspect runs the MCP Inspector's CLI against `atlas mcp` (started in dir, with the
// test's state and plugin folders) and returns what it printed and its exit code.
func (x *e2e) inspect(t *testing.T, dir string, env []string, args ...string) inspected {
	t.Helper()
	// The pinned Inspector's launcher runs on the clients' Node 22; --cwd starts
	// atlas in the project. The Inspector hands its server only a minimal
	// environment (PATH, HOME, …): the atlas variables go with -e.
	cli := []string{filepath.Join(x.e2eDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"), "--cli"}
	for _, kv := range env {
		if strings.HasPrefix(kv, "ATLAS_") || strings.HasPrefix(kv, "GIT_") {
			cli = append(cli, "-e", kv)
		}
	}
	cli = append(cli, "--cwd", dir, x.bin, "mcp", "--port", "0")
	cli = append(cli, args...)
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(x.nodeDir, "node"), cli...)
	cmd.Dir, cmd.Env = x.e2eDir, x.nodeEnv(t, env)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := inspected{stdout: stdout.String(), stderr: stderr.String()}
	if i := slices.Index(args, "--tool-name"); i >= 0 && i+1 < len(args) {
		r.tool = args[i+1]
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("inspector %v: timed out after %s\n%s\n%s", args, e2eWait, r.stdout, r.stderr)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("inspector %v: %v", args, err)
	}
	return r
}

// e2eEnvelope is the JSON envelope as a client reads it.
type e2eEnvelope struct {
	raw           json.RawMessage // as received
	SchemaVersion int             `json:"schemaVersion"`
	OK            bool            `json:"ok"`
	Command       string          `json:"command"`
	Data          json.RawMessage `json:"data"`
	Errors        []struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"errors"`
}

// toolResult reads a tools/call result as the Inspector prints it and checks that its
// structured content is the envelope, that its text carries the same envelope and
// that isError matches ok.
func toolResult(t *testing.T, r inspected) e2eEnvelope {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("the inspector did not print a tool result: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	var env e2eEnvelope
	if err := json.Unmarshal(res.StructuredContent, &env); err != nil || env.SchemaVersion != 1 {
		t.Fatalf("structuredContent is not the envelope (%v): %s", err, res.StructuredContent)
	}
	env.raw = res.StructuredContent
	if res.IsError == env.OK {
		t.Fatalf("isError=%v but ok=%v: %s", res.IsError, env.OK, r.stdout)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("content is not one text: %s", r.stdout)
	}
	var fromText, fromStructured any
	text := res.Content[0].Text
	if i := strings.Index(text, "\n<json>"); i >= 0 && strings.HasSuffix(text, "</json>") {
		text = text[i+len("\n<json>") : len(text)-len("</json>")] // after a summary for people
	}
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("the text is not the envelope: %v: %s", err, res.Content[0].Text)
	}
	json.Unmarshal(res.StructuredContent, &fromStructured)
	if a, b := mustJSON(t, fromText), mustJSON(t, fromStructured); a != b {
		t.Fatalf("text and structuredContent differ:\n%s\n%s", a, b)
	}
	return env
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// planOf is the part of a plan these tests read.
type planOf struct {
	ConfirmToken string `json:"confirmToken"`
	Summary      struct {
		Total int `json:"total"`
		Push  int `json:"push"`
	} `json:"summary"`
	Changes []struct {
		ID         string  `json:"id"`
		Path       string  `json:"path"`
		PatchType  string  `json:"patchType"`
		Direction  *string `json:"direction"`
		Reason     string  `json:"reason"`
		StudioHash string  `json:"studioHash"`
		DiskHash   string  `json:"diskHash"`
		FsPath     string  `json:"fsPath"`
	} `json:"changes"`
}

// scriptOf is get_script's data.
type scriptOf struct {
	ID         string `json:"id"`
	FsPath     string `json:"fsPath"`
	Source     string `json:"source"`
	StudioHash string `json:"studioHash"`
}

func decode[T any](t *testing.T, env e2eEnvelope) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(env.Data, &v); err != nil {
		t.Fatalf("%s data: %v: %s", env.Command, err, env.Data)
	}
	return v
}

// testInspector drives plan → get_script → apply → plan with an external MCP client.
// Each Inspector call starts a new `atlas mcp`, which becomes a client of the one
// long-lived `atlas serve --emulate`, so Studio's state carries over between calls.
func (x *e2e) testInspector(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	env := x.env(t, t.TempDir())
	x.startServe(t, dir, env)

	// tools/list: all seven tools, served by a client of the running host.
	r := x.inspect(t, dir, env, "--method", "tools/list")
	if r.code != 0 {
		t.Fatalf("tools/list exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  map[string]any  `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, r.stdout)
	}
	var names []string
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema["type"] != "object" {
			t.Errorf("tool %s: description %q, input schema %v", tool.Name, tool.Description, tool.InputSchema)
		}
		schemas[tool.Name] = resolveSchema(t, tool.Name, tool.OutputSchema)
	}
	// toolResult, and the result validates against the tool's outputSchema.
	toolResult := func(t *testing.T, r inspected) e2eEnvelope {
		t.Helper()
		env := toolResult(t, r)
		validateAgainst(t, r.tool, schemas[r.tool], env.raw)
		return env
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpTools) {
		t.Fatalf("tools = %v, want %v", names, mcpTools)
	}
	if !strings.Contains(r.stderr, "using the running Atlas host") {
		t.Fatalf("atlas mcp did not use the running host:\n%s", r.stderr)
	}

	// A disk edit plans as one push.
	const v2 = "print(\"version two\")\n"
	hosttest.Write(t, dir, "src/server/Main.server.luau", v2)
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "sync_plan")
	if r.code != 0 {
		t.Fatalf("sync_plan exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	env1 := toolResult(t, r)
	p := decode[planOf](t, env1)
	if env1.Command != "sync.plan" || p.Summary.Total != 1 || p.Summary.Push != 1 || len(p.Changes) != 1 {
		t.Fatalf("plan: %s", env1.Data)
	}
	c := p.Changes[0]
	if c.Direction == nil || *c.Direction != "push" || c.Reason != "disk_changed" || c.PatchType != "Edit" ||
		c.FsPath != "src/server/Main.server.luau" || c.Path != "ServerScriptService/Main" {
		t.Fatalf("change: %s", env1.Data)
	}
	if p.ConfirmToken == "" || c.ID == "" || c.StudioHash == "" || c.StudioHash == c.DiskHash {
		t.Fatalf("plan lacks a token, an id or distinct hashes: %s", env1.Data)
	}

	// get_script by id: Studio still has version one, with the hash the plan saw.
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "get_script", "--tool-arg", "id="+c.ID)
	if r.code != 0 {
		t.Fatalf("get_script exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s := decode[scriptOf](t, toolResult(t, r))
	if s.Source != mcpProject["src/server/Main.server.luau"] || s.StudioHash != c.StudioHash || s.ID != c.ID {
		t.Fatalf("get_script: %+v, want version one with hash %s", s, c.StudioHash)
	}

	// Without yes: true the tool refuses; the Inspector exits 5 (isError) and
	// prints the envelope.
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "sync_apply", "--tool-arg", "confirmToken="+p.ConfirmToken)
	if r.code != 5 {
		t.Fatalf("sync_apply without yes exited %d, want 5\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	refusal := toolResult(t, r)
	if refusal.OK || len(refusal.Errors) != 1 || refusal.Errors[0].Code != "E_CONFIRM_REQUIRED" ||
		refusal.Errors[0].Details["reasonCode"] != "confirm_required" {
		t.Fatalf("refusal: %+v", refusal)
	}
	if !strings.Contains(r.stderr, "isError") {
		t.Fatalf("the inspector did not report the tool error:\n%s", r.stderr)
	}

	// The refusal used nothing up: apply with yes, the token and an override
	// carrying the studioHash seen.
	args := mustJSON(t, map[string]any{
		"confirmToken": p.ConfirmToken,
		"yes":          true,
		"overrides":    []map[string]any{{"id": c.ID, "direction": "push", "studioHash": s.StudioHash}},
	})
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "sync_apply", "--tool-args-json", args)
	if r.code != 0 {
		t.Fatalf("sync_apply exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	applied := toolResult(t, r)
	var a struct {
		TxID    string `json:"txId"`
		Applied []struct {
			ID        string `json:"id"`
			Direction string `json:"direction"`
		} `json:"applied"`
	}
	if err := json.Unmarshal(applied.Data, &a); err != nil || len(a.Applied) != 1 || a.Applied[0].ID != c.ID || a.Applied[0].Direction != "push" {
		t.Fatalf("apply: %v %s", err, applied.Data)
	}

	// Studio has version two now (read by fsPath), and the next plan is empty.
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "get_script", "--tool-arg", "fsPath=src/server/Main.server.luau")
	if r.code != 0 {
		t.Fatalf("get_script exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s := decode[scriptOf](t, toolResult(t, r)); s.Source != v2 {
		t.Fatalf("Studio's source after apply = %q, want %q", s.Source, v2)
	}
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "sync_plan")
	if r.code != 0 {
		t.Fatalf("sync_plan exited %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if p := decode[planOf](t, toolResult(t, r)); p.Summary.Total != 0 || len(p.Changes) != 0 {
		t.Fatalf("plan after apply is not empty: %+v", p)
	}

	// The token worked once.
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "sync_apply", "--tool-args-json", args)
	if r.code != 5 {
		t.Fatalf("replayed sync_apply exited %d, want 5\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if e := toolResult(t, r); len(e.Errors) != 1 || e.Errors[0].Code != "E_CONFIRM_TOKEN_REPLAYED" {
		t.Fatalf("replay: %+v", e)
	}

	// atlas_sync through the running host: a fastfail whose override's studioHash
	// no longer holds leaves the change unresolved, lists the failure, and writes
	// nothing.
	const v3 = "print(\"version three\")\n"
	hosttest.Write(t, dir, "src/server/Main.server.luau", v3)
	stale := mustJSON(t, map[string]any{"mode": "fastfail", "overrides": []map[string]any{{"id": c.ID, "direction": "push", "studioHash": c.StudioHash}}})
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "atlas_sync", "--tool-args-json", stale)
	if r.code != 5 {
		t.Fatalf("atlas_sync fastfail with a stale hash exited %d, want 5\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ff := toolResult(t, r)
	var sd struct {
		Status     string   `json:"status"`
		Unresolved []string `json:"unresolved"`
		Failures   []struct {
			ID       string  `json:"id"`
			Field    string  `json:"field"`
			Expected string  `json:"expected"`
			Actual   *string `json:"actual"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(ff.Data, &sd); err != nil || len(ff.Errors) != 1 || ff.Errors[0].Code != "E_UNRESOLVED" ||
		ff.Errors[0].Details["reasonCode"] != "fastfail_unresolved" || sd.Status != "fastfail_unresolved" ||
		!slices.Equal(sd.Unresolved, []string{c.ID}) || len(sd.Failures) != 1 || sd.Failures[0].Field != "studioHash" ||
		sd.Failures[0].Expected != c.StudioHash || sd.Failures[0].Actual == nil || *sd.Failures[0].Actual != gitblob.Hash([]byte(v2)) {
		t.Fatalf("atlas_sync fastfail with a stale hash: %v %+v %s", err, ff.Errors, ff.Data)
	}
	r = x.inspect(t, dir, env, "--method", "tools/call", "--tool-name", "get_script", "--tool-arg", "id="+c.ID)
	if got := decode[scriptOf](t, toolResult(t, r)); got.Source != v2 {
		t.Fatalf("a refused atlas_sync wrote Studio: %q", got.Source)
	}
}

// startMCP starts `atlas mcp` with args in dir and connects the go-sdk client to it
// over the process's stdin and stdout.
func (x *e2e) startMCP(t *testing.T, dir string, env []string, args ...string) (*mcp.ClientSession, *syncBuffer, func() error) {
	t.Helper()
	cmd := exec.Command(x.bin, append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	// Close waits this long after closing stdin before it signals the process.
	tr := &mcp.CommandTransport{Command: cmd, TerminateDuration: e2eWait}
	client := mcp.NewClient(&mcp.Implementation{Name: "atlas-e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect to atlas mcp: %v\n%s", err, stderr.String())
	}
	listSchemas(t, cs)
	closed := false
	closeFn := func() error {
		closed = true
		return cs.Close()
	}
	t.Cleanup(func() {
		if !closed {
			cs.Close()
		}
	})
	return cs, stderr, closeFn
}

// callTool calls a tool with a deadline and returns its envelope.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) e2eEnvelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	checkOutputSchema(t, cs, name, b)
	var env e2eEnvelope
	if err := json.Unmarshal(b, &env); err != nil || env.SchemaVersion != 1 {
		t.Fatalf("%s: structured content is not the envelope: %s", name, b)
	}
	if res.IsError == env.OK {
		t.Fatalf("%s: isError=%v but ok=%v", name, res.IsError, env.OK)
	}
	return env
}

// outputSchemas holds each go-sdk session's tool outputSchemas, as tools/list gave them.
var outputSchemas sync.Map // *mcp.ClientSession → map[string]*jsonschema.Resolved

// listSchemas lists a session's tools and keeps their outputSchemas.
func listSchemas(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	m := map[string]*jsonschema.Resolved{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		m[tool.Name] = resolveSchema(t, tool.Name, b)
	}
	outputSchemas.Store(cs, m)
}

// checkOutputSchema validates a result's structured content against the tool's
// outputSchema, as a client that validates does.
func checkOutputSchema(t *testing.T, cs *mcp.ClientSession, name string, structured []byte) {
	t.Helper()
	m, ok := outputSchemas.Load(cs)
	if !ok {
		t.Fatalf("%s: the session's tools were not listed", name)
	}
	validateAgainst(t, name, m.(map[string]*jsonschema.Resolved)[name], structured)
}

// resolveSchema reads a tool's outputSchema.
func resolveSchema(t *testing.T, tool string, raw []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: outputSchema: %v: %s", tool, err, raw)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: outputSchema does not resolve: %v\n%s", tool, err, raw)
	}
	return rs
}

// validateAgainst validates structured content against a tool's outputSchema.
func validateAgainst(t *testing.T, tool string, rs *jsonschema.Resolved, structured []byte) {
	t.Helper()
	if rs == nil {
		t.Fatalf("%s: no outputSchema", tool)
	}
	var v any
	if err := json.Unmarshal(structured, &v); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, structured)
	}
	if err := rs.Validate(&v); err != nil {
		t.Fatalf("%s: structured content does not match the outputSchema: %v\n%s", tool, err, structured)
	}
	if p := emptyString(v, ""); p != "" && !strings.HasPrefix(p, "/data/output/") {
		t.Fatalf("%s: %s is \"\" (a field that does not apply is null or absent): %s", tool, p, structured)
	}
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

// waitSession polls studio_status until one Studio session is connected.
func waitSession(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	deadline := time.Now().Add(e2eWait)
	for {
		env := callTool(t, cs, "studio_status", map[string]any{})
		var st struct {
			Sessions []struct {
				ID        string `json:"id"`
				PlaceName string `json:"placeName"`
			} `json:"sessions"`
		}
		if !env.OK {
			t.Fatalf("studio_status: %+v", env)
		}
		if err := json.Unmarshal(env.Data, &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Sessions) == 1 {
			if st.Sessions[0].ID == "" || st.Sessions[0].PlaceName != "Game" {
				t.Fatalf("session: %s", env.Data)
			}
			return st.Sessions[0].ID
		}
		if len(st.Sessions) > 1 || time.Now().After(deadline) {
			t.Fatalf("studio_status: want one session: %s", env.Data)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// testHostWithEmulator: `atlas mcp --emulate` is the host itself, with the emulated
// Studio connected to it, and serves the go-sdk client over its stdio.
func (x *e2e) testHostWithEmulator(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	env := x.env(t, t.TempDir())
	cs, stderr, closeFn := x.startMCP(t, dir, env, "--emulate", "--port", "0")
	if info := cs.InitializeResult().ServerInfo; info.Name != "atlas" || info.Version != Version {
		t.Fatalf("server info: %+v", info)
	}
	waitSession(t, cs)
	if !strings.Contains(stderr.String(), "serving as the Atlas host") {
		t.Fatalf("atlas mcp did not become the host:\n%s", stderr.String())
	}

	res := callTool(t, cs, "run_code", map[string]any{"code": "return 1+1"})
	var ex struct {
		Success bool     `json:"success"`
		Returns []string `json:"returns"`
	}
	if err := json.Unmarshal(res.Data, &ex); err != nil || !ex.Success || !slices.Equal(ex.Returns, []string{"2"}) {
		t.Fatalf("run_code: %v %s", err, res.Data)
	}

	res = callTool(t, cs, "sync_plan", map[string]any{})
	p := decode[planOf](t, res)
	if !res.OK || p.Summary.Total != 0 || len(p.Changes) != 0 || p.ConfirmToken == "" {
		t.Fatalf("sync_plan on an untouched project: %s", res.Data)
	}
	x.checkStudioTools(t, cs)
	x.checkPlaytest(t, cs)

	// Closing stdin ends atlas mcp (and its emulator) cleanly, without a signal.
	start := time.Now()
	if err := closeFn(); err != nil {
		t.Fatalf("atlas mcp did not exit cleanly: %v\n%s", err, stderr.String())
	}
	if d := time.Since(start); d >= e2eWait {
		t.Fatalf("atlas mcp needed a signal to exit after stdin closed (%s)", d)
	}
	// It left nothing behind in its temp folder (such as the emulator's start place).
	if left, err := os.ReadDir(envValue(env, "TMPDIR")); err != nil || len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Fatalf("atlas mcp left files in its temp folder: %v %v", err, names)
	}
}

// rawMCP speaks JSON-RPC lines to `atlas mcp` and checks every line it writes.
type rawMCP struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan []byte
	done   chan struct{} // closed when stdout reaches EOF
	nextID int
	seen   int // stdout lines checked
}

// checkLine returns an error unless line is one JSON-RPC 2.0 message.
func checkLine(line []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf(`no "jsonrpc":"2.0"`)
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	switch {
	case hasMethod: // a request or notification from the server
	case hasID && hasResult != hasError: // a response
	default:
		return fmt.Errorf("neither a request nor a response")
	}
	return nil
}

func (r *rawMCP) send(msg map[string]any) {
	r.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("write to atlas mcp: %v", err)
	}
}

// call sends a request and returns its response, checking every line on the way.
func (r *rawMCP) call(method string, params any) map[string]json.RawMessage {
	r.t.Helper()
	r.nextID++
	id := r.nextID
	r.send(map[string]any{"id": id, "method": method, "params": params})
	timeout := time.After(e2eWait)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("%s: stdout closed before the response", method)
			}
			var m map[string]json.RawMessage
			json.Unmarshal(line, &m)
			if string(m["id"]) == fmt.Sprint(id) && m["method"] == nil {
				return m
			}
		case <-timeout:
			r.t.Fatalf("%s: no response after %s", method, e2eWait)
		}
	}
}

// toolEnvelope reads a tools/call response's result as the envelope.
func (r *rawMCP) toolEnvelope(resp map[string]json.RawMessage) (e2eEnvelope, bool) {
	r.t.Helper()
	var res struct {
		StructuredContent e2eEnvelope `json:"structuredContent"`
		IsError           bool        `json:"isError"`
	}
	if resp["result"] == nil {
		r.t.Fatalf("not a tool result: %s", mustJSON(r.t, resp))
	}
	if err := json.Unmarshal(resp["result"], &res); err != nil || res.StructuredContent.SchemaVersion != 1 {
		r.t.Fatalf("tool result: %v %s", err, resp["result"])
	}
	return res.StructuredContent, res.IsError
}

// testStdoutHygiene: with the host and the emulator logging, everything `atlas mcp`
// writes on stdout is JSON-RPC 2.0, one message a line; the logs go to stderr.
func (x *e2e) testStdoutHygiene(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	cmd := exec.Command(x.bin, "mcp", "--emulate", "--port", "0")
	cmd.Dir, cmd.Env = dir, x.env(t, t.TempDir())
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	r := &rawMCP{t: t, stdin: stdin, lines: make(chan []byte, 64), done: make(chan struct{})}
	t.Cleanup(func() {
		stdin.Close()
		go func() {
			for range r.lines {
			}
		}()
		select {
		case <-exited:
		case <-time.After(e2eWait):
			cmd.Process.Kill()
		}
	})
	var bad []string
	var badMu sync.Mutex
	var raw syncBuffer
	go func() {
		defer close(r.done)
		defer close(r.lines)
		br := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			raw.Write(line)
			if len(line) > 0 {
				if err := checkLine(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
					badMu.Lock()
					bad = append(bad, fmt.Sprintf("%v: %q", err, line))
					badMu.Unlock()
				}
				r.seen++
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { <-r.done; exited <- cmd.Wait() }()

	init := r.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "1"},
	})
	if init["result"] == nil {
		t.Fatalf("initialize: %s", mustJSON(t, init))
	}
	r.send(map[string]any{"method": "notifications/initialized", "params": map[string]any{}})

	resp := r.call("tools/list", map[string]any{})
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(resp["result"], &list); err != nil || len(list.Tools) != len(mcpTools) {
		t.Fatalf("tools/list: %v %s", err, resp["result"])
	}

	// Wait for the emulated Studio, so that its logs run alongside the calls.
	deadline := time.Now().Add(e2eWait)
	for {
		env, _ := r.toolEnvelope(r.call("tools/call", map[string]any{"name": "studio_status", "arguments": map[string]any{}}))
		var st struct {
			Sessions []json.RawMessage `json:"sessions"`
		}
		json.Unmarshal(env.Data, &st)
		if len(st.Sessions) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Studio session: %s", env.Data)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Luau that prints: its output comes back in the result, never loose on stdout.
	env, isErr := r.toolEnvelope(r.call("tools/call", map[string]any{"name": "run_code",
		"arguments": map[string]any{"code": "print(\"hello from studio\")\nwarn(\"careful\")\nreturn 40 + 2"}}))
	if isErr || !strings.Contains(string(env.Data), "hello from studio") || !strings.Contains(string(env.Data), `"returns":["42"]`) {
		t.Fatalf("run_code: %s", env.Data)
	}
	// A Luau error is data, not a tool failure.
	env, isErr = r.toolEnvelope(r.call("tools/call", map[string]any{"name": "run_code",
		"arguments": map[string]any{"code": "error(\"boom\")"}}))
	if isErr || !strings.Contains(string(env.Data), `"success":false`) || !strings.Contains(string(env.Data), "boom") {
		t.Fatalf("run_code with an error: isError=%v %s", isErr, env.Data)
	}
	// Failing tools: a refusal and a missing script.
	env, isErr = r.toolEnvelope(r.call("tools/call", map[string]any{"name": "sync_apply", "arguments": map[string]any{"confirmToken": "x"}}))
	if !isErr || len(env.Errors) != 1 || env.Errors[0].Code != "E_CONFIRM_REQUIRED" {
		t.Fatalf("sync_apply without yes: isError=%v %+v", isErr, env)
	}
	env, isErr = r.toolEnvelope(r.call("tools/call", map[string]any{"name": "get_script", "arguments": map[string]any{"fsPath": "src/server/Missing.server.luau"}}))
	if !isErr || len(env.Errors) != 1 || env.Errors[0].Code != "E_NOT_FOUND" {
		t.Fatalf("get_script of a missing file: isError=%v %+v", isErr, env)
	}
	env, isErr = r.toolEnvelope(r.call("tools/call", map[string]any{"name": "sync_plan", "arguments": map[string]any{}}))
	if isErr || !env.OK {
		t.Fatalf("sync_plan: %+v", env)
	}
	// Protocol errors: an unknown tool and an unknown method.
	for _, c := range []struct {
		method string
		params any
		code   int
	}{
		{"tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}, jsonrpc.CodeInvalidParams},
		{"no/such/method", map[string]any{}, jsonrpc.CodeMethodNotFound},
	} {
		resp := r.call(c.method, c.params)
		var e struct {
			Code int `json:"code"`
		}
		if resp["result"] != nil || json.Unmarshal(resp["error"], &e) != nil || e.Code != c.code {
			t.Fatalf("%s: want a JSON-RPC error %d, got %s", c.method, c.code, mustJSON(t, resp))
		}
	}

	// Closing stdin ends the server; drain stdout to its end.
	stdin.Close()
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Fatalf("atlas mcp exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(e2eWait):
		t.Fatalf("atlas mcp did not exit after stdin closed\n%s", stderr.String())
	}
	for range r.lines {
	}

	badMu.Lock()
	defer badMu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("stdout has lines that are not JSON-RPC 2.0:\n%s", strings.Join(bad, "\n"))
	}
	if out := raw.String(); !strings.HasSuffix(out, "\n") || strings.Contains(out, "\n\n") {
		t.Fatalf("stdout is not one message a line: %q", out)
	}
	if r.seen < 10 {
		t.Fatalf("only %d stdout lines checked", r.seen)
	}
	// The logs were there, on stderr.
	logs := stderr.String()
	for _, want := range []string{"serving as the Atlas host", "studio connected", "emulator: plugin started"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, logs)
		}
	}
}

// testUnknownTool: calling a tool that does not exist is a JSON-RPC error (invalid
// params), not a tool result, and the session goes on.
func (x *e2e) testUnknownTool(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	cs, stderr, closeFn := x.startMCP(t, dir, x.env(t, t.TempDir()), "--port", "0")
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "no_such_tool") {
		t.Fatalf("unknown tool: result %+v, error %v; want a JSON-RPC error %d", res, err, jsonrpc.CodeInvalidParams)
	}
	if res != nil {
		t.Fatalf("unknown tool returned a result: %+v", res)
	}
	// The session is still usable: without Studio, studio_status says none is connected.
	env := callTool(t, cs, "studio_status", map[string]any{})
	if !env.OK || !strings.Contains(string(env.Data), `"sessions":[]`) {
		t.Fatalf("studio_status after the error: %+v %s", env, env.Data)
	}
	if err := closeFn(); err != nil {
		t.Fatalf("atlas mcp did not exit cleanly: %v\n%s", err, stderr.String())
	}
}

// testTypeScriptSDK runs e2e/ts-sdk-client.mjs, a client on the official
// TypeScript SDK (pinned in e2e/package.json), against `atlas mcp --emulate`: it
// lists the tools, then sync_plan → get_script → sync_apply with an override
// carrying the studioHash it read. The SDK validates every structuredContent
// against the tool's outputSchema and rejects the call otherwise; the script
// counts that it did.
func (x *e2e) testTypeScriptSDK(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	const v2 = "print(\"version two\")\n"
	hosttest.Write(t, dir, "src/server/Main.server.luau", v2)
	env := x.nodeEnv(t, x.env(t, t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2eWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(x.nodeDir, "node"), filepath.Join(x.e2eDir, "ts-sdk-client.mjs"), x.bin, dir)
	cmd.Dir, cmd.Env = x.e2eDir, env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-sdk-client: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var rep struct {
		SDKVersion      string   `json:"sdkVersion"`
		Node            string   `json:"node"`
		ProtocolVersion string   `json:"protocolVersion"`
		Tools           []string `json:"tools"`
		Calls           []struct {
			Name string  `json:"name"`
			OK   bool    `json:"ok"`
			Code *string `json:"code"`
		} `json:"calls"`
		Validated int `json:"validated"`
		Change    struct {
			ID               string  `json:"id"`
			Path             string  `json:"path"`
			Direction        *string `json:"direction"`
			DefaultSelection *string `json:"defaultSelection"`
			StudioHash       *string `json:"studioHash"`
			FsPath           *string `json:"fsPath"`
		} `json:"change"`
		Script struct {
			Source     string `json:"source"`
			StudioHash string `json:"studioHash"`
		} `json:"script"`
		Applied struct {
			Applied []struct {
				ID        string `json:"id"`
				Direction string `json:"direction"`
			} `json:"applied"`
		} `json:"applied"`
		StudioSourceAfter string `json:"studioSourceAfter"`
		AtlasSync         struct {
			Status string `json:"status"`
			Mode   string `json:"mode"`
		} `json:"atlasSync"`
		Query struct {
			Path       string                     `json:"path"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"query"`
		RunValues []json.RawMessage `json:"runValues"`
		BigOutput struct {
			OK      bool `json:"ok"`
			Printed int  `json:"printed"`
			Text    int  `json:"text"`
		} `json:"bigOutput"`
		HugeOutput struct {
			OK      bool   `json:"ok"`
			Code    string `json:"code"`
			Ran     *bool  `json:"ran"`
			Message string `json:"message"`
		} `json:"hugeOutput"`
		Logs  []string `json:"logs"`
		State struct {
			RunMode  string   `json:"runMode"`
			Contexts []string `json:"contexts"`
		} `json:"state"`
		Resources         []string `json:"resources"`
		ResourceTemplates []string `json:"resourceTemplates"`
		Transactions      []struct {
			TxID   string         `json:"txId"`
			State  string         `json:"state"`
			Counts map[string]int `json:"counts"`
		} `json:"transactions"`
		Transaction struct {
			Changes   []string `json:"changes"`
			Files     []string `json:"files"`
			StudioOps int      `json:"studioOps"`
			Outcome   struct {
				State string `json:"state"`
				Open  bool   `json:"open"`
			} `json:"outcome"`
		} `json:"transaction"`
		StatusSessions int `json:"statusSessions"`
		Undone         struct {
			TxID      string `json:"txId"`
			StudioOps int    `json:"studioOps"`
		} `json:"undone"`
		StateAfterUndo string `json:"stateAfterUndo"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("ts-sdk-client report: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var major int
	fmt.Sscanf(rep.Node, "v%d", &major)
	if rep.SDKVersion != "1.32.2" || major < 22 {
		t.Errorf("client: SDK %s on Node %s, want 1.32.2 on Node 22 or later", rep.SDKVersion, rep.Node)
	}
	if rep.ProtocolVersion != "2025-11-25" {
		t.Errorf("negotiated MCP revision %q, want 2025-11-25", rep.ProtocolVersion)
	}
	if !slices.Equal(rep.Tools, mcpTools) {
		t.Errorf("tools = %v, want %v", rep.Tools, mcpTools)
	}
	if len(rep.Calls) < 8 || rep.Validated != len(rep.Calls) {
		t.Errorf("the SDK validated %d of %d results against their outputSchema", rep.Validated, len(rep.Calls))
	}
	c := rep.Change
	if c.Path != "ServerScriptService/Main" || c.Direction == nil || *c.Direction != "push" || c.DefaultSelection == nil ||
		*c.DefaultSelection != "push" || c.StudioHash == nil || c.FsPath == nil || *c.FsPath != "src/server/Main.server.luau" {
		t.Errorf("change: %+v", c)
	}
	if rep.Script.Source != mcpProject["src/server/Main.server.luau"] || c.StudioHash == nil || rep.Script.StudioHash != *c.StudioHash {
		t.Errorf("get_script: %+v", rep.Script)
	}
	if len(rep.Applied.Applied) != 1 || rep.Applied.Applied[0].ID != c.ID || rep.Applied.Applied[0].Direction != "push" {
		t.Errorf("applied: %+v", rep.Applied)
	}
	if rep.StudioSourceAfter != v2 {
		t.Errorf("Studio's source after apply = %q, want %q", rep.StudioSourceAfter, v2)
	}
	if rep.AtlasSync.Status != "empty" || rep.AtlasSync.Mode != "standard" {
		t.Errorf("atlas_sync {} after apply: %+v", rep.AtlasSync)
	}
	if rep.Query.Path != "ServerScriptService/Main" || string(rep.Query.Properties["Disabled"]) != `{"Bool":false}` {
		t.Errorf("studio_query: %+v", rep.Query)
	}
	if b := rep.BigOutput; !b.OK || b.Printed != 6<<20 || b.Text > 1000 {
		t.Errorf("run_code printing 6 MB: %+v, want it whole in structuredContent and a short text", b)
	}
	// The code ran: the refusal says so (never a hint to run it again).
	if h := rep.HugeOutput; h.OK || h.Code != "E_PAYLOAD_TOO_LARGE" || h.Ran == nil || !*h.Ran || !strings.Contains(h.Message, "succeeded") {
		t.Errorf("run_code printing 9 MB: %+v, want E_PAYLOAD_TOO_LARGE saying the code ran", h)
	}
	if len(rep.RunValues) != 1 || string(rep.RunValues[0]) != `{"Vector3":[0,5,0]}` {
		t.Errorf("run_code values: %s", rep.RunValues)
	}
	if !slices.Equal(rep.Logs, []string{"from-ts-sdk"}) {
		t.Errorf("studio_logs: %v", rep.Logs)
	}
	if rep.State.RunMode != "Edit" || !slices.Equal(rep.State.Contexts, []string{"edit"}) {
		t.Errorf("studio_state: %+v", rep.State)
	}
	if !slices.Equal(rep.Resources, []string{"atlas://status", "atlas://transactions"}) || !slices.Equal(rep.ResourceTemplates, []string{"atlas://transactions/{id}"}) {
		t.Errorf("resources %v, templates %v", rep.Resources, rep.ResourceTemplates)
	}
	applied := ""
	if len(rep.Transactions) > 0 {
		applied = rep.Transactions[0].TxID
	}
	if len(rep.Transactions) != 1 || rep.Transactions[0].State != "committed" || rep.Transactions[0].Counts["studioOps"] != 1 || rep.Transactions[0].Counts["changes"] != 1 {
		t.Errorf("atlas://transactions: %+v", rep.Transactions)
	}
	if !slices.Equal(rep.Transaction.Changes, []string{c.ID}) || rep.Transaction.StudioOps != 1 || rep.Transaction.Outcome.State != "committed" || rep.Transaction.Outcome.Open {
		t.Errorf("atlas://transactions/{id}: %+v", rep.Transaction)
	}
	if rep.StatusSessions != 1 {
		t.Errorf("atlas://status: %d sessions", rep.StatusSessions)
	}
	if rep.Undone.TxID != applied || rep.Undone.StudioOps != 1 || rep.StateAfterUndo != "undone" {
		t.Errorf("sync_undo: %+v, then %s", rep.Undone, rep.StateAfterUndo)
	}
}

// testInspectorStrict: the MCP Inspector's CLI with --strict lints every tool's
// input and output schema for what clients reject (boolean subschemas, type
// arrays, untyped schemas, remote refs) and exits 6 on an error. Atlas's tools
// give it nothing to report, not even a warning.
func (x *e2e) testInspectorStrict(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	r := x.inspect(t, dir, x.env(t, t.TempDir()), "--method", "tools/list", "--strict")
	if r.code != 0 {
		t.Fatalf("inspector --strict tools/list exited %d\n%s", r.code, r.stderr)
	}
	for _, bad := range []string{"Error: tool", "Warning: tool", "Schema portability", "schema_unportable"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("inspector --strict reported %q:\n%s", bad, r.stderr)
		}
	}
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Tools) != len(mcpTools) {
		t.Fatalf("tools/list: %v\n%s", err, r.stdout)
	}
	for _, tool := range list.Tools {
		if tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: outputSchema %v", tool.Name, tool.OutputSchema)
		}
	}
	// The same lint run on --format json reports its findings there: none.
	r = x.inspect(t, dir, x.env(t, t.TempDir()), "--method", "tools/list", "--strict", "--format", "json")
	var out struct {
		Result         json.RawMessage `json:"result"`
		SchemaFindings json.RawMessage `json:"schemaFindings"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Result == nil || out.SchemaFindings != nil {
		t.Fatalf("inspector --strict --format json exited %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
}

// testProtocolRobustness: over its real stdin and stdout, `atlas mcp` answers a
// line that is not JSON-RPC with a JSON-RPC error and keeps serving; an
// unsupported protocolVersion is answered with its newest revision; invalid
// tool arguments are an isError result with E_BAD_REQUEST.
func (x *e2e) testProtocolRobustness(t *testing.T) {
	t.Parallel()
	dir := hosttest.Repo(t, mcpProject)
	cmd := exec.Command(x.bin, "mcp", "--port", "0")
	cmd.Dir, cmd.Env = dir, x.env(t, t.TempDir())
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan map[string]json.RawMessage, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := checkLine(sc.Bytes()); err != nil || json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]json.RawMessage{"bad": json.RawMessage(strconv.Quote(sc.Text()))}
			}
			lines <- m
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(e2eWait):
			cmd.Process.Kill()
		}
	})
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write: %v\n%s", err, stderr.String())
		}
	}
	next := func() map[string]json.RawMessage {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("atlas mcp closed stdout\n%s", stderr.String())
			}
			if m["bad"] != nil {
				t.Fatalf("stdout line is not JSON-RPC 2.0: %s", m["bad"])
			}
			return m
		case <-time.After(e2eWait):
			t.Fatalf("no answer from atlas mcp\n%s", stderr.String())
		}
		return nil
	}
	errorOf := func(m map[string]json.RawMessage) (string, int) {
		t.Helper()
		var e struct {
			Code int `json:"code"`
		}
		if m["result"] != nil || json.Unmarshal(m["error"], &e) != nil {
			t.Fatalf("want an error response, got %s", mustJSON(t, m))
		}
		return string(m["id"]), e.Code
	}

	// Before and after initialize, a malformed line gets -32700 (id null) and the
	// server goes on.
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{`)
	if id, code := errorOf(next()); id != "null" || code != jsonrpc.CodeParseError {
		t.Fatalf("malformed line: id %s code %d, want null %d", id, code, jsonrpc.CodeParseError)
	}
	send(`{"jsonrpc":"2.0","id":"v","method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := next()
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if string(m["id"]) != `"v"` || json.Unmarshal(m["result"], &init) != nil || init.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize with an unsupported version: %s, want 2025-11-25 (the newest supported)", mustJSON(t, m))
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`this is not JSON`)
	if id, code := errorOf(next()); id != "null" || code != jsonrpc.CodeParseError {
		t.Fatalf("malformed line: id %s code %d", id, code)
	}
	send(`{"jsonrpc":"2.0","id":5}`)
	send(`{"id":6,"method":"tools/list"}`)
	if id, code := errorOf(next()); id != "6" || code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("a message without jsonrpc: id %s code %d, want 6 %d", id, code, jsonrpc.CodeInvalidRequest)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atlas_sync","arguments":{"mode":"sometimes"}}}`)
	m = next()
	var res struct {
		IsError           bool        `json:"isError"`
		StructuredContent e2eEnvelope `json:"structuredContent"`
	}
	if string(m["id"]) != "7" || json.Unmarshal(m["result"], &res) != nil || !res.IsError ||
		len(res.StructuredContent.Errors) != 1 || res.StructuredContent.Errors[0].Code != "E_BAD_REQUEST" {
		t.Fatalf("invalid arguments: %s", mustJSON(t, m))
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	m = next()
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if string(m["id"]) != "8" || json.Unmarshal(m["result"], &list) != nil || len(list.Tools) != len(mcpTools) {
		t.Fatalf("tools/list after the bad lines: %s", mustJSON(t, m))
	}
	stdin.Close()
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("atlas mcp exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(e2eWait):
		t.Fatalf("atlas mcp did not exit after stdin closed\n%s", stderr.String())
	}
}

// checkStudioTools calls the Studio inspection tools and reads the resources with the
// go-sdk client, against the emulated Studio.
func (x *e2e) checkStudioTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res := callTool(t, cs, "run_code", map[string]any{"code": `print("go-sdk-line") return Vector3.new(1, 2, 3), {}`})
	var ex struct {
		Values []json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(res.Data, &ex); err != nil || len(ex.Values) != 2 || string(ex.Values[0]) != `{"Vector3":[1,2,3]}` || string(ex.Values[1]) != "null" {
		t.Fatalf("run_code values: %s", res.Data)
	}
	res = callTool(t, cs, "studio_query", map[string]any{"path": "ReplicatedStorage/Shared/Util", "properties": []string{"Name"}})
	if !res.OK || !strings.Contains(string(res.Data), `"Name":{"String":"Util"}`) {
		t.Fatalf("studio_query: %s", res.Data)
	}
	res = callTool(t, cs, "studio_query", map[string]any{"path": "ReplicatedStorage/Nope"})
	if res.OK || res.Errors[0].Code != "E_NOT_FOUND" || res.Errors[0].Details["nearest"] != "ReplicatedStorage" {
		t.Fatalf("studio_query of a missing path: %+v", res)
	}
	res = callTool(t, cs, "studio_logs", map[string]any{"count": 1})
	if !res.OK || !strings.Contains(string(res.Data), `"text":"go-sdk-line"`) {
		t.Fatalf("studio_logs: %s", res.Data)
	}
	res = callTool(t, cs, "studio_state", map[string]any{})
	if !res.OK || !strings.Contains(string(res.Data), `"runMode":"Edit"`) {
		t.Fatalf("studio_state: %s", res.Data)
	}
	res = callTool(t, cs, "sync_undo", map[string]any{"yes": true})
	if res.OK || res.Errors[0].Details["reasonCode"] != "nothing_to_undo" {
		t.Fatalf("sync_undo with nothing applied: %+v", res)
	}

	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 2 {
		t.Fatalf("resources/list: %v %+v", err, list)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "atlas://transactions/{id}" {
		t.Fatalf("resources/templates/list: %v %+v", err, templates)
	}
	for uri, want := range map[string]string{"atlas://status": `"sessions":[{`, "atlas://transactions": `"transactions":[]`} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].MIMEType != "application/json" || !strings.Contains(r.Contents[0].Text, want) {
			t.Fatalf("read %s: %v %+v", uri, err, r)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "atlas://transactions/nope"}); err == nil {
		t.Fatal("read of an unknown transaction succeeded")
	}
}

// checkPlaytest connects a playtest's server (a second emulator, context "server") to
// the host atlas mcp runs: studio_state says Studio is playing, run_code and
// studio_logs reach the server by context, and sync refuses it.
func (x *e2e) checkPlaytest(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	var st struct {
		Host struct {
			Port int `json:"port"`
		} `json:"host"`
	}
	if err := json.Unmarshal(callTool(t, cs, "studio_status", map[string]any{}).Data, &st); err != nil || st.Host.Port == 0 {
		t.Fatalf("studio_status: %v", err)
	}
	place := filepath.Join(t.TempDir(), "server.json")
	pf := &host.PlaceFile{PlaceName: "Game", Context: "server", Root: &host.PlaceNode{Name: "Game", ClassName: "DataModel", Children: []*host.PlaceNode{}}}
	if err := host.WritePlace(place, pf); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	emu, err := host.StartEmulator(ctx, host.EmulatorOptions{PluginDir: x.pluginDir, URL: fmt.Sprintf("ws://127.0.0.1:%d/plugin", st.Host.Port), Place: place})
	if err != nil {
		t.Fatal(err)
	}
	defer emu.Stop()
	var state struct {
		RunMode  string `json:"runMode"`
		Sessions []struct {
			ID       string `json:"id"`
			Context  string `json:"context"`
			ReadOnly bool   `json:"readOnly"`
		} `json:"sessions"`
	}
	for deadline := time.Now().Add(e2eWait); ; time.Sleep(100 * time.Millisecond) {
		if err := json.Unmarshal(callTool(t, cs, "studio_state", map[string]any{}).Data, &state); err != nil {
			t.Fatal(err)
		}
		if len(state.Sessions) == 2 || time.Now().After(deadline) {
			break
		}
	}
	server := ""
	for _, s := range state.Sessions {
		if s.Context == "server" && s.ReadOnly {
			server = s.ID
		}
	}
	if state.RunMode != "Play" || server == "" {
		t.Fatalf("studio_state while a playtest runs: %+v", state)
	}
	res := callTool(t, cs, "run_code", map[string]any{"context": "server", "code": `print("server-line") return game:GetService("RunService"):IsServer()`})
	if !res.OK || !strings.Contains(string(res.Data), `"values":[{"Bool":true}]`) || !strings.Contains(string(res.Data), `"context":"server"`) {
		t.Fatalf("run_code on the server: %s", res.Data)
	}
	res = callTool(t, cs, "studio_logs", map[string]any{"sessionId": server, "count": 1})
	if !res.OK || !strings.Contains(string(res.Data), `"text":"server-line"`) {
		t.Fatalf("studio_logs of the server: %s", res.Data)
	}
	res = callTool(t, cs, "sync_plan", map[string]any{"sessionId": server})
	if res.OK || res.Errors[0].Code != "E_STUDIO_READ_ONLY" {
		t.Fatalf("sync_plan on the server: %+v", res.Errors)
	}
	res = callTool(t, cs, "sync_plan", map[string]any{})
	if !res.OK {
		t.Fatalf("sync_plan while playing: %+v", res.Errors)
	}
}
