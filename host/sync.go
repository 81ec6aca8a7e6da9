package host

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// computed is a fresh plan with everything it was computed from.
type computed struct {
	plan    *plan.Plan
	disk    *project.Project
	studio  *dom.Instance
	base    *base
	session *bridge.Session
	in      plan.Input // what the plan was computed from
}

// compute reads disk, base and Studio, and computes the plan. It waits for Studio
// (the Studio lock, then its snapshots) at most the Studio timeout in all.
//
// then, when not nil, runs with the plan under the same lock: what reads the texts of
// the plan's scripts (hydrate) does it there, as the lock keeps them from being let go.
func (h *Host) compute(ctx context.Context, sessionID, baseRev string, then func(*computed) error) (*computed, error) {
	ctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	// A Studio on its way is waited for before the lock, which its start needs.
	if _, err := h.session(ctx, sessionID); err != nil {
		return nil, err
	}
	var c *computed
	big, whole := false, false
	err := h.studio.useAfterBackground(ctx, func(snaps *snapshots) error {
		wholes, full, bases := snaps.c.wholes, h.disk.fullLoads(), h.disk.builtBases()
		var err error
		c, err = h.computeWith(ctx, snaps, sessionID, baseRev)
		// (the warm-up plan this one waited for may have taken a whole snapshot)
		whole = snaps.afterBackground || snaps.c.wholes != wholes || h.disk.fullLoads() != full
		big = whole || h.disk.builtBases() != bases
		if err == nil && then != nil {
			err = then(c)
		}
		if whole {
			// It read every text: let go of the ones that can be read again. The
			// few a smaller plan read are kept for the apply that often follows
			// it, until the host goes idle.
			h.dropTexts(snaps)
		}
		return err
	})
	if big {
		// A whole snapshot, disk load or base tree leaves its decoding's garbage,
		// which the runtime would give back to the system only slowly, collecting
		// it meanwhile beside the next command (an apply, most often): give it
		// back now. After a whole snapshot or disk load (a host's first plan),
		// beside the answer rather than before it (a forced collection of a 10k
		// project's trees takes 70-80 ms), and an apply waits for it; after a base
		// rebuilt (a commit since), before it, as a plan before an apply often is.
		if whole {
			h.giveBack.soon()
		} else {
			debug.FreeOSMemory()
		}
	}
	return c, err
}

// computeInBackground is compute for work nobody waits for (the warm-up plan): it
// gives the Studio lock up as soon as a command asks for it, and computes nothing
// when one holds it.
func (h *Host) computeInBackground(ctx context.Context) (*computed, error) {
	var c *computed
	err := h.studio.useInBackground(ctx, func(ctx context.Context, snaps *snapshots) error {
		var err error
		c, err = h.computeWith(ctx, snaps, "", "")
		return err
	})
	return c, err
}

// studioDeadline bounds a command's whole wait for Studio by the Studio timeout
// (Options.StudioTimeout), unless ctx ends sooner.
func (h *Host) studioDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	d := time.Now().Add(h.opts.StudioTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(d) {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, d)
}

