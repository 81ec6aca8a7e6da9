package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

func (a *app) driftCommand() *cli.Command {
	return &cli.Command{
		Name:  "drift",
		Usage: "report work in Studio that git does not have (exit 2 when there is drift)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "as a pre-commit hook: block only when drift touches files being committed"},
			&cli.BoolFlag{Name: "strict", Usage: "block on any drift, and when no Studio is connected"},
			sessionFlag, jsonFlag,
		},
		Action: a.action("drift", func(ctx context.Context, c *cli.Command) error {
			staged, strict := c.Bool("staged"), c.Bool("strict")
			cl, _, err := a.client(c)
			if err != nil {
				if errcode.Of(err) == errcode.NoHost {
					return a.driftUnknown(strict, "no Atlas host is running: Studio drift not checked")
				}
				return err
			}
			d, err := cl.Drift(ctx, host.DriftRequest{SessionID: c.String("session"), Staged: staged})
			if err != nil {
				if staged && !strict {
					// The hook blocks a commit only for drift it saw, never for a failure.
					return a.driftUnknown(false, "drift not checked: "+errcode.As(err).Message)
				}
				return err
			}
			if !d.Connected {
				return a.driftUnknown(strict, d.Message)
			}
			block := d.Drift
			if staged && !strict {
				block = len(d.Blocking) > 0
			}
			out := a.stdout
			if staged && !block {
				out = a.stderr // the hook stays quiet on stdout unless it blocks
			}
			a.emit("drift", d, nil, func(io.Writer) { renderDrift(out, d, staged) })
			if block {
				a.exitCode = exitChanges
			}
			return nil
		}),
	}
}

func (a *app) driftUnknown(strict bool, msg string) error {
	d := &host.DriftData{Connected: false, Message: msg}
	a.emit("drift", d, nil, func(io.Writer) { fmt.Fprintln(a.stderr, "atlas drift:", msg) })
	if strict {
		a.exitCode = exitChanges
	}
	return nil
}

func renderDrift(w io.Writer, d *host.DriftData, staged bool) {
	if !d.Drift {
		fmt.Fprintln(w, "atlas drift: Studio has no work that git lacks.")
		return
	}
	blocking := map[string]bool{}
	for _, id := range d.Blocking {
		blocking[id] = true
	}
	fmt.Fprintf(w, "atlas drift: Studio %q has %d change(s) that git does not have:\n", d.Session.PlaceName, len(d.Changes))
	for _, c := range d.Changes {
		mark := " "
		if blocking[c.ID] {
			mark = "!"
		}
		fmt.Fprintf(w, " %s %s %s [%s] %s (%s)\n", mark, c.PatchType, c.Path, c.ClassName, c.FsPath, c.Reason)
	}
	if staged && len(d.Blocking) > 0 {
		fmt.Fprintln(w, "Commit blocked: files you are committing differ in Studio ('!' above).")
		fmt.Fprintln(w, "Pull them first ('atlas sync'), or commit with --no-verify to skip this check.")
	} else {
		fmt.Fprintln(w, strings.TrimSpace("Run 'atlas sync plan' to see them in detail."))
	}
}
