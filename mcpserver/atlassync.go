package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/token"
)

// The atlas_sync statuses.
const (
	StatusSuccess    = "success"
	StatusEmpty      = "empty"
	StatusDryrun     = "dryrun"
	StatusUnresolved = "fastfail_unresolved"
	StatusRejected   = "rejected"
	StatusError      = "error"
)

// The atlas_sync modes; standard is the default.
const (
	ModeStandard = "standard"
	ModeManual   = "manual"
	ModeFastfail = "fastfail"
	ModeDryrun   = "dryrun"
)

// SyncIn is atlas_sync's input.
type SyncIn struct {
	Mode      string     `json:"mode,omitempty" jsonschema:"standard (the default): apply if every change resolves, else ask the person in Studio's review panel; manual: always ask the person; fastfail: apply only if every change resolves; dryrun: plan only"`
	Overrides []Override `json:"overrides,omitempty" jsonschema:"per-change directions, as for sync_apply; one whose precondition fails leaves its change unresolved"`
	SessionID string     `json:"sessionId,omitempty" jsonschema:"Studio session id; omit when one Studio is connected"`
}

// syncModes lists atlas_sync's modes, standard by default ({} is a valid call).
func syncModes(s *jsonschema.Schema) {
	m := s.Properties["mode"]
	m.Enum = []any{ModeStandard, ModeManual, ModeFastfail, ModeDryrun}
	m.Default = json.RawMessage(`"` + ModeStandard + `"`)
	overrideDirections(s)
}

// Failure is an override precondition that does not hold against the fresh plan.
type Failure struct {
	ID       string  `json:"id" jsonschema:"the change id"`
	Field    string  `json:"field" jsonschema:"studioHash, diskHash or properties.NAME"`
	Expected string  `json:"expected" jsonschema:"what the override expected"`
	Actual   *string `json:"actual" jsonschema:"what is there now; null where there is nothing"`
}

// SyncOut is atlas_sync's data.
type SyncOut struct {
	Status     string           `json:"status" jsonschema:"success, empty, dryrun, fastfail_unresolved, rejected or error"`
	Mode       string           `json:"mode" jsonschema:"the mode that ran"`
	Plan       *host.PlanData   `json:"plan,omitempty" jsonschema:"the plan, with every change"`
	Applied    *host.ApplyData  `json:"applied,omitempty" jsonschema:"what was applied (status success)"`
	Review     *host.ReviewData `json:"review,omitempty" jsonschema:"the person's decision in Studio's review panel (standard, manual)"`
	Unresolved []string         `json:"unresolved" jsonschema:"ids of the changes left without a direction"`
	Failures   []Failure        `json:"failures" jsonschema:"override preconditions that do not hold; their changes count as unresolved"`
}

func (t *tools) atlasSync(ctx context.Context, in SyncIn) result[SyncOut] {
	mode := in.Mode
	if mode == "" {
		mode = ModeStandard
	}
	out := &SyncOut{Mode: mode, Unresolved: []string{}, Failures: []Failure{}}
	var warnings []string
	fail := func(err error) result[SyncOut] {
		out.Status = StatusError
		return result[SyncOut]{data: out, warnings: warnings, err: err, summary: "Atlas sync failed: " + errcode.As(err).Message}
	}
	ttl := token.DefaultTTL
	if mode == ModeStandard || mode == ModeManual {
		ttl = token.MaxTTL // the person in Studio may take a while
	}
	p, err := t.eng.Plan(ctx, host.PlanRequest{SessionID: in.SessionID, TTL: ttl})
	if err != nil {
		return fail(err)
	}
	out.Plan, warnings = p, p.Warnings
	if len(p.Changes) == 0 {
		out.Status = StatusEmpty
		return result[SyncOut]{data: out, warnings: warnings, summary: "Disk and Studio are in sync; nothing to do."}
	}
	if mode == ModeDryrun {
		out.Status = StatusDryrun
		return result[SyncOut]{data: out, warnings: warnings, summary: summarize(p, "Dry run: nothing was applied.")}
	}
	agent := convert(in.Overrides)
	out.Unresolved = unresolved(p, agent)

	switch mode {
	case ModeFastfail, ModeStandard:
		// Apply does what these modes ask when every change resolves and every
		// override's precondition holds, and otherwise refuses, writing nothing, with
		// the reason: the engine that checks preconditions for sync_apply checks them
		// here. With changes left unresolved it can only refuse, so it is asked only
		// when there are preconditions to check.
		if len(out.Unresolved) == 0 || hasPreconditions(agent) {
			a, err := t.eng.Apply(ctx, host.ApplyRequest{SessionID: in.SessionID, Token: p.ConfirmToken, Overrides: agent})
			if err == nil {
				return applied(out, a, warnings)
			}
			switch errcode.Of(err) {
			case errcode.PreconditionFailed:
				out.Failures = failuresOf(err)
			case errcode.Unresolved:
			default:
				return fail(err)
			}
		}
	case ModeManual:
		// The review comes first; hashes the plan shows are checked now, so that the
		// panel shows those changes unresolved.
		out.Failures = hashFailures(p, agent)
	}
	for _, f := range out.Failures {
		if !slices.Contains(out.Unresolved, f.ID) {
			out.Unresolved = append(out.Unresolved, f.ID)
		}
	}
	slices.Sort(out.Unresolved)
	agent = slices.DeleteFunc(agent, func(o apply.Override) bool {
		return slices.ContainsFunc(out.Failures, func(f Failure) bool { return f.ID == o.ID })
	})

	if mode == ModeFastfail {
		out.Status = StatusUnresolved
		err := errcode.New(errcode.Unresolved, "%d change(s) have no direction, nothing was applied", len(out.Unresolved)).
			Reason(errcode.ReasonFastfailUnresolved, errcode.NextReadStudioScript, errcode.NextPassOverride).
			With("ids", out.Unresolved).With("failures", out.Failures)
		return result[SyncOut]{data: out, warnings: warnings, err: err, summary: summarize(p, unresolvedText(out))}
	}

	r, err := t.eng.Review(ctx, host.ReviewRequest{SessionID: in.SessionID, PlanHash: p.PlanHash, Changes: asUnresolved(p.Changes, out.Unresolved), Mode: mode})
	if err != nil {
		return fail(err)
	}
	out.Review = r
	if r.Decision != "accept" {
		out.Status = StatusRejected
		return result[SyncOut]{data: out, warnings: warnings, summary: "The person in Studio rejected the sync; nothing was applied."}
	}
	overrides := mergeSelections(agent, r.Selections)
	out.Unresolved = []string{}
	// The person may take longer than a token lives: plan again, and apply only if
	// nothing moved while they decided.
	fresh, err := t.eng.Plan(ctx, host.PlanRequest{SessionID: in.SessionID})
	if err != nil {
		return fail(err)
	}
	if fresh.PlanHash != p.PlanHash {
		return fail(errcode.New(errcode.ConfirmTokenMismatch, "disk or Studio changed while the person reviewed; nothing was applied").
			Reason(errcode.ReasonPlanChanged, errcode.NextRetry))
	}
	a, err := t.eng.Apply(ctx, host.ApplyRequest{SessionID: in.SessionID, Token: fresh.ConfirmToken, Overrides: overrides, SkipUnresolved: true})
	if err != nil {
		return fail(err)
	}
	return applied(out, a, warnings)
}

