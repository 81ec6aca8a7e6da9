package host

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
)

// inStepTree is a tree of folders and scripts, with texts and their hashes.
func inStepTree(r *rand.Rand, n int) *dom.Instance {
	root := dom.New("game", "DataModel")
	all := []*dom.Instance{root}
	for i := range n {
		parent := all[r.IntN(len(all))]
		var x *dom.Instance
		if r.IntN(3) == 0 {
			x = dom.New(fmt.Sprintf("F%d", i%7), "Folder")
			x.Properties.Set("Archivable", dom.Bool(r.IntN(2) == 0))
		} else {
			x = dom.New(fmt.Sprintf("S%d", i%5), "ModuleScript")
			x.Properties.Set("Source", dom.String(fmt.Sprintf("return %d\n", i)))
			x.SourceHash = fmt.Sprintf("hash-%d", i)
		}
		parent.AddChild(x)
		all = append(all, x)
	}
	root.AssignIDs()
	return root
}

// sameInstance compares what a plan reads of an in-step instance: class, name, source
// hash, properties but Source, and the same of every descendant.
func sameInstance(a, b *dom.Instance) error {
	if (a == nil) != (b == nil) {
		return fmt.Errorf("%v vs %v", a, b)
	}
	if a == nil {
		return nil
	}
	if a.ID != b.ID || a.Name != b.Name || a.ClassName != b.ClassName || a.SourceHash != b.SourceHash || len(a.Children) != len(b.Children) {
		return fmt.Errorf("%s %s/%s %q: %s %s/%s %q", a.ID, a.Name, a.ClassName, a.SourceHash, b.ID, b.Name, b.ClassName, b.SourceHash)
	}
	for name, v := range a.Properties.All() {
		if name != "Source" && !dom.Equal(v, b.Properties.Get(name)) {
			return fmt.Errorf("%s.%s: %v vs %v", a.Name, name, v, b.Properties.Get(name))
		}
	}
	if _, kept := b.Source(); kept && b.SourceHash != "" {
		return fmt.Errorf("%s: a text kept", b.Name)
	}
	for i := range a.Children {
		if err := sameInstance(a.Children[i], b.Children[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestInStepRecordRoundTrip: what encodeInStep writes of a state made as an apply
// makes it (a tree, with some ids given another tree's subtree or none) reads back
// as the same instance for every id, subtrees and all, with no script text.
func TestInStepRecordRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		studio := inStepTree(r, 1+r.IntN(60))
		disk := inStepTree(r, 1+r.IntN(60))
		si, di := studio.Index(), disk.Index()
		over := map[string]*dom.Instance{}
		for id, x := range di {
			switch r.IntN(6) {
			case 0:
				over[id] = x
			case 1:
				over[id] = nil
			}
		}
		find := func(id string) *dom.Instance {
			if x, ok := over[id]; ok {
				return x
			}
			return si[id]
		}
		each := func(fn func(string)) {
			for id := range over {
				fn(id)
			}
			for id := range si {
				fn(id)
			}
		}
		var e dom.Encoder
		e.HashedSources = true
		if err := encodeInStep(&e, each, find); err != nil {
			t.Fatal(err)
		}
		got, err := decodeInStep(e.Bytes())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		ids := map[string]bool{}
		each(func(id string) { ids[id] = true })
		for id := range got {
			ids[id] = true
		}
		for id := range ids {
			if err := sameInstance(find(id), got[id]); err != nil {
				t.Fatalf("round %d, id %s: %v", round, id, err)
			}
		}
		if _, err := decodeInStep(e.Bytes()[:len(e.Bytes())-1]); err == nil {
			t.Fatalf("round %d: a record cut short was read", round)
		}
	}
}

// TestInStepFileBySessionAndMarker: a record is taken by the session it was kept
// for, with the same place marker, once; another marker's is forgotten; an undo
// removes the file, and a record read before it is not used after.
func TestInStepFileBySessionAndMarker(t *testing.T) {
	dir := t.TempDir()
	tree := inStepTree(rand.New(rand.NewPCG(3, 4)), 30)
	idx := tree.Index()
	keep := func(sessions ...string) {
		t.Helper()
		p := newPlaces(dir)
		live := map[string]bool{}
		for _, s := range sessions {
			live[s] = true
		}
		for _, s := range sessions {
			p.syncBase(bridge.SessionInfo{ID: s, PlaceMarker: "m-" + s})
			p.inStep(s, inStepAt{commit: "c1", tree: tree, find: func(id string) *dom.Instance { return idx[id] },
				each: func(fn func(string)) {
					for id := range idx {
						fn(id)
					}
				}}, live)
		}
		if _, err := p.saveInStep(); err != nil {
			t.Fatal(err)
		}
	}
	keep("s1", "s2")
	p := newPlaces(dir)
	if at := p.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m-s1"}); at.find == nil || at.commit != "c1" {
		t.Fatalf("s1 did not get its record: %+v", at)
	} else if err := sameInstance(tree, at.find(tree.ID)); err != nil {
		t.Fatal(err)
	}
	if at := p.syncBase(bridge.SessionInfo{ID: "s2", PlaceMarker: "another place"}); at.find != nil {
		t.Fatal("s2's record was taken by a place with another marker")
	}
	if at := p.syncBase(bridge.SessionInfo{ID: "s3"}); at.find != nil {
		t.Fatal("a session with no record got one")
	}

	keep("s1")
	p = newPlaces(dir)
	p.undoing() // as an undo does, before it writes
	p.undone("")
	if at := p.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m-s1"}); at.find != nil {
		t.Fatal("a record older than an undo was used")
	}
	// Nor by the next host: the log says the undo let it go.
	if _, err := os.Stat(filepath.Join(dir, inStepLogFile)); err != nil {
		t.Fatalf("no log after an undo: %v", err)
	}
	if at := newPlaces(dir).syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m-s1"}); at.find != nil {
		t.Fatal("a record older than an undo was used by the next host")
	}
}

