package host

import (
	"sync/atomic"
	"testing"
	"time"
)

// The trim runs once, delay after the last of a burst of work ends; not while work is
// under way, however long; and not after close.
func TestTrimmerRunsOnceIdle(t *testing.T) {
	var runs atomic.Int32
	tr := &trimmer{delay: 300 * time.Millisecond, trim: func() { runs.Add(1) }}
	for range 5 {
		tr.begin()
		tr.end()
		time.Sleep(20 * time.Millisecond)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("trimmed %d times within a burst of work", n)
	}
	waitUntil(t, func() bool { return runs.Load() == 1 })

	// Work that outlasts the delay, with shorter work beside it.
	tr.begin()
	tr.begin()
	tr.end()
	time.Sleep(3 * tr.delay)
	if n := runs.Load(); n != 1 {
		t.Fatalf("trimmed %d times, want no trim while work is under way", n)
	}
	tr.end()
	waitUntil(t, func() bool { return runs.Load() == 2 })
	time.Sleep(2 * tr.delay)
	if n := runs.Load(); n != 2 {
		t.Fatalf("trimmed %d times after the work, want once", n)
	}

	tr.begin()
	tr.end()
	tr.close()
	tr.begin()
	tr.end()
	time.Sleep(2 * tr.delay)
	if n := runs.Load(); n != 2 {
		t.Fatalf("trimmed %d times, want none after close", n)
	}
}

func TestWorthTrimming(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		held, live uint64
		want       bool
	}{
		{0, 0, false},
		{31 * mb, 0, false},
		{32 * mb, 0, true},
		{200 * mb, 190 * mb, false}, // 10 MB beyond a big live heap
		{300 * mb, 150 * mb, true},
		{180 * mb, 150 * mb, false},  // 30 MB: under 32 MB
		{1000 * mb, 900 * mb, false}, // 100 MB, under a quarter of 900
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
