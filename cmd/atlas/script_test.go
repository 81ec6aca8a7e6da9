package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"atlas": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the CLI end to end (cmd/atlas/testdata/script/*.txtar): real git
// repos, a real host, and the Studio emulator running the real plugin.
func TestScripts(t *testing.T) {
	pluginDir, err := filepath.Abs(filepath.Join("..", "..", "plugin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pluginDir, "node_modules", "luau-web")); err != nil {
		t.Fatalf("the emulator needs 'npm ci' in plugin/ first (make test does it): %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("ATLAS_STATE_DIR", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("ATLAS_PLUGIN_DIR", pluginDir)
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"} {
				env.Setenv(k, v)
			}
			if p, err := exec.LookPath("node"); err == nil {
				env.Setenv("PATH", filepath.Dir(p)+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonget":  cmdJSONGet,
			"cmpnorm":  cmdCmpNorm,
			"waithost": cmdWaitHost,
			"waitfor":  cmdWaitFor,
			"freeport": cmdFreePort,
			"writefile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: writefile FILE CONTENT")
				}
				if err := os.WriteFile(ts.MkAbs(args[0]), []byte(args[1]), 0o644); err != nil {
					ts.Fatalf("%v", err)
				}
			},
		},
	})
}

// jsonget FILE PATH [VAR]: read a value at a dotted path (numbers index arrays, "@len" is
// an array's or object's length) from the
// JSON in FILE (stdout, stderr or a file); with VAR set an env var, without it print it.
// "jsonget FILE PATH = VALUE" asserts the value (as compact JSON, or the bare string).
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: jsonget FILE PATH [VAR | = VALUE]")
	}
	data := ts.ReadFile(args[0])
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &v); err != nil {
		ts.Fatalf("%s is not JSON: %v\n%s", args[0], err, data)
	}
	for _, part := range strings.Split(args[1], ".") {
		switch x := v.(type) {
		case map[string]any, []any:
			if part == "@len" {
				v = float64(reflect.ValueOf(x).Len())
				continue
			}
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("%s: no index %s", args[1], part)
			}
			v = x[i]
		default:
			ts.Fatalf("%s: cannot index %T with %s", args[1], v, part)
		}
	}
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	switch {
	case len(args) == 4 && args[2] == "=":
		if (s == args[3]) == neg {
			ts.Fatalf("%s = %s, want %s%s", args[1], s, map[bool]string{true: "not ", false: ""}[neg], args[3])
		}
	case len(args) == 3:
		ts.Setenv(args[2], s)
	default:
		fmt.Fprintln(ts.Stdout(), s)
	}
}

// volatile are what changes from run to run in human output, and what stands for it.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`eyJ[A-Za-z0-9_.-]+`), "TOKEN"},
	{regexp.MustCompile(`sha256:[0-9a-f]{12}`), "sha256:PLAN"},
	{regexp.MustCompile(`\b[0-9a-f]{32}\b`), "ID"},
	{regexp.MustCompile(`\b[0-9a-f]{12}\b`), "COMMIT"},
	{regexp.MustCompile(`\b\d{8}T\d{6}Z-[0-9a-f]{16}\b`), "TX"},
	{regexp.MustCompile(`\b\d{1,2}:\d{2}(AM|PM)\b`), "TIME"},
}

// cmpnorm FILE WANT: FILE (stdout, stderr or a file) equals the file WANT once
// tokens, hashes, ids, commits, transaction ids and times are replaced by names.
func cmdCmpNorm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpnorm FILE WANT")
	}
	got := ts.ReadFile(args[0])
	for _, v := range volatile {
		got = v.re.ReplaceAllString(got, v.with)
	}
	want := ts.ReadFile(args[1])
	if (got == want) == neg {
		if neg {
			ts.Fatalf("%s matches %s", args[0], args[1])
		}
		ts.Logf("%s (normalized):\n%s", args[0], got)
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}

// waithost [N]: wait until the project's host answers with at least N (default 1)
// Studio sessions.
func cmdWaitHost(ts *testscript.TestScript, neg bool, args []string) {
	want := 1
	if len(args) > 0 {
		want, _ = strconv.Atoi(args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		bin, err := exec.LookPath("atlas")
		if err != nil {
			ts.Fatalf("atlas is not on PATH: %v", err)
		}
		cmd := exec.CommandContext(ctx, bin, "status", "--json")
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = environ(ts)
		out, _ := cmd.Output()
		last = string(out)
		var env struct {
			OK   bool `json:"ok"`
			Data struct {
				Sessions []any `json:"sessions"`
			} `json:"data"`
		}
		if json.Unmarshal(out, &env) == nil && env.OK && len(env.Data.Sessions) >= want {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	ts.Fatalf("host not ready with %d session(s): %s", want, last)
}

func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"ATLAS_STATE_DIR", "ATLAS_PLUGIN_DIR", "HOME", "PATH"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// freeport VAR: set VAR to a port on 127.0.0.1 nobody listens on now.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer ln.Close()
	ts.Setenv(args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}