// TestInStepLogReplay: what an apply changes is logged at once, and a host that starts
// before any snapshot holds it (one killed right after the apply) reads the snapshot
// and the log: the same instance for every id as the state in memory. A log cut
// short (a crash mid-write) gives the entries before the cut. A snapshot taken
// after the log holds it all, and the log goes.
func TestInStepLogReplay(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	before := inStepTree(r, 80)
	after := inStepTree(r, 80)
	bi, ai := before.Index(), after.Index()
	live := map[string]bool{"s1": true}
	p := newPlaces(dir)
	p.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
	p.inStep("s1", inStepAt{commit: "c1", tree: before, find: func(id string) *dom.Instance { return bi[id] }, each: mapKeys(bi)}, live)
	if _, err := p.saveInStep(); err != nil {
		t.Fatal(err)
	}
	// An apply: half the ids take the other tree's instance, some have none.
	over := map[string]*dom.Instance{}
	for id := range bi {
		switch r.IntN(4) {
		case 0:
			over[id] = ai[id]
		case 1:
			over[id] = nil
		}
	}
	find := func(id string) *dom.Instance {
		if x, ok := over[id]; ok {
			return x
		}
		return bi[id]
	}
	p.applied("s1", "tx1", inStepAt{commit: "c2", find: find, each: mapKeys(bi), touched: func(fn func(string)) {
		for id := range over {
			fn(id)
		}
	}}, nil, live)
	check := func(q *places, what string) {
		t.Helper()
		at := q.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
		if at.find == nil || at.commit != "c2" {
			t.Fatalf("%s: no state, or commit %q", what, at.commit)
		}
		for id := range bi {
			if err := sameInstance(find(id), at.find(id)); err != nil {
				t.Fatalf("%s: id %s: %v", what, id, err)
			}
		}
	}
	check(newPlaces(dir), "snapshot and log")
	// A crash mid-write: a torn last frame is left out, the entries before it kept.
	f, err := os.OpenFile(filepath.Join(dir, inStepLogFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x80, 0x01, 'x'})
	f.Close()
	check(newPlaces(dir), "a torn log")
	// A log past its bound is compacted, before the next entry, into each session's
	// whole state: the same state reads back.
	p.logSize = maxInStepLog + 1
	p.applied("s1", "tx2", inStepAt{commit: "c2", find: find, each: mapKeys(bi), touched: func(fn func(string)) {}}, nil, live)
	if st, err := os.Stat(filepath.Join(dir, inStepLogFile)); err != nil || p.logSize != st.Size() || st.Size() > maxInStepLog {
		t.Fatalf("the log after compaction: %v, %d bytes (host knows %d)", err, st.Size(), p.logSize)
	}
	check(newPlaces(dir), "a compacted log")
	if _, err := p.saveInStep(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, inStepLogFile)); !os.IsNotExist(err) {
		t.Fatalf("the log after a snapshot: %v", err)
	}
	check(newPlaces(dir), "the snapshot alone")
}