// applied is the success result: its text lists what was applied.
func applied(out *SyncOut, a *host.ApplyData, warnings []string) result[SyncOut] {
	out.Applied, out.Status, out.Unresolved = a, StatusSuccess, []string{}
	var b strings.Builder
	fmt.Fprintf(&b, "Applied %d change(s) (transaction %s):\n", len(a.Applied), a.TxID)
	for _, c := range a.Applied {
		fmt.Fprintf(&b, "- %s %s %s", c.Direction, c.PatchType, c.Path)
		if c.FsPath != "" {
			fmt.Fprintf(&b, " (%s)", c.FsPath)
		}
		fmt.Fprintf(&b, " id=%s\n", c.ID)
	}
	if len(a.Skipped) > 0 {
		fmt.Fprintf(&b, "Left as they are: %d change(s): %s\n", len(a.Skipped), strings.Join(a.Skipped, ", "))
	}
	return result[SyncOut]{data: out, warnings: append(warnings, a.Warnings...), summary: strings.TrimSuffix(b.String(), "\n")}
}

// unresolved lists the changes that neither the plan nor an override gives a direction.
func unresolved(p *host.PlanData, overrides []apply.Override) []string {
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

// asUnresolved copies changes, with those listed shown without a direction.
func asUnresolved(changes []*plan.Change, ids []string) []*plan.Change {
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
// every change they selected; the agent's overrides stand for the others.
func mergeSelections(agent []apply.Override, sel map[string]plan.Direction) []apply.Override {
	var out []apply.Override
	for _, o := range agent {
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

func unresolvedText(out *SyncOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Not applied: %d change(s) need a direction: %s.\n", len(out.Unresolved), strings.Join(out.Unresolved, ", "))
	for _, f := range out.Failures {
		actual := "null"
		if f.Actual != nil {
			actual = *f.Actual
		}
		fmt.Fprintf(&b, "- override precondition failed: id=%s %s expected %s, actual %s\n", f.ID, f.Field, f.Expected, actual)
	}
	b.WriteString("Inspect them (get_script), then call atlas_sync again with overrides, or use sync_plan/sync_apply.")
	return b.String()
}

func summarize(p *host.PlanData, tail string) string {
	var b strings.Builder
	s := p.Summary
	fmt.Fprintf(&b, "%d change(s): %d push, %d pull, %d unresolved.\n", s.Total, s.Push, s.Pull, s.Unresolved)
	for _, c := range p.Changes {
		dir := c.Direction
		if dir == "" {
			dir = "unresolved"
		}
		fmt.Fprintf(&b, "- %s %s %s (%s, %s) id=%s\n", dir, c.PatchType, c.Path, c.ClassName, c.Reason, c.ID)
	}
	b.WriteString(tail)
	return b.String()
}
