package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/plan"
)

// PlaceRecord is the place of a project's last successful sync.
type PlaceRecord struct {
	PlaceID   int64  `json:"placeId"`
	PlaceName string `json:"placeName"`
	// Marker is the marker the place carries (protocol.PlaceMarkerAttribute);
	// absent when it could not be marked (a plugin without markPlace).
	Marker   string    `json:"marker,omitempty"`
	SyncedAt time.Time `json:"syncedAt"`
}

// PlaceCheck says whether a connected Studio holds the place of the project's last
// successful sync (plan.PlaceState): "same", "different", "empty" (none of the
// project's scripts: a new or wrong place; known once a plan has read the place),
// or "unknown" (no sync remembered, or nothing tells the places apart). With
// "different" or "empty", plans leave every deletion on disk unresolved
// (place_changed), and every change to disk in a place proven another (another
// marker or published id).
type PlaceCheck struct {
	State plan.PlaceState `json:"state"`
	// Marker is the connected place's marker, absent when it has none.
	Marker string `json:"marker,omitempty"`
	// LastSync is the place of the last successful sync; null when none is
	// remembered.
	LastSync *PlaceRecord `json:"lastSync"`
}

// places remembers, in the project's state folder, the place of the last successful
// sync, and what is known of each connected session's place: the marker markPlace
// gave it after its hello, and the state its latest plan found.
//
// mu is a leaf lock: nothing is called with it held but file reads and writes.
type places struct {
	path string

	mu      sync.Mutex
	loaded  bool
	last    *PlaceRecord
	markers map[string]string          // by session id, learned after the hello
	seen    map[string]plan.PlaceState // by session id, from its latest plan
	// inSync is, by session id, what Studio was last known to hold in step with
	// disk (syncBase); sessions gone are let go.
	inSync map[string]inStepAt
	// undoable is, by transaction id, the in-step state before the latest applies.
	undoable  map[string]beforeApply
	undoOrder []string
	// lastApply is, by session id, the transaction of its latest apply (none after
	// an undo).
	lastApply map[string]string

	// The in-step states kept in the state dir for the next host (instepstate.go).
	dir      string
	dirty    bool                    // inSync changed since the last save
	seq      int64                   // the last log entry's sequence number
	logSize  int64                   // the log's size, as this host last knew it
	based    map[string]bool         // by session: the files hold a whole state of it
	started  time.Time               // when the host made it (untakenKept)
	fileRead bool                    // the file was read (or is not to be: an undo since)
	fromFile map[string]*savedInStep // by session: records no session has taken yet
	hello    map[string]string       // by session: the marker its hello said
}

// inStepAt is what Studio was last known to hold in step with disk: its instances
// by id (the tree a plan found equal on both sides, or what an apply left in
// Studio), and the base commit then.
type inStepAt struct {
	commit string
	find   func(id string) *dom.Instance
	// each lists every id find gives an instance for (and may list others), for
	// the state file; nil when the state is not to be kept there.
	each func(fn func(id string))
	// tree, when set, is the one tree find reads (a plan's disk tree): the same tree
	// and commit are the same state, not saved again.
	tree *dom.Instance
	// touched, set by an apply, lists every id whose instance may differ from the
	// state before it (the log's entry for the apply).
	touched func(fn func(id string))
	// disk, set by an apply, is the disk tree its plan compared: a plan in step
	// after it logs what disk changed since (logPlanStateLocked).
	disk *dom.Instance
	// usable, when set, says whether the state can be read (a record of the state
	// file that turns out unreadable is no state at all).
	usable func() bool
	// tx is the transaction whose apply recorded it ("" for a plan).
	tx string
}

// beforeApply is what a session's in-step state held, before an apply, for the
// instances the apply changed (nil: none then), so that an undo of that apply can put
// it back. They are copies of the subtrees, so that the trees they were in are let go.
type beforeApply struct {
	session string
	commit  string // the state's base commit (its tree is not kept)
	ids     map[string]*dom.Instance
}

// maxBeforeApply bounds places.undoable: the applies that can still be undone with
// their in-step state put back (each holds only the instances it changed).
const maxBeforeApply = 4

func newPlaces(stateDir string) *places {
	return &places{path: filepath.Join(stateDir, "place.json"), markers: map[string]string{}, seen: map[string]plan.PlaceState{}, inSync: map[string]inStepAt{},
		undoable: map[string]beforeApply{}, lastApply: map[string]string{}, dir: stateDir, hello: map[string]string{}, based: map[string]bool{}, started: time.Now()}
}

// lastLocked returns the remembered place, reading it on first use; a missing or
// unreadable file remembers nothing (every place is then "unknown").
func (p *places) lastLocked() *PlaceRecord {
	if !p.loaded {
		p.loaded = true
		if b, err := os.ReadFile(p.path); err == nil {
			var r PlaceRecord
			if json.Unmarshal(b, &r) == nil {
				p.last = &r
			}
		}
	}
	return p.last
}

