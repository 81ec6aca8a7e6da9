package apply

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
)

// Connection is a connected Studio that recovery can ask about a transaction.
type Connection struct {
	SessionID string
	// Studio lists the transactions the session applied (it may be nil).
	Studio Studio
	Prober Prober
}

// Connector returns the connected Studio of place, or nil when none is: the
// session sessionID if it is connected with that place, else the one session of
// that place (several, none of them sessionID: nil, as no one of them is the one).
type Connector func(place Place, sessionID string) *Connection

// Recover finishes or rolls back every open transaction it can, by what Studio
// holds rather than by which session the patch went to (a restarted Studio has a
// new session id):
//
//   - prepared or staged (nothing was sent): rolled back, its temporary files
//     removed;
//   - committing (Studio holds the patch): its files are written;
//   - studio-sent: once a Studio with its place is connected, every path the
//     patch changes is probed: all at the after-state, the files are written; all
//     at the before-state, it is rolled back; anything else waits for a person
//     (WaitDecision, sync recover). The session that was sent the patch, if it
//     is the one connected and lists the transaction as applied, settles a mixed
//     probe as applied (Studio changed since, which the next plan shows).
//
// A committed transaction whose temporary files may be left in the project (a
// crash right after its commit) is tidied. It returns the transactions it
// finished or rolled back. The caller holds the lock that serializes
// transactions, so no transaction in progress is touched.
func (j *Journal) Recover(ctx context.Context, connect Connector) ([]Pending, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	var done []Pending
	var errs []error
	for _, r := range recs {
		if !r.open() && !(r.State == stateCommitted && r.Untidy) {
			continue
		}
		if err := r.load(); err != nil {
			continue
		}
		switch r.State {
		case stateCommitted:
			if root, err := openRoot(r); err == nil {
				r.tidy(root)
				root.Close()
			}
			continue
		case statePrepared, stateStaged:
			r.Abort()
		case stateCommitting:
			if _, _, err := r.Commit(); err != nil {
				errs = append(errs, err)
				continue
			}
		case stateStudioSent:
			conn := connect(r.Place, r.SessionID)
			if conn == nil || conn.Prober == nil {
				r.wait(WaitStudio, "")
				continue
			}
			side, _, err := r.studioSide(ctx, conn.Prober)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if side != SideAfter && side != SideBefore && conn.SessionID == r.SessionID && conn.Studio != nil {
				if ids, err := conn.Studio.Transactions(ctx); err == nil && slices.Contains(ids, r.TxID) {
					side = SideAfter
				}
			}
			switch side {
			case SideAfter:
				if err := r.MarkCommitting(); err != nil {
					errs = append(errs, err)
					continue
				}
				if _, _, err := r.Commit(); err != nil {
					errs = append(errs, err)
					continue
				}
			case SideBefore:
				r.Abort()
			default:
				r.wait(WaitDecision, "")
				continue
			}
		}
		done = append(done, r.pending())
	}
	return done, errors.Join(errs...)
}

// FileSide is where the disk stands for one file an open transaction writes.
type FileSide struct {
	Path string `json:"path"`
	// Change is what the transaction does to it: write, create, delete, mkdir or
	// rmdir.
	Change string `json:"change"`
	// Side: before (as the plan saw it), after (as the transaction writes it), or
	// other (changed since).
	Side string `json:"side"`
}

// OpenTransaction is an open transaction as sync recover shows it: what it
// writes, and where each side stands.
type OpenTransaction struct {
	Pending
	SessionID string `json:"sessionId"`
	// Studio is where the Studio of its place stands: before, after, mixed, or
	// unknown (none connected).
	Studio    string     `json:"studio"`
	Instances []PathSide `json:"instances"`
	Files     []FileSide `json:"files"`
}

// Resolved is what sync recover did with one transaction.
type Resolved struct {
	TxID string `json:"txId"`
	// Action is finish or abort; State the transaction's state after it
	// (committed or aborted).
	Action string       `json:"action"`
	State  string       `json:"state"`
	Files  []FileChange `json:"files"`
	// Studio lists, after an abort, each path the transaction changed in Studio and
	// where it stands: at "after" Studio still holds the patch there (Ctrl+Z in
	// Studio takes it back; every sync is one undoable recording).
	Studio   []PathSide `json:"studio"`
	Warnings []string   `json:"warnings,omitempty"`
}

// RecoverResult is sync recover's answer: the open transactions (after the
// action, if any) and what the action did.
type RecoverResult struct {
	Transactions []OpenTransaction `json:"transactions"`
	Resolved     *Resolved         `json:"resolved,omitempty"`
}

// Recover actions.
const (
	ActionFinish = "finish"
	ActionAbort  = "abort"
)

