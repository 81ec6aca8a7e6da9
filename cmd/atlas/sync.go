package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

func (a *app) syncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "plan, show, confirm and apply a sync between disk and Studio",
		Flags: []cli.Flag{
			sessionFlag,
			&cli.StringFlag{Name: "base", Usage: "base revision for the three-way comparison (default HEAD)"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "apply without asking"},
			&cli.BoolFlag{Name: "diff", Usage: "show unified diffs of scripts"},
			&cli.StringSliceFlag{Name: "override", Usage: "ID=push|pull|skip (repeatable)"},
			&cli.BoolFlag{Name: "skip-unresolved", Usage: "leave unresolved changes as they are"},
			&cli.StringFlag{Name: "prefer", Usage: "resolve unresolved changes toward disk or studio (you are asking for it)"},
			jsonFlag,
		},
		Commands: []*cli.Command{a.syncPlanCommand(), a.syncApplyCommand(), a.syncUndoCommand(), a.syncRecoverCommand()},
		Action:   a.action("sync", a.syncInteractive),
	}
}

func (a *app) syncPlanCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "list every difference between disk and Studio and print a confirm token (read-only)",
		Flags: []cli.Flag{
			sessionFlag,
			&cli.StringFlag{Name: "base", Usage: "base revision for the three-way comparison (default HEAD)"},
			&cli.DurationFlag{Name: "ttl", Usage: "lifetime of the confirm token (default 5m, at most 10m)"},
			&cli.BoolFlag{Name: "diff", Usage: "show unified diffs of scripts"},
			&cli.BoolFlag{Name: "detailed-exitcode", Usage: "exit 2 when there are differences"},
			jsonFlag,
		},
		Action: a.action("sync.plan", func(ctx context.Context, c *cli.Command) error {
			cl, _, err := a.client(c)
			if err != nil {
				return err
			}
			d, err := cl.Plan(ctx, host.PlanRequest{SessionID: c.String("session"), Base: c.String("base"), TTL: c.Duration("ttl"), Sources: c.Bool("diff")})
			if err != nil {
				return err
			}
			a.emit("sync.plan", d, d.Warnings, func(w io.Writer) { renderPlan(w, d, c.Bool("diff")) })
			if c.Bool("detailed-exitcode") && len(d.Changes) > 0 {
				a.exitCode = exitChanges
			}
			return nil
		}),
	}
}

func (a *app) syncApplyCommand() *cli.Command {
	return &cli.Command{
		Name:  "apply",
		Usage: "apply a plan: verify its token, recompute, check preconditions, write Studio and disk",
		Flags: []cli.Flag{
			sessionFlag,
			&cli.StringFlag{Name: "token", Usage: "the confirmToken from 'atlas sync plan'"},
			&cli.StringSliceFlag{Name: "override", Usage: "ID=push|pull|skip (repeatable)"},
			&cli.StringFlag{Name: "overrides", Usage: "JSON file (or - for stdin) with [{id, direction, studioHash?, diskHash?, expectedProperties?}]"},
			&cli.BoolFlag{Name: "skip-unresolved", Usage: "leave unresolved changes as they are"},
			jsonFlag,
		},
		Action: a.action("sync.apply", func(ctx context.Context, c *cli.Command) error {
			overrides, err := a.readOverrides(c)
			if err != nil {
				return err
			}
			if c.String("token") == "" {
				return errcode.New(errcode.ConfirmTokenRequired, "a confirm token is required").
					Reason(errcode.ReasonTokenRequired, errcode.NextPassToken)
			}
			cl, _, err := a.client(c)
			if err != nil {
				return err
			}
			d, err := cl.Apply(ctx, host.ApplyRequest{SessionID: c.String("session"), Token: c.String("token"), Overrides: overrides, SkipUnresolved: c.Bool("skip-unresolved")})
			if err != nil {
				return err
			}
			a.emit("sync.apply", d, nil, func(w io.Writer) { renderApply(w, d) })
			return nil
		}),
	}
}

func (a *app) syncUndoCommand() *cli.Command {
	return &cli.Command{
		Name:  "undo",
		Usage: "put back what the last (or --tx) applied transaction overwrote, on disk and in Studio",
		Flags: []cli.Flag{sessionFlag, &cli.StringFlag{Name: "tx", Usage: "transaction id (default: the newest)"}, jsonFlag},
		Action: a.action("sync.undo", func(ctx context.Context, c *cli.Command) error {
			cl, _, err := a.client(c)
			if err != nil {
				return err
			}
			d, err := cl.Undo(ctx, host.UndoRequest{SessionID: c.String("session"), TxID: c.String("tx")})
			if err != nil {
				return err
			}
			a.emit("sync.undo", d, nil, func(w io.Writer) {
				fmt.Fprintf(w, "Undid transaction %s: %d Studio op(s), %d file(s).\n", d.TxID, d.StudioOps, len(d.Files))
				for _, f := range d.Files {
					fmt.Fprintf(w, "  %-7s %s\n", f.Action, f.Path)
				}
				for _, m := range d.Manual {
					fmt.Fprintf(w, "  Studio: %s was removed by the sync; restore it with Ctrl+Z in Studio\n", m)
				}
			})
			return nil
		}),
	}
}

