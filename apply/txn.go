package apply

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
	"github.com/atlas-rbx/atlas/token"
)

// State is a fresh look at both sides, recomputed for the transaction.
type State struct {
	Plan    *plan.Plan
	Project *project.Project
	// FS is the project folder (FsPaths are paths in it); Dir is its absolute path.
	FS  fs.FS
	Dir string
	// Studio is the snapshot the plan was computed from (for parent handles).
	Studio *dom.Instance
	// FoldCase says the project's file system compares names ignoring case: two
	// pulled files whose paths differ only in case are one file there.
	FoldCase bool
	// ReadTexts, when set, gives the scripts of the changes the apply carries out
	// the texts their trees let go, checked against the plan's hashes; it runs
	// once the plan is known to be the token's, before anything is built.
	ReadTexts func(changes []*plan.Change) error
}

// Txn runs apply transactions for one project.
type Txn struct {
	Tokens    *token.Store
	Recompute func(ctx context.Context) (*State, error)
	Studio    Studio
	Journal   *Journal
	// SessionID is the Studio session the transaction writes to (the token's sid);
	// Place is its place, which recovery looks for if the session's answer is lost.
	SessionID string
	Place     Place
	// PreviousPlan returns the plan a token was issued for, if still known, so a
	// mismatch can say which changes moved.
	PreviousPlan func(hash string) *plan.Plan
	Now          func() time.Time
	// StudioTimeout bounds the wait for Studio's answer to the patch (0: 60 s).
	// Past it the transaction stays open until Studio says what it applied.
	StudioTimeout time.Duration
	// Log, when set, gets how long each step took (debug records).
	Log *slog.Logger
}

// Run carries out the transaction. Any refusal leaves both sides as they were.
func (t *Txn) Run(ctx context.Context, req Request) (*Result, error) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	claims, err := t.Tokens.Verify(req.Token, t.SessionID, now())
	if err != nil {
		return nil, err
	}
	if err := ValidateOverrides(req.Overrides); err != nil {
		return nil, err
	}
	started := time.Now()
	st, err := t.Recompute(ctx)
	if err != nil {
		return nil, err
	}
	recomputed := time.Now()
	if st.Plan.Hash != claims.PlanHash {
		return nil, t.mismatch(claims.PlanHash, st.Plan)
	}
	actions, skipped, err := decide(st.Plan, req)
	if err != nil {
		return nil, err
	}
	if st.ReadTexts != nil {
		changes := make([]*plan.Change, len(actions))
		for i, a := range actions {
			changes[i] = a.change
		}
		if err := st.ReadTexts(changes); err != nil {
			return nil, err
		}
	}
	w, err := build(st, actions)
	if err != nil {
		return nil, err
	}
	res := &Result{PlanHash: st.Plan.Hash, Skipped: skipped, StudioOps: len(w.ops), Applied: []Applied{}, Files: []FileChange{}}
	for _, a := range actions {
		res.Applied = append(res.Applied, Applied{ID: a.change.ID, Path: a.change.Path, PatchType: a.change.PatchType, Direction: a.dir, FsPath: a.change.FsPath})
	}
	if len(actions) == 0 {
		// Nothing to write: no transaction is journaled, so none is named (an id
		// that undo and the journal do not know would lead nowhere). The token is
		// spent all the same: it applied.
		if err := t.Tokens.Spend(claims); err != nil {
			return nil, err
		}
		return res, nil
	}
	res.TxID = newTxID()
	wait := t.StudioTimeout
	if wait <= 0 {
		wait = 60 * time.Second
	}
	// The ops go to a Studio that stages while the journal is written, each run of
	// them as soon as it is encoded; they are applied only once the journal is
	// durable.
	var staged <-chan error
	if len(w.ops) > 0 {
		runs := protocol.SplitOps(w.ops, StagePieceBytes)
		pieces := make(chan []byte, len(runs))
		staged = t.stage(ctx, res.TxID, w.ops, pieces, wait)
		encoded := make([][]byte, len(runs))
		for i, run := range runs {
			if encoded[i], err = protocol.EncodeOps(run); err != nil {
				close(pieces)
				return nil, errcode.Wrap(errcode.Internal, err, "encode ops")
			}
			pieces <- encoded[i]
		}
		close(pieces)
		w.opsJSON = protocol.JoinOps(encoded)
	}
	rec, err := t.Journal.Prepare(res.TxID, st, w, t.Place)
	if err != nil {
		return nil, err
	}
	if err := rec.Stage(); err != nil {
		rec.Abort()
		return nil, err
	}
	if err := rec.CheckDisk(); err != nil {
		rec.Abort()
		return nil, err
	}
	if err := rec.Preflight(); err != nil {
		rec.Abort()
		return nil, err
	}
	journaled := time.Now()
	stagedAt := journaled
	if len(w.ops) > 0 {
		isStaged := false
		if staged != nil {
			err := <-staged
			if errcode.Of(err) == errcode.StudioTimeout {
				// Studio did not take the ops in time; a stage writes nothing, and no
				// apply was sent: nothing happened, and waiting again would not help.
				rec.Abort()
				return nil, err
			}
			isStaged = err == nil
		}
		stagedAt = time.Now()
		if err := rec.MarkStudioSent(); err != nil {
			rec.Abort()
			return nil, err
		}
		// Once sent, the patch's outcome is the plugin's: the caller giving up must
		// not abandon a transaction Studio may apply.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
		err := t.apply(sctx, res.TxID, w, isStaged)
		cancel()
		if err != nil {
			switch errcode.Of(err) {
			case errcode.PreconditionFailed, errcode.NotFound, errcode.ApplyFailed, errcode.BadRequest, errcode.PayloadTooLarge:
				// A definite answer: the plugin applied nothing.
				rec.Abort()
				return nil, withEditorReason(withChanges(withLossReason(err, w.ops), w.ops, func(id string) string {
					if c := st.Plan.Find(id); c != nil {
						return c.Path
					}
					return ""
				}))
			}
			// Anything else (a lost connection, a timeout): the plugin may or may not
			// have applied, so the journal stays open and is finished or rolled back
			// by what Studio holds when a Studio with this place answers again.
			rec.wait(WaitStudio, "")
			ce := errcode.As(err)
			if ce.Code == errcode.Internal {
				ce.Code = errcode.StudioTimeout
			}
			return nil, ce.With("txId", res.TxID).With("pending", true).
				Reason(errcode.ReasonStudioLostDuringApply, errcode.NextResolveTransaction, errcode.NextShowStatus)
		}
	}
	sent := time.Now()
	if err := rec.MarkCommitting(); err != nil {
		// Studio holds the patch; the journal still says studio-sent, which
		// recovery finishes by what Studio holds.
		return nil, errcode.As(err).With("txId", res.TxID).With("pending", true)
	}
	files, warnings, err := rec.Commit()
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, warnings...)
	res.Files = files
	if t.Log != nil {
		t.Log.Debug("apply steps", "txId", res.TxID, "recomputeMs", recomputed.Sub(started).Milliseconds(),
			"journalMs", journaled.Sub(recomputed).Milliseconds(), "stagedMs", stagedAt.Sub(journaled).Milliseconds(),
			"studioMs", sent.Sub(stagedAt).Milliseconds(),
			"commitMs", time.Since(sent).Milliseconds(), "studioOps", len(w.ops), "files", len(files))
	}
	// Both sides are written. A token that cannot be recorded as spent is harmless:
	// the next plan differs, so the token no longer matches anything.
	_ = t.Tokens.Spend(claims)
	return res, nil
}

