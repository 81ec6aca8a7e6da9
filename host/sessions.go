package host

import (
	"context"
	"sync"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/errcode"
)

// The read-only commands (query, logs, exec) pick their session by id or context
// (bridge.Select): a playtest's server or client may be named, the edit session is
// the default. Sync, apply and undo go through session, which never picks a
// playtest's.

// readSession returns the session a read-only command names.
func (h *Host) readSession(ctx context.Context, id, sessionContext string) (*bridge.Session, error) {
	return h.selectSession(ctx, bridge.Selector{ID: id, Context: sessionContext})
}

// execTurns gives each Studio session one exec at a time: two run_code calls on a
// session take turns, so that neither sees the other's half-done work or output
// (the plugin would run both at once, interleaving at every yield). Each session
// has a one-slot channel; waiting for it gives up with the caller's context.
type execTurns struct {
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func (t *execTurns) slot(id string) chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.slots == nil {
		t.slots = map[string]chan struct{}{}
	}
	ch, ok := t.slots[id]
	if !ok {
		ch = make(chan struct{}, 1)
		t.slots[id] = ch
	}
	return ch
}

// take waits for session id's turn; give it back with the func returned.
func (t *execTurns) take(ctx context.Context, id string) (func(), error) {
	ch := t.slot(id)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, errcode.Wrap(errcode.StudioTimeout, ctx.Err(), "waiting for the code already running in studio session "+id).
			Reason(errcode.ReasonStudioTimeout, errcode.NextRetry)
	}
}
