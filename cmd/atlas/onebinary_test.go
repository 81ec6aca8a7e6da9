package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plugin"
)

// TestOneBinary runs atlas as a person who ran `go install` would: the binary alone in
// an empty folder, started from another empty folder with a bare environment (PATH and
// HOME, as `env -i` gives, or even less, as MCP clients give), no checkout, no
// node_modules, no ATLAS_PLUGIN_DIR: the emulator comes out of the binary.
func TestOneBinary(t *testing.T) {
	if _, err := plugin.Node(context.Background()); err != nil {
		t.Fatalf("these tests run the emulator under Node.js: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "atlas")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	x := &oneBinary{bin: bin, path: os.Getenv("PATH")}
	t.Run("Demo", x.testDemo)
	t.Run("MCPEmulate", x.testMCPEmulate)
	t.Run("MCPHintWithoutStudio", x.testMCPHint)
	t.Run("ServeEmulateAndPlan", x.testServeAndPlan)
	t.Run("NodeMissing", x.testNodeMissing)
	t.Run("DemoCleansUpOnFailure", x.testDemoCleanup)
}

type oneBinary struct {
	bin  string
	path string // the test's PATH, with node and git
}

// run runs atlas in dir with exactly env and returns its output and exit code.
func (x *oneBinary) run(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, x.bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("atlas %v: %v", args, err)
	}
	return out.String(), errOut.String(), 0
}

// emulatorDirs lists the unpacked emulators in a cache folder.
func emulatorDirs(t *testing.T, cache string) []string {
	t.Helper()
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatalf("no cache folder %s: %v", cache, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// testDemo: `atlas demo` passes with only PATH and HOME, and unpacks the emulator
// into HOME's cache folder.
func (x *oneBinary) testDemo(t *testing.T) {
	home := t.TempDir()
	env := []string{"PATH=" + x.path, "HOME=" + home}
	demo := filepath.Join(t.TempDir(), "demo")
	stdout, stderr, code := x.run(t, t.TempDir(), env, "demo", "--dir", demo)
	if code != 0 {
		t.Fatalf("atlas demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"refused:", "E_CONFIRM_TOKEN_MISMATCH", "both sides now agree", "Done."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(demo, "src", "shared", "Scores.luau")); err != nil || !strings.Contains(string(b), "best = 0") {
		t.Errorf("the demo did not pull Scores.luau from Studio: %v %q", err, b)
	}
	cache, _ := plugin.CacheDir(func(k string) string { return map[string]string{"HOME": home}[k] })
	key, _ := plugin.EmulatorKey()
	if got := emulatorDirs(t, cache); !slices.Equal(got, []string{key}) {
		t.Errorf("cache %s holds %v, want [%s]", cache, got, key)
	}
}

// testMCPEmulate: `atlas mcp --emulate` answers an external MCP client (initialize,
// tools/list, tools/call) with the emulated Studio connected, started from an empty
// folder with --project, as clients configure it; with PATH and HOME, and with no HOME
// at all (the cache override, or else the temp folder).
func (x *oneBinary) testMCPEmulate(t *testing.T) {
	proj := hosttest.Repo(t, mcpProject)
	tests := []struct {
		name  string
		env   func(t *testing.T) []string
		cache func(env []string) string // where the emulator must have been unpacked
	}{
		{"PATH and HOME", func(t *testing.T) []string {
			return []string{"PATH=" + x.path, "HOME=" + t.TempDir()}
		}, func(env []string) string {
			d, _ := plugin.CacheDir(func(k string) string { return envValue(env, k) })
			return d
		}},
		// With no HOME the state goes to a private folder of the temp folder, which
		// TMPDIR keeps inside the test's.
		{"no HOME, cache override", func(t *testing.T) []string {
			tmp := t.TempDir()
			return []string{"PATH=" + x.path, "ATLAS_CACHE_DIR=" + t.TempDir(), "TMPDIR=" + tmp, "TEMP=" + tmp, "TMP=" + tmp}
		}, func(env []string) string { return envValue(env, "ATLAS_CACHE_DIR") }},
		{"no HOME, no cache folder", func(t *testing.T) []string {
			tmp := t.TempDir()
			return []string{"PATH=" + x.path, "TMPDIR=" + tmp, "TEMP=" + tmp, "TMP=" + tmp}
		}, func(env []string) string {
			name := "atlas-cache" // the child runs as this user
			if uid := os.Getuid(); uid >= 0 {
				name += "-" + strconv.Itoa(uid)
			}
			return filepath.Join(envValue(env, "TMPDIR"), name)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env(t)
			cmd := exec.Command(x.bin, "mcp", "--emulate", "--port", "0", "--project", proj)
			cmd.Dir, cmd.Env = t.TempDir(), env
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "one-binary", Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: e2eWait}, nil)
			if err != nil {
				t.Fatalf("initialize: %v\n%s", err, stderr.String())
			}
			defer cs.Close()
			if got := cs.InitializeResult().ServerInfo.Name; got == "" {
				t.Errorf("initialize: no server name")
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range mcpTools {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list lacks %s: %v", want, names)
				}
			}
			listSchemas(t, cs)
			waitSession(t, cs)
			if env := callTool(t, cs, "sync_plan", map[string]any{}); !env.OK {
				t.Fatalf("sync_plan: %+v", env)
			}
			if err := cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			key, _ := plugin.EmulatorKey()
			if got := emulatorDirs(t, tt.cache(env)); !slices.Contains(got, key) {
				t.Errorf("%s holds %v, want %s", tt.cache(env), got, key)
			}
			if envValue(env, "HOME") == "" {
				state := filepath.Join(envValue(env, "TMPDIR"), "atlas-state")
				if uid := os.Getuid(); uid >= 0 {
					state += "-" + strconv.Itoa(uid)
				}
				if _, err := os.Stat(filepath.Join(state, "projects")); err != nil {
					t.Errorf("no state in the temp folder: %v\n%s", err, stderr.String())
				}
			}
		})
	}
}

// testMCPHint: `atlas mcp` as the host, with no Studio, says how to get one that works
// from there: connect Studio or restart as `atlas mcp --emulate` (an `atlas serve
// --emulate` would find this host running and fail with E_BUSY).
func (x *oneBinary) testMCPHint(t *testing.T) {
	proj := hosttest.Repo(t, mcpProject)
	cmd := exec.Command(x.bin, "mcp", "--port", "0", "--project", proj)
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + x.path, "HOME=" + t.TempDir()}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "one-binary", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: e2eWait}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	listSchemas(t, cs)
	env := callTool(t, cs, "sync_plan", map[string]any{})
	if env.OK || len(env.Errors) != 1 || env.Errors[0].Code != "E_STUDIO_NOT_CONNECTED" {
		t.Fatalf("sync_plan without Studio: %+v", env)
	}
	hint, _ := env.Errors[0].Details["hint"].(string)
	if !strings.Contains(hint, "atlas mcp --emulate") || strings.Contains(hint, "atlas serve") {
		t.Errorf("hint = %q; want Studio or 'atlas mcp --emulate', never 'atlas serve'", hint)
	}
	next, _ := json.Marshal(env.Errors[0].Details["nextActions"])
	if string(next) != `["connect_studio"]` {
		t.Errorf("nextActions = %s; want [\"connect_studio\"]", next)
	}
}

