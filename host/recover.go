package host

import (
	"context"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// turn serializes mutating commands (apply, undo, recovery): holding its one token
// is having the turn. It is the outermost lock: whoever has the turn may take the
// Studio lock, never the reverse.
type turn chan struct{}

func newTurn() turn { return make(turn, 1) }

// take waits up to a second for the turn: long enough for a short recovery to
// finish, short enough that a second apply is told at once that one is running.
func (t turn) take(ctx context.Context) bool {
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case t <- struct{}{}:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// try takes the turn only if it is free.
func (t turn) try() bool {
	select {
	case t <- struct{}{}:
		return true
	default:
		return false
	}
}

// give hands the turn back.
func (t turn) give() { <-t }

// recoverLoop finishes or rolls back open transactions whenever a Studio session
// (re)connects, until the host closes.
func (h *Host) recoverLoop() {
	ch, stop := h.bridge.Subscribe()
	defer stop()
	h.recoverPending()
	h.wg.Add(1) // while this goroutine counts: never alongside Close's Wait at zero
	go func() {
		defer h.wg.Done()
		h.warm()
	}()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-ch:
			h.recoverPending()
			h.prewarm()
		}
	}
}

// warm loads the disk and base trees in the background when the host starts (with
// Prewarm), so that they are ready when Studio connects (a restarted host's Studio
// comes back within a second or so) or when someone asks, then warms up the plan of a
// Studio that connected meanwhile. A command asking for the Studio lock meanwhile
// waits only for the load under way, which it needs too.
func (h *Host) warm() {
	if !h.opts.Prewarm {
		return
	}
	started := time.Now()
	var disk *project.Project
	var b *base
	err := h.studio.useInBackground(h.ctx, func(context.Context, *snapshots) error {
		var err error
		if disk, err = h.loadDisk(); err != nil {
			return err
		}
		b, err = h.loadBase("")
		return err
	})
	if err != nil {
		h.log.Debug("warm", "err", err)
		return
	}
	h.log.Debug("caches warmed", "ms", time.Since(started).Milliseconds())
	if disk != nil {
		// The first snapshot's request, worked out while nothing waits for it (serve
		// --emulate builds its place meanwhile) rather than once a Studio has
		// connected: a plan of the same trees finds it made (scope keeps the latest).
		var baseRoot *dom.Instance
		if b != nil {
			baseRoot = b.proj.Root
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			scope(disk.Root, baseRoot)
		}()
	}
	// A Studio that connected meanwhile found the lock taken, and its warm-up plan
	// gave way: take it now.
	h.prewarm()
}

// prewarm computes a plan in the background when a Studio connects, so the disk,
// base and Studio caches are warm by the time someone asks. It writes nothing, and
// a plan asked meanwhile simply waits for the snapshot under way and reuses it.
func (h *Host) prewarm() {
	if !h.opts.Prewarm || len(h.bridge.Sessions()) != 1 {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(h.ctx, 2*time.Minute)
		defer cancel()
		if _, err := h.computeInBackground(ctx); err != nil {
			h.log.Debug("prewarm", "err", err)
		}
	}()
}

func (h *Host) recoverPending() {
	// Never alongside an apply: its own record is open while it runs.
	if !h.turn.try() {
		return
	}
	defer h.turn.give()
	h.recoverLocked()
}

// recoverLocked finishes or rolls back the open transactions it can, by what the
// Studio of each transaction's place holds; the caller has the turn. Only the
// host that holds the project's host lock runs it (Start takes the lock first).
func (h *Host) recoverLocked() []apply.Pending {
	pending, err := h.journal.Pending()
	if err != nil || (len(pending) == 0 && !h.untidy.Load()) {
		return nil
	}
	ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
	defer cancel()
	var done []apply.Pending
	err = h.studio.use(ctx, func(snaps *snapshots) error {
		var err error
		done, err = h.journal.Recover(ctx, h.connector(snaps))
		return err
	})
	h.untidy.Store(false)
	if err != nil {
		h.log.Warn("could not finish open transactions yet", "err", err)
	}
	for _, d := range done {
		h.log.Info("finished open transaction", "txId", d.TxID, "state", d.State)
		if d.State == "committed" {
			h.syncedByRecovery(ctx, apply.Place{ID: d.PlaceID, Name: d.PlaceName})
		}
	}
	return done
}

// syncedByRecovery records, as an apply does, that the place of a transaction
// recovery finished is the place of the last successful sync: both sides hold it.
// It needs that place's one edit session to be connected (to mark the place). What
// Studio was known to hold in step is let go: the transaction changed both sides
// after it was last recorded (the host that ran it was killed first).
func (h *Host) syncedByRecovery(ctx context.Context, place apply.Place) {
	h.places.recovered()
	if s := h.placeSession(place, ""); s != nil {
		h.places.synced(ctx, s, h.log.Warn)
	}
}

