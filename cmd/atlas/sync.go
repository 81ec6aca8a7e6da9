package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
	"github.com/atlas-rbx/atlas/syncflow"
)

// commandSync is the envelope's command of the one-step `atlas sync`.
const commandSync = "sync"

// syncOptions are `atlas sync`'s flags.
type syncOptions struct {
	IO             *ioStreams
	JSON           bool
	Session, Base  string
	Yes, Diff      bool
	SkipUnresolved bool
	Overrides      []apply.Override
	Prefer         string // disk, studio or ""
}

func (a *app) syncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "plan, show, confirm and apply a sync between disk and Studio",
		Flags: []cli.Flag{
			// (Local: the subcommands take their own flags; one of atlas sync's
			// given to them would be taken and ignored.)
			sessionFlag,
			&cli.StringFlag{Name: "base", Usage: "base revision for the three-way comparison (default HEAD)", Local: true},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "apply without asking", Local: true},
			&cli.BoolFlag{Name: "diff", Usage: "show unified diffs of scripts", Local: true},
			&cli.StringSliceFlag{Name: "override", Usage: "ID=push|pull|skip (repeatable)", Local: true},
			&cli.BoolFlag{Name: "skip-unresolved", Usage: "with --yes: leave the changes that need a decision as they are", Local: true},
			&cli.StringFlag{Name: "prefer", Usage: "decide every change that needs a decision toward disk or studio (you are asking for it)", Local: true},
			jsonFlag,
		},
		Commands: []*cli.Command{a.syncPlanCommand(), a.syncApplyCommand(), a.syncUndoCommand(), a.syncRecoverCommand()},
		Action: a.runAction(commandSync, func(ctx context.Context, c *cli.Command) (int, error) {
			overrides, err := a.readOverrides(c)
			if err != nil {
				return exitError, err
			}
			opts := &syncOptions{IO: a.io, JSON: a.jsonMode, Session: c.String("session"), Base: c.String("base"),
				Yes: c.Bool("yes"), Diff: c.Bool("diff"), SkipUnresolved: c.Bool("skip-unresolved"),
				Overrides: overrides, Prefer: c.String("prefer")}
			return runSync(ctx, opts, a.engine(c))
		}),
	}
}

// runSync is `atlas sync`: plan, show, ask, apply (the one-step sync, with the
// person answering at the terminal). With --yes nobody is asked, and the apply
// engine refuses what has no direction; --json needs --yes.
func runSync(ctx context.Context, opts *syncOptions, eng syncflow.Engine) (int, error) {
	prefer, err := preferDirection(opts.Prefer)
	if err != nil {
		return exitError, err
	}
	if err := apply.ValidateOverrides(opts.Overrides); err != nil {
		return exitError, err
	}
	st := opts.IO.style()
	req := syncflow.Request{
		Mode:           syncflow.Manual,
		Plan:           host.PlanRequest{SessionID: opts.Session, Base: opts.Base, Sources: opts.Diff, Files: true},
		Overrides:      opts.Overrides,
		Prefer:         prefer,
		SkipUnresolved: opts.SkipUnresolved,
	}
	undecided := false // the person was told what to decide, and asked nothing
	if opts.Yes {
		req.Mode = syncflow.Direct
	} else {
		req.Review = func(ctx context.Context, q syncflow.Question) (*host.ReviewData, error) {
			if opts.JSON {
				return nil, errcode.New(errcode.ConfirmRequired, "confirmation required: pass --yes with --json").
					Reason(errcode.ReasonConfirmRequired, errcode.NextConfirm)
			}
			renderPlan(opts.IO.Out, q.Plan, planView{style: st, diff: opts.Diff, choices: choices(q.Overrides)})
			ok, asked := confirm(opts.IO, len(q.Plan.Changes)-len(q.Unresolved), len(q.Unresolved))
			undecided = !asked
			if !ok {
				return &host.ReviewData{Decision: string(protocol.Abort)}, nil
			}
			return &host.ReviewData{Decision: string(protocol.Accept)}, nil
		}
	}
	res, err := syncflow.Run(ctx, eng, req)
	if res.Status == syncflow.StatusEmpty {
		opts.IO.emit(opts.JSON, commandSync, map[string]any{"plan": res.Plan, "applied": nil}, res.Plan.Warnings,
			func(w io.Writer) { fmt.Fprintln(w, "Disk and Studio are in sync.") })
		return exitOK, nil
	}
	if opts.Yes && !opts.JSON && res.Plan != nil {
		renderPlan(opts.IO.Out, res.Plan, planView{style: st, diff: opts.Diff, choices: choices(syncflow.Prefer(res.Plan, opts.Overrides, prefer))})
		fmt.Fprintln(opts.IO.Out)
	}
	switch {
	case err != nil:
		if res.Plan != nil && len(res.Plan.Warnings) > 0 {
			// (the plan's warnings often say why: unsaved editor text, a guard)
			return exitError, &warnedError{err, res.Plan.Warnings}
		}
		return exitError, err
	case undecided:
		return exitError, nil
	case res.Status == syncflow.StatusRejected:
		return exitError, errcode.New(errcode.ConfirmRequired, "not applied: you did not confirm").Reason(errcode.ReasonNotConfirmed, errcode.NextRetry)
	}
	opts.IO.emit(opts.JSON, commandSync, map[string]any{"plan": res.Plan, "applied": res.Applied}, res.Plan.Warnings,
		func(w io.Writer) { renderApply(w, res.Applied, st) })
	return exitOK, nil
}

