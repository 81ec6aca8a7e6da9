package host

import (
	"context"
	"time"

	"github.com/atlas-rbx/atlas/apply"
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

// recoverLocked finishes open transactions; the caller has the turn.
func (h *Host) recoverLocked() {
	pending, err := h.journal.Pending()
	if err != nil || len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, 30*time.Second)
	defer cancel()
	done, err := h.journal.Recover(ctx, func(id string) apply.Studio {
		if s, err := h.bridge.Session(id); err == nil && id != "" {
			return &sessionStudio{s: s}
		}
		return nil
	})
	if err != nil {
		h.log.Warn("could not finish open transactions yet", "err", err)
	}
	for _, d := range done {
		h.log.Info("finished open transaction", "txId", d.TxID, "state", d.State)
	}
}
