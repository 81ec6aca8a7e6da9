package casfile_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/internal/casfile"
)

// The race tests count losses: a round loses an edit when the last edit a writer
// made (by a user's tool) is neither at the path nor in an aside copy the
// operation reported. Silently replacing a user's edit is exactly that.

// pos is when a writer edits in a round: before the operation, or after one of
// its steps.
type pos int

const (
	before pos = iota
	atStaged
	atAside
	atVerified
	atInstalled
	after
	nPos
)

var posOfStep = map[casfile.Step]pos{
	casfile.StepStaged: atStaged, casfile.StepAside: atAside,
	casfile.StepVerified: atVerified, casfile.StepInstalled: atInstalled,
}

var posNames = [nPos]string{"before", "staged", "aside", "verified", "installed", "after"}

const target = "src/a.luau"

// opFunc runs one operation on target with the hook between its steps.
type opFunc func(r *casfile.Root, dir string, hook func(casfile.Step) error, round int) (casfile.Result, error)

// scenario is an operation and the state the plan saw.
type scenario struct {
	name    string
	initial bool // whether target holds planned(round) at the start
	op      opFunc
}

func planned(round int) string { return "planned " + strconv.Itoa(round) }
func next(round int) string    { return "next " + strconv.Itoa(round) }

func tagOf(round int) string { return "r" + strconv.Itoa(round) }

var scenarios = []scenario{
	{"replace", true,
		func(r *casfile.Root, _ string, hook func(casfile.Step) error, round int) (casfile.Result, error) {
			r.SetHook(hook)
			return r.Replace(target, hash(planned(round)), []byte(next(round)), casfile.Options{Tag: tagOf(round)})
		}},
	{"create", false,
		func(r *casfile.Root, _ string, hook func(casfile.Step) error, round int) (casfile.Result, error) {
			r.SetHook(hook)
			return r.Create(target, []byte(next(round)), casfile.Options{Tag: tagOf(round)})
		}},
	{"delete", true,
		func(r *casfile.Root, _ string, hook func(casfile.Step) error, round int) (casfile.Result, error) {
			r.SetHook(hook)
			return r.Delete(target, hash(planned(round)), casfile.Options{Tag: tagOf(round)})
		}},
}

// naiveReplace is how apply committed a file before this package: check the
// hash, stage, rename over the path. The race tests run it too, to show they
// catch what it loses.
func naiveReplace(_ *casfile.Root, dir string, hook func(casfile.Step) error, round int) (casfile.Result, error) {
	p := filepath.Join(dir, filepath.FromSlash(target))
	cur, err := os.ReadFile(p)
	if err != nil || hash(string(cur)) != hash(planned(round)) {
		return casfile.Result{Outcome: casfile.Kept, Reason: casfile.Changed}, nil
	}
	tmp := p + ".naive-tmp"
	if err := os.WriteFile(tmp, []byte(next(round)), 0o644); err != nil {
		return casfile.Result{}, err
	}
	hook(casfile.StepStaged)
	if err := os.Rename(tmp, p); err != nil {
		return casfile.Result{}, err
	}
	hook(casfile.StepInstalled)
	return casfile.Result{Outcome: casfile.Written}, nil
}

// edit is one writer edit as it happened.
type edit struct {
	at      pos
	kind    string
	content string
	ok      bool
	seq     int
}

// verdict is what a round's end state says.
type verdict struct {
	lost     bool     // the last edit is nowhere
	problems []string // anything else the contract forbids
}

