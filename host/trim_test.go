package host

import (
	"sync/atomic"
	"testing"
	"time"
)

// The trim runs once, delay after the last of a burst of touches, and not after close.
func TestTrimmerRunsOnceIdle(t *testing.T) {
	var runs atomic.Int32
	tr := &trimmer{delay: 100 * time.Millisecond, trim: func() { runs.Add(1) }}
	for range 5 {
		tr.touch()
		time.Sleep(20 * time.Millisecond)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("trimmed %d times while touched every 20 ms", n)
	}
	waitUntil(t, func() bool { return runs.Load() == 1 })
	time.Sleep(250 * time.Millisecond)
	if n := runs.Load(); n != 1 {
		t.Fatalf("trimmed %d times after one burst, want 1", n)
	}
	tr.touch()
	waitUntil(t, func() bool { return runs.Load() == 2 })
	tr.touch()
	tr.close()
	tr.touch()
	time.Sleep(250 * time.Millisecond)
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