// StagePieceBytes is about how much of an apply's ops one piece of its staging
// carries: Studio decodes a piece while the host encodes the next, and no piece
// needs requestPart frames.
const StagePieceBytes = 1 << 20

// stage hands ops to a Studio that stages (Stager), in the background, as pieces
// come; the channel gives its outcome. nil: no staging (a Studio that cannot).
func (t *Txn) stage(ctx context.Context, txID string, ops []protocol.Op, pieces <-chan []byte, wait time.Duration) <-chan error {
	s, ok := t.Studio.(Stager)
	if !ok {
		return nil
	}
	done := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		err := s.Stage(sctx, txID, ops, pieces)
		if err != nil && t.Log != nil && !errors.Is(err, ErrCannotStage) {
			t.Log.Debug("stage", "txId", txID, "err", err)
		}
		done <- err
	}()
	return done
}

// apply sends the patch: by txId when it is staged, else whole (also when Studio
// says it holds no staged ops, having applied nothing).
func (t *Txn) apply(ctx context.Context, txID string, w *work, staged bool) error {
	if staged {
		err := t.Studio.(Stager).ApplyStaged(ctx, txID)
		if !errors.Is(err, ErrNotStaged) {
			return err
		}
	}
	return t.Studio.Apply(ctx, txID, w.ops, w.opsJSON)
}

func newTxID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// ValidateOverrides checks overrides' form: an id each, once, and a direction of
// push, pull or skip (E_BAD_REQUEST otherwise).
func ValidateOverrides(ovs []Override) error {
	seen := map[string]bool{}
	for i, o := range ovs {
		if o.ID == "" {
			return errcode.New(errcode.BadRequest, "override %d has no id", i).Reason(errcode.ReasonBadOverride, errcode.NextPassOverride)
		}
		switch o.Direction {
		case plan.Push, plan.Pull, plan.Skip:
		default:
			return errcode.New(errcode.BadRequest, "override %s: direction %q is not push, pull or skip", o.ID, o.Direction).
				Reason(errcode.ReasonBadOverride, errcode.NextPassOverride)
		}
		if seen[o.ID] {
			return errcode.New(errcode.BadRequest, "override %s is given twice", o.ID).Reason(errcode.ReasonBadOverride, errcode.NextPassOverride)
		}
		seen[o.ID] = true
	}
	return nil
}