// readOverrides reads --override ID=DIR flags and the --overrides file.
func (a *app) readOverrides(c *cli.Command) ([]apply.Override, error) {
	var out []apply.Override
	if f := c.String("overrides"); f != "" {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(a.stdin)
		} else {
			if !filepath.IsAbs(f) {
				f = filepath.Join(a.cwd, f)
			}
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.BadRequest, err, "read overrides").Reason(errcode.ReasonBadOverrides, errcode.NextFixRequest)
		}
		ovs, err := parseOverrides(data)
		if err != nil {
			return nil, err
		}
		out = ovs
	}
	for _, s := range c.StringSlice("override") {
		id, dir, ok := strings.Cut(s, "=")
		if !ok || id == "" {
			return nil, errcode.New(errcode.BadRequest, "--override %q is not ID=push|pull|skip", s).Reason(errcode.ReasonBadOverride, errcode.NextPassOverride)
		}
		out = append(out, apply.Override{ID: strings.TrimSpace(id), Direction: plan.Direction(strings.TrimSpace(dir))})
	}
	if err := apply.ValidateOverrides(out); err != nil {
		return nil, err
	}
	return out, nil
}

// overridesShape is the shape an overrides file must have, for messages.
const overridesShape = "a JSON array of {id, direction, studioHash?, diskHash?, expectedProperties?}"