// preferDirection reads --prefer: disk wins is a push, Studio wins a pull.
func preferDirection(s string) (plan.Direction, error) {
	switch s {
	case "":
		return "", nil
	case "disk":
		return plan.Push, nil
	case "studio":
		return plan.Pull, nil
	}
	return "", errcode.New(errcode.Usage, "--prefer must be disk or studio, not %q", s).Reason(errcode.ReasonUsage, errcode.NextFixRequest)
}

// choices are the directions the person gave, by change id.
func choices(overrides []apply.Override) map[string]plan.Direction {
	m := make(map[string]plan.Direction, len(overrides))
	for _, o := range overrides {
		m[o.ID] = o.Direction
	}
	return m
}

// confirm asks whether to apply the resolved changes (and leave the undecided
// ones), and reads the answer. With nothing resolved it asks nothing, since the
// only answers would fail: it says what must be decided and how.
func confirm(s *ioStreams, resolved, undecided int) (ok, asked bool) {
	st := s.style()
	w := s.Out
	if resolved == 0 {
		fmt.Fprintf(w, "\n%s, so there is nothing to apply yet.\n", st.bold(fmt.Sprintf("%d %s your decision", undecided, plural(undecided, "change needs", "changes need"))))
		fmt.Fprintln(w, "Decide, then run atlas sync again with:")
		fmt.Fprintln(w, "  --prefer disk|studio          the same side wins for all of them, or")
		fmt.Fprintln(w, "  --override ID=push|pull|skip  for each (push: Studio takes disk's version; pull: disk takes Studio's)")
		fmt.Fprintln(w, "atlas script get --id ID shows Studio's version of a script.")
		return false, false
	}
	if undecided == 0 {
		fmt.Fprintf(w, "\nApply %s? [y/N] ", plural(resolved, "this change", fmt.Sprintf("these %d changes", resolved)))
	} else {
		fmt.Fprintf(w, "\nApply the %d %s with a direction and leave the %d that %s your decision as they are? [y/N] ",
			resolved, plural(resolved, "change", "changes"), undecided, plural(undecided, "needs", "need"))
	}
	line, _ := bufio.NewReader(s.In).ReadString('\n')
	if !s.stdinTTY {
		fmt.Fprintln(w) // a terminal echoed the answer and its newline; a pipe did not
	}
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes", true
}