// Moved is a change that appeared, vanished or changed between the plan a token
// was issued for and the plan of now (E_CONFIRM_TOKEN_MISMATCH's details).
type Moved struct {
	ID        string         `json:"id"`
	Path      string         `json:"path"`
	ClassName string         `json:"className"`
	PatchType plan.PatchType `json:"patchType"`
}

func movedOf(c *plan.Change) Moved {
	return Moved{ID: c.ID, Path: c.Path, ClassName: c.ClassName, PatchType: c.PatchType}
}

// mismatch explains a token whose plan is not the plan of now.
func (t *Txn) mismatch(tokenHash string, now *plan.Plan) error {
	e := errcode.New(errcode.ConfirmTokenMismatch, "the plan changed since the token was issued: something moved on disk or in Studio").
		Reason(errcode.ReasonPlanChanged, errcode.NextReplan)
	e.With("tokenPlanHash", tokenHash).With("currentPlanHash", now.Hash)
	var old *plan.Plan
	if t.PreviousPlan != nil {
		old = t.PreviousPlan(tokenHash)
	}
	if old == nil {
		return e.With("appeared", []Moved{}).With("vanished", []Moved{}).With("changed", []Moved{}).With("diffKnown", false)
	}
	appeared, vanished, changed := planDiff(old, now)
	if old.BaseCommit != now.BaseCommit {
		// The changes may all be the same: what moved is the base (a commit, a
		// checkout), which the plan binds.
		e.Message = fmt.Sprintf("the plan changed since the token was issued: the base commit moved from %s to %s", shortCommit(old.BaseCommit), shortCommit(now.BaseCommit))
		e.With("baseMoved", map[string]any{"from": nullIfEmpty(old.BaseCommit), "to": nullIfEmpty(now.BaseCommit)})
	}
	return e.With("appeared", appeared).With("vanished", vanished).With("changed", changed).With("diffKnown", true)
}

