package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// A host keeps what each Studio session was last known to hold in step with disk
// (places.inSync) across its restarts, in the state dir: a host restarted while
// Studio stays open would otherwise decide by the table alone, and pull Studio's
// older version over a disk edit committed since (HEAD moved with disk; Studio
// still holds what the last sync left).
//
// Two files keep it. The snapshot (instep.state) holds every session's whole state;
// it is written once the host is idle after the state changed, and as it stops
// (tens of milliseconds at 10,000 scripts, half a second at 50,000). The log
// (instep.log) is appended to at once by what changes the state between snapshots
// and must survive a SIGKILL: each apply (the instances its plan touched, a few
// milliseconds; the first of a session logs its whole state) and each undo (the
// whole state it leaves). Entries carry a
// sequence number; a snapshot names the last one it holds, so a restarted host
// reads the snapshot and then the entries after it.
//
// A record is used only by the same Studio session (the plugin's run: the session
// id is random per run) with the same place marker (or none yet: the first sync
// marks the place after its apply). It can only make a plan more
// careful than the table or push what disk moved since (plan.Input.InStep): where
// Studio no longer holds what the record says, the table decides as before.

const (
	inStepStateFile    = "instep.state"
	inStepLogFile      = "instep.log"
	inStepStateKind    = "atlas in-step state"
	inStepStateVersion = 2
)

// savedInStep is one session's state read from the files: its snapshot record (data,
// nil when there is none to build on) and the log's changes to it since, in order;
// its trees are decoded when a plan first asks for an instance.
type savedInStep struct {
	session, marker, commit string
	data                    []byte // the record's trees and ids, as encodeInStep wrote them
	deltas                  []inStepDelta
}

// inStepDelta is a log entry's change to a session's state: the instances of ids
// (absent where data has none).
type inStepDelta struct {
	ids  []string
	data []byte
}

// The log entries' kinds.
const (
	logDelta    = 0 // a session's state changes for some ids
	logFull     = 1 // a session's state is replaced whole
	logClearAll = 2 // every session's state is let go
)

// inStepFile is the snapshot's path in dir; inStepLog the log's.
func inStepFile(dir string) string { return filepath.Join(dir, inStepStateFile) }
func inStepLog(dir string) string  { return filepath.Join(dir, inStepLogFile) }

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

// saveInStep writes, when the in-step states changed since the last save, the
// snapshot of every session's state that can be written, and of the records read
// from the files that no session has taken yet; with none, it removes it. The log
// entries it holds are then let go. It reports whether it wrote. The caller holds
// the Studio lock (the trees' texts are not let go meanwhile).
func (p *places) saveInStep() (saved bool, err error) {
	p.mu.Lock()
	if !p.dirty {
		p.mu.Unlock()
		return false, nil
	}
	p.dirty = false
	seq := p.seq
	type entry struct {
		session, marker string
		at              inStepAt
	}
	var live []entry
	for s, at := range p.inSync {
		if at.each != nil && at.find != nil && (at.usable == nil || at.usable()) {
			live = append(live, entry{s, p.markerLocked(s), at})
		}
	}
	var kept []*savedInStep
	if time.Since(p.started) < untakenKept {
		for _, r := range p.fromFile {
			kept = append(kept, r)
		}
	}
	path := inStepFile(p.dir)
	p.mu.Unlock()
	slices.SortFunc(live, func(a, b entry) int { return strings.Compare(a.session, b.session) })
	slices.SortFunc(kept, func(a, b *savedInStep) int { return strings.Compare(a.session, b.session) })
	var records []*savedInStep
	for _, en := range live {
		var body dom.Encoder
		body.HashedSources = true
		if err := encodeInStep(&body, en.at.each, en.at.find); err != nil {
			return false, fmt.Errorf("write the in-step state: %w", err)
		}
		records = append(records, &savedInStep{session: en.session, marker: en.marker, commit: en.at.commit, data: body.Bytes()})
	}
	for _, r := range kept {
		if len(r.deltas) > 0 {
			// Its log entries go with the log: made one record again.
			idx, ok := r.state()
			if !ok {
				continue
			}
			var body dom.Encoder
			body.HashedSources = true
			if err := encodeInStep(&body, mapKeys(idx), func(id string) *dom.Instance { return idx[id] }); err != nil {
				continue
			}
			r = &savedInStep{session: r.session, marker: r.marker, commit: r.commit, data: body.Bytes()}
		}
		if r.data != nil {
			records = append(records, r)
		}
	}
	if len(records) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	} else {
		e := dom.Encoder{HashedSources: true}
		e.Varint(seq)
		e.Uvarint(uint64(len(records)))
		for _, r := range records {
			e.Text(r.session)
			e.Text(r.marker)
			e.Text(r.commit)
			e.Uvarint(uint64(len(r.data)))
			e.Raw(r.data)
		}
		if err := statefile.Write(path, inStepStateKind, inStepStateVersion, e.Bytes()); err != nil {
			p.mu.Lock()
			p.dirty = true // written at the next idle moment
			p.mu.Unlock()
			return false, err
		}
	}
	p.mu.Lock()
	for _, en := range live {
		if cur, ok := p.inSync[en.session]; ok && cur.tree == en.at.tree && cur.commit == en.at.commit && cur.tx == en.at.tx {
			p.based[en.session] = true // the snapshot holds its whole state
		}
	}
	if p.seq == seq {
		// Nothing was logged meanwhile: the snapshot holds it all.
		if os.Remove(inStepLog(p.dir)) == nil {
			p.logSize = 0
		}
	}
	p.mu.Unlock()
	return len(records) > 0, nil
}