// placeSession is the connected Studio of place: the session sessionID if it is
// connected with that place, else the one edit session of that place; nil when
// there is none or several. Read-only (playtest) sessions are never taken.
func (h *Host) placeSession(place apply.Place, sessionID string) *bridge.Session {
	var match []bridge.SessionInfo
	for _, info := range h.bridge.Sessions() {
		if info.ReadOnly || !place.Same(apply.Place{ID: info.PlaceID, Name: info.PlaceName}) {
			continue
		}
		if info.ID == sessionID {
			match = []bridge.SessionInfo{info}
			break
		}
		match = append(match, info)
	}
	if len(match) != 1 {
		return nil
	}
	s, err := h.bridge.Session(match[0].ID)
	if err != nil {
		return nil
	}
	return s
}

// connector finds, for recovery, the connected Studio of a transaction's place:
// the session it was sent to if it is still connected with that place, else the
// one edit session of that place. Read-only (playtest) sessions are never asked.
func (h *Host) connector(snaps *snapshots) apply.Connector {
	return func(place apply.Place, sessionID string) *apply.Connection {
		s := h.placeSession(place, sessionID)
		if s == nil {
			return nil
		}
		return &apply.Connection{SessionID: s.Info().ID, Studio: &sessionStudio{s: s}, Prober: &sessionProber{s: s, snaps: snaps}}
	}
}

// sessionProber reads instances by path with one snapshot, inside the Studio lock.
type sessionProber struct {
	s     *bridge.Session
	snaps *snapshots
}

func (p *sessionProber) Probe(ctx context.Context, paths [][]string, props map[string]map[string]string) ([][]*dom.Instance, error) {
	t, err := p.snaps.take(ctx, p.s, protocol.SnapshotParams{Roots: [][]string{}, Nodes: paths, Properties: props})
	if err != nil {
		return nil, err
	}
	out := make([][]*dom.Instance, len(paths))
	for i, path := range paths {
		out[i] = findAll(t, path)
	}
	return out, nil
}

// findAll returns every instance at path (same-named siblings all count).
func findAll(root *dom.Instance, path []string) []*dom.Instance {
	cur := []*dom.Instance{root}
	for _, name := range path {
		var next []*dom.Instance
		for _, x := range cur {
			for _, c := range x.Children {
				if c.Name == name {
					next = append(next, c)
				}
			}
		}
		cur = next
	}
	return cur
}

// Recover shows the open transactions and, with an action, resolves one on the
// person's word (apply.Journal.Resolve); it first finishes or rolls back what
// recovery can decide alone.
func (h *Host) Recover(ctx context.Context, req RecoverRequest) (*apply.RecoverResult, error) {
	switch req.Action {
	case "", apply.ActionFinish, apply.ActionAbort:
	default:
		return nil, errcode.New(errcode.BadRequest, "action %q is not finish or abort", req.Action).
			Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	if !h.turn.take(ctx) {
		return nil, errcode.New(errcode.Busy, "an apply is running for this project").Reason(errcode.ReasonBusy, errcode.NextWait)
	}
	defer h.turn.give()
	done := h.recoverLocked()
	if req.Action != "" {
		// What Studio showed (or a disk with space again) may settle it first.
		if pending, err := h.journal.Pending(); err == nil && len(pending) == 0 && len(done) > 0 &&
			(req.TxID == "" || req.TxID == done[len(done)-1].TxID) {
			d := done[len(done)-1]
			action := apply.ActionFinish
			if d.State != "committed" {
				action = apply.ActionAbort
			}
			return &apply.RecoverResult{Transactions: []apply.OpenTransaction{},
				Resolved: &apply.Resolved{TxID: d.TxID, Action: action, State: d.State, Files: []apply.FileChange{}, Studio: []apply.PathSide{}}}, nil
		}
	}
	pending, _ := h.journal.Pending()
	var res *apply.RecoverResult
	err := h.studio.use(ctx, func(snaps *snapshots) error {
		var err error
		res, err = h.journal.Resolve(ctx, req.TxID, req.Action, h.connector(snaps))
		return err
	})
	if err == nil && res != nil && res.Resolved != nil && res.Resolved.State == "committed" {
		for _, p := range pending {
			if p.TxID == res.Resolved.TxID {
				h.syncedByRecovery(ctx, apply.Place{ID: p.PlaceID, Name: p.PlaceName})
			}
		}
	}
	return res, err
}