func shortCommit(c string) string {
	if c == "" {
		return "none"
	}
	return c[:min(12, len(c))]
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// planDiff lists the changes of now that old did not have, those of old that now
// does not have, and those both have that differ; each sorted by id. A vanished
// change is named as old had it, the others as now has them.
func planDiff(old, now *plan.Plan) (appeared, vanished, changed []Moved) {
	appeared, vanished, changed = []Moved{}, []Moved{}, []Moved{}
	oldBy := map[string]*plan.Change{}
	for _, c := range old.Changes {
		oldBy[c.ID] = c
	}
	for _, c := range now.Changes {
		o, ok := oldBy[c.ID]
		if !ok {
			appeared = append(appeared, movedOf(c))
			continue
		}
		delete(oldBy, c.ID)
		a, _ := json.Marshal(o)
		b, _ := json.Marshal(c)
		if string(a) != string(b) {
			changed = append(changed, movedOf(c))
		}
	}
	for _, c := range oldBy {
		vanished = append(vanished, movedOf(c))
	}
	sort.Slice(vanished, func(i, j int) bool { return vanished[i].ID < vanished[j].ID })
	return appeared, vanished, changed
}

// action is a change with the direction the transaction carries out.
type action struct {
	change *plan.Change
	dir    plan.Direction
}

// decide applies overrides (checking their preconditions) and refuses unresolved changes.
func decide(p *plan.Plan, req Request) ([]action, []string, error) {
	overrides := map[string]Override{}
	var unknown []string
	for _, o := range req.Overrides {
		if p.Find(o.ID) == nil {
			unknown = append(unknown, o.ID)
		}
		overrides[o.ID] = o
	}
	if len(unknown) > 0 {
		return nil, nil, errcode.New(errcode.OverrideUnknownID, "override names a change that is not in the plan: %s", strings.Join(unknown, ", ")).
			Reason(errcode.ReasonUnknownID, errcode.NextFixRequest, errcode.NextReplan).With("ids", unknown)
	}
	if bad := malformedExpectations(p, req.Overrides); len(bad) > 0 {
		return nil, nil, errcode.New(errcode.BadRequest, "%d expected propert(ies) of the overrides cannot be checked (details.invalid says why for each: not a value of the property, or a property the plan does not compare): fix the request (replanning does not help)", len(bad)).
			Reason(errcode.ReasonBadOverride, errcode.NextFixRequest).With("invalid", bad)
	}
	var failures []map[string]any
	for _, o := range req.Overrides {
		failures = append(failures, checkOverride(p.Find(o.ID), o)...)
	}
	if len(failures) > 0 {
		// Reading Studio's script again helps where a script's hash moved; a
		// property's value is in the next plan.
		next := []errcode.NextAction{errcode.NextReplan}
		if slices.ContainsFunc(failures, func(f map[string]any) bool { return f["field"] == "studioHash" }) {
			next = []errcode.NextAction{errcode.NextReadStudioScript, errcode.NextReplan}
		}
		return nil, nil, errcode.New(errcode.PreconditionFailed, "%d override precondition(s) do not hold: what you saw is not what is there", len(failures)).
			Reason(errcode.ReasonOverridePrecondition, next...).
			With("failures", failures)
	}
	var actions []action
	skipped := []string{}
	var unresolved []string
	for _, c := range p.Changes {
		dir := c.Direction
		if o, ok := overrides[c.ID]; ok {
			dir = o.Direction
		}
		switch dir {
		case plan.Skip:
			skipped = append(skipped, c.ID)
		case "":
			if req.SkipUnresolved {
				skipped = append(skipped, c.ID)
			} else {
				unresolved = append(unresolved, c.ID)
			}
		default:
			actions = append(actions, action{change: c, dir: dir})
		}
	}
	if len(unresolved) > 0 {
		return nil, nil, unresolvedError(p, unresolved)
	}
	return actions, skipped, nil
}

// malformedExpectations lists the overrides' expected properties that are no value of
// their property (an unknown property, a value of another type): a malformed request,
// not a precondition that does not hold.
func malformedExpectations(p *plan.Plan, overrides []Override) []map[string]any {
	var out []map[string]any
	for _, o := range overrides {
		c := p.Find(o.ID)
		names := make([]string, 0, len(o.ExpectedProperties))
		for k := range o.ExpectedProperties {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			if why := notCompared(c, name); why != "" {
				out = append(out, map[string]any{"id": c.ID, "property": name, "error": why})
				continue
			}
			raw := o.ExpectedProperties[name]
			if isNull(raw) {
				continue // no value: the property is expected absent
			}
			v, err := dom.ResolveValue(c.ClassName, name, raw)
			if err != nil {
				out = append(out, map[string]any{"id": c.ID, "property": name, "error": err.Error()})
				continue
			}
			// A value of another type than Studio's could never match: a
			// malformed request, which a new plan would not mend.
			if actual := studioValue(c.Studio, name); actual != nil && actual.Type() != v.Type() {
				out = append(out, map[string]any{"id": c.ID, "property": name,
					"error": fmt.Sprintf("the value is a %s; Studio holds %s as a %s", v.Type(), name, actual.Type())})
			}
		}
	}
	return out
}

// notCompared says why an expected property cannot be checked against what the plan
// read from Studio, or "" when it can: Name and ClassName, and the properties the
// plan compares (the ones Studio's snapshot sent for the instance, or the project
// sets on it). Studio's value of another property is not known; a Source is
// checked by its hash (studioHash).
func notCompared(c *plan.Change, name string) string {
	switch {
	case name == "Source":
		return "a Source is checked by its hash: pass studioHash (get_script gives it) instead"
	case name == "Name" || name == "ClassName" || c.Studio == nil:
		return ""
	}
	for _, x := range []*dom.Instance{c.Studio, c.Disk, c.Base} {
		if x != nil {
			if _, ok := x.Properties.Lookup(name); ok {
				return ""
			}
		}
	}
	return "the plan does not compare " + name + " (the project does not set it on this instance), so Studio's value is not known to check it against; expect only Name, ClassName and the properties the plan shows or the project sets"
}

// studioValue is Studio's value of name in the plan, nil where it has none.
func studioValue(s *dom.Instance, name string) dom.Value {
	switch {
	case s == nil:
		return nil
	case name == "Name":
		return dom.String(s.Name)
	case name == "ClassName":
		return dom.String(s.ClassName)
	}
	return s.Properties.Get(name)
}

func checkOverride(c *plan.Change, o Override) []map[string]any {
	var out []map[string]any
	fail := func(field, expected, actual string) {
		// A hash that does not apply (no script on that side) is null, never "".
		var got any = actual
		if actual == "" {
			got = nil
		}
		out = append(out, map[string]any{"id": c.ID, "field": field, "expected": expected, "actual": got})
	}
	// A hash is hex: its digits in upper case name the same blob.
	if o.StudioHash != nil && !strings.EqualFold(*o.StudioHash, c.StudioHash) {
		fail("studioHash", *o.StudioHash, c.StudioHash)
	}
	if o.DiskHash != nil && !strings.EqualFold(*o.DiskHash, c.DiskHash) {
		fail("diskHash", *o.DiskHash, c.DiskHash)
	}
	names := make([]string, 0, len(o.ExpectedProperties))
	for k := range o.ExpectedProperties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		raw := o.ExpectedProperties[name]
		actual := studioValue(c.Studio, name)
		var want dom.Value
		if !isNull(raw) {
			var err error
			if want, err = dom.ResolveValue(c.ClassName, name, raw); err != nil {
				continue // (malformedExpectations refused it before)
			}
		}
		if !dom.Equal(want, actual) {
			expected := "null" // (expected absent: the JSON text of no value)
			if want != nil {
				expected = string(dom.MustMarshal(want))
			}
			fail("properties."+name, expected, marshalOrNull(actual))
		}
	}
	return out
}