// markerLocked is the place marker of a session as known: markPlace's, else its
// hello's. The caller holds p.mu.
func (p *places) markerLocked(session string) string {
	if m := p.markers[session]; m != "" {
		return m
	}
	return p.hello[session]
}

func mapKeys(m map[string]*dom.Instance) func(func(string)) {
	return func(fn func(string)) {
		for id := range m {
			fn(id)
		}
	}
}

// logPlanStateLocked logs, for a plan that found the two sides in step, what its
// state (next) changes of the one before it (cur), so that the log's replay gives
// what memory holds: the instances of the subtrees that differ between the disk
// trees (a disk tree shares what did not change with the load before), the one of
// the plan before or the one the apply before compared. (After an apply, what
// changed since on disk is what the two sides changed alike, a pull's files among
// it.) Otherwise (a state from the files, or an undo's) the next apply logs the
// whole state. The caller holds p.mu and the Studio lock.
func (p *places) logPlanStateLocked(session string, cur, next inStepAt) {
	before := cur.tree
	if before == nil {
		before = cur.disk
	}
	switch {
	case before != nil && next.tree != nil:
		var ids []string
		changedIDs(before, next.tree, func(id string) { ids = append(ids, id) })
		if len(ids) > 0 {
			if p.logLocked(logDelta, session, next, func(fn func(string)) {
				for _, id := range ids {
					fn(id)
				}
			}) != nil {
				p.based[session] = false
			}
		}
	default:
		p.based[session] = false
	}
}

// changedIDs calls fn with the id of every instance that differs between the trees
// a and b (its own fields, or its children's names), or is in one only; subtrees
// that are the same instance are not walked.
func changedIDs(a, b *dom.Instance, fn func(id string)) {
	if a == b {
		return
	}
	if a == nil || b == nil {
		x := a
		if x == nil {
			x = b
		}
		x.Walk(func(y *dom.Instance) bool { fn(y.ID); return true })
		return
	}
	if !sameFields(a, b) {
		fn(b.ID)
	}
	byID := make(map[string]*dom.Instance, len(a.Children))
	for _, c := range a.Children {
		byID[c.ID] = c
	}
	for _, c := range b.Children {
		changedIDs(byID[c.ID], c, fn)
		delete(byID, c.ID)
	}
	for _, c := range byID {
		changedIDs(c, nil, fn)
	}
}