// parseOverrides parses an overrides file: one JSON array of override objects and
// nothing else (whitespace aside). `null`, an object, a string or an array followed
// by more text are refused, so a mistyped file never passes as "no overrides".
func parseOverrides(data []byte) ([]apply.Override, error) {
	bad := func(err error, what string) error {
		e := errcode.New(errcode.BadRequest, "overrides must be %s; %s", overridesShape, what)
		if err != nil {
			e = errcode.Wrap(errcode.BadRequest, err, "overrides must be "+overridesShape)
		}
		return e.Reason(errcode.ReasonBadOverrides, errcode.NextFixRequest)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad(nil, "the file is empty")
	}
	if trimmed[0] != '[' {
		return nil, bad(nil, fmt.Sprintf("it starts with %q", firstToken(trimmed)))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	out := []apply.Override{}
	if err := dec.Decode(&out); err != nil {
		return nil, bad(err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(nil, fmt.Sprintf("text follows the array at byte %d", dec.InputOffset()))
	}
	return out, nil
}

// firstToken is the start of b, for a message about what a file holds.
func firstToken(b []byte) string {
	if i := bytes.IndexAny(b, " \t\r\n,:[]{}"); i > 0 {
		b = b[:i]
	}
	if len(b) > 20 {
		b = b[:20]
	}
	return string(b)
}

// syncInteractive is `atlas sync`: plan, show, ask, apply.
func (a *app) syncInteractive(ctx context.Context, c *cli.Command) error {
	overrides, err := a.readOverrides(c)
	if err != nil {
		return err
	}
	prefer := c.String("prefer")
	if prefer != "" && prefer != "disk" && prefer != "studio" {
		return errcode.New(errcode.BadRequest, "--prefer must be disk or studio").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
	}
	cl, _, err := a.client(c)
	if err != nil {
		return err
	}
	d, err := cl.Plan(ctx, host.PlanRequest{SessionID: c.String("session"), Base: c.String("base"), Sources: c.Bool("diff")})
	if err != nil {
		return err
	}
	if len(d.Changes) == 0 {
		a.emit("sync", map[string]any{"plan": d, "applied": nil}, d.Warnings, func(w io.Writer) { fmt.Fprintln(w, "Disk and Studio are in sync.") })
		return nil
	}
	if prefer != "" {
		given := map[string]bool{}
		for _, o := range overrides {
			given[o.ID] = true
		}
		for _, ch := range d.Changes {
			if !ch.Resolved() && !given[ch.ID] {
				dir := plan.Push
				if prefer == "studio" {
					dir = plan.Pull
				}
				overrides = append(overrides, apply.Override{ID: ch.ID, Direction: dir})
			}
		}
	}
	if !a.jsonMode {
		renderPlan(a.stdout, d, c.Bool("diff"))
	}
	if !c.Bool("yes") {
		if a.jsonMode {
			return errcode.New(errcode.ConfirmRequired, "confirmation required: pass --yes with --json").
				Reason(errcode.ReasonConfirmRequired, errcode.NextConfirm)
		}
		fmt.Fprint(a.stdout, "Apply these changes? [y/N] ")
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return errcode.New(errcode.ConfirmRequired, "not applied: you did not confirm").Reason(errcode.ReasonNotConfirmed, errcode.NextRetry)
		}
	}
	res, err := cl.Apply(ctx, host.ApplyRequest{SessionID: c.String("session"), Token: d.ConfirmToken, Overrides: overrides, SkipUnresolved: c.Bool("skip-unresolved")})
	if err != nil {
		return err
	}
	a.emit("sync", map[string]any{"plan": d, "applied": res}, d.Warnings, func(w io.Writer) { renderApply(w, res) })
	return nil
}

// renderPlan prints changes grouped by direction with their reasons.
func renderPlan(w io.Writer, d *host.PlanData, diff bool) {
	s := d.Summary
	base := "no base"
	if d.Base.Commit != "" {
		base = d.Base.Ref + " @ " + d.Base.Commit[:12]
	}
	fmt.Fprintf(w, "Plan %s  (base %s, Studio %q %s)\n", d.PlanHash[:19], base, d.Session.PlaceName, d.Session.ID)
	if s.Total == 0 {
		fmt.Fprintln(w, "No differences: disk and Studio are in sync.")
		return
	}
	fmt.Fprintf(w, "%d change(s): %d push, %d pull, %d unresolved\n", s.Total, s.Push, s.Pull, s.Unresolved)
	groups := []struct {
		dir   plan.Direction
		title string
	}{{plan.Push, "Push (disk → Studio)"}, {plan.Pull, "Pull (Studio → disk)"}, {"", "Unresolved (choose with --override ID=push|pull|skip)"}}
	for _, g := range groups {
		var list []*plan.Change
		for _, c := range d.Changes {
			if c.Direction == g.dir {
				list = append(list, c)
			}
		}
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, c := range list {
			where := c.FsPath
			if where == "" {
				where = "(no file)"
			}
			extra := ""
			if c.Descendants > 0 {
				extra = fmt.Sprintf(" (+%d descendants)", c.Descendants)
			}
			fmt.Fprintf(w, "  %-6s %s [%s] %s%s\n         id %s  reason %s  fields %s\n", c.PatchType, c.Path, c.ClassName, where, extra, c.ID, c.Reason, strings.Join(c.Fields, ","))
			if c.StudioHash != "" || c.DiskHash != "" {
				fmt.Fprintf(w, "         studioHash %s  diskHash %s  baseHash %s\n", short(c.StudioHash), short(c.DiskHash), short(c.BaseHash))
			}
			names := make([]string, 0, len(c.Properties))
			for k := range c.Properties {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, n := range names {
				p := c.Properties[n]
				fmt.Fprintf(w, "         %s: studio %s, disk %s, base %s\n", n, jsonText(p.Current), jsonText(p.Incoming), jsonText(p.Base))
			}
			if diff {
				if src, ok := d.Sources[c.ID]; ok {
					writeDiff(w, c, src)
				}
			}
		}
	}
	fmt.Fprintf(w, "\nTo apply: atlas sync apply --token %s\n(the token expires at %s)\n", d.ConfirmToken, d.ExpiresAt.Local().Format(time.Kitchen))
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "-"
	}
	return h
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

func writeDiff(w io.Writer, c *plan.Change, src host.ChangeSources) {
	from, to := "", ""
	if src.Studio != nil {
		from = *src.Studio
	}
	if src.Disk != nil {
		to = *src.Disk
	}
	for _, line := range strings.Split(strings.TrimRight(unifiedDiff("studio/"+c.Path, "disk/"+c.Path, from, to), "\n"), "\n") {
		if line != "" {
			fmt.Fprintln(w, "         "+line)
		}
	}
}

func renderApply(w io.Writer, d *host.ApplyData) {
	fmt.Fprintf(w, "Applied transaction %s: %d change(s), %d Studio op(s), %d file(s).\n", d.TxID, len(d.Applied), d.StudioOps, len(d.Files))
	for _, x := range d.Applied {
		fmt.Fprintf(w, "  %-4s %-6s %s\n", x.Direction, x.PatchType, x.Path)
	}
	for _, f := range d.Files {
		fmt.Fprintf(w, "  %-6s %s\n", f.Action, f.Path)
	}
	if len(d.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped %d change(s).\n", len(d.Skipped))
	}
}
