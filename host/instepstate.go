package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// A host keeps what each Studio session was last known to hold in step with disk
// (places.inSync) across its restarts, in the state dir: a host restarted while
// Studio stays open would otherwise decide by the table alone, and pull Studio's
// older version over a disk edit committed since (HEAD moved with disk; Studio
// still holds what the last sync left). The file is written once the host is idle
// after the state changed, and as it stops; an undo removes it at once.
//
// A record is used only by the same Studio session (the plugin's run: the session
// id is random per run) with the same place marker. It can only make a plan more
// careful than the table or push what disk moved since (plan.Input.InStep): where
// Studio no longer holds what the record says, the table decides as before.

const (
	inStepStateFile    = "instep.state"
	inStepStateKind    = "atlas in-step state"
	inStepStateVersion = 1
)

// savedInStep is one session's record read from the file; its trees are decoded
// when a plan first asks for an instance.
type savedInStep struct {
	session, marker, commit string
	data                    []byte // the entry's trees and ids, as writeInStep wrote them
}

// inStepFile is the state file's path in dir.
func inStepFile(dir string) string { return filepath.Join(dir, inStepStateFile) }

// encodeInStep writes the record of what find gives for every id each lists: the
// distinct subtrees its instances are in (sources by hash only), each node's id, and
// the ids whose instance is not the first node with that id (0 for none).
func encodeInStep(e *dom.Encoder, each func(func(id string)), find func(id string) *dom.Instance) error {
	want := map[string]*dom.Instance{}
	each(func(id string) { want[id] = find(id) })
	// The roots: found instances none of whose ancestors is found too.
	found := make(map[*dom.Instance]bool, len(want))
	for _, x := range want {
		if x != nil {
			found[x] = true
		}
	}
	var roots []*dom.Instance
	for x := range found {
		top := true
		for a := x.Parent; a != nil; a = a.Parent {
			if found[a] {
				top = false
				break
			}
		}
		if top {
			roots = append(roots, x)
		}
	}
	// The biggest first (the whole tree), then by id: the same state, the same bytes.
	size := map[*dom.Instance]int{}
	for _, r := range roots {
		r.Walk(func(*dom.Instance) bool { size[r]++; return true })
	}
	slices.SortFunc(roots, func(a, b *dom.Instance) int {
		if size[a] != size[b] {
			return size[b] - size[a]
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	e.Uvarint(uint64(len(roots)))
	ordinal := map[*dom.Instance]int{}
	first := map[string]*dom.Instance{}
	var ids []string
	for _, r := range roots {
		if err := e.Instance(r); err != nil {
			return err
		}
		r.Walk(func(x *dom.Instance) bool {
			ordinal[x] = len(ids)
			ids = append(ids, x.ID)
			if _, ok := first[x.ID]; !ok {
				first[x.ID] = x
			}
			return true
		})
	}
	for _, id := range ids {
		e.Text(id)
	}
	// Where find differs from the first node with the id: its node (ordinal+1), or
	// none (0).
	var other []string
	for id, x := range want {
		if first[id] != x {
			other = append(other, id)
		}
	}
	for id := range first {
		if _, ok := want[id]; !ok {
			other = append(other, id)
		}
	}
	slices.Sort(other)
	e.Uvarint(uint64(len(other)))
	for _, id := range other {
		e.Text(id)
		if x := want[id]; x != nil {
			e.Uvarint(uint64(ordinal[x] + 1))
		} else {
			e.Uvarint(0)
		}
	}
	return nil
}

// decodeInStep reads what encodeInStep wrote: the instance of each id.
func decodeInStep(data []byte) (map[string]*dom.Instance, error) {
	d := dom.NewDecoder(data)
	roots := make([]*dom.Instance, d.Count(1))
	var nodes []*dom.Instance
	for i := range roots {
		roots[i] = d.Instance()
		if d.Err() != nil {
			return nil, d.Err()
		}
		roots[i].Walk(func(x *dom.Instance) bool { nodes = append(nodes, x); return true })
	}
	idx := make(map[string]*dom.Instance, len(nodes))
	for _, x := range nodes {
		x.ID = d.Text()
		if _, ok := idx[x.ID]; !ok {
			idx[x.ID] = x
		}
	}
	for n := d.Count(2); n > 0 && d.Err() == nil; n-- {
		id, at := d.Text(), d.Uvarint()
		switch {
		case at == 0:
			delete(idx, id)
		case at <= uint64(len(nodes)):
			idx[id] = nodes[at-1]
		default:
			return nil, fmt.Errorf("%w: in-step state", dom.ErrCorrupt)
		}
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	if d.Len() != 0 {
		return nil, fmt.Errorf("%w: in-step state", dom.ErrCorrupt)
	}
	return idx, nil
}

// saveInStep writes, when the in-step states changed since the last save, every
// session's state that can be written, and the records read from the file that no
// session has taken yet; with none, it removes the file. It reports whether it
// wrote. The caller holds the Studio lock (the trees' texts are not let go
// meanwhile).
func (p *places) saveInStep() (saved bool, err error) {
	p.mu.Lock()
	if !p.dirty {
		p.mu.Unlock()
		return false, nil
	}
	p.dirty = false
	type entry struct {
		session, marker string
		at              inStepAt
	}
	var live []entry
	for s, at := range p.inSync {
		if at.each != nil && at.find != nil && (at.usable == nil || at.usable()) {
			m := p.markers[s]
			if m == "" {
				m = p.hello[s]
			}
			live = append(live, entry{s, m, at})
		}
	}
	var kept []*savedInStep
	for _, r := range p.fromFile {
		kept = append(kept, r)
	}
	path := inStepFile(p.dir)
	p.mu.Unlock()
	if len(live)+len(kept) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return false, nil
	}
	slices.SortFunc(live, func(a, b entry) int { return compareStrings(a.session, b.session) })
	slices.SortFunc(kept, func(a, b *savedInStep) int { return compareStrings(a.session, b.session) })
	e := dom.Encoder{HashedSources: true}
	e.Uvarint(uint64(len(live) + len(kept)))
	for _, en := range live {
		var body dom.Encoder
		body.HashedSources = true
		if err := encodeInStep(&body, en.at.each, en.at.find); err != nil {
			return false, fmt.Errorf("write the in-step state: %w", err)
		}
		writeSaved(&e, &savedInStep{session: en.session, marker: en.marker, commit: en.at.commit, data: body.Bytes()})
	}
	for _, r := range kept {
		writeSaved(&e, r)
	}
	if err := statefile.Write(path, inStepStateKind, inStepStateVersion, e.Bytes()); err != nil {
		return false, err
	}
	return true, nil
}

func writeSaved(e *dom.Encoder, r *savedInStep) {
	e.Text(r.session)
	e.Text(r.marker)
	e.Text(r.commit)
	e.Uvarint(uint64(len(r.data)))
	e.Raw(r.data)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readInStepLocked reads the file's records, once; the caller holds p.mu. A file that
// cannot be used gives none.
func (p *places) readInStepLocked() {
	if p.fileRead {
		return
	}
	p.fileRead = true
	data, _, err := statefile.Read(inStepFile(p.dir), inStepStateKind, inStepStateVersion)
	if err != nil {
		return
	}
	d := dom.NewDecoder(data)
	n := d.Count(4)
	recs := map[string]*savedInStep{}
	for range n {
		r := &savedInStep{session: d.Text(), marker: d.Text(), commit: d.Text()}
		size := d.Count(1)
		r.data = d.Raw(size)
		if d.Err() != nil {
			return
		}
		recs[r.session] = r
	}
	if d.Len() != 0 {
		return
	}
	p.fromFile = recs
}

// takeSavedLocked installs, for a session with no in-step state yet, the record a
// previous host kept for it, if its place marker matches; the caller holds p.mu.
func (p *places) takeSavedLocked(session, marker string) {
	if _, has := p.inSync[session]; has {
		return
	}
	p.readInStepLocked()
	r := p.fromFile[session]
	if r == nil {
		return
	}
	delete(p.fromFile, session)
	if r.marker != marker {
		p.dirty = true // not this place's: forgotten
		return
	}
	data := r.data
	idx := sync.OnceValue(func() map[string]*dom.Instance {
		m, err := decodeInStep(data)
		if err != nil {
			return nil // unreadable: nothing was in step (the table decides)
		}
		return m
	})
	p.inSync[session] = inStepAt{commit: r.commit,
		find: func(id string) *dom.Instance { return idx()[id] },
		each: func(fn func(id string)) {
			for id := range idx() {
				fn(id)
			}
		},
		usable: func() bool { return idx() != nil }}
}