// isNull reports whether raw is JSON null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// marshalOrNull is v's tagged JSON, or "" (null in a failure) for no value.
func marshalOrNull(v dom.Value) string {
	if v == nil {
		return ""
	}
	return string(dom.MustMarshal(v))
}

// withChanges names the change of each op the plugin's failures point at (by
// index: details.failures[].op, or details.op): its id and its path (pathOf the
// id), which a caller can act on, where the plugin knows only its own handles.
func withChanges(err error, ops []protocol.Op, pathOf func(id string) string) error {
	ce := errcode.As(err)
	name := func(m map[string]any) {
		f, ok := m["op"].(float64)
		if !ok || f < 0 || int(f) >= len(ops) || float64(int(f)) != f {
			return
		}
		id := ops[int(f)].ChangeID
		if id == "" {
			return
		}
		m["id"] = id
		if path := pathOf(id); path != "" {
			m["path"] = path
		}
	}
	if list, ok := ce.Details["failures"].([]any); ok {
		for _, f := range list {
			if m, ok := f.(map[string]any); ok {
				name(m)
			}
		}
	}
	if _, ok := ce.Details["op"]; ok {
		name(ce.Details)
	}
	return ce
}

// withLossReason gives a patch's refusal its reason when every failure guards
// something a remove would take that no plan showed (losesWhat): the error then
// says what to do about it, which planning again alone may not fix.
func withLossReason(err error, ops []protocol.Op) error {
	ce := errcode.As(err)
	list, _ := ce.Details["failures"].([]any)
	if ce.Code != errcode.PreconditionFailed || len(list) == 0 {
		return err
	}
	var lost errcode.Reason
	for _, f := range list {
		m, _ := f.(map[string]any)
		r := losesWhat(m, ops)
		if r == "" || (lost != "" && r != lost) {
			return err // a change that moved, or both kinds: the plugin's own reason
		}
		lost = r
	}
	if lost == errcode.ReasonRemoveLosesChildren {
		ce.Message = "Studio holds instances no plan showed inside what the apply would remove; nothing was applied: move them out in Studio (or plan again, if they were added since the plan), or skip the change"
		ce.Reason(lost, errcode.NextPassOverride, errcode.NextReplan)
	} else {
		ce.Message = "the instance a class change replaces in Studio has attributes or tags no plan compared, which the new instance would not have; nothing was applied: remove them in Studio, or skip the change"
		ce.Reason(lost, errcode.NextPassOverride)
	}
	return ce
}

// withEditorReason gives a patch's refusal its reason when a failure is a script's
// Script Editor text (failures[].editor): unsaved text in an open editor, or a
// collaborative draft, that differs from the saved Source the plan compared. The
// write would lose it, and planning again gives the same plan (a plan compares saved
// Sources), so the error says to save it in Studio, or to leave the change out.
func withEditorReason(err error) error {
	ce := errcode.As(err)
	names, ids := editorFailures(ce)
	if len(names) == 0 {
		return err
	}
	others := 0
	for _, f := range failureList(ce) {
		if m, _ := f.(map[string]any); m["editor"] != true {
			others++
		}
	}
	if others > 0 {
		// Other failures too (something moved, a remove that would take what no plan
		// showed): their reason stands, and saving the scripts is one more step.
		ce.Message = fmt.Sprintf("%s; and the Script Editor holds unsaved text (or a draft) in %s, which the write or removal would lose: save or close it in Studio too",
			ce.Message, strings.Join(names, ", "))
		if next := ce.NextActions(); !slices.Contains(next, errcode.NextSaveInStudio) {
			ce.Reason(ce.ReasonCode(), append(next, errcode.NextSaveInStudio)...)
		}
		return ce
	}
	ce.Message = fmt.Sprintf("%s: the text in Studio's Script Editor (unsaved, or a collaborative draft) differs from the saved Source the plan compared, and the write or removal would lose it; nothing was applied: save or close it in Studio (or commit the draft), then plan again, or skip the change (%s)",
		strings.Join(names, ", "), strings.Join(ids, ", "))
	ce.Reason(errcode.ReasonStudioUnsavedEdit, errcode.NextSaveInStudio, errcode.NextPassOverride).With("ids", ids)
	return ce
}

// failureList is a refusal's details.failures.
func failureList(ce *errcode.Error) []any {
	list, _ := ce.Details["failures"].([]any)
	return list
}

