package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/envelope"
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

// SyncIn is atlas_sync's input.
type SyncIn struct {
	Mode      string     `json:"mode" jsonschema:"standard: apply if every change resolves, else ask the person in Studio's review panel; manual: always ask the person; fastfail: apply only if every change resolves; dryrun: plan only"`
	Overrides []Override `json:"overrides,omitempty" jsonschema:"per-change directions, as for sync_apply"`
	SessionID string     `json:"sessionId,omitempty" jsonschema:"Studio session id; omit when one Studio is connected"`
}

// SyncOut is atlas_sync's data.
type SyncOut struct {
	Status     string           `json:"status"`
	Mode       string           `json:"mode"`
	Plan       *host.PlanData   `json:"plan,omitempty"`
	Applied    *host.ApplyData  `json:"applied,omitempty"`
	Review     *host.ReviewData `json:"review,omitempty"`
	Unresolved []string         `json:"unresolved"`
}

func (t *tools) atlasSync(ctx context.Context, _ *mcp.CallToolRequest, in SyncIn) (*mcp.CallToolResult, *envelope.Envelope, error) {
	out := &SyncOut{Mode: in.Mode, Unresolved: []string{}}
	fail := func(err error) (*mcp.CallToolResult, *envelope.Envelope, error) {
		out.Status = StatusError
		return reply("atlas_sync", out, nil, err, "Atlas sync failed: "+errcode.As(err).Message)
	}
	switch in.Mode {
	case "standard", "manual", "fastfail", "dryrun":
	default:
		return fail(errcode.New(errcode.BadRequest, "mode %q is not standard, manual, fastfail or dryrun", in.Mode).
			Reason(errcode.ReasonBadMode, errcode.NextFixRequest))
	}
	ttl := token.DefaultTTL
	if in.Mode == "standard" || in.Mode == "manual" {
		ttl = token.MaxTTL // the person in Studio may take a while
	}
	p, err := t.eng.Plan(ctx, host.PlanRequest{SessionID: in.SessionID, TTL: ttl})
	if err != nil {
		return fail(err)
	}
	out.Plan = p
	if len(p.Changes) == 0 {
		out.Status = StatusEmpty
		return reply("atlas_sync", out, p.Warnings, nil, "Disk and Studio are in sync; nothing to do.")
	}
	if in.Mode == "dryrun" {
		out.Status = StatusDryrun
		return reply("atlas_sync", out, p.Warnings, nil, summarize(p, "Dry run: nothing was applied."))
	}
	agent := convert(in.Overrides)
	given := map[string]apply.Override{}
	for _, o := range agent {
		given[o.ID] = o
	}
	for _, c := range p.Changes {
		if o, ok := given[c.ID]; ok && o.Direction != "" {
			continue
		}
		if !c.Resolved() {
			out.Unresolved = append(out.Unresolved, c.ID)
		}
	}
	overrides := agent
	if in.Mode == "manual" || (in.Mode == "standard" && len(out.Unresolved) > 0) {
		r, err := t.eng.Review(ctx, host.ReviewRequest{SessionID: in.SessionID, PlanHash: p.PlanHash, Changes: p.Changes, Mode: in.Mode})
		if err != nil {
			return fail(err)
		}
		out.Review = r
		if r.Decision != "accept" {
			out.Status = StatusRejected
			return reply("atlas_sync", out, p.Warnings, nil, "The person in Studio rejected the sync; nothing was applied.")
		}
		overrides = mergeSelections(agent, r.Selections)
		out.Unresolved = []string{}
		// The person may take longer than a token lives: plan again, and apply only
		// if nothing moved while they decided.
		fresh, err := t.eng.Plan(ctx, host.PlanRequest{SessionID: in.SessionID})
		if err != nil {
			return fail(err)
		}
		if fresh.PlanHash != p.PlanHash {
			return fail(errcode.New(errcode.ConfirmTokenMismatch, "disk or Studio changed while the person reviewed; nothing was applied").
				Reason(errcode.ReasonPlanChanged, errcode.NextRetry))
		}
		p.ConfirmToken = fresh.ConfirmToken
	} else if len(out.Unresolved) > 0 {
		out.Status = StatusUnresolved
		return reply("atlas_sync", out, p.Warnings, nil, summarize(p, fmt.Sprintf(
			"Not applied: %d change(s) need a direction. Inspect them (get_script), then call atlas_sync again with overrides, or use sync_plan/sync_apply.", len(out.Unresolved))))
	}
	a, err := t.eng.Apply(ctx, host.ApplyRequest{SessionID: in.SessionID, Token: p.ConfirmToken, Overrides: overrides, SkipUnresolved: out.Review != nil})
	if err != nil {
		return fail(err)
	}
	out.Applied = a
	out.Status = StatusSuccess
	return reply("atlas_sync", out, p.Warnings, nil, fmt.Sprintf("Applied %d change(s) (transaction %s).", len(a.Applied), a.TxID))
}

// mergeSelections turns the person's selections into overrides; they win over the agent's.
func mergeSelections(agent []apply.Override, sel map[string]plan.Direction) []apply.Override {
	var out []apply.Override
	for _, o := range agent {
		if d, ok := sel[o.ID]; ok && d != o.Direction {
			continue
		}
		out = append(out, o)
	}
	seen := map[string]bool{}
	for _, o := range out {
		seen[o.ID] = true
	}
	for id, d := range sel {
		if !seen[id] && (d == plan.Push || d == plan.Pull || d == plan.Skip) {
			out = append(out, apply.Override{ID: id, Direction: d})
		}
	}
	return out
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
