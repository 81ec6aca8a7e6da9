package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/syncflow"
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
	m.Enum = []any{syncflow.Standard, syncflow.Manual, syncflow.Fastfail, syncflow.Dryrun}
	m.Default = json.RawMessage(`"` + syncflow.Standard + `"`)
	overrideDirections(s)
}

// atlasSync is the one-step sync, with the person deciding in Studio's review panel.
func (t *tools) atlasSync(ctx context.Context, in SyncIn) result[syncflow.Result] {
	out, err := syncflow.Run(ctx, t.eng, syncflow.Request{
		Mode:      syncflow.Mode(in.Mode),
		Plan:      host.PlanRequest{SessionID: in.SessionID, Files: true},
		Overrides: convert(in.Overrides),
		Review:    syncflow.Studio(t.eng, in.SessionID),
	})
	var warnings []string
	if out.Plan != nil {
		warnings = out.Plan.Warnings
	}
	r := result[syncflow.Result]{data: out, warnings: warnings, err: err}
	switch out.Status {
	case syncflow.StatusError:
		r.summary = "Atlas sync failed: " + errcode.As(err).Message
	case syncflow.StatusEmpty:
		r.summary = "Disk and Studio are in sync; nothing to do."
	case syncflow.StatusDryrun:
		r.summary = summarize(out.Plan, "Dry run: nothing was applied.")
	case syncflow.StatusUnresolved:
		r.summary = summarize(out.Plan, unresolvedText(out))
	case syncflow.StatusRejected:
		r.summary = "The person in Studio rejected the sync; nothing was applied."
	case syncflow.StatusSuccess:
		r.warnings = slices.Concat(warnings, out.Applied.Warnings)
		r.summary = appliedText(out.Applied)
		if len(out.Failures) > 0 {
			// The overrides whose preconditions did not hold were not carried out
			// (the person decided those changes): said first, not only in data.
			var b strings.Builder
			fmt.Fprintf(&b, "%d override(s) were not carried out: their preconditions did not hold (data.failures); the person in Studio decided those changes instead.\n", len(out.Failures))
			for _, f := range out.Failures {
				fmt.Fprintf(&b, "- %s\n", failureText(f))
			}
			r.summary = b.String() + r.summary
			r.warnings = append(r.warnings, fmt.Sprintf("%d override(s) were not carried out: their preconditions did not hold (data.failures)", len(out.Failures)))
		}
	}
	return r
}

// failureText is one override precondition that did not hold.
func failureText(f syncflow.Failure) string {
	actual := "null"
	if f.Actual != nil {
		actual = *f.Actual
	}
	return fmt.Sprintf("override precondition failed: id=%s %s expected %s, actual %s", f.ID, f.Field, f.Expected, actual)
}

// appliedText is the success summary: what was applied.
func appliedText(a *host.ApplyData) string {
	var b strings.Builder
	if len(a.Applied) == 0 {
		// Nothing was written: no transaction was journaled, so none is named.
		b.WriteString("Applied nothing: every change was left as it is.\n")
	} else {
		fmt.Fprintf(&b, "Applied %d change(s) (transaction %s):\n", len(a.Applied), a.TxID)
	}
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
	return strings.TrimSuffix(b.String(), "\n")
}

func unresolvedText(out *syncflow.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Not applied: %d change(s) need a direction: %s.\n", len(out.Unresolved), strings.Join(out.Unresolved, ", "))
	for _, f := range out.Failures {
		fmt.Fprintf(&b, "- %s\n", failureText(f))
	}
	b.WriteString("Inspect them (get_script), then call atlas_sync again with overrides, or use sync_plan/sync_apply.")
	return b.String()
}

func summarize(p *host.PlanData, tail string) string {
	var b strings.Builder
	s := p.Summary
	fmt.Fprintf(&b, "%d change(s): %d push, %d pull, %d unresolved.\n", s.Total, s.Push, s.Pull, s.Unresolved)
	for _, c := range p.Changes {
		dir := string(c.Direction)
		if dir == "" {
			dir = "unresolved"
		}
		fmt.Fprintf(&b, "- %s %s %s (%s, %s) id=%s\n", dir, c.PatchType, c.Path, c.ClassName, c.Reason, c.ID)
	}
	b.WriteString(tail)
	return b.String()
}
