package host_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/project"
)

// A plan (here one that finds no Studio) is activity: once the host has been idle
// for the delay after it, the memory the process freed goes back to the system.
func TestIdleHostReturnsMemory(t *testing.T) {
	dir := hosttest.Repo(t, map[string]string{
		"default.project.json": `{"name": "P", "tree": {"$className": "DataModel"}}`,
	})
	loc, err := project.Locate(dir, "", func(string) string { return dir })
	if err != nil {
		t.Fatal(err)
	}
	var log hosttest.SyncBuffer
	h, err := host.New(host.Options{Location: loc, StateDir: t.TempDir(), Version: "test",
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.SetTrimDelay(50 * time.Millisecond)

	// A live heap of 64 MB, as a big project's trees are, lets Go keep about as much
	// again when it is freed: 64 MB is, as a big plan or apply frees it, each block
	// garbage as soon as the next is made (a collection in between finds it dead).
	live := alloc(64)
	runtime.GC()
	for range 64 {
		sink = make([]byte, 1<<20)
	}
	sink = nil
	defer runtime.KeepAlive(live)
	if _, err := h.Plan(context.Background(), host.PlanRequest{}); err == nil {
		t.Fatal("plan without Studio succeeded")
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "memory returned to the system"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no memory returned 10 s after the plan; log:\n%s", log.String())
		}
	}
}

// sink keeps the latest garbage block reachable only until the next is made.
var sink []byte

// alloc allocates n MB in 1 MB blocks.
func alloc(n int) [][]byte {
	b := make([][]byte, n)
	for i := range b {
		b[i] = make([]byte, 1<<20)
	}
	return b
}