// judge checks the end state of a round in dir after an operation returned
// res, err, with the writers' edits (in their order).
func judge(t *testing.T, dir string, round int, res casfile.Result, err error, edits []edit, checkOutcome bool) verdict {
	t.Helper()
	var v verdict
	if err != nil {
		v.problems = append(v.problems, "error: "+err.Error())
	}
	last, lastAt := "", before
	for _, e := range edits {
		if !e.ok {
			continue
		}
		switch e.kind {
		case inPlace, atomic, createNew, writeHeld:
			last, lastAt = e.content, e.at
		case remove:
			last, lastAt = "", e.at
		}
	}
	src := filepath.Join(dir, "src")
	entries, _ := os.ReadDir(src)
	cur, curErr := os.ReadFile(filepath.Join(dir, filepath.FromSlash(target)))
	exists := curErr == nil
	asides := map[string]string{}
	for _, e := range entries {
		n := e.Name()
		switch {
		case !casfile.IsTemp(n):
		case strings.HasSuffix(n, ".pre"):
			b, _ := os.ReadFile(filepath.Join(src, n))
			asides["src/"+n] = string(b)
		default:
			v.problems = append(v.problems, "staged file left: "+n)
		}
	}
	for a := range asides {
		if a != res.Aside {
			v.problems = append(v.problems, fmt.Sprintf("aside copy %s not reported (Result.Aside %q)", a, res.Aside))
		}
	}
	if res.Aside != "" {
		if _, ok := asides[res.Aside]; !ok {
			v.problems = append(v.problems, "reported aside copy missing: "+res.Aside)
		}
	}
	if last != "" && !(exists && string(cur) == last) && !slices.Contains(mapValues(asides), last) {
		v.lost = true
	}
	if !checkOutcome {
		return v
	}
	// A writer acting after the install may change the path; before it, what
	// the outcome says must be what is there.
	lateEdit := false
	for _, e := range edits {
		if e.ok && e.at >= atInstalled && e.kind != openHeld {
			lateEdit = true
		}
	}
	switch res.Outcome {
	case casfile.Kept:
		if exists && string(cur) == next(round) {
			v.problems = append(v.problems, "kept, but the new bytes are at the path")
		}
	case casfile.Written, casfile.Created:
		if !lateEdit && !(exists && string(cur) == next(round)) {
			v.problems = append(v.problems, fmt.Sprintf("%s, but the path holds %q (exists %v)", res.Outcome, cur, exists))
		}
	case casfile.Deleted:
		if exists && lastAt < atAside && last != "" {
			v.problems = append(v.problems, "deleted, but an edit made before the move aside is at the path")
		}
	}
	return v
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// reset makes the project folder hold what the plan of round saw.
func reset(t *testing.T, dir string, round int, initial bool) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "src")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if initial {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(target)), []byte(planned(round)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tally counts rounds.
type tally struct {
	rounds, lost int
	distinct     map[string]bool
	outcomes     map[string]int
	problems     []string
}

func newTally() *tally { return &tally{distinct: map[string]bool{}, outcomes: map[string]int{}} }

func (ta *tally) add(key string, res casfile.Result, v verdict) {
	ta.rounds++
	ta.distinct[key] = true
	o := string(res.Outcome)
	if res.Reason != "" {
		o += "/" + string(res.Reason)
	}
	ta.outcomes[o]++
	if v.lost {
		ta.lost++
	}
	for _, p := range v.problems {
		if len(ta.problems) < 10 {
			ta.problems = append(ta.problems, key+": "+p)
		}
	}
}

func (ta *tally) String() string {
	keys := make([]string, 0, len(ta.outcomes))
	for k := range ta.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s:%d", k, ta.outcomes[k])
	}
	if len(ta.distinct) < ta.rounds {
		return fmt.Sprintf("%d rounds, %d lost; outcomes%s", ta.rounds, ta.lost, b.String())
	}
	return fmt.Sprintf("%d rounds (%d distinct interleavings), %d lost; outcomes%s", ta.rounds, len(ta.distinct), ta.lost, b.String())
}

// explore runs fn once for every path through a tree of choices: fn calls
// choose(n) at each branching point it reaches and gets one of 0..n-1. The
// same earlier choices must lead to the same branching points.
func explore(fn func(choose func(n int) int)) {
	var prefix, widths []int
	for {
		depth := 0
		fn(func(n int) int {
			if depth == len(prefix) {
				prefix, widths = append(prefix, 0), append(widths, n)
			}
			depth++
			return prefix[depth-1]
		})
		prefix, widths = prefix[:depth], widths[:depth]
		for len(prefix) > 0 && prefix[len(prefix)-1]+1 >= widths[len(widths)-1] {
			prefix, widths = prefix[:len(prefix)-1], widths[:len(widths)-1]
		}
		if len(prefix) == 0 {
			return
		}
		prefix[len(prefix)-1]++
	}
}

// playAll runs op once per interleaving of a writer's edits with its steps:
// before the operation and after each step it reaches, the writer makes no
// edit or one of the simple edits, or opens a handle to write through at a
// later point (after the operation at the latest).
func playAll(t *testing.T, w writer, dir string, op opFunc, initial bool, round *int) *tally {
	t.Helper()
	r := openRoot(t, dir)
	ta := newTally()
	explore(func(choose func(int) int) {
		*round++
		n := *round
		reset(t, dir, n, initial)
		var edits []edit
		var key strings.Builder
		held := false
		act := func(p pos) {
			kinds := []string{"", inPlace, atomic, remove, createNew, openHeld}
			switch {
			case held && p == after:
				kinds = []string{writeHeld} // the last chance to write through it
			case held:
				kinds = []string{"", writeHeld}
			case p == after:
				return
			}
			kind := kinds[choose(len(kinds))]
			if kind == "" {
				return
			}
			content := fmt.Sprintf("edit %d at %s", n, posNames[p])
			o := w.do(action{kind: kind, path: filepath.Join(dir, filepath.FromSlash(target)), content: content})
			held = held || kind == openHeld && o.ok
			held = held && kind != writeHeld
			edits = append(edits, edit{at: p, kind: kind, content: content, ok: o.ok})
			fmt.Fprintf(&key, "%s:%s:%v ", posNames[p], kind, o.ok)
		}
		act(before)
		res, err := op(r, dir, func(st casfile.Step) error { act(posOfStep[st]); return nil }, n)
		r.SetHook(nil)
		act(after)
		ta.add(key.String(), res, judge(t, dir, n, res, err, edits, true))
	})
	return ta
}