// computeWith is compute for a holder of the Studio lock, which will use the
// snapshot's handles (apply) before letting it go.
func (h *Host) computeWith(ctx context.Context, snaps *snapshots, sessionID, baseRev string) (*computed, error) {
	s, err := h.sessionHeld(sessionID)
	if err != nil {
		return nil, err
	}
	// Probed before the first load: the probe's file is gone by then.
	foldCase := h.fold.get(h.loc.Dir)
	// The disk first: the base is built from it (the disk tree itself when HEAD
	// holds the same files).
	started := time.Now()
	disk, err := h.loadDisk()
	if err != nil {
		return nil, err
	}
	b, err := h.bases.load(baseRev)
	if err != nil {
		return nil, err
	}
	var baseRoot *dom.Instance
	if b != nil {
		baseRoot = b.proj.Root
	}
	read := time.Now()
	wholes, deltas := snaps.c.wholes, snaps.c.deltas
	studio, err := snaps.cached(ctx, s, scope(disk.Root, baseRoot), disk.Index())
	if err != nil {
		return nil, err
	}
	kind := "unchanged"
	if snaps.c.wholes != wholes {
		kind = "whole"
	} else if snaps.c.deltas != deltas {
		kind = "delta"
	}
	h.log.Debug("plan inputs read", "diskAndBaseMs", read.Sub(started).Milliseconds(), "studioMs", time.Since(read).Milliseconds(),
		"studioSnapshot", kind, "sourcesByHash", snaps.c.byHash)
	place, otherPlace := h.places.identityAndProof(s.Info())
	in := plan.Input{Disk: disk.Root, Studio: studio, Base: baseRoot, SessionID: s.Info().ID,
		Place: place, OtherPlace: otherPlace, FoldCase: foldCase, DiskIndex: disk.Index(), Memo: h.memo,
		Unmerged: h.bases.unmerged()}
	if b != nil {
		in.BaseCommit, in.BaseRef, in.BaseIndex = b.commit, b.ref, b.proj.Index()
	}
	in.Writable = h.writable(ctx, &computed{disk: disk, studio: studio, base: b, session: s}, foldCase)
	if b != nil && baseRev == "" {
		// Against HEAD only: a base asked for is the base meant.
		if at := h.places.syncBase(s.Info()); at.find != nil {
			// What Studio held then, instance by instance.
			in.InStep = func() *plan.InStep {
				if at.usable != nil && !at.usable() {
					return nil
				}
				return &plan.InStep{Commit: at.commit, Find: at.find}
			}
		}
	}
	if p := h.plans.same(disk, studio, in); p != nil {
		return &computed{plan: p, disk: disk, studio: studio, base: b, session: s, in: in}, nil
	}
	if b != nil {
		b.hashes(disk.Index(), studio)
	}
	p := plan.Compute(in)
	snapshot := studio
	if rich := h.withNewProps(ctx, s, studio, p); rich != nil {
		// What a pull of the instances new in Studio writes is part of the plan.
		studio, in.Studio = rich, rich
		in.Writable = h.writable(ctx, &computed{disk: disk, studio: rich, base: b, session: s}, foldCase)
		p = plan.Compute(in)
	}
	if len(p.Changes) == 0 && b != nil && baseRev == "" {
		// Studio holds what disk holds: this tree (trees are never changed in place).
		idx := disk.Index()
		h.places.inStep(s.Info().ID, inStepAt{commit: b.commit, tree: disk.Root,
			find: func(id string) *dom.Instance { return idx[id] }, each: mapKeys(idx)}, liveSessions(h))
	}
	h.plans.computed(disk, snapshot, in, p, studio != snapshot)
	h.places.planned(s.Info().ID, p.Place)
	return &computed{plan: p, disk: disk, studio: studio, base: b, session: s, in: in}, nil
}

// writable is a plan's check of its pulls (plan.Input.Writable): the apply's own,
// on the project's files as they are, with the texts the trees let go read back.
// The caller holds the Studio lock.
func (h *Host) writable(ctx context.Context, c *computed, foldCase bool) func([]*plan.Change) map[string]plan.Refusal {
	return func(pulls []*plan.Change) map[string]plan.Refusal {
		t := h.texts(ctx, c)
		st := &apply.State{Project: c.disk, FS: os.DirFS(h.loc.Dir), Dir: h.loc.Dir, Studio: c.studio, FoldCase: foldCase}
		return apply.Unwritable(st, c.disk.Index(), pulls, func(ch *plan.Change) error {
			return t.change(ch, ch.Studio)
		})
	}
}

// loadBase loads the project at base revision rev (default HEAD); nil when there
// is no base.
func (h *Host) loadBase(rev string) (*base, error) { return h.bases.load(rev) }

