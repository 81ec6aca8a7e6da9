package host

import (
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// The trim runs once, delay after the last of a burst of work ends; not while work is
// under way, however long; and not after close.
func TestTrimmerRunsOnceIdle(t *testing.T) {
	var runs atomic.Int32
	tr := &trimmer{delay: 300 * time.Millisecond, trim: func() { runs.Add(1) }}
	// still waits wait and checks that the trim has run want times.
	still := func(wait time.Duration, want int32, when string) {
		t.Helper()
		time.Sleep(wait)
		if n := runs.Load(); n != want {
			t.Fatalf("trimmed %d times %s, want %d", n, when, want)
		}
	}
	for range 5 {
		tr.begin()
		tr.end()
		still(20*time.Millisecond, 0, "within a burst of work")
	}
	waitUntil(t, func() bool { return runs.Load() == 1 })

	// Work that outlasts the delay, with shorter work beside it.
	tr.begin()
	tr.begin()
	tr.end()
	still(3*tr.delay, 1, "while work is under way")
	tr.end()
	waitUntil(t, func() bool { return runs.Load() == 2 })
	still(2*tr.delay, 2, "after the work")

	tr.begin()
	tr.end()
	tr.close()
	tr.begin()
	tr.end()
	still(2*tr.delay, 2, "after close")
}

func TestWorthTrimming(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		held, live uint64
		want       bool
	}{
		{0, 0, false},
		{7 * mb, 0, false},
		{8 * mb, 0, true},
		{40 * mb, 22 * mb, true},    // a small project's heap after a burst of work
		{28 * mb, 22 * mb, false},   // 6 MB: under 8 MB
		{200 * mb, 190 * mb, false}, // 10 MB beyond a big live heap
		{300 * mb, 150 * mb, true},
		{180 * mb, 150 * mb, true},   // 30 MB: over an eighth of 150
		{165 * mb, 150 * mb, false},  // 15 MB: under an eighth of 150
		{1000 * mb, 900 * mb, false}, // 100 MB, under an eighth of 900
		{1200 * mb, 900 * mb, true},
		{10 * mb, 20 * mb, false}, // live above held (read at different times)
	} {
		if got := worthTrimming(c.held, c.live); got != c.want {
			t.Errorf("worthTrimming(%d MB, %d MB) = %v, want %v", c.held/mb, c.live/mb, got, c.want)
		}
	}
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// TestTuneGC checks that a host process collects at gcPercent, unless GOGC says
// otherwise.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if !TuneGC(getenv) {
		t.Error("TuneGC without GOGC did not set the target")
	}
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("target after TuneGC = %d, want %d", got, gcPercent)
	}
	restore := relaxGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("target during an apply = %d, want 100", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("target after an apply = %d, want %d", got, gcPercent)
	}
	gcTuned.Store(false)
	env["GOGC"] = "80"
	if TuneGC(getenv) {
		t.Error("TuneGC with GOGC set changed the target")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("target after TuneGC with GOGC set = %d, want 100 (left as it was)", got)
	}
	relaxGC()()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("an apply with GOGC set left the target at %d, want 100", got)
	}
}

// giveBack runs one collection at a time, and wait returns once it is done (at once
// with none under way).
func TestGiveBack(t *testing.T) {
	var g giveBack
	g.wait() // none under way
	g.soon()
	g.mu.Lock()
	first := g.done
	g.mu.Unlock()
	g.soon() // under way already (or just done): no second one beside it
	g.wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done != nil {
		t.Error("a collection is still under way after wait")
	}
	if first != nil {
		select {
		case <-first:
		default:
			t.Error("wait returned before the collection it waited for was done")
		}
	}
}