// TestInStepLogAfterReview: the log's replay gives what memory holds in the cases a
// review found it did not. A plan in step after an apply, with instances changed on
// both sides alike, is logged (a delta of the subtrees that differ); an entry after a
// torn frame is read by the next host (the frame is cut off first); an entry made
// with a clock behind the snapshot's is not skipped; and records of sessions that did
// not come back are not carried past untakenKept.
func TestInStepLogAfterReview(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	t1 := inStepTree(r, 60)
	i1 := t1.Index()
	live := map[string]bool{"s1": true}
	p := newPlaces(dir)
	p.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
	p.inStep("s1", inStepAt{commit: "c1", tree: t1, find: func(id string) *dom.Instance { return i1[id] }, each: mapKeys(i1)}, live)
	p.applied("s1", "tx1", inStepAt{commit: "c1", find: func(id string) *dom.Instance { return i1[id] }, each: mapKeys(i1),
		touched: func(func(string)) {}, disk: t1}, nil, live) // the first apply: the whole state
	// A later load of the same tree with one script changed (both sides alike).
	t2 := t1.Clone()
	t2.AssignIDs()
	var changed *dom.Instance
	t2.Walk(func(x *dom.Instance) bool {
		if changed == nil && x.SourceHash != "" {
			changed = x
		}
		return true
	})
	changed.SourceHash = "hash-changed"
	i2 := t2.Index()
	p.inStep("s1", inStepAt{commit: "c2", tree: t2, find: func(id string) *dom.Instance { return i2[id] }, each: mapKeys(i2)}, live)
	var i3 map[string]*dom.Instance
	want := func(id string) *dom.Instance { return i2[id] }
	// Each id's own instance (a delta names the instances that changed, not their
	// ancestors, whose subtrees the replay keeps as they were: as an apply's state
	// in memory does).
	check := func(what string) {
		t.Helper()
		at := newPlaces(dir).syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
		if at.find == nil {
			t.Fatalf("%s: no state", what)
		}
		ids := map[string]bool{}
		mapKeys(i2)(func(id string) { ids[id] = true })
		mapKeys(i3)(func(id string) { ids[id] = true })
		for id := range ids {
			a, b := want(id), at.find(id)
			if (a == nil) != (b == nil) || a != nil && !sameFields(a, b) {
				t.Fatalf("%s: id %s: %v vs %v", what, id, a, b)
			}
		}
	}
	check("a plan in step after the apply")

	// A torn frame, then an entry: the next host reads the entry.
	f, err := os.OpenFile(filepath.Join(dir, inStepLogFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x05, 1, 2})
	f.Close()
	q := newPlaces(dir)
	q.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
	t3 := t2.Clone()
	t3.AssignIDs()
	t3.Children[0].Name = "Renamed"
	t3.AssignIDs()
	i3 = t3.Index()
	q.applied("s1", "tx2", inStepAt{commit: "c3", find: func(id string) *dom.Instance { return i3[id] }, each: mapKeys(i3),
		touched: func(fn func(string)) { // both sides' instances, as an apply's
			mapKeys(i2)(fn)
			mapKeys(i3)(fn)
		}}, nil, live)
	want = func(id string) *dom.Instance { return i3[id] }
	check("an entry after a torn frame")

	// A snapshot from a clock ahead, then an entry from a clock behind it.
	q.seq = time.Now().Add(time.Hour).UnixNano()
	q.dirty = true
	if _, err := q.saveInStep(); err != nil {
		t.Fatal(err)
	}
	q2 := newPlaces(dir)
	q2.syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"})
	q2.undoing() // lets every state go: a clear-all entry
	q2.undone("")
	if at := newPlaces(dir).syncBase(bridge.SessionInfo{ID: "s1", PlaceMarker: "m"}); at.find != nil {
		t.Fatal("an entry logged with a clock behind the snapshot was skipped")
	}

	// Untaken records are carried for untakenKept, not after.
	dir2 := t.TempDir()
	a := newPlaces(dir2)
	a.syncBase(bridge.SessionInfo{ID: "gone", PlaceMarker: "m"})
	a.inStep("gone", inStepAt{commit: "c1", tree: t1, find: func(id string) *dom.Instance { return i1[id] }, each: mapKeys(i1)}, map[string]bool{"gone": true})
	if _, err := a.saveInStep(); err != nil {
		t.Fatal(err)
	}
	b := newPlaces(dir2)
	b.started = time.Now().Add(-2 * untakenKept)
	b.syncBase(bridge.SessionInfo{ID: "other"})
	b.dirty = true
	if _, err := b.saveInStep(); err != nil {
		t.Fatal(err)
	}
	if at := newPlaces(dir2).syncBase(bridge.SessionInfo{ID: "gone", PlaceMarker: "m"}); at.find != nil {
		t.Fatal("a record no session took was carried past untakenKept")
	}
}