// sameFields reports whether a and b hold the same for a plan's comparisons: class,
// name, script text by hash, properties, and children by name in order.
func sameFields(a, b *dom.Instance) bool {
	if a.ClassName != b.ClassName || a.Name != b.Name || a.SourceHash != b.SourceHash || a.RawHash != b.RawHash ||
		len(a.Children) != len(b.Children) {
		return false
	}
	// (A script's text, by its hash above: one tree may have let it go.)
	n := 0
	for name, v := range a.Properties.All() {
		if name == "Source" {
			continue
		}
		n++
		if !dom.Equal(v, b.Properties.Get(name)) {
			return false
		}
	}
	for name := range b.Properties.All() {
		if name != "Source" {
			n--
		}
	}
	if n != 0 {
		return false
	}
	for i, c := range a.Children {
		if c.Name != b.Children[i].Name {
			return false
		}
	}
	return true
}

// untakenKept is how long after its start a host keeps, in its snapshots, the
// records of a previous host that no session has taken: a Studio left open comes
// back within seconds (the plugin's backoff grows to 10 s), and one that did not is
// gone (a new plugin run has a new session id), so they would only pile up.
const untakenKept = time.Minute

// maxInStepLog is the size past which the log is compacted (rewritten as each
// session's whole state) before the next entry: a host never idle long enough for
// its snapshot would otherwise grow it without end.
const maxInStepLog = 32 << 20

