package host

import (
	"context"
	"sync"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/protocol"
)

// The adapters between the bridge's Studio sessions and what the engine needs.

// session returns the Studio session a sync command names (or the only edit
// session): never a playtest's (sessions.go).
func (h *Host) session(ctx context.Context, id string) (*bridge.Session, error) {
	return h.selectSession(ctx, bridge.Selector{ID: id, Sync: true})
}

// ExpectStudio tells the host that a Studio is on its way: serve --emulate (or mcp
// --emulate, demo) starting its emulator, which takes seconds on a big project.
// Until done is called (by every caller, when several expect one), a command that
// finds no Studio session waits for one, within its Studio timeout, instead of
// failing with E_STUDIO_NOT_CONNECTED.
func (h *Host) ExpectStudio() (done func()) {
	h.comingMu.Lock()
	if h.comingN == 0 {
		h.coming = make(chan struct{})
	}
	h.comingN++
	h.comingMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.comingMu.Lock()
			defer h.comingMu.Unlock()
			if h.comingN--; h.comingN == 0 {
				close(h.coming)
				h.coming = nil
			}
		})
	}
}

// expected returns the channel of the Studio the host expects, or nil.
func (h *Host) expected() <-chan struct{} {
	h.comingMu.Lock()
	defer h.comingMu.Unlock()
	return h.coming
}

// selectSession returns the session sel names, with the host's reasons on the
// plain refusals (no Studio, several). While a Studio is expected (ExpectStudio),
// no session yet is waited for, until ctx or the Studio timeout ends.
func (h *Host) selectSession(ctx context.Context, sel bridge.Selector) (*bridge.Session, error) {
	s, err := h.bridge.Select(sel)
	if errcode.Of(err) == errcode.StudioNotConnected && h.expected() != nil {
		s, err = h.awaitSession(ctx, sel, err)
	}
	return h.sessionOrReason(s, err)
}

// sessionHeld is session for a holder of the Studio lock: it never waits for an
// expected Studio, whose start takes that lock (InitialPlace).
func (h *Host) sessionHeld(id string) (*bridge.Session, error) {
	return h.sessionOrReason(h.bridge.Select(bridge.Selector{ID: id, Sync: true}))
}

// sessionOrReason gives s, or err with the host's reasons on the plain refusals.
func (h *Host) sessionOrReason(s *bridge.Session, err error) (*bridge.Session, error) {
	if err != nil {
		ce := errcode.As(err)
		switch ce.ReasonCode() {
		case errcode.ReasonNoSessionInContext, errcode.ReasonSessionContextMismatch, errcode.ReasonReadOnlySession:
			return nil, ce
		}
		if ce.Code == errcode.StudioNotConnected {
			// The hint for connect_studio names how to restart this host with the
			// emulator: starting another host for the project would fail (E_BUSY).
			// A session id that is not connected: the ones that are, to pick from.
			next := []errcode.NextAction{errcode.NextConnectStudio}
			if ce.ReasonCode() == errcode.ReasonSessionNotConnected {
				next = []errcode.NextAction{errcode.NextSelectSession}
				if len(h.bridge.Sessions()) == 0 {
					// None connected at all: opening Studio is the way too.
					next = append(next, errcode.NextConnectStudio)
				}
			}
			ce.Reason(errcode.ReasonNoStudio, next...).With("hostKind", h.opts.Kind)
		} else if ce.Code == errcode.StudioAmbiguous {
			ce.Reason(errcode.ReasonSeveralStudios, errcode.NextSelectSession)
		}
		return nil, ce
	}
	return s, nil
}

// awaitSession waits for the session sel names while a Studio is expected; err is
// Select's refusal, given back when the wait ends without one.
func (h *Host) awaitSession(ctx context.Context, sel bridge.Selector, err error) (*bridge.Session, error) {
	wctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	for {
		coming := h.expected()
		if coming == nil {
			return h.bridge.Select(sel)
		}
		changed, unsubscribe := h.bridge.Subscribe()
		// Selected again once subscribed: a session that connected in between is not missed.
		s, serr := h.bridge.Select(sel)
		if errcode.Of(serr) != errcode.StudioNotConnected {
			unsubscribe()
			return s, serr
		}
		select {
		case <-changed:
		case <-coming:
		case <-wctx.Done():
			unsubscribe()
			return nil, err
		}
		unsubscribe()
	}
}

func sessionData(s *bridge.Session) SessionData {
	i := s.Info()
	return SessionData{ID: i.ID, Context: i.Context, ReadOnly: i.ReadOnly, PlaceID: i.PlaceID, PlaceName: i.PlaceName, PluginVersion: i.PluginVersion, ConnectedAt: i.ConnectedAt}
}

// sessionStudio adapts a bridge session to apply.Studio.
type sessionStudio struct {
	s *bridge.Session
	// staged is how many ops Stage sent in pieces (0: none, or in one request):
	// the staged apply names the count, so that a lost piece applies nothing.
	staged int
}

func (a *sessionStudio) Apply(ctx context.Context, txID string, ops []protocol.Op, encoded []byte) error {
	if err := a.fits(ops); err != nil {
		return err
	}
	_, err := a.s.Apply(ctx, protocol.ApplyParams{TxID: txID, Ops: ops, OpsJSON: encoded})
	return applyError(err)
}

