package host

import (
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// trimDelay is how long the host waits, with no plan, apply or drift check under way,
// before it gives back the memory they freed.
const trimDelay = 2 * time.Second

// trimmer gives the memory a burst of work freed back to the system once the host
// has been idle for a moment. Go keeps freed heap for reuse (up to about twice the
// live heap) and returns it slowly: after applies of 1,000 scripts of a 10k project
// and the plans between them the host held 300 MB for about 170 MB live. The host is a
// background process that is mostly idle, so holding it buys little. A plan that
// decoded a whole snapshot or disk, and a big apply, give their garbage back at once
// (compute, Apply); the trimmer is for the rest, such as many small plans and applies.
//
// A trim is a forced garbage collection, which costs CPU in proportion to the live
// heap, so it runs only when the memory held beyond the live heap is worth it.
type trimmer struct {
	delay time.Duration
	trim  func() // the work after the delay; trimIfWorth

	mu     sync.Mutex
	timer  *time.Timer
	busy   int // plans, applies and drift checks under way
	closed bool
}

// newTrimmer returns a trimmer that runs idle, then the trim, once the host has
// been idle for trimDelay (idle's garbage goes back to the system with the rest).
// When idle reports that it let go of memory, the trim runs whatever the last
// collection found: what it let go was live until then.
func newTrimmer(log *slog.Logger, idle func() bool) *trimmer {
	return &trimmer{delay: trimDelay, trim: func() {
		if idle() {
			trim(log)
			return
		}
		trimIfWorth(log)
	}}
}

// begin marks work under way: a pending trim waits until it ends (one whose timer has
// just fired runs beside it).
func (t *trimmer) begin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.busy++
	if t.timer != nil {
		t.timer.Stop()
	}
}

// end marks the work done: the trim runs delay after the last work under way ends.
func (t *trimmer) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.busy--
	if t.busy > 0 || t.closed {
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(t.delay, t.trim)
		return
	}
	t.timer.Reset(t.delay)
}

// close cancels a pending trim; later work starts none. A trim already running
// finishes on its own.
func (t *trimmer) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.timer != nil {
		t.timer.Stop()
	}
}

// heapHeld is what the heap's objects and free spans hold from the system (the live
// objects, the dead ones not yet collected, the free spans not yet returned), and the
// live heap after the last collection: a collection can give back about the difference.
// The unused parts of spans that hold live objects are left out, as no collection
// gives those back.
func heapHeld() (held, live uint64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	for _, m := range s[:2] {
		if m.Value.Kind() == metrics.KindUint64 {
			held += m.Value.Uint64()
		}
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		live = s[2].Value.Uint64()
	}
	return held, live
}

// worthTrimming reports whether the heap holds enough beyond its live part to
// collect and give back: 8 MiB and an eighth of the live heap (a collection costs
// about as much as the live heap is big, once per burst of work). Go's scavenger
// alone keeps up to the next collection's goal, twice the live heap.
func worthTrimming(held, live uint64) bool {
	extra := held - min(held, live)
	return extra >= 8<<20 && extra >= live/8
}

func trimIfWorth(log *slog.Logger) {
	if held, live := heapHeld(); worthTrimming(held, live) {
		trim(log)
	}
}

// trim collects and gives what is free back to the system.
func trim(log *slog.Logger) {
	held, live := heapHeld()
	start := time.Now()
	debug.FreeOSMemory()
	after, _ := heapHeld()
	log.Debug("memory returned to the system", "ms", time.Since(start).Milliseconds(),
		"heldMB", held>>20, "liveMB", live>>20, "nowMB", after>>20)
}

// giveBack runs the forced collection a big plan asks for after its answer, one at a
// time; an apply waits for one under way (wait).
type giveBack struct {
	mu   sync.Mutex
	done chan struct{} // closed when the one under way ends; nil when none is
}

// soon gives the freed heap back to the system on another goroutine, unless that is
// under way already.
func (g *giveBack) soon() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done != nil {
		return
	}
	done := make(chan struct{})
	g.done = done
	go func() {
		debug.FreeOSMemory()
		g.mu.Lock()
		g.done = nil
		g.mu.Unlock()
		close(done)
	}()
}

// wait returns once no collection soon started is under way.
func (g *giveBack) wait() {
	g.mu.Lock()
	done := g.done
	g.mu.Unlock()
	if done != nil {
		<-done
	}
}

// gcPercent is the collector's target for a host process: a collection once the heap
// has grown by half the live heap, where Go's default (100) waits for all of it.
//
// A host's heap is mostly trees that live as long as it does, and a whole load of
// them (the first plan) allocates several times their size in passing. At the
// default, those passing objects and the trees' own fill the same spans, and the
// spans stay partly filled once the passing ones are gone: at 10k scripts the host
// held 32 MB of such free space after its first plan, for 72 MB live. Collecting at
// half the growth reuses the space sooner: 21 MB, and 123 MB resident instead of 136.
// It costs a collection more often, each in proportion to the live heap.
const gcPercent = 50

// gcTuned is whether TuneGC set the process's target.
var gcTuned atomic.Bool

// TuneGC sets the collector's target for a long-running host process (gcPercent),
// unless the GOGC variable (read with getenv) sets one. It reports whether it set it.
func TuneGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(gcPercent)
	gcTuned.Store(true)
	return true
}

// relaxGC puts Go's default target back while an apply runs, and returns the function
// that sets gcPercent again. An apply allocates its ops, frames and journal in a burst
// and keeps little of them, and a big apply gives its garbage back once done (Apply)
// all the same. At 10k, 15 applies of 1,000 edits each, in turns on a noisy machine,
// took a median of 511 ms collecting at gcPercent throughout, 475 ms with this, and
// 437 ms at Go's default throughout. Applies run one at a time (Host.turn).
func relaxGC() (restore func()) {
	if !gcTuned.Load() {
		return func() {}
	}
	debug.SetGCPercent(100)
	return func() { debug.SetGCPercent(gcPercent) }
}