// logLocked appends an entry to the log (kind, for session, and for a delta or a
// full state the instances find gives for each id lists). The caller holds p.mu
// (and the Studio lock: the trees' texts are not let go meanwhile). A failure is
// not fatal: the snapshot at the next idle moment has the state.
func (p *places) logLocked(kind int, session string, at inStepAt, ids func(func(string))) error {
	p.readInStepLocked() // (its sequence numbers, and a torn frame cut off)
	if p.logSize > maxInStepLog {
		var all []byte
		for s, cur := range p.inSync {
			if cur.each == nil || cur.find == nil || cur.usable != nil && !cur.usable() {
				continue
			}
			frame, err := p.frameLocked(logFull, s, cur, cur.each)
			if err != nil {
				return err
			}
			all = append(all, frame...)
		}
		for s, r := range p.fromFile {
			// Records no session has taken yet keep what the log held of them.
			if idx, ok := r.state(); ok {
				frame, err := p.frameLocked(logFull, s, inStepAt{commit: r.commit, find: func(id string) *dom.Instance { return idx[id] }}, mapKeys(idx))
				if err != nil {
					return err
				}
				all = append(all, frame...)
			}
		}
		if err := atomicfile.Write(inStepLog(p.dir), all, 0o600); err != nil {
			return err
		}
		p.logSize = int64(len(all))
	}
	frame, err := p.frameLocked(kind, session, at, ids)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(inStepLog(p.dir), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(frame)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	p.logSize += int64(len(frame))
	p.dirty = true // the next snapshot takes it in
	return err
}

// frameLocked is one log entry, framed: its length, its bytes and their CRC-32.
func (p *places) frameLocked(kind int, session string, at inStepAt, ids func(func(string))) ([]byte, error) {
	next := time.Now().UnixNano()
	if next <= p.seq {
		next = p.seq + 1
	}
	p.seq = next
	e := dom.Encoder{HashedSources: true}
	e.Varint(p.seq)
	e.Uvarint(uint64(kind))
	e.Text(session)
	e.Text(p.markerLocked(session))
	e.Text(at.commit)
	if kind != logClearAll {
		var list []string
		ids(func(id string) { list = append(list, id) })
		if kind == logDelta {
			e.Uvarint(uint64(len(list)))
			for _, id := range list {
				e.Text(id)
			}
		}
		var body dom.Encoder
		body.HashedSources = true
		if err := encodeInStep(&body, func(fn func(string)) {
			for _, id := range list {
				fn(id)
			}
		}, at.find); err != nil {
			return nil, err
		}
		e.Uvarint(uint64(len(body.Bytes())))
		e.Raw(body.Bytes())
	}
	payload := e.Bytes()
	frame := binary.AppendUvarint(nil, uint64(len(payload)))
	frame = append(frame, payload...)
	return binary.LittleEndian.AppendUint32(frame, crc32.ChecksumIEEE(payload)), nil
}

// readInStepLocked reads the snapshot's records and the log's entries after it,
// once; the caller holds p.mu. Files that cannot be used give none (a log cut short
// by a crash gives the entries before the cut).
func (p *places) readInStepLocked() {
	if p.fileRead {
		return
	}
	p.fileRead = true
	recs := map[string]*savedInStep{}
	var snapSeq int64
	if data, _, err := statefile.Read(inStepFile(p.dir), inStepStateKind, inStepStateVersion); err == nil {
		d := dom.NewDecoder(data)
		snapSeq = d.Varint()
		for n := d.Count(4); n > 0; n-- {
			r := &savedInStep{session: d.Text(), marker: d.Text(), commit: d.Text()}
			r.data = d.Raw(d.Count(1))
			if d.Err() != nil {
				recs = map[string]*savedInStep{}
				break
			}
			recs[r.session] = r
		}
	}
	if snapSeq > p.seq {
		p.seq = snapSeq // new entries come after the snapshot's, whatever the clock says
	}
	log, _ := os.ReadFile(inStepLog(p.dir))
	p.logSize = int64(len(log))
	good := int64(0)
	defer func() {
		if good < p.logSize {
			// A frame cut short by a crash: the next entry goes where it began, so
			// that later hosts read past it.
			if os.Truncate(inStepLog(p.dir), good) == nil {
				p.logSize = good
			}
		}
	}()
	for len(log) > 0 {
		size, n := binary.Uvarint(log)
		if n <= 0 || uint64(len(log)-n) < size+4 {
			break
		}
		payload := log[n : n+int(size)]
		if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(log[n+int(size):]) {
			break
		}
		log = log[n+int(size)+4:]
		good += int64(n) + int64(size) + 4
		d := dom.NewDecoder(payload)
		seq, kind, session, marker, commit := d.Varint(), d.Uvarint(), d.Text(), d.Text(), d.Text()
		if seq > p.seq {
			p.seq = seq
		}
		if seq <= snapSeq || d.Err() != nil {
			continue
		}
		switch kind {
		case logClearAll:
			recs = map[string]*savedInStep{}
		case logFull, logDelta:
			var ids []string
			if kind == logDelta {
				for k := d.Count(33); k > 0; k-- {
					ids = append(ids, d.Text())
				}
			}
			body := d.Raw(d.Count(1))
			if d.Err() != nil {
				continue
			}
			r := recs[session]
			if kind == logFull {
				recs[session] = &savedInStep{session: session, marker: marker, commit: commit, data: body}
				continue
			}
			if r == nil || r.data == nil {
				continue // nothing to build on: the table decides
			}
			r.deltas = append(r.deltas, inStepDelta{ids: ids, data: body})
			r.marker, r.commit = marker, commit
		}
	}
	p.fromFile = recs
}

// state is the record's instances by id: its snapshot's, with its log's changes;
// ok is false when there is none to build on or it cannot be read.
func (r *savedInStep) state() (map[string]*dom.Instance, bool) {
	if r.data == nil {
		return nil, false
	}
	idx, err := decodeInStep(r.data)
	if err != nil {
		return nil, false
	}
	for _, dl := range r.deltas {
		m, err := decodeInStep(dl.data)
		if err != nil {
			return nil, false
		}
		for _, id := range dl.ids {
			if x := m[id]; x != nil {
				idx[id] = x
			} else {
				delete(idx, id)
			}
		}
	}
	return idx, true
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
	if r.marker != "" && r.marker != marker || r.data == nil {
		// Not this place's, or nothing to build on: forgotten. (A record without a
		// marker is of a place not marked yet: the first sync marks it after its
		// apply; the session id, random per plugin run, is the same.)
		p.dirty = true
		return
	}
	p.based[session] = true
	state := sync.OnceValue(func() map[string]*dom.Instance {
		m, ok := r.state()
		if !ok {
			return nil // unreadable: nothing was in step (the table decides)
		}
		return m
	})
	p.inSync[session] = inStepAt{commit: r.commit,
		find: func(id string) *dom.Instance { return state()[id] },
		each: func(fn func(id string)) {
			for id := range state() {
				fn(id)
			}
		},
		usable: func() bool { return state() != nil }}
}
