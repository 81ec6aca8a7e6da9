package syncflow

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
	"github.com/atlas-rbx/atlas/token"
)

// Engine is what the one-step sync calls: the plan and apply of host.Engine.
type Engine interface {
	Plan(ctx context.Context, req host.PlanRequest) (*host.PlanData, error)
	Apply(ctx context.Context, req host.ApplyRequest) (*host.ApplyData, error)
}

// Mode says when the sync applies by itself and when it asks a person.
type Mode string

// The modes. Standard, Manual, Fastfail and Dryrun are atlas_sync's (seed 000);
// Direct is `atlas sync --yes`.
const (
	// Standard applies when every change has a direction and every override's
	// precondition holds, and otherwise asks the person.
	Standard Mode = "standard"
	// Manual always asks the person first.
	Manual Mode = "manual"
	// Fastfail applies only when every change has a direction and every override's
	// precondition holds, and otherwise refuses with E_UNRESOLVED, writing nothing.
	Fastfail Mode = "fastfail"
	// Dryrun plans and stops.
	Dryrun Mode = "dryrun"
	// Direct applies what the plan and the overrides say without asking anyone; the
	// apply engine refuses, with its own error, what has no direction (unless
	// SkipUnresolved).
	Direct Mode = "direct"
)

// Status is how a one-step sync ended.
type Status string

// The statuses.
const (
	StatusSuccess    Status = "success"
	StatusEmpty      Status = "empty"
	StatusDryrun     Status = "dryrun"
	StatusUnresolved Status = "fastfail_unresolved"
	StatusRejected   Status = "rejected"
	StatusError      Status = "error"
)

// Question is what the person is asked to decide.
type Question struct {
	Mode Mode
	Plan *host.PlanData
	// Unresolved are the ids of the changes that neither the plan nor an override
	// gives a direction, and of those whose override's precondition failed: the
	// person is shown them undecided.
	Unresolved []string
	// Overrides are the directions given for changes so far (with Prefer's),
	// without those whose precondition failed.
	Overrides []apply.Override
}

// Reviewer asks a person. It answers the person's decision: "accept" (with
// selections, a direction per change they chose) or anything else to stop with
// nothing applied. An error stops the sync with that error.
type Reviewer func(ctx context.Context, q Question) (*host.ReviewData, error)

// Request is one one-step sync.
type Request struct {
	Mode Mode // "" is Standard
	// Plan is the plan to ask for. Its TTL, when 0, is the longest a token may live
	// in the modes that ask a person, who may take a while.
	Plan      host.PlanRequest
	Overrides []apply.Override
	// Prefer, push or pull, gives every change left without a direction (and
	// without an override) that direction: the person asked for it.
	Prefer plan.Direction
	// SkipUnresolved lets Direct leave changes without a direction as they are.
	SkipUnresolved bool
	// Review asks the person; Standard and Manual need one.
	Review Reviewer
}

// Failure is an override precondition that does not hold against the fresh plan.
type Failure struct {
	ID       string  `json:"id" jsonschema:"the change id"`
	Field    string  `json:"field" jsonschema:"studioHash, diskHash or properties.NAME"`
	Expected string  `json:"expected" jsonschema:"what the override expected"`
	Actual   *string `json:"actual" jsonschema:"what is there now; null where there is nothing"`
}

// Result is what a one-step sync did; atlas_sync's data is this.
type Result struct {
	Status Status         `json:"status" jsonschema:"success, empty, dryrun, fastfail_unresolved, rejected or error"`
	Mode   Mode           `json:"mode" jsonschema:"the mode that ran"`
	Plan   *host.PlanData `json:"plan,omitempty" jsonschema:"the plan, with every change"`
	// Applied is set with StatusSuccess only.
	Applied *host.ApplyData `json:"applied,omitempty" jsonschema:"what was applied (status success)"`
	// Review is set once the person answered.
	Review *host.ReviewData `json:"review,omitempty" jsonschema:"the person's decision in Studio's review panel (standard, manual)"`
	// Unresolved and Failures are never nil.
	Unresolved []string  `json:"unresolved" jsonschema:"ids of the changes left without a direction"`
	Failures   []Failure `json:"failures" jsonschema:"override preconditions that do not hold; their changes count as unresolved"`
}

// asksPerson reports whether a mode may wait for a person.
func (m Mode) asksPerson() bool { return m == Standard || m == Manual }