// markerOf is a session's place marker: as markPlace left it, or as its hello said.
func (p *places) markerOf(info bridge.SessionInfo) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.markers[info.ID]; m != "" {
		return m
	}
	return info.PlaceMarker
}

// identity tells from the place's id and marker whether it is the place of the last
// sync. Markers decide when both places have one; else published place ids (an
// unpublished place's id is 0 in every new place); else a remembered marker that
// the place lacks means another place.
func identity(last *PlaceRecord, placeID int64, marker string) plan.PlaceState {
	switch {
	case last == nil:
		return plan.PlaceUnknown
	case last.Marker != "" && marker != "":
		if last.Marker == marker {
			return plan.PlaceSame
		}
		return plan.PlaceDifferent
	case last.PlaceID != 0 && placeID != 0:
		if last.PlaceID == placeID {
			return plan.PlaceSame
		}
		return plan.PlaceDifferent
	case last.Marker != "":
		return plan.PlaceDifferent
	}
	return plan.PlaceUnknown
}

// inStep records what the session's Studio held when a plan or an apply left it
// known (at: the base commit then, and its instances by id).
func (p *places) inStep(session string, at inStepAt, live map[string]bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.inSync {
		if !live[id] {
			delete(p.inSync, id) // a session gone: its trees are let go
			delete(p.hello, id)
			delete(p.based, id) // and the files' whole state of it may go with the next snapshot
			p.dirty = true
		}
	}
	cur, ok := p.inSync[session]
	if !ok || at.tree == nil || cur.tree != at.tree || cur.commit != at.commit {
		p.dirty = true
		if ok && at.tx == "" && p.based[session] {
			p.logPlanStateLocked(session, cur, at)
		}
	}
	p.inSync[session] = at
	if _, ok := p.fromFile[session]; ok {
		delete(p.fromFile, session) // superseded
		p.dirty = true
	}
}

// applied records what an apply (transaction tx, changing the instances ids) left the
// session's Studio holding in step with disk, keeping, for an undo of it, what the
// state before held for those instances.
func (p *places) applied(session, tx string, at inStepAt, ids []string, live map[string]bool) {
	p.mu.Lock()
	prev, had := p.inSync[session]
	p.mu.Unlock()
	if had && prev.find != nil {
		b := beforeApply{session: session, commit: prev.commit, ids: make(map[string]*dom.Instance, len(ids))}
		for _, id := range ids {
			var x *dom.Instance
			if was := prev.find(id); was != nil {
				x = was.Clone() // detached: the old tree is let go
				x.Walk(func(y *dom.Instance) bool {
					if y.IsScript() && y.SourceHash != "" {
						dom.DropProperty(y, "Source") // compared by hash: no text kept
					}
					return true
				})
			}
			b.ids[id] = x
		}
		p.mu.Lock()
		p.undoable[tx] = b
		p.undoOrder = append(p.undoOrder, tx)
		if len(p.undoOrder) > maxBeforeApply {
			delete(p.undoable, p.undoOrder[0])
			p.undoOrder = p.undoOrder[1:]
		}
		p.mu.Unlock()
	}
	at.tx = tx
	p.inStep(session, at, live)
	p.mu.Lock()
	p.lastApply[session] = tx
	switch {
	case at.find == nil:
	case !p.based[session] && at.each != nil:
		// The session's first state the files keep: whole, for later entries to
		// build on even if the host is killed before its snapshot. (A plan's state
		// before it is not logged: a host killed then leaves no state, and the table
		// decides, rather than an old one.)
		if p.logLocked(logFull, session, at, at.each) == nil {
			p.based[session] = true
		}
	case at.touched != nil:
		// Kept at once: a host killed before its next idle moment still has it.
		_ = p.logLocked(logDelta, session, at, at.touched)
	}
	p.mu.Unlock()
}

// undone puts back, after an undo of transaction tx, the in-step state from before
// its apply for the instances it changed, where the state is still the one that
// apply left, or one a plan that found the two sides in step recorded since (a
// commit may have moved the base: the undo's own writes are what Studio held in step
// before the apply, never work done in Studio); every other state is let go (the
// undo changed one side or both): plans then decide by the table.
func (p *places) undone(tx string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.undoable[tx]
	delete(p.undoable, tx)
	var keep *inStepAt
	cur, has := p.inSync[b.session]
	if ok && has && (cur.tx == tx || cur.tx == "" && p.lastApply[b.session] == tx) {
		commit := b.commit
		if cur.tx == "" {
			commit = cur.commit // the plan's, since the apply
		}
		after, afterEach, ids := cur.find, cur.each, b.ids
		keep = &inStepAt{commit: commit, find: func(id string) *dom.Instance {
			if x, changed := ids[id]; changed {
				return x
			}
			return after(id)
		}}
		if afterEach != nil {
			keep.each = func(fn func(id string)) {
				for id := range ids {
					fn(id)
				}
				afterEach(fn)
			}
		}
	}
	clear(p.inSync)
	clear(p.lastApply)
	p.dirty = true
	// The files' states went as the undo began (undoing); the state kept is logged
	// whole (the next snapshot writes it too).
	if keep != nil {
		p.inSync[b.session] = *keep
		if keep.each != nil && p.logLocked(logFull, b.session, *keep, keep.each) == nil {
			p.based[b.session] = true
		}
	}
}

