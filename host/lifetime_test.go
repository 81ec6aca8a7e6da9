package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/project"
)

// engineGoroutines returns the stacks of the goroutines running code of the host
// or the bridge, by goroutine id.
func engineGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	ours := regexp.MustCompile(`atlas-rbx/atlas/(host|bridge)\.`)
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		id, _, _ := strings.Cut(strings.TrimPrefix(g, "goroutine "), " ")
		if ours.MatchString(g) && !strings.Contains(g, "engineGoroutines") {
			out[id] = g
		}
	}
	return out
}

// Close leaves no goroutine of the host behind: the local API, recovery, the
// prewarm plan, the project watcher and the plugin sessions all end.
func TestCloseEndsEveryGoroutine(t *testing.T) {
	ctx := context.Background()
	before := engineGoroutines()
	dir := hosttest.Repo(t, hosttest.Project)
	loc, err := project.Locate(dir, "", func(string) string { return dir })
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Location: loc, StateDir: t.TempDir(), Version: "test", Prewarm: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pf)
	place, err := bridgetest.LoadPlace(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	p := bridgetest.New(place)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Connect(cctx, h.PluginURL()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := h.Plan(cctx, host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	if len(engineGoroutines()) == len(before) {
		t.Fatal("a running host shows no goroutine of its own: the check sees nothing")
	}
	h.Close()
	// A goroutine that was waited for may still be unwinding its last frames.
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left = left[:0]
		for id, g := range engineGoroutines() {
			if _, old := before[id]; !old {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("%d goroutine(s) of the host outlive Close:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}