// Run runs a one-step sync. It returns the result whatever happened; the error is
// why it stopped (Status is then StatusError, or StatusUnresolved in Fastfail).
// Nothing is applied unless Status is StatusSuccess.
func Run(ctx context.Context, eng Engine, req Request) (*Result, error) {
	mode := req.Mode
	if mode == "" {
		mode = Standard
	}
	out := &Result{Mode: mode, Unresolved: []string{}, Failures: []Failure{}}
	fail := func(err error) (*Result, error) {
		out.Status = StatusError
		return out, err
	}
	preq := req.Plan
	if preq.TTL == 0 && mode.asksPerson() {
		preq.TTL = token.MaxTTL
	}
	p, err := eng.Plan(ctx, preq)
	if err != nil {
		return fail(err)
	}
	out.Plan = p
	// An override of a change the plan does not hold is refused in every mode, as
	// apply refuses it: the caller's plan is not this one.
	if unknown := unknownIDs(p, req.Overrides); len(unknown) > 0 {
		return fail(errcode.New(errcode.OverrideUnknownID, "override names a change that is not in the plan: %s", strings.Join(unknown, ", ")).
			Reason(errcode.ReasonUnknownID, errcode.NextFixRequest, errcode.NextReplan).With("ids", unknown))
	}
	if len(p.Changes) == 0 {
		out.Status = StatusEmpty
		return out, nil
	}
	if mode == Dryrun {
		out.Status = StatusDryrun
		return out, nil
	}
	overrides := Prefer(p, req.Overrides, req.Prefer)
	applyWith := func(tok string, ovs []apply.Override, skip bool) (*Result, error) {
		a, err := eng.Apply(ctx, host.ApplyRequest{SessionID: req.Plan.SessionID, Token: tok, Overrides: ovs, SkipUnresolved: skip})
		if err != nil {
			return fail(err)
		}
		out.Applied, out.Status, out.Unresolved = a, StatusSuccess, []string{}
		return out, nil
	}
	if mode == Direct {
		return applyWith(p.ConfirmToken, overrides, req.SkipUnresolved)
	}
	out.Unresolved = Unresolved(p, overrides)

	switch mode {
	case Fastfail, Standard:
		// Apply does what these modes ask when every change resolves and every
		// override's precondition holds, and otherwise refuses, writing nothing, with
		// the reason: the engine that checks preconditions for sync_apply checks them
		// here. With changes left unresolved it can only refuse, so it is asked only
		// when there are preconditions to check.
		if len(out.Unresolved) == 0 || hasPreconditions(overrides) {
			a, err := eng.Apply(ctx, host.ApplyRequest{SessionID: req.Plan.SessionID, Token: p.ConfirmToken, Overrides: overrides})
			if err == nil {
				out.Applied, out.Status, out.Unresolved = a, StatusSuccess, []string{}
				return out, nil
			}
			switch ce := errcode.As(err); {
			case ce.Code == errcode.PreconditionFailed && ce.ReasonCode() == errcode.ReasonOverridePrecondition:
				// The caller's overrides saw something else: those changes are
				// unresolved (the person decides them, or fastfail says so).
				out.Failures = failuresOf(err)
			case ce.Code == errcode.PreconditionFailed:
				// Studio's own refusal (unsaved editor text, something moved, a
				// remove that would take what no plan showed): no override of the
				// caller's failed, and reviewing the same plan would not help.
				return fail(err)
			case ce.Code == errcode.Unresolved:
				// (a change the apply cannot carry out in the direction given, too)
				for _, id := range idsOf(err) {
					if !slices.Contains(out.Unresolved, id) {
						out.Unresolved = append(out.Unresolved, id)
					}
				}
			default:
				return fail(err)
			}
		}
	case Manual:
		// The review comes first; hashes the plan shows are checked now, so that the
		// person sees those changes unresolved.
		out.Failures = hashFailures(p, overrides)
	default:
		return fail(errcode.New(errcode.BadRequest, "unknown sync mode %q", mode).Reason(errcode.ReasonBadRequest, errcode.NextFixRequest))
	}
	for _, f := range out.Failures {
		if !slices.Contains(out.Unresolved, f.ID) {
			out.Unresolved = append(out.Unresolved, f.ID)
		}
	}
	slices.Sort(out.Unresolved)
	overrides = slices.DeleteFunc(overrides, func(o apply.Override) bool {
		return slices.ContainsFunc(out.Failures, func(f Failure) bool { return f.ID == o.ID })
	})

	if mode == Fastfail {
		out.Status = StatusUnresolved
		next := []errcode.NextAction{errcode.NextReadStudioScript, errcode.NextPassOverride}
		e := errcode.New(errcode.Unresolved, "%d change(s) have no direction, nothing was applied", len(out.Unresolved))
		if held := unwritableOf(p, out.Unresolved); len(held) > 0 {
			// Pulls the project's files cannot take: reading Studio's script does
			// not help; a push undoes the change in Studio, a skip leaves it.
			e.With("unwritable", held)
			if len(held) == len(out.Unresolved) {
				e = errcode.New(errcode.Unresolved, "%d change(s) made in Studio cannot be written to the project's files as they are (details.unwritable says why for each), nothing was applied", len(held)).
					With("unwritable", held)
				next = []errcode.NextAction{errcode.NextPassOverride, errcode.NextSkipUnresolved}
			}
		}
		if dups := duplicatesOf(p, out.Unresolved); len(dups) > 0 && len(dups) == len(out.Unresolved) {
			// Same-named siblings: no file tells them apart, so no override pulls
			// them; reading Studio's script does not help either.
			e = errcode.New(errcode.Unresolved, "%d change(s) are of instances that share their name with siblings in Studio (details.duplicates): no file can tell them apart, so none is pulled, even with an override; rename them in Studio, or push or skip them; nothing was applied", len(dups)).
				With("duplicates", dups)
			next = []errcode.NextAction{errcode.NextRenameInStudio, errcode.NextSkipUnresolved}
		}
		return out, e.Reason(errcode.ReasonFastfailUnresolved, next...).
			With("ids", out.Unresolved).With("failures", out.Failures)
	}
	if req.Review == nil {
		return fail(errcode.New(errcode.Internal, "the %s sync needs someone to review it", mode))
	}
	r, err := req.Review(ctx, Question{Mode: mode, Plan: p, Unresolved: out.Unresolved, Overrides: overrides})
	if err != nil {
		return fail(err)
	}
	out.Review = r
	if r.Decision != string(protocol.Accept) {
		out.Status = StatusRejected
		return out, nil
	}
	merged := mergeSelections(overrides, r.Selections)
	out.Unresolved = []string{}
	// The person may take longer than a token lives: plan again, and apply only if
	// nothing moved while they decided.
	fresh, err := eng.Plan(ctx, host.PlanRequest{SessionID: req.Plan.SessionID, Base: req.Plan.Base})
	if err != nil {
		return fail(err)
	}
	if fresh.PlanHash != p.PlanHash {
		return fail(errcode.New(errcode.ConfirmTokenMismatch, "disk or Studio changed while the person reviewed; nothing was applied").
			Reason(errcode.ReasonPlanChanged, errcode.NextRetry))
	}
	res, err := applyWith(fresh.ConfirmToken, merged, true)
	if err == nil {
		// A token applies once: the plan handed back carries the token this sync
		// applied with, which that apply spent, so that a sync_apply with it is
		// refused as replayed. (The same plan: the hashes are equal. The first
		// plan's token never left this call.)
		cp := *p
		cp.ConfirmToken, cp.ExpiresAt = fresh.ConfirmToken, fresh.ExpiresAt
		res.Plan = &cp
	}
	return res, err
}