// testServeAndPlan: `atlas serve --emulate`, then `atlas sync plan` sees a disk edit.
// The plan is sent as soon as the host answers, while its emulator still starts: it
// waits for that Studio instead of failing with E_STUDIO_NOT_CONNECTED.
func (x *oneBinary) testServeAndPlan(t *testing.T) {
	proj := hosttest.Repo(t, mcpProject)
	env := []string{"PATH=" + x.path, "HOME=" + t.TempDir()}
	hosttest.Write(t, proj, "src/shared/Util.luau", "return { edited = true }\n")
	cmd := exec.Command(x.bin, "serve", "--port", "0", "--emulate")
	cmd.Dir, cmd.Env = proj, env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
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
	deadline := time.After(e2eWait)
	for !strings.Contains(stderr.String(), "Atlas host for") {
		select {
		case err := <-done:
			t.Fatalf("atlas serve --emulate exited: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("the host did not start:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	early := !strings.Contains(stderr.String(), "Studio emulator started")
	stdout, errOut, code := x.run(t, proj, env, "sync", "plan", "--json")
	if code != 0 {
		t.Fatalf("atlas sync plan: exit %d\n%s\n%s\n%s", code, stdout, errOut, stderr.String())
	}
	if !early {
		t.Logf("the emulator had connected before the plan was sent: the wait was not exercised")
	}
	var plan struct {
		OK   bool `json:"ok"`
		Data struct {
			Summary struct{ Total, Push int } `json:"summary"`
			Changes []struct {
				FsPath    string  `json:"fsPath"`
				Direction *string `json:"direction"`
			} `json:"changes"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil || !plan.OK {
		t.Fatalf("plan: %v\n%s", err, stdout)
	}
	if plan.Data.Summary.Total != 1 || plan.Data.Summary.Push != 1 || plan.Data.Changes[0].FsPath != "src/shared/Util.luau" {
		t.Errorf("plan: %s", stdout)
	}
}

// testNodeMissing: without node on PATH, demo, serve --emulate and mcp --emulate say so
// with E_NODE_MISSING and how to install it, before they start anything.
func (x *oneBinary) testNodeMissing(t *testing.T) {
	proj := hosttest.Repo(t, mcpProject)
	env := []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	for _, args := range [][]string{
		{"demo"},
		{"serve", "--port", "0", "--emulate"},
		{"mcp", "--port", "0", "--emulate"},
	} {
		t.Run(args[0], func(t *testing.T) {
			stdout, stderr, code := x.run(t, proj, env, args...)
			if code != 1 || !strings.Contains(stderr, "(E_NODE_MISSING)") || !strings.Contains(stderr, "next: install Node.js 20 or later") {
				t.Errorf("atlas %v: exit %d\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(envValue(env, "HOME"), ".cache")); err == nil {
		t.Errorf("the emulator was unpacked although node is missing")
	}
}

// testDemoCleansUpOnFailure: a demo that fails (here the emulator cannot start) removes
// the temp folder it made and its project's state.
func (x *oneBinary) testDemoCleanup(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// A node that answers --version but cannot run the emulator.
	name, body := "node", "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v22.0.0; else echo broken >&2; exit 3; fi\n"
	if runtime.GOOS == "windows" {
		name, body = "node.bat", "@if \"%1\"==\"--version\" (echo v22.0.0) else (exit 3)\r\n"
	}
	if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, state := t.TempDir(), t.TempDir()
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + filepath.Dir(git),
		"HOME=" + t.TempDir(), "TMPDIR=" + tmp, "TEMP=" + tmp, "TMP=" + tmp, "ATLAS_STATE_DIR=" + state,
	}
	stdout, stderr, code := x.run(t, t.TempDir(), env, "demo")
	if code != 1 || !strings.Contains(stderr, "emulator exited before connecting") {
		t.Fatalf("demo with a broken node: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Creating a Rojo project") {
		t.Fatalf("the demo failed before it made its folder:\n%s", stdout)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "atlas-*")); len(left) != 0 {
		t.Errorf("the failed demo left %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "projects", "*")); len(left) != 0 {
		t.Errorf("the failed demo left project state %v", left)
	}
}