// TestInterleavings forces every interleaving of a writer's edits with the
// steps of each operation, the writer being a goroutine or another process.
func TestInterleavings(t *testing.T) {
	round := 0
	for _, kind := range []string{"goroutine", "process"} {
		for _, sc := range scenarios {
			t.Run(kind+"/"+sc.name, func(t *testing.T) {
				var w writer
				if kind == "process" {
					w = newProcWriter(t)
				} else {
					gw := newGoWriter()
					defer gw.close()
					w = gw
				}
				ta := playAll(t, w, t.TempDir(), sc.op, sc.initial, &round)
				t.Logf("%s %s: %s", kind, sc.name, ta)
				if ta.lost != 0 || len(ta.problems) != 0 {
					t.Errorf("%s; problems: %q", ta, ta.problems)
				}
			})
		}
	}
	// The same harness against check-then-rename: it must count losses, or the
	// zeros above would prove nothing.
	t.Run("naive replace loses edits", func(t *testing.T) {
		gw := newGoWriter()
		defer gw.close()
		ta := playAll(t, gw, t.TempDir(), naiveReplace, true, &round)
		t.Logf("naive replace: %s", ta)
		if ta.lost == 0 {
			t.Errorf("naive replace: %s; want losses", ta)
		}
	})
}

// TestRandomRace lets goroutine and process writers edit the target at random
// moments while operations run, many rounds, with no hook: the real timing of
// the real system calls. Writers take turns through a lock file (the operations
// do not), so the last edit of a round is well defined.
func TestRandomRace(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	if n, err := strconv.Atoi(os.Getenv("CASFILE_RACE_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	dir := t.TempDir()
	lock := filepath.Join(t.TempDir(), "writers.lock")
	gw1, gw2 := newGoWriter(), newGoWriter()
	defer gw1.close()
	defer gw2.close()
	writers := []writer{gw1, gw2, newProcWriter(t), newProcWriter(t)}
	r := openRoot(t, dir)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	kinds := []string{inPlace, inPlace, atomic, remove, createNew}
	ta := newTally()
	path := filepath.Join(dir, filepath.FromSlash(target))
	for n := 1; n <= rounds; n++ {
		sc := scenarios[rng.IntN(len(scenarios))]
		reset(t, dir, n, sc.initial)
		type plan struct {
			kinds  []string
			delays []time.Duration
			holds  []time.Duration
		}
		plans := make([]plan, len(writers))
		for i := range plans {
			// Few edits, spread over the time an operation takes (fsyncs
			// included), so that rounds end every way.
			for range rng.IntN(3) {
				plans[i].kinds = append(plans[i].kinds, kinds[rng.IntN(len(kinds))])
				plans[i].delays = append(plans[i].delays, time.Duration(rng.IntN(3000))*time.Microsecond)
				plans[i].holds = append(plans[i].holds, time.Duration(rng.IntN(200))*time.Microsecond)
			}
		}
		opDelay := time.Duration(rng.IntN(1000)) * time.Microsecond
		var mu sync.Mutex
		var edits []edit
		var wg sync.WaitGroup
		for i, w := range writers {
			wg.Go(func() {
				for j, k := range plans[i].kinds {
					time.Sleep(plans[i].delays[j])
					content := fmt.Sprintf("edit %d by %d #%d", n, i, j)
					o := w.do(action{kind: k, path: path, content: content, delay: plans[i].holds[j], lock: lock})
					mu.Lock()
					edits = append(edits, edit{kind: k, content: content, ok: o.ok, seq: o.seq})
					mu.Unlock()
				}
			})
		}
		time.Sleep(opDelay)
		res, err := sc.op(r, dir, nil, n)
		wg.Wait()
		sort.Slice(edits, func(i, j int) bool { return edits[i].seq < edits[j].seq })
		ta.add(sc.name, res, judge(t, dir, n, res, err, edits, false))
	}
	t.Logf("random race: %s", ta)
	if ta.lost != 0 || len(ta.problems) != 0 {
		t.Errorf("%s; problems: %q", ta, ta.problems)
	}
}