// Plan computes a plan and issues its confirm token.
func (h *Host) Plan(ctx context.Context, req PlanRequest) (*PlanData, error) {
	h.trim.begin()
	defer h.trim.end()
	var sources map[string]ChangeSources
	var files map[string]string
	c, err := h.compute(ctx, req.SessionID, req.Base, func(c *computed) error {
		// Both read the trees' texts, which the lock keeps from being let go.
		if req.Sources {
			sources = h.sourcesOf(ctx, c)
		}
		if req.Files {
			files = filesOf(c, os.DirFS(h.loc.Dir), h.texts(ctx, c))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.plans.remember(c.plan, req.Base)
	tok, claims, err := h.tokens.Issue(c.plan.Hash, c.plan.SessionID, req.TTL, time.Now())
	if err != nil {
		return nil, err
	}
	d := &PlanData{
		PlanHash: c.plan.Hash, ConfirmToken: tok, ExpiresAt: claims.ExpiresAt.UTC(),
		Base:    BaseData{Commit: c.plan.BaseCommit, Ref: c.plan.BaseRef},
		Session: sessionData(c.session), Summary: c.plan.Summary(), Changes: c.plan.Changes,
		Warnings: append(append([]string(nil), c.disk.Warnings...), c.plan.Warnings...),
		Guards:   c.plan.Guards,
	}
	d.Session.PlaceCheck = h.places.check(c.session.Info())
	if c.base == nil {
		d.Warnings = append(d.Warnings, "no base commit (no git repository, no commit yet, or the project file is not committed): every difference is unresolved")
	}
	if req.Sources {
		d.Sources = sources
	}
	if req.Files {
		d.Files = files
	}
	return d, nil
}

// sourcesOf returns the texts of the plan's script changes, read back where the
// trees let them go (texts.go). The caller holds the Studio lock.
func (h *Host) sourcesOf(ctx context.Context, c *computed) map[string]ChangeSources {
	out := map[string]ChangeSources{}
	t := h.texts(ctx, c)
	for _, ch := range c.plan.Changes {
		var cs ChangeSources
		any, unreadable := false, false
		for _, side := range []struct {
			i   *dom.Instance
			dst **string
		}{{ch.Disk, &cs.Disk}, {ch.Studio, &cs.Studio}, {ch.Base, &cs.Base}} {
			if side.i == nil {
				continue
			}
			if err := t.hydrate(false, side.i); err != nil {
				// Its file changed since the plan: a diff against "" would show
				// the whole text removed. The change is left out, and the next
				// plan shows it.
				unreadable = true
				break
			}
			if src, ok := side.i.Source(); ok {
				s := src
				*side.dst = &s
				any = true
			}
		}
		if any && !unreadable {
			out[ch.ID] = cs
		}
	}
	return out
}

// Apply runs the apply transaction.
func (h *Host) Apply(ctx context.Context, req ApplyRequest) (*ApplyData, error) {
	h.trim.begin()
	defer h.trim.end()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// The token first (ARCHITECTURE §5, step 1): one that is forged, expired or spent
	// is refused at once, without waiting for a Studio to connect. The transaction
	// verifies it again against the session it applies to.
	if _, err := h.tokens.Verify(req.Token, "", time.Now()); err != nil {
		return nil, err
	}
	// (a forced collection beside the apply's own work would slow it: at 50k, the
	// plan before an apply often rebuilt the base after a commit)
	h.giveBack.wait()
	if !h.turn.take(ctx) {
		return nil, errcode.New(errcode.Busy, "another apply is running for this project").
			Reason(errcode.ReasonBusy, errcode.NextWait, errcode.NextReplan)
	}
	defer h.turn.give()
	defer relaxGC()()
	if err := h.noneOpen(); err != nil {
		return nil, err
	}
	sid := req.SessionID
	if sid == "" && len(h.bridge.Sessions()) > 1 {
		// With several Studios, the token's session is the one meant (the plan was
		// made against it); the token is verified against it below all the same.
		if claims, err := h.tokens.Peek(req.Token); err == nil {
			sid = claims.SessionID
		}
	}
	s, err := h.session(ctx, sid)
	if err != nil {
		return nil, err
	}
	// The token names the plan; the plan names its base. Recompute against the same base.
	baseRev := ""
	if claims, err := h.tokens.Peek(req.Token); err == nil {
		if cp := h.plans.recall(claims.PlanHash); cp != nil {
			baseRev = cp.base
		}
	}
	var res *apply.Result
	var recomputed *plan.Plan
	var recomputedStudio, recomputedDisk *dom.Instance
	// The wait for the Studio lock and the fresh plan take at most the Studio
	// timeout; the patch, once sent, has its own (apply.Txn).
	lctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	// No other snapshot may replace the handles between the recompute and the patch.
	err = h.studio.useAfterBackground(lctx, func(snaps *snapshots) error {
		t := &apply.Txn{
			Tokens:        h.tokens,
			Studio:        &sessionStudio{s: s},
			Journal:       h.journal,
			SessionID:     s.Info().ID,
			Place:         apply.Place{ID: s.Info().PlaceID, Name: s.Info().PlaceName, Marker: h.places.markerOf(s.Info())},
			StudioTimeout: h.opts.StudioTimeout,
			Log:           h.log,
			PreviousPlan: func(hash string) *plan.Plan {
				if cp := h.plans.recall(hash); cp != nil {
					return cp.plan
				}
				return nil
			},
			// The disk cache is safe here: its barrier makes every change made
			// before this call visible, and every file apply writes is checked
			// against the hash the plan saw before it is replaced. Studio may
			// answer "unchanged" here too: every Studio op still carries the Source
			// hash and values it overwrites, so an edit the plugin failed to report
			// is refused, never overwritten.
			Recompute: func(ctx context.Context) (*apply.State, error) {
				c, err := h.computeWith(ctx, snaps, s.Info().ID, baseRev)
				if err != nil {
					return nil, err
				}
				recomputed, recomputedStudio, recomputedDisk = c.plan, c.studio, c.disk.Root
				// The journal holds the texts the apply overwrites, and a push
				// or pull writes the other side's: the ones let go are read
				// back, for the changes the apply carries out.
				t := h.texts(ctx, c)
				return &apply.State{Plan: c.plan, Project: c.disk, FS: os.DirFS(h.loc.Dir), Dir: h.loc.Dir, Studio: c.studio,
					FoldCase: h.fold.get(h.loc.Dir), ReadTexts: func(changes []*plan.Change) error {
						for _, ch := range changes {
							if err := t.change(ch, ch.Disk, ch.Studio); err != nil {
								return err
							}
						}
						return nil
					}}, nil
			},
		}
		var err error
		res, err = t.Run(lctx, apply.Request{Token: req.Token, Overrides: req.Overrides, SkipUnresolved: req.SkipUnresolved})
		if err == nil && res.StudioOps > 0 && recomputed != nil {
			snaps.c.pushed = pushedSources(recomputed, res.Applied)
		}
		if err == nil && recomputed != nil && recomputedStudio != nil && len(res.Applied) > 0 {
			// Recorded under the Studio lock: the next plan decides against it.
			ids := make([]string, len(res.Applied))
			for i, a := range res.Applied {
				ids[i] = a.ID
			}
			at := afterApply(recomputed, recomputedStudio, res.Applied)
			at.disk = recomputedDisk
			h.places.applied(s.Info().ID, res.TxID, at, ids, liveSessions(h))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.TxID == "" {
		// Nothing to write, nothing journaled: no transaction to name.
		h.log.Info("applied", "changes", 0, "skipped", len(res.Skipped), "session", s.Info().ID)
	} else {
		h.log.Info("applied", "txId", res.TxID, "changes", len(res.Applied), "skipped", len(res.Skipped),
			"studioOps", res.StudioOps, "files", len(res.Files), "session", s.Info().ID)
	}
	if len(res.Applied) > 0 {
		// Both sides now hold the project: this is the place to compare the next
		// Studio with.
		marker := h.places.synced(ctx, s, h.log.Warn)
		if err := h.journal.NotePlaceMarker(res.TxID, marker); err != nil {
			h.log.Warn("could not note the place's marker in the journal", "txId", res.TxID, "err", err)
		}
	}
	d := &ApplyData{Result: *res, Session: sessionData(s)}
	d.Session.PlaceCheck = h.places.check(s.Info())
	if res.StudioOps+len(res.Files) >= bigApply {
		// A big patch leaves megabytes of frames and journal garbage, which the
		// runtime would give back to the system only slowly: give it back, after
		// the answer.
		go debug.FreeOSMemory()
	}
	return d, nil
}

// liveSessions are the ids of the Studio sessions connected now.
func liveSessions(h *Host) map[string]bool {
	live := map[string]bool{}
	for _, info := range h.bridge.Sessions() {
		live[info.ID] = true
	}
	return live
}

// afterApply returns what Studio holds in step with disk after an apply, instance
// by instance: the Studio tree the apply's plan read, with the pushed changes' disk
// sides in place of theirs (absent for a pushed deletion). A pull changed disk, not
// Studio. A change the apply did not carry out is not in step: its base stands for
// it (absent where the base has none).
func afterApply(p *plan.Plan, studio *dom.Instance, applied []apply.Applied) inStepAt {
	// Indexed when a plan first needs it (seldom), not on the apply's time.
	before := sync.OnceValue(studio.Index)
	over := map[string]*dom.Instance{}
	done := make(map[string]bool, len(applied))
	for _, a := range applied {
		done[a.ID] = true
	}
	for _, ch := range p.Changes {
		if done[ch.ID] {
			continue
		}
		// Not synced (skipped, or left without a direction): what Studio holds
		// there is its own, never in step; the base stands for it, as the table
		// has it (nil, absent, where the base has none).
		if ch.PatchType == plan.Edit {
			over[ch.ID] = ch.Base
			continue
		}
		for _, side := range []*dom.Instance{ch.Studio, ch.Disk} {
			if side != nil {
				side.Walk(func(x *dom.Instance) bool { over[x.ID] = nil; return true })
			}
		}
		if ch.Base != nil {
			ch.Base.Walk(func(x *dom.Instance) bool { over[x.ID] = x; return true })
		}
	}
	for _, a := range applied {
		if a.Direction != plan.Push {
			continue
		}
		ch := p.Find(a.ID)
		if ch == nil {
			continue
		}
		if ch.PatchType == plan.Edit && ch.Disk.ClassName == ch.Studio.ClassName {
			over[ch.ID] = ch.Disk // its fields; its children are changes of their own
			continue
		}
		// An addition, a deletion, or a class change (Studio replaced the whole
		// subtree): Studio's subtree is gone, disk's is there.
		if ch.Studio != nil {
			ch.Studio.Walk(func(x *dom.Instance) bool { over[x.ID] = nil; return true })
		}
		if ch.Disk != nil {
			ch.Disk.Walk(func(x *dom.Instance) bool { over[x.ID] = x; return true })
		}
	}
	return inStepAt{commit: p.BaseCommit,
		find: func(id string) *dom.Instance {
			if x, ok := over[id]; ok {
				return x
			}
			return before()[id]
		},
		each: func(fn func(id string)) {
			for id := range over {
				fn(id)
			}
			for id := range before() {
				fn(id)
			}
		},
		touched: func(fn func(id string)) {
			// Every instance of the plan's changes, on each side: pulled ones
			// (Studio's, now in step) as much as pushed and skipped ones.
			for id := range over {
				fn(id)
			}
			for _, ch := range p.Changes {
				for _, side := range []*dom.Instance{ch.Studio, ch.Disk, ch.Base} {
					if side != nil {
						side.Walk(func(x *dom.Instance) bool { fn(x.ID); return true })
					}
				}
			}
		}}
}

// bigApply is the number of Studio ops and files from which an apply's garbage is
// given back to the system at once.
const bigApply = 100

// waitingFor says what an open transaction waits for, in the refusal's message.
func waitingFor(p apply.Pending) string {
	place := placeName(apply.Place{ID: p.PlaceID, Name: p.PlaceName})
	switch p.Waiting {
	case apply.WaitDecision:
		return "Studio holds part of its patch; it needs a decision to finish or abort it"
	case apply.WaitDisk:
		return "Studio holds its patch but its files could not all be written (" + p.Error + ")"
	case apply.WaitStudio:
		return "its patch was sent to Studio and the answer was lost; it is finished or rolled back when Studio with " + place + " connects, or on a decision to finish or abort it"
	}
	return "it is in state " + p.State
}

// Undo puts back what a committed transaction overwrote, on disk and in Studio.
func (h *Host) Undo(ctx context.Context, req UndoRequest) (*apply.UndoResult, error) {
	if req.TxID == "" {
		// The newest when the undo is asked for: not an apply that another client
		// had under way and that committed while this undo waited for its turn.
		if id, err := h.journal.Newest(); err == nil && id != "" {
			req.TxID = id
		}
	}
	if !h.turn.take(ctx) {
		return nil, errcode.New(errcode.Busy, "another apply is running for this project").Reason(errcode.ReasonBusy, errcode.NextWait)
	}
	defer h.turn.give()
	// An open transaction is finished or rolled back by what Studio holds: an undo
	// underneath it would change what that decision reads.
	if err := h.noneOpen(); err != nil {
		return nil, err
	}
	// Undo needs Studio only if the transaction changed it; the journal says so.
	s, noSession := h.session(ctx, req.SessionID)
	if errcode.Of(noSession) == errcode.StudioReadOnly {
		return nil, noSession // a playtest's session was named: never undone there
	}
	var res *apply.UndoResult
	err := h.studio.use(ctx, func(snaps *snapshots) error {
		var studio apply.Studio
		var loc apply.Locator = noStudio{}
		if noSession == nil {
			studio = &undoStudio{sessionStudio: &sessionStudio{s: s}, places: h.places}
			loc = &pathLocator{s: s, snaps: snaps}
		}
		h.places.undoing()
		var err error
		res, err = h.journal.Undo(ctx, req.TxID, studio, loc)
		if errcode.Of(err) == errcode.StudioNotConnected && noSession != nil {
			// The transaction changed Studio: why no session was taken (several,
			// none with the id given) says more, with the sessions listed.
			return noSession
		}
		switch errcode.Of(err) {
		case errcode.PreconditionFailed, errcode.NotFound, errcode.StudioNotConnected, errcode.StudioAmbiguous:
			// refused before anything was written
		default:
			// Disk, Studio or both may hold something else than after the apply or
			// the plan that found them in step: what they held in step before the
			// apply is put back where known; else the next plans decide by the table.
			if res != nil {
				h.places.undone(res.TxID)
			} else {
				h.places.undone("")
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("undone", "txId", res.TxID, "studioOps", res.StudioOps, "files", res.FilesUndone())
	return res, nil
}

// undoStudio is the Studio an undo writes to: it refuses a session that does not hold
// the place the transaction was applied to.
type undoStudio struct {
	*sessionStudio
	places *places
}

// SamePlace accepts the session the transaction was applied to, or one of its place:
// the same marker when the transaction's place had one (a reopened place keeps it
// once saved), else the same place id, or name for an unpublished place.
func (u *undoStudio) SamePlace(txID, sessionID string, place apply.Place) error {
	info := u.s.Info()
	if info.ID == sessionID {
		return nil
	}
	marker := u.places.markerOf(info)
	same := place.Same(apply.Place{ID: info.PlaceID, Name: info.PlaceName})
	if place.Marker != "" {
		same = marker == place.Marker
	}
	if same {
		return nil
	}
	return errcode.New(errcode.PreconditionFailed,
		"cannot undo %s in Studio session %s: the transaction was applied to another place (%s); an undo writes only where its transaction wrote",
		txID, info.ID, placeName(place)).
		Reason(errcode.ReasonOtherPlace, errcode.NextSelectSession).
		With("txId", txID).With("sessionId", sessionID)
}

// placeName names a place in a message: its id, or its name when unpublished.
func placeName(p apply.Place) string {
	if p.ID != 0 {
		return fmt.Sprintf("place %d", p.ID)
	}
	return fmt.Sprintf("place %q", p.Name)
}

// noneOpen tries to finish or roll back the open transactions (as recovery does),
// and refuses with E_BUSY transaction_pending while one stays open. The caller holds
// the turn.
func (h *Host) noneOpen() error {
	if pending, err := h.journal.Pending(); err == nil && len(pending) > 0 {
		h.recoverLocked()
		if pending, _ = h.journal.Pending(); len(pending) > 0 {
			p := pending[0]
			return errcode.New(errcode.Busy, "transaction %s is still open: %s", p.TxID, waitingFor(p)).
				Reason(errcode.ReasonTransactionPending, errcode.NextResolveTransaction, errcode.NextShowStatus).
				With("txId", p.TxID).With("waiting", p.Waiting).With("pending", pending)
		}
	}
	return nil
}

// pushedSources returns the Sources of the scripts the applied push changes of p
// wrote into Studio, by blob id.
func pushedSources(p *plan.Plan, applied []apply.Applied) map[string]dom.Value {
	out := map[string]dom.Value{}
	for _, a := range applied {
		if a.Direction != plan.Push {
			continue
		}
		c := p.Find(a.ID)
		if c == nil || c.Disk == nil {
			continue
		}
		c.Disk.Walk(func(x *dom.Instance) bool {
			if src, ok := x.Properties.Lookup("Source"); ok && x.SourceHash != "" && x.IsScript() {
				out[x.SourceHash] = src
			}
			return c.PatchType == plan.Add // an edit writes the instance, not its children
		})
	}
	return out
}
