package faults

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// tally counts outcomes by name, for the log.
type tally map[string]int

func (t tally) String() string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, t[k])
	}
	return b.String()
}

// racingWriters saves files (indexes) each once, at a random moment between from
// and to after run starts, while run runs; it returns what each writer saved.
func racingWriters(p *proj, files []int, from, to time.Duration, run func()) map[int]string {
	saved := map[int]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	stamp := time.Now().UnixNano()
	for _, i := range files {
		wg.Go(func() {
			time.Sleep(from + time.Duration(rand.Int64N(int64(to-from))))
			content := fmt.Sprintf("-- S%d saved by the user %d\n", i, stamp)
			p.write(i, content)
			mu.Lock()
			saved[i] = content
			mu.Unlock()
		})
	}
	run()
	wg.Wait()
	return saved
}

// "N applies racing writers: 0 overwritten": Studio edits scripts, a plan pulls
// them to disk, and while the apply runs the user saves each of those files once,
// at a random moment. Every save must survive: the apply refuses (the plan or a
// file moved), or keeps the file (reported "kept"), or wrote before the save.
func TestFaultApplyRacesWriters(t *testing.T) {
	n := rounds(t, 3)
	p := newProj(t)
	p.serve()
	p.emulator(p.place(nil))
	files := []int{1, 2, 3, 4}
	window := p.measureApply(files)
	outcomes, kept, saves, lost := tally{}, 0, 0, 0
	for r := range n {
		studio := map[int]string{}
		for _, i := range files {
			studio[i] = fmt.Sprintf("-- S%d edited in Studio, round %d\n", i, r)
		}
		p.setStudio(studio)
		token, _ := p.planToken()
		var res applyResult
		// An apply's disk work comes late in it.
		saved := racingWriters(p, files, window/3, window, func() { res = p.apply(token) })
		outcomes[outcome(res.env)]++
		for _, i := range files {
			saves++
			if res.files[scriptPath(i)] == "kept" {
				kept++
			}
			if got := p.read(i); got != saved[i] {
				lost++
				t.Errorf("round %d: S%d holds %q, not the user's save %q (apply: %s, %v)", r, i, got, saved[i], outcome(res.env), res.files)
			}
		}
		if left := p.temps(); len(left) != 0 {
			t.Errorf("round %d: temporary files left: %v", r, left)
		}
		// The user's saves win: Studio takes them, and they become the base.
		p.setStudio(map[int]string{1: p.read(1), 2: p.read(2), 3: p.read(3), 4: p.read(4)})
		p.settle(fmt.Sprintf("round %d", r))
	}
	t.Logf("%d applies racing writers (window %v): %d saves, %d reported kept, %d overwritten; applies: %v", n, window, saves, kept, lost, outcomes)
}

// measureApply runs one plan and apply of Studio edits to files without writers
// and returns a window that covers an apply (its duration, with a margin), for
// the writers to land in.
func (p *proj) measureApply(files []int) time.Duration {
	p.t.Helper()
	studio := map[int]string{}
	for _, i := range files {
		studio[i] = fmt.Sprintf("-- S%d edited in Studio to warm up\n", i)
	}
	p.setStudio(studio)
	token, _ := p.planToken()
	began := time.Now()
	if res := p.apply(token); !res.env.OK {
		p.t.Fatalf("warm-up apply: %s", outcome(res.env))
	}
	d := time.Since(began)
	p.commit("warm-up")
	return d + d/2
}

// "N undo rounds with concurrent edits: 0 edits lost": an apply pulls Studio
// edits to disk; then, while undo puts the files back, the user saves each of
// them once, at a random moment. Every save must survive: undo refuses (the file
// changed since the apply), or keeps the file (reported "kept"), or restored it
// before the save.
func TestFaultUndoRacesWriters(t *testing.T) {
	n := rounds(t, 3)
	p := newProj(t)
	p.serve()
	p.emulator(p.place(nil))
	files := []int{1, 2, 3, 4}
	window := p.measureApply(files)
	outcomes, kept, saves, lost := tally{}, 0, 0, 0
	for r := range n {
		studio := map[int]string{}
		for _, i := range files {
			studio[i] = fmt.Sprintf("-- S%d edited in Studio, round %d\n", i, r)
		}
		p.setStudio(studio)
		token, _ := p.planToken()
		if res := p.apply(token); !res.env.OK {
			t.Fatalf("round %d: apply: %s", r, outcome(res.env))
		}
		var undo envelope
		saved := racingWriters(p, files, 0, window*2/3, func() { undo = p.cli("sync", "undo") })
		outcomes[outcome(undo)]++
		actions := map[string]string{}
		if undo.OK {
			var d struct {
				Files []struct{ Path, Action string } `json:"files"`
			}
			jsonUnmarshal(undo.Data, &d)
			for _, f := range d.Files {
				actions[f.Path] = f.Action
			}
		}
		for _, i := range files {
			saves++
			if actions[scriptPath(i)] == "kept" {
				kept++
			}
			if got := p.read(i); got != saved[i] {
				lost++
				t.Errorf("round %d: S%d holds %q, not the user's save %q (undo: %s, %v)", r, i, got, saved[i], outcome(undo), actions)
			}
		}
		if left := p.temps(); len(left) != 0 {
			t.Errorf("round %d: temporary files left: %v", r, left)
		}
		p.setStudio(map[int]string{1: p.read(1), 2: p.read(2), 3: p.read(3), 4: p.read(4)})
		p.settle(fmt.Sprintf("round %d", r))
	}
	t.Logf("%d undo rounds with concurrent edits (window %v): %d saves, %d reported kept, %d lost; undos: %v", n, window, saves, kept, lost, outcomes)
}

// "two hosts started together × N: exactly one runs": two `atlas serve` for one
// project start at the same moment; one serves, the other exits with E_BUSY
// host_running naming it. The winner is then killed with SIGKILL, so the next
// round also shows the OS releasing the lock of a killed host.
func TestFaultTwoHostsStartTogether(t *testing.T) {
	n := rounds(t, 5)
	p := newProj(t)
	wrong := 0
	for r := range n {
		a := start(t, p.dir, p.env(), atlasBin, "serve", "--port", "0")
		b := start(t, p.dir, p.env(), atlasBin, "serve", "--port", "0")
		var loser, winner *proc
		p.waitFor("one host to give up", func() bool {
			switch {
			case a.exited() && b.exited():
				t.Fatalf("round %d: both hosts exited:\n%s\n%s", r, a.output(), b.output())
			case a.exited():
				loser, winner = a, b
			case b.exited():
				loser, winner = b, a
			}
			return loser != nil
		})
		// The winner serves the project; the loser named it.
		p.waitFor("the winner to answer", func() bool {
			c, err := hostDial(p)
			return err == nil && c == winner.cmd.Process.Pid
		})
		out := loser.output()
		if !strings.Contains(out, "(E_BUSY)") || !strings.Contains(out, fmt.Sprintf("pid %d", winner.cmd.Process.Pid)) {
			wrong++
			t.Errorf("round %d: the second host said %q, want E_BUSY naming pid %d", r, out, winner.cmd.Process.Pid)
		}
		if winner.exited() {
			wrong++
			t.Errorf("round %d: no host runs", r)
		}
		winner.kill()
	}
	t.Logf("two hosts started together × %d: exactly one ran in %d", n, n-wrong)
}
