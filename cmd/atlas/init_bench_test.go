package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
)

// BenchmarkInitFrom50k runs `atlas init --from` on a binary place of 50,000
// instances: read, extract, and write every file with its fsync.
func BenchmarkInitFrom50k(b *testing.B) {
	ws, rs := dom.New("Workspace", "Workspace"), dom.New("ReplicatedStorage", "ReplicatedStorage")
	count := 2
	for i := 0; count < 5000; i++ {
		f := dom.New(fmt.Sprintf("Feature%d", i), "Folder")
		rs.AddChild(f)
		count++
		for j := 0; j < 5 && count < 5000; j++ {
			m := dom.New(fmt.Sprintf("Module%d", j), "ModuleScript")
			m.Properties.Set("Source", dom.String(fmt.Sprintf("return %d\n", i*10+j)))
			f.AddChild(m)
			count++
		}
	}
	for i := 0; count < 50_000; i++ {
		m := dom.New(fmt.Sprintf("Model%d", i), "Model")
		ws.AddChild(m)
		count++
		for j := 0; j < 8 && count < 50_000; j++ {
			p := dom.New("Part", "Part")
			p.Properties.Set("Size", dom.Vector3{4, 1, float32(j)})
			m.AddChild(p)
			count++
		}
	}
	dir := b.TempDir()
	var buf bytes.Buffer
	if err := rbxbin.Encode(&buf, []*dom.Instance{ws, rs}); err != nil {
		b.Fatal(err)
	}
	place := filepath.Join(dir, "game.rbxl")
	if err := os.WriteFile(place, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	n := 0
	for b.Loop() {
		n++
		out := filepath.Join(dir, fmt.Sprintf("out%d", n))
		if _, stderr, code := runAtlasEnv(b, dir, map[string]string{"ATLAS_STATE_DIR": filepath.Join(dir, "state")}, "init", "--from", place, out); code != exitOK {
			b.Fatalf("init exited %d: %s", code, stderr)
		}
	}
}

// runAtlasEnv runs the CLI in process with cwd as its working folder and env as
// its whole environment (HOME is cwd unless given).
func runAtlasEnv(tb testing.TB, cwd string, env map[string]string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	var out, errOut bytes.Buffer
	if _, ok := env["HOME"]; !ok {
		env["HOME"] = cwd
	}
	a := &app{
		stdin:  bytes.NewReader(nil),
		stdout: &out,
		stderr: &errOut,
		getenv: func(k string) string { return env[k] },
		cwd:    cwd,
	}
	code = a.run(context.Background(), append([]string{"atlas"}, args...))
	return out.String(), errOut.String(), code
}
