package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitfor FILE REGEXP: wait until FILE exists and matches REGEXP; "! waitfor" waits
// until it does not. It gives up after a minute (a watcher that never writes).
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	file := ts.MkAbs(args[0])
	deadline := time.Now().Add(time.Minute)
	var last []byte
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(file)
		if err == nil {
			last = data
			if re.Match(data) != neg {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := "match"
	if neg {
		want = "stop matching"
	}
	ts.Fatalf("%s did not %s %q in time; it holds:\n%s", args[0], want, args[1], last)
}

// TestSourcemapWatchIsAtomic runs `atlas sourcemap --watch` in process on a project
// large enough that a plain rewrite would be caught half-written, edits it many
// times, and reads the sourcemap all along as luau-lsp would: every read must be
// a whole sourcemap.
func TestSourcemapWatchIsAtomic(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("default.project.json", `{"name": "Big", "tree": {"$path": "src"}}`)
	for i := range 400 {
		write(fmt.Sprintf("src/Folder%02d/Module%03d.luau", i%20, i), "return 1")
	}
	out := filepath.Join(dir, "sourcemap.json")

	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, cwd: dir}
	done := make(chan int)
	go func() { done <- a.run(ctx, []string{"atlas", "sourcemap", "--watch", "-o", out}) }()

	// Read while the watcher writes; every read that finds the file must parse.
	stopReading := make(chan struct{})
	readErrs := make(chan error, 1)
	var reads int
	go func() {
		defer close(readErrs)
		for {
			select {
			case <-stopReading:
				return
			default:
			}
			data, err := os.ReadFile(out)
			if err != nil {
				continue // not written yet
			}
			reads++
			var sm struct{ Name string }
			if err := json.Unmarshal(data, &sm); err != nil || sm.Name != "Big" {
				readErrs <- fmt.Errorf("read a partial sourcemap (%d bytes): %v", len(data), err)
				return
			}
		}
	}()

	waitFor := func(substr string, present bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			data, _ := os.ReadFile(out)
			if bytes.Contains(data, []byte(substr)) == present {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("sourcemap never had %q = %v; stderr: %s", substr, present, stderr.String())
	}
	waitFor(`"name":"Module399"`, true)
	for i := range 10 {
		name := fmt.Sprintf("Added%d", i)
		write("src/"+name+".luau", "return 2")
		waitFor(`"name":"`+name+`"`, true)
	}
	close(stopReading)
	if err := <-readErrs; err != nil {
		t.Fatal(err)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("sourcemap --watch exited %d; stderr: %s", code, stderr.String())
	}
	if reads == 0 {
		t.Fatal("the reader never saw the sourcemap")
	}
	if n := strings.Count(stdout.String(), "wrote "); n < 11 {
		t.Errorf("stdout reports %d writes, want at least 11 (the first and one per edit):\n%s", n, stdout.String())
	}
	// The temp files of the atomic writes are gone.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}