// editorFailures returns the names (the change's path, and the script's under it for
// a remove; a handle where no path is known) and change ids of a precondition
// refusal's failures that are a script's Script Editor text (failures[].editor).
func editorFailures(ce *errcode.Error) (names, ids []string) {
	if ce.Code != errcode.PreconditionFailed {
		return nil, nil
	}
	for _, f := range failureList(ce) {
		m, _ := f.(map[string]any)
		if m["editor"] != true {
			continue
		}
		name, _ := m["path"].(string)
		if name == "" {
			name = fmt.Sprint(m["handle"])
		}
		if d, ok := m["descendant"].(string); ok && d != "" {
			// a script inside an instance the change removes
			name += "/" + d
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		if id, ok := m["id"].(string); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return names, ids
}

// losesWhat tells whether a failure the plugin reported guards something a remove
// would take that no plan showed: descendants the snapshot did not send (field
// Descendants), or a replaced instance's attributes or tags where the plan compared
// none (an empty expectation, see classChangeExpect). "" for anything else (the
// attributes or tags the plan compared, changed since, are a move: plan again).
func losesWhat(f map[string]any, ops []protocol.Op) errcode.Reason {
	i, ok := f["op"].(float64)
	if !ok || i < 0 || int(i) >= len(ops) || ops[int(i)].Op != protocol.OpRemove {
		return ""
	}
	switch f["field"] {
	case "Descendants":
		return errcode.ReasonRemoveLosesChildren
	case "Attributes", "Tags":
		if emptyTagged(f["expected"]) {
			return errcode.ReasonClassChangeLosesState
		}
	}
	return ""
}

// emptyTagged reports whether v is a tagged value with nothing in it: {"Attributes":
// {}} or {"Tags": []}.
func emptyTagged(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	for _, payload := range m {
		switch p := payload.(type) {
		case map[string]any:
			return len(p) == 0
		case []any:
			return len(p) == 0
		}
	}
	return false
}

// work is everything a transaction will write.
type work struct {
	ops   []protocol.Op
	files []project.FileOp
	// fileOf is, by index of files, the change (id and path) each file is written
	// for, where known (the journal's record of the transaction names it).
	fileOf []TxChange
	// sourceHashes are the git blob ids of the Sources that edit and add ops write,
	// by op index, hashed where the text is at hand (checksOf needs them).
	sourceHashes map[int]string
	// opsJSON is ops encoded once (protocol.EncodeOps), for the journal and the wire.
	opsJSON []byte
}

// writesSource notes that the next op writes the Source of d, a disk script, whose
// text is src: its blob id is d's SourceHash, what the plan compared (hashed here
// only when d has none).
func (w *work) writesSource(d *dom.Instance, src string) {
	if w.sourceHashes == nil {
		w.sourceHashes = map[int]string{}
	}
	h := d.SourceHash
	if h == "" {
		h = gitblob.HashString(src)
	}
	w.sourceHashes[len(w.ops)] = h
}

// build turns actions into Studio ops and file writes.
func build(st *State, actions []action) (*work, error) {
	w := &work{}
	// The trees by id, indexed on first use: pushes of edits and removes need neither.
	diskIdx := sync.OnceValue(st.Project.Root.Index)
	studioIdx := sync.OnceValue(func() map[string]*dom.Instance {
		if st.Studio == nil {
			return map[string]*dom.Instance{}
		}
		return st.Studio.Index()
	})
	pulls := newPullSet(st)
	for _, a := range actions {
		c := a.change
		var err error
		if a.dir == plan.Push {
			err = w.push(c, studioIdx)
		} else {
			if err := unambiguous(st, c, diskIdx(), studioIdx()); err != nil {
				return nil, err
			}
			err = pulls.add(w, c, diskIdx())
		}
		if err != nil {
			var r *project.Refusal
			if errors.As(err, &r) {
				return nil, errcode.New(errcode.Unresolved, "change %s (%s) cannot be pulled: %s", c.ID, c.Path, r.Msg).
					Reason(errcode.Reason(r.Reason), errcode.NextPassOverride).With("ids", []string{c.ID})
			}
			return nil, err
		}
	}
	return w, nil
}

func (w *work) push(c *plan.Change, studioIdx func() map[string]*dom.Instance) error {
	switch c.PatchType {
	case plan.Add:
		parent := studioIdx()[c.Disk.Parent.ID]
		if parent == nil {
			return errcode.New(errcode.Internal, "no Studio parent for %s", c.Path)
		}
		inst, err := newInstance(c.Disk)
		if err != nil {
			return errcode.Wrap(errcode.Internal, err, "encode "+c.Path)
		}
		if src, ok := c.Disk.Source(); ok {
			w.writesSource(c.Disk, src)
		}
		w.ops = append(w.ops, protocol.Op{Op: protocol.OpAdd, Parent: parent.Handle, Instance: inst, ChangeID: c.ID})
	case plan.Remove:
		if p := c.Studio.Parent; p != nil && p.Parent == nil && reflection.IsService(c.Studio.ClassName) {
			// Studio locks a service's Parent: it cannot be deleted, only emptied.
			return errcode.New(errcode.Unresolved, "%s is a service, which Studio cannot delete (its Parent is locked); skip the change, or declare the service in the project file again", c.Path).
				Reason(errcode.ReasonServiceNotRemovable, errcode.NextSkipUnresolved).With("ids", []string{c.ID})
		}
		expect, err := expectOf(c.Studio, nil)
		if err != nil {
			return err
		}
		w.ops = append(w.ops, protocol.Op{Op: protocol.OpRemove, Handle: c.Studio.Handle, Expect: expect, ChangeID: c.ID})
	case plan.Edit:
		if c.Disk.ClassName != c.Studio.ClassName {
			// Replacing the instance would destroy Studio children the project does
			// not know; refuse rather than lose them.
			onDisk := map[string]bool{}
			for _, dc := range c.Disk.Children {
				onDisk[dc.ID] = true
			}
			for _, sc := range c.Studio.Children {
				if !onDisk[sc.ID] {
					return errcode.New(errcode.Unresolved, "pushing %s's class change would delete %s, which only Studio has", c.Path, sc.Path()).
						Reason(errcode.ReasonClassChangeLosesChildren, errcode.NextPassOverride).With("ids", []string{c.ID})
				}
			}
			expect, err := classChangeExpect(c.Studio)
			if err != nil {
				return err
			}
			inst, err := newInstance(c.Disk)
			if err != nil {
				return errcode.Wrap(errcode.Internal, err, "encode "+c.Path)
			}
			w.ops = append(w.ops, protocol.Op{Op: protocol.OpRemove, Handle: c.Studio.Handle, Expect: expect, ChangeID: c.ID})
			if src, ok := c.Disk.Source(); ok {
				w.writesSource(c.Disk, src)
			}
			w.ops = append(w.ops, protocol.Op{Op: protocol.OpAdd, Parent: c.Studio.Parent.Handle, Instance: inst, ChangeID: c.ID})
			return nil
		}
		set := dom.Properties{}
		var props []string
		for _, f := range c.Fields {
			switch f {
			case "Source":
				if err := sourceLoaded(c.Disk); err != nil {
					return err
				}
				if src, ok := c.Disk.Source(); ok {
					set["Source"] = dom.String(src)
					w.writesSource(c.Disk, src)
				}
			default:
				props = append(props, f)
				if v, ok := c.Disk.Properties.Lookup(f); ok {
					set[f] = v
				}
			}
		}
		values, err := encode(set)
		if err != nil {
			return errcode.Wrap(errcode.Internal, err, "encode "+c.Path)
		}
		expect, err := expectOf(c.Studio, props)
		if err != nil {
			return err
		}
		w.ops = append(w.ops, protocol.Op{Op: protocol.OpEdit, Handle: c.Studio.Handle, Expect: expect, Set: values, ChangeID: c.ID})
	}
	return nil
}

// classChangeExpect is the precondition of replacing s for a class change: its Source
// hash, and the attributes and tags the plan compared, or none where it compared none.
// Studio makes a new instance, which takes neither along: attributes or tags the
// project does not manage would be dropped without any plan showing them, so Studio
// refuses instead.
func classChangeExpect(s *dom.Instance) (*protocol.Expect, error) {
	e, err := expectOf(s, nil)
	if err != nil {
		return nil, err
	}
	e.Properties = protocol.Values{}
	for _, p := range []string{"Attributes", "Tags"} {
		v, ok := s.Properties.Lookup(p)
		if !ok {
			v = map[string]dom.Value{"Attributes": dom.Attributes{}, "Tags": dom.Tags{}}[p]
		}
		b, err := dom.Marshal(v)
		if err != nil {
			return nil, errcode.Wrap(errcode.Internal, err, "encode "+s.Path()+"."+p)
		}
		e.Properties[p] = b
	}
	return e, nil
}

// expectOf is the precondition of overwriting s: its Source hash and the given properties.
func expectOf(s *dom.Instance, props []string) (*protocol.Expect, error) {
	e := &protocol.Expect{}
	if s.IsScript() {
		e.SourceSha1 = s.SourceHash
	}
	for _, p := range props {
		if v, ok := s.Properties.Lookup(p); ok {
			b, err := dom.Marshal(v)
			if err != nil {
				return nil, errcode.Wrap(errcode.Internal, err, "encode "+s.Path()+"."+p)
			}
			if e.Properties == nil {
				e.Properties = protocol.Values{}
			}
			e.Properties[p] = b
		}
	}
	return e, nil
}

// pullSet writes the pulls of one transaction: the files each writes, read from
// the project folder as the pulls before it in the transaction leave it, so that
// two pulls that edit one file (the $properties of two nodes of a project file) write
// it once, with both edits. A file that one pull creates or deletes is no other's
// (claim).
type pullSet struct {
	st *State
	// fsys is the project folder with the edits made so far (edited, by path).
	fsys   fs.FS
	edited map[string][]byte
	// at is the index in the work's files of the write of each file, and owner the
	// change that wrote it, by the name the file system compares.
	at    map[string]int
	owner map[string]*plan.Change
}

func newPullSet(st *State) *pullSet {
	p := &pullSet{st: st, edited: map[string][]byte{}, at: map[string]int{}, owner: map[string]*plan.Change{}}
	p.fsys = editedFS{FS: st.FS, edited: p.edited}
	return p
}

// add writes c's pull into w: its file ops, an edit of a file an earlier pull edited
// merged into that one's write.
func (p *pullSet) add(w *work, c *plan.Change, diskIdx map[string]*dom.Instance) error {
	st := p.st
	var ops []project.FileOp
	var err error
	switch c.PatchType {
	case plan.Edit:
		ops, err = project.PullEdit(st.Project, p.fsys, c.Disk, c.Studio, c.Fields)
	case plan.Add: // on disk, not in Studio: pulling removes it from disk
		ops, err = project.PullRemove(st.Project, p.fsys, c.Disk)
	case plan.Remove: // in Studio, not on disk: pulling creates it on disk
		diskParent := diskIdx[c.Studio.Parent.ID]
		if diskParent == nil {
			return &project.Refusal{Path: c.Path, Reason: "parent_not_on_disk", Msg: "its parent is not on disk"}
		}
		ops, err = project.PullAdd(st.Project, p.fsys, diskParent, c.Studio)
	}
	if err != nil {
		return err
	}
	if err := sawWhatThePlanSaw(st, c, ops); err != nil {
		return err
	}
	return p.claim(w, c, ops)
}

// claim adds c's file ops to w: an edit of a file an earlier pull edited is merged
// into that one's write; any other write of a file another change writes or deletes
// is refused (duplicate_name, naming the other), and then nothing is added.
func (p *pullSet) claim(w *work, c *plan.Change, ops []project.FileOp) error {
	keyOf := func(op project.FileOp) string {
		if p.st.FoldCase {
			return strings.ToLower(op.Path)
		}
		return op.Path
	}
	// Checked first, so that a refused pull leaves the set as it was.
	for _, op := range ops {
		key := keyOf(op)
		if i, seen := p.at[key]; seen && !op.Dir && !(isEdit(op) && isEdit(w.files[i])) && p.owner[key] != c {
			other := p.owner[key]
			return duplicateError(c, []plan.Sibling{{ID: other.ID, Path: other.Path, FsPath: op.Path}})
		}
	}
	for _, op := range ops {
		key := keyOf(op)
		i, seen := p.at[key]
		switch {
		case op.Dir:
		case seen && isEdit(op) && isEdit(w.files[i]):
			// The second edit of a file, made on the first one's result: one write,
			// guarded by the file's bytes before either.
			op.Expect = w.files[i].Expect
			w.files[i] = op
			p.edited[op.Path] = op.Data
			continue
		default:
			p.at[key], p.owner[key] = len(w.files), c
			if isEdit(op) {
				p.edited[op.Path] = op.Data
			}
		}
		w.files = append(w.files, op)
		for len(w.fileOf) < len(w.files)-1 {
			w.fileOf = append(w.fileOf, TxChange{})
		}
		w.fileOf = append(w.fileOf, TxChange{ID: c.ID, Path: c.Path})
	}
	return nil
}

// isEdit reports whether op rewrites a file that exists.
func isEdit(op project.FileOp) bool { return !op.Dir && !op.Delete && op.Expect != "" }

// editedFS is a project folder with some files' bytes replaced by the writes of
// the pulls before (by path); everything else is the folder's.
type editedFS struct {
	fs.FS
	edited map[string][]byte
}

func (e editedFS) ReadFile(name string) ([]byte, error) {
	if b, ok := e.edited[name]; ok {
		return slices.Clone(b), nil
	}
	return fs.ReadFile(e.FS, name)
}

// sawWhatThePlanSaw refuses a pulled change whose script file was read, to be
// written, with other bytes than the plan saw: a save that landed between the
// plan's recompute and that read would otherwise become the file's expected
// bytes, and the commit would replace it. (The writeback reads the live folder;
// the plan, the disk as it loaded it.)
func sawWhatThePlanSaw(st *State, c *plan.Change, ops []project.FileOp) error {
	if c.Disk == nil || !c.Disk.IsScript() || c.FsPath == "" {
		return nil
	}
	for _, op := range ops {
		if op.Path != c.FsPath || op.Expect == "" || op.Dir {
			continue
		}
		want := c.Disk.RawHash
		if want == "" {
			want = c.Disk.SourceHash
		}
		if op.Expect == want {
			continue
		}
		if c.Disk.RawHash == "" && st.FS != nil {
			// The Source hash is the file's unless the file has CRLF line endings.
			if b, err := fs.ReadFile(st.FS, op.Path); err == nil && gitblob.Hash(b) == op.Expect &&
				gitblob.HashString(project.NormalizeSource(string(b))) == c.Disk.SourceHash {
				continue
			}
		}
		return errcode.New(errcode.PreconditionFailed, "%s changed on disk after the plan was recomputed", op.Path).
			Reason(errcode.ReasonDiskMoved, errcode.NextReplan).
			With("failures", []map[string]any{{"path": op.Path, "field": "diskHash", "expected": want, "actual": op.Expect}})
	}
	return nil
}