// undoing says, before an undo writes anything, that the files' in-step states may
// no longer hold (a host killed during the undo would leave both sides as neither
// state says): the log lets them go at once, and the next apply of each session logs
// its whole state. The states in memory stay until the undo is done (undone).
func (p *places) undoing() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropFilesLocked()
}

// dropFilesLocked lets go of the states the files keep, and of the records read from
// them that no session took: the log says so at once, and each session's next apply
// logs its whole state. The caller holds p.mu.
func (p *places) dropFilesLocked() {
	p.readInStepLocked() // first: what it reads is what goes
	clear(p.based)
	p.fromFile, p.dirty = nil, true
	_ = p.logLocked(logClearAll, "", inStepAt{}, nil)
}

// recovered lets go of every in-step state after recovery finished a transaction
// whose host was killed before it recorded one (the log says so at once): until the
// next plan in step or apply, the table decides.
func (p *places) recovered() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.inSync)
	clear(p.lastApply)
	p.dropFilesLocked()
}

// syncBase returns what the session's Studio was last known to hold in step with
// disk (the latest plan that found nothing to sync, or the latest apply), and the
// base commit then; none (find nil) when this session has not been in step yet.
func (p *places) syncBase(info bridge.SessionInfo) inStepAt {
	p.mu.Lock()
	defer p.mu.Unlock()
	marker := p.markers[info.ID]
	if marker == "" {
		marker = info.PlaceMarker
	}
	p.hello[info.ID] = info.PlaceMarker
	p.takeSavedLocked(info.ID, marker)
	return p.inSync[info.ID]
}

// identityOf is identity for a connected session.
func (p *places) identityOf(info bridge.SessionInfo) plan.PlaceState {
	state, _ := p.identityAndProof(info)
	return state
}

// identityAndProof is identityOf, and whether "different" is proven: the place has
// another marker, or another published id, than the last sync's. (A place that only
// lacks the marker may be the synced one reopened from a save made before the sync
// marked it.)
func (p *places) identityAndProof(info bridge.SessionInfo) (plan.PlaceState, bool) {
	marker := p.markerOf(info)
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.lastLocked()
	state := identity(last, info.PlaceID, marker)
	proven := state == plan.PlaceDifferent && (last.Marker != "" && marker != "" || last.PlaceID != 0 && info.PlaceID != 0)
	return state, proven
}

// planned records the place state a plan for a session found.
func (p *places) planned(session string, state plan.PlaceState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[session] = state
}

// check is the PlaceCheck of a connected session.
func (p *places) check(info bridge.SessionInfo) *PlaceCheck {
	marker := p.markerOf(info)
	p.mu.Lock()
	defer p.mu.Unlock()
	c := &PlaceCheck{State: identity(p.lastLocked(), info.PlaceID, marker), Marker: marker}
	if p.seen[info.ID] == plan.PlaceEmpty {
		c.State = plan.PlaceEmpty
	}
	if p.last != nil {
		r := *p.last
		c.LastSync = &r
	}
	return c
}

// synced remembers s's place as the project's last successful sync, first marking
// the place when it has no marker yet, and returns the place's marker. A place that
// cannot be marked is remembered by its id alone (the marker is then "").
func (p *places) synced(ctx context.Context, s *bridge.Session, log func(msg string, args ...any)) string {
	info := s.Info()
	if info.ReadOnly {
		return "" // a playtest's copy of the place, gone when the playtest ends
	}
	marker := p.markerOf(info)
	if marker == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		res, err := s.MarkPlace(mctx, hex.EncodeToString(b[:]))
		cancel()
		if err != nil {
			log("could not mark the place; it is remembered by its id", "err", err)
		} else {
			marker = res.Marker
		}
	}
	r := &PlaceRecord{PlaceID: info.PlaceID, PlaceName: info.PlaceName, Marker: marker, SyncedAt: time.Now().UTC().Round(time.Second)}
	data, _ := json.MarshalIndent(r, "", "  ")
	p.mu.Lock()
	defer p.mu.Unlock()
	if marker != "" {
		p.markers[info.ID] = marker
	}
	p.last, p.loaded = r, true
	delete(p.seen, info.ID) // the sync changed the place; the next plan looks again
	if err := atomicfile.Write(p.path, data, 0o600); err != nil {
		log("could not remember the synced place", "err", err)
	}
	return marker
}