// Stage hands ops to a plugin that stages (protocol.CapabilityStage). A patch that
// does not fit is not staged: Apply refuses it before anything is sent.
func (a *sessionStudio) Stage(ctx context.Context, txID string, ops []protocol.Op, pieces <-chan []byte) error {
	info := a.s.Info()
	if !info.Can(protocol.CapabilityStage) || a.fits(ops) != nil {
		return apply.ErrCannotStage
	}
	if !info.Can(protocol.CapabilityStageAppend) {
		// One stage request with every op.
		var all [][]byte
		for p := range pieces {
			all = append(all, p)
		}
		_, err := a.s.Stage(ctx, protocol.ApplyParams{TxID: txID, Ops: ops, OpsJSON: protocol.JoinOps(all)})
		return err
	}
	// A stage request for each piece, as it comes: the plugin decodes one while the
	// next is encoded.
	first := true
	for p := range pieces {
		if _, err := a.s.Stage(ctx, protocol.ApplyParams{TxID: txID, OpsJSON: p, Append: !first}); err != nil {
			return err
		}
		first = false
	}
	a.staged = len(ops)
	return nil
}

// ApplyStaged applies the ops staged under txID; a plugin that holds none answers
// E_BAD_REQUEST with details staged: false, having applied nothing.
func (a *sessionStudio) ApplyStaged(ctx context.Context, txID string) error {
	_, err := a.s.Apply(ctx, protocol.ApplyParams{TxID: txID, Staged: true, OpCount: a.staged})
	if err != nil {
		if ce := errcode.As(err); ce.Code == errcode.BadRequest && ce.Details["staged"] == false {
			return apply.ErrNotStaged
		}
	}
	return applyError(err)
}

// applyError gives the plugin's refusals of a patch their reasons.
func applyError(err error) error {
	if err != nil {
		ce := errcode.As(err)
		if ce.ReasonCode() == "" {
			switch ce.Code {
			case errcode.PreconditionFailed:
				ce.Reason(errcode.ReasonStudioMoved, errcode.NextReplan)
			case errcode.NotFound:
				ce.Reason(errcode.ReasonStudioMoved, errcode.NextReplan)
			case errcode.ApplyFailed:
				ce.Reason(errcode.ReasonStudioApplyFailed, errcode.NextReplan)
			}
		}
		return ce
	}
	return nil
}

func (a *sessionStudio) Transactions(ctx context.Context) ([]string, error) {
	res, err := a.s.Transactions(ctx)
	if err != nil {
		return nil, err
	}
	return res.TxIDs, nil
}

// pathLocator finds instances' handles with a snapshot of their paths; it is used
// inside the Studio lock, by undo.
type pathLocator struct {
	s     *bridge.Session
	snaps *snapshots
}

func (p *pathLocator) Locate(ctx context.Context, paths [][]string, whole []bool) ([]*dom.Instance, error) {
	nodes, roots := [][]string{}, [][]string{}
	for i, path := range paths {
		if i < len(whole) && whole[i] {
			roots = append(roots, path)
		} else {
			nodes = append(nodes, path)
		}
	}
	t, err := p.snaps.take(ctx, p.s, protocol.SnapshotParams{Roots: roots, Nodes: nodes, Properties: map[string]map[string]string{}})
	if err != nil {
		return nil, err
	}
	out := make([]*dom.Instance, len(paths))
	for i, path := range paths {
		out[i] = t.Find(path...)
	}
	return out, nil
}

// noStudio is the locator when no Studio is connected.
type noStudio struct{}

func (noStudio) Locate(context.Context, [][]string, []bool) ([]*dom.Instance, error) {
	return nil, errcode.New(errcode.StudioNotConnected, "Studio is not connected").
		Reason(errcode.ReasonNoStudio, errcode.NextConnectStudio, errcode.NextRetry)
}

var _ apply.Studio = (*sessionStudio)(nil)
var _ apply.Stager = (*sessionStudio)(nil)
var _ apply.Locator = (*pathLocator)(nil)

// sourceMargin is what a snapshot record holds besides a script's Source (handles,
// name, class, RunContext), with room to spare.
const sourceMargin = 4 << 10

// fits refuses a patch that writes a Source no snapshot could carry back in one
// frame (protocol.InstanceLimit): pushed, it would make every later plan fail. The
// refusal comes before anything is sent, so the transaction is aborted whole.
func (a *sessionStudio) fits(ops []protocol.Op) error {
	frameLimit, _, _ := a.s.Limits()
	limit := protocol.InstanceLimit(int(frameLimit)) - sourceMargin
	check := func(values protocol.Values, path string) error {
		raw, ok := values["Source"]
		if !ok || len(raw) <= limit {
			return nil // JSON from Go is never shorter than the plugin's
		}
		v, err := dom.Unmarshal(raw)
		if err != nil {
			return nil // not a string: the plugin says what is wrong with it
		}
		src, ok := v.(dom.String)
		if n := protocol.SourceLen(string(src)); ok && n > limit {
			return errcode.New(errcode.PayloadTooLarge, "%s: a Source of %d bytes (%d as JSON) is more than a snapshot can carry back (%d bytes as JSON); nothing was sent",
				path, len(src), n, limit).Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess).
				With("path", path).With("bytes", len(src)).With("limit", limit)
		}
		return nil
	}
	var walk func(i *protocol.NewInstance, path string) error
	walk = func(i *protocol.NewInstance, path string) error {
		if i == nil {
			return nil
		}
		path += "/" + i.Name
		if err := check(i.Properties, path); err != nil {
			return err
		}
		for _, c := range i.Children {
			if err := walk(c, path); err != nil {
				return err
			}
		}
		return nil
	}
	for _, op := range ops {
		if err := check(op.Set, "change "+op.ChangeID); err != nil {
			return err
		}
		if err := walk(op.Instance, "change "+op.ChangeID+":"); err != nil {
			return err
		}
	}
	return nil
}
