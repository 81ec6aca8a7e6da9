package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
)

var updateBuild = flag.Bool("update", false, "rewrite the golden files in testdata/build and testdata/view")

// fixture is the absolute path of a fixture project of the project package.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "project", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// runAtlas runs the CLI in process with cwd as its working folder and returns
// what it printed and its exit code.
func runAtlas(t *testing.T, cwd string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": cwd}
	a := &app{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errOut,
		getenv: func(k string) string { return env[k] },
		cwd:    cwd,
	}
	code = a.run(context.Background(), append([]string{"atlas"}, args...))
	return out.String(), errOut.String(), code
}

// envelopeOf parses stdout, which must be exactly one line of JSON.
func envelopeOf(t *testing.T, stdout string) map[string]any {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout is not exactly one line:\n%s", stdout)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	return env
}

// TestBuildGolden builds fixture projects with `atlas build` and compares the files
// with testdata/build (-update rewrites them).
func TestBuildGolden(t *testing.T) {
	tests := []struct {
		fixture, out string
		format       string
	}{
		{fixture: "file-rules", out: "file-rules.rbxmx", format: "model"},
		{fixture: "model-json", out: "model-json.rbxmx", format: "model"},
		{fixture: "meta-files", out: "meta-files.rbxmx", format: "model"},
		{fixture: "refs", out: "refs.rbxmx", format: "model"},
		{fixture: "edge-text", out: "edge-text.rbxmx", format: "model"},
		{fixture: "services", out: "services.rbxlx", format: "place"},
		{fixture: "class-resolution", out: "class-resolution.rbxlx", format: "place"},
	}
	for _, tt := range tests {
		t.Run(tt.out, func(t *testing.T) {
			dir := fixture(t, tt.fixture)
			loc, err := project.Locate(dir, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := project.LoadDisk(loc)
			if err != nil {
				t.Fatal(err)
			}

			// Human output: one line on stdout, warnings on stderr.
			cwd := t.TempDir()
			stdout, stderr, code := runAtlas(t, cwd, "--project", dir, "build", "-o", tt.out)
			if code != exitOK {
				t.Fatalf("atlas build exited %d; stderr:\n%s", code, stderr)
			}
			outPath := filepath.Join(cwd, tt.out)
			got, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatalf("atlas build wrote no %s: %v", tt.out, err)
			}
			if !strings.HasPrefix(stdout, "built "+outPath+" (") || strings.Count(stdout, "\n") != 1 {
				t.Errorf("stdout = %q, want one line \"built %s (…)\"", stdout, outPath)
			}
			for _, w := range p.Warnings {
				if !strings.Contains(stderr, "warning: "+w+"\n") {
					t.Errorf("stderr lacks the warning %q:\n%s", w, stderr)
				}
			}
			golden := filepath.Join("testdata", "build", tt.out)
			if *updateBuild {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/atlas -run TestBuildGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from %s (-want +got):\n%s", tt.out, golden, diff)
			}

			// A place holds the root's children; a model holds the root itself.
			firstItem := `<Item class="` + p.Root.ClassName + `"`
			if tt.format == "place" {
				firstItem = `<Item class="` + p.Root.Children[0].ClassName + `"`
			}
			if i := strings.Index(string(got), "<Item "); i < 0 || !strings.HasPrefix(string(got[i:]), firstItem) {
				t.Errorf("the first item of %s is not %s", tt.out, firstItem)
			}

			// The file reads back as the project's tree.
			roots, err := rbxmx.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("decode %s: %v", tt.out, err)
			}
			n, wantN := 0, p.Root.Count()
			for _, r := range roots {
				n += r.Count()
			}
			if tt.format == "place" {
				wantN-- // the DataModel itself is not written
			}
			if n != wantN {
				t.Errorf("%s holds %d instances, want %d", tt.out, n, wantN)
			}

			// --json: the envelope, alone on stdout.
			jsonOut := filepath.Join(cwd, "json-"+tt.out)
			stdout, stderr, code = runAtlas(t, cwd, "--project", dir, "build", "-o", jsonOut, "--json")
			if code != exitOK {
				t.Fatalf("atlas build --json exited %d; stdout %s; stderr:\n%s", code, stdout, stderr)
			}
			env := envelopeOf(t, stdout)
			jsonBytes, err := os.ReadFile(jsonOut)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(jsonBytes, got) {
				t.Errorf("atlas build --json wrote a different file than atlas build")
			}
			warnings := []any{}
			for _, w := range p.Warnings {
				warnings = append(warnings, w)
			}
			want2 := map[string]any{
				"schemaVersion": 1.0, "ok": true, "command": "build",
				"data": map[string]any{
					"output": jsonOut, "format": tt.format,
					"instances": float64(p.Root.Count()), "bytes": float64(len(got)),
				},
				"warnings": warnings, "errors": []any{},
			}
			if diff := cmp.Diff(want2, env); diff != "" {
				t.Errorf("atlas build --json envelope (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildErrors checks failures of `atlas build`: exit code 1, the right code, and
// with --json nothing on stdout but the one envelope line.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		out      string
		wantCode errcode.Code
		details  map[string]any // details that must be present
	}{
		{name: "bad output extension", fixture: "file-rules", out: "out.rbxz", wantCode: errcode.Usage},
		{name: "no extension", fixture: "file-rules", out: "out", wantCode: errcode.Usage},
		{
			name: "syntax error", fixture: "err-syntax", out: "out.rbxmx", wantCode: errcode.ProjectInvalid,
			details: map[string]any{"file": "default.project.json", "line": 4.0, "column": 12.0},
		},
		{
			name: "syntax error in a nested project", fixture: "err-syntax-nested", out: "out.rbxlx", wantCode: errcode.ProjectInvalid,
			details: map[string]any{"file": "lib/lib.project.json", "line": 3.0, "column": 28.0},
		},
		{
			name: "invalid file", fixture: "err-utf8-lua", out: "out.rbxmx", wantCode: errcode.ProjectInvalid,
			details: map[string]any{"file": "src/x.lua"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := t.TempDir()
			stdout, stderr, code := runAtlas(t, cwd, "--project", fixture(t, tt.fixture), "build", "-o", tt.out, "--json")
			if code != exitError {
				t.Errorf("exit code %d, want %d", code, exitError)
			}
			if _, err := os.Stat(filepath.Join(cwd, tt.out)); err == nil {
				t.Errorf("a failed build wrote %s", tt.out)
			}
			env := envelopeOf(t, stdout)
			if env["ok"] != false || env["command"] != "build" {
				t.Errorf("envelope ok=%v command=%v, want false, build", env["ok"], env["command"])
			}
			errs, _ := env["errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("envelope errors = %v, want one", env["errors"])
			}
			e, _ := errs[0].(map[string]any)
			if e["code"] != string(tt.wantCode) {
				t.Errorf("error code %v, want %s (message %v)", e["code"], tt.wantCode, e["message"])
			}
			details, _ := e["details"].(map[string]any)
			want, got := map[string]any{}, map[string]any{}
			for k, v := range tt.details {
				want[k], got[k] = v, details[k]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error details (-want +got):\n%s", diff)
			}
			if stderr != "" {
				t.Logf("stderr: %s", stderr)
			}

			// Without --json: nothing on stdout, the code on stderr.
			stdout, stderr, code = runAtlas(t, cwd, "--project", fixture(t, tt.fixture), "build", "-o", tt.out)
			if code != exitError || stdout != "" || !strings.Contains(stderr, "("+string(tt.wantCode)+")") {
				t.Errorf("without --json: exit %d, stdout %q, stderr %q; want 1, nothing, the code", code, stdout, stderr)
			}
		})
	}
}