// Unresolved lists the changes that neither the plan nor an override gives a
// direction.
func Unresolved(p *host.PlanData, overrides []apply.Override) []string {
	given := map[string]plan.Direction{}
	for _, o := range overrides {
		given[o.ID] = o.Direction
	}
	ids := []string{}
	for _, c := range p.Changes {
		if given[c.ID] == "" && !c.Resolved() {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// duplicatesOf returns the same-named instances (plan.Guards.Duplicates) among ids.
func duplicatesOf(p *host.PlanData, ids []string) []plan.Duplicate {
	if p.Guards == nil {
		return nil
	}
	var out []plan.Duplicate
	for _, d := range p.Guards.Duplicates {
		if slices.Contains(ids, d.ID) {
			out = append(out, d)
		}
	}
	return out
}

// unwritableOf returns the plan's pulls held back as unwritable among ids.
func unwritableOf(p *host.PlanData, ids []string) []plan.Unwritable {
	var out []plan.Unwritable
	if p.Guards != nil && len(p.Guards.Unwritable) > 0 {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		for _, u := range p.Guards.Unwritable {
			if want[u.ID] {
				out = append(out, u)
			}
		}
	}
	return out
}

// Prefer adds an override toward dir (push or pull; "" adds none) for every change
// without a direction or an override: what --prefer asks. A change of a file git
// holds in conflict (merge_conflict) is left out: its file may hold conflict
// markers, and only an override of its own pushes or pulls it; so is one whose name
// Studio does not take (name_too_long) or whose Int64 value no script can write
// (int64_not_writable): a push of it can only fail.
func Prefer(p *host.PlanData, overrides []apply.Override, dir plan.Direction) []apply.Override {
	out := slices.Clone(overrides)
	if dir == "" {
		return out
	}
	conflicted := map[string]bool{}
	for _, c := range p.Changes {
		if c.Reason == plan.MergeConflict || c.Reason == plan.NameTooLong || c.Reason == plan.Int64NotWritable {
			conflicted[c.ID] = true
		}
	}
	if dir == plan.Push && p.Guards != nil {
		// (a pull of those writes the value exactly)
		for _, id := range p.Guards.Int64NotWritable {
			conflicted[id] = true
		}
	}
	for _, id := range Unresolved(p, overrides) {
		if !conflicted[id] {
			out = append(out, apply.Override{ID: id, Direction: dir})
		}
	}
	return out
}

func hasPreconditions(overrides []apply.Override) bool {
	return slices.ContainsFunc(overrides, func(o apply.Override) bool {
		return o.StudioHash != nil || o.DiskHash != nil || len(o.ExpectedProperties) > 0
	})
}

// failuresOf reads the failures of an E_PRECONDITION_FAILED, from the engine in
// this process or over the host's API.
func failuresOf(err error) []Failure {
	out := []Failure{}
	b, jerr := json.Marshal(errcode.As(err).Details["failures"])
	if jerr == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// unknownIDs lists the ids of overrides that name no change of p.
func unknownIDs(p *host.PlanData, overrides []apply.Override) []string {
	var out []string
	for _, o := range overrides {
		if !slices.ContainsFunc(p.Changes, func(c *plan.Change) bool { return c.ID == o.ID }) {
			out = append(out, o.ID)
		}
	}
	return out
}

// idsOf reads details.ids of an error, from the engine in this process or over the
// host's API.
func idsOf(err error) []string {
	var out []string
	b, jerr := json.Marshal(errcode.As(err).Details["ids"])
	if jerr == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// hashFailures checks overrides' studioHash and diskHash against the plan, as apply
// does.
func hashFailures(p *host.PlanData, overrides []apply.Override) []Failure {
	out := []Failure{}
	for _, o := range overrides {
		i := slices.IndexFunc(p.Changes, func(c *plan.Change) bool { return c.ID == o.ID })
		if i < 0 {
			continue // apply refuses it: E_OVERRIDE_UNKNOWN_ID
		}
		c := p.Changes[i]
		check := func(field string, want *string, got string) {
			if want != nil && *want != got {
				var actual *string
				if got != "" {
					actual = &got
				}
				out = append(out, Failure{ID: c.ID, Field: field, Expected: *want, Actual: actual})
			}
		}
		check("studioHash", o.StudioHash, c.StudioHash)
		check("diskHash", o.DiskHash, c.DiskHash)
	}
	return out
}

// AsUnresolved copies changes, with those listed shown without a direction: what a
// review panel shows for q.Unresolved.
func AsUnresolved(changes []*plan.Change, ids []string) []*plan.Change {
	out := make([]*plan.Change, len(changes))
	for i, c := range changes {
		out[i] = c
		if slices.Contains(ids, c.ID) && c.Resolved() {
			cp := *c
			cp.Direction, cp.DefaultSelection = "", ""
			out[i] = &cp
		}
	}
	return out
}

// mergeSelections turns the person's selections into overrides: the person decides
// every change they selected; the other overrides stand for the rest.
func mergeSelections(overrides []apply.Override, sel map[string]plan.Direction) []apply.Override {
	var out []apply.Override
	for _, o := range overrides {
		if _, ok := sel[o.ID]; !ok {
			out = append(out, o)
		}
	}
	ids := make([]string, 0, len(sel))
	for id := range sel {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if d := sel[id]; d == plan.Push || d == plan.Pull || d == plan.Skip {
			out = append(out, apply.Override{ID: id, Direction: d})
		}
	}
	return out
}

// Studio is the reviewer that asks the person in Studio's review panel (Engine.Review).
func Studio(eng interface {
	Review(ctx context.Context, req host.ReviewRequest) (*host.ReviewData, error)
}, sessionID string) Reviewer {
	return func(ctx context.Context, q Question) (*host.ReviewData, error) {
		return eng.Review(ctx, host.ReviewRequest{SessionID: sessionID, PlanHash: q.Plan.PlanHash,
			Changes: AsUnresolved(q.Plan.Changes, q.Unresolved), Mode: string(q.Mode)})
	}
}

// Gist is what a caller needs of r when the whole does not fit where it goes: the
// status, and the gist of what was applied.
func (r *Result) Gist() map[string]any {
	g := map[string]any{"status": r.Status, "mode": r.Mode, "unresolved": len(r.Unresolved)}
	if r.Applied != nil {
		g["applied"] = r.Applied.Gist()
	}
	return g
}