// Resolve shows the open transactions and, with action finish or abort, resolves
// one (txID, or the only one) on a person's word: finish writes its files by
// compare-and-swap whatever Studio holds; abort marks it aborted, puts back the
// files it wrote (each only while it holds what the transaction wrote) and leaves
// Studio as it is, reporting what Studio still holds. The pre-images stay in the
// journal either way. The caller holds the transaction lock.
func (j *Journal) Resolve(ctx context.Context, txID, action string, connect Connector) (*RecoverResult, error) {
	open, err := j.openRecords()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(open))
	for _, r := range open {
		ids = append(ids, r.TxID)
	}
	var target *record
	switch {
	case txID != "":
		for _, r := range open {
			if r.TxID == txID {
				target = r
			}
		}
		if target == nil {
			return nil, errcode.New(errcode.NotFound, "transaction %s is not open", txID).
				Reason(errcode.ReasonNoOpenTransaction, errcode.NextShowStatus).With("txIds", ids)
		}
	case action == "":
	case len(open) == 0:
		return nil, errcode.New(errcode.NotFound, "no transaction is open").
			Reason(errcode.ReasonNoOpenTransaction, errcode.NextShowStatus).With("txIds", ids)
	case len(open) > 1:
		return nil, errcode.New(errcode.BadRequest, "%d transactions are open: name one", len(open)).
			Reason(errcode.ReasonSeveralTransactions, errcode.NextPassTx, errcode.NextShowStatus).With("txIds", ids)
	default:
		target = open[0]
	}
	out := &RecoverResult{}
	if action != "" {
		res, err := target.resolve(ctx, action, connect)
		if err != nil {
			return nil, err
		}
		out.Resolved = res
		if open, err = j.openRecords(); err != nil {
			return nil, err
		}
	}
	out.Transactions = []OpenTransaction{}
	for _, r := range open {
		if txID == "" || r.TxID == txID {
			out.Transactions = append(out.Transactions, r.describe(ctx, connect))
		}
	}
	return out, nil
}

// openRecords reads the open transactions whole, oldest first.
func (j *Journal) openRecords() ([]*record, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, r := range recs {
		if r.open() && r.load() == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func (r *record) resolve(ctx context.Context, action string, connect Connector) (*Resolved, error) {
	res := &Resolved{TxID: r.TxID, Action: action, Files: []FileChange{}, Studio: []PathSide{}}
	switch action {
	case ActionFinish:
		if r.State != stateCommitting {
			if err := r.MarkCommitting(); err != nil {
				return nil, err
			}
		}
		files, warnings, err := r.Commit()
		if err != nil {
			return nil, err
		}
		res.Files, res.Warnings = files, warnings
	case ActionAbort:
		if r.State == stateCommitting {
			files, err := r.restoreDisk()
			if err != nil {
				return nil, r.commitFailed(err)
			}
			res.Files = files
		}
		r.Abort()
		for _, f := range res.Files {
			if f.Action == "kept" {
				res.Warnings = append(res.Warnings, f.Path+" changed after the transaction wrote it and was left as it is")
			}
		}
		res.Studio = r.unknownSides()
		if conn := connect(r.Place, r.SessionID); conn != nil && conn.Prober != nil {
			if _, sides, err := r.studioSide(ctx, conn.Prober); err == nil {
				res.Studio = sides
			}
		}
	default:
		return nil, errcode.New(errcode.BadRequest, "action %q is not finish or abort", action).
			Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	res.State = r.State
	byPath(res.Studio, func(s PathSide) string { return s.Path })
	byPath(res.Files, func(f FileChange) string { return f.Path })
	return res, nil
}

// describe shows an open transaction: its files and Studio paths, and where each
// side stands.
func (r *record) describe(ctx context.Context, connect Connector) OpenTransaction {
	o := OpenTransaction{Pending: r.pending(), SessionID: r.SessionID, Studio: SideUnknown, Instances: r.unknownSides(), Files: []FileSide{}}
	if conn := connect(r.Place, r.SessionID); conn != nil && conn.Prober != nil {
		if side, sides, err := r.studioSide(ctx, conn.Prober); err == nil {
			o.Studio, o.Instances = side, sides
		}
	}
	for _, f := range r.Files {
		fs := FileSide{Path: f.Path, Change: "write", Side: SideOther}
		switch {
		case f.Dir && f.Delete:
			fs.Change = "rmdir"
		case f.Dir:
			fs.Change = "mkdir"
		case f.Delete:
			fs.Change = "delete"
		case f.Expect == "":
			fs.Change = "create"
		}
		if f.Dir {
			fs.Side = SideUnknown
			o.Files = append(o.Files, fs)
			continue
		}
		if cur, err := fileHash(r.abs(f.Path)); err == nil {
			switch cur {
			case f.Expect:
				fs.Side = SideBefore
			case f.NewHash:
				fs.Side = SideAfter
			}
		}
		o.Files = append(o.Files, fs)
	}
	byPath(o.Instances, func(s PathSide) string { return s.Path })
	byPath(o.Files, func(s FileSide) string { return s.Path })
	return o
}

// byPath sorts what a transaction shows by path, in place (stable: the steps on
// one path keep their order).
func byPath[T any](xs []T, path func(T) string) {
	slices.SortStableFunc(xs, func(a, b T) int { return strings.Compare(path(a), path(b)) })
}
