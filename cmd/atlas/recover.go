package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// syncRecoverCommand is `atlas sync recover [--finish|--abort] [--tx ID] [--json]`:
// it shows the open transactions (what each writes, where Studio and disk stand)
// and resolves one on the person's word.
func (a *app) syncRecoverCommand() *cli.Command {
	return &cli.Command{
		Name:  "recover",
		Usage: "show open transactions (what they write, where Studio and disk stand) and finish or abort one",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tx", Usage: "the transaction to show or resolve (default: the only open one)"},
			&cli.BoolFlag{Name: "finish", Usage: "write the transaction's files (each only if it still holds what the plan saw), whatever Studio holds"},
			&cli.BoolFlag{Name: "abort", Usage: "drop the transaction: put back the files it wrote and leave Studio as it is (Ctrl+Z in Studio takes the patch back)"},
			jsonFlag,
		},
		Action: a.action("sync.recover", func(ctx context.Context, c *cli.Command) error {
			req := host.RecoverRequest{TxID: c.String("tx")}
			switch {
			case c.Bool("finish") && c.Bool("abort"):
				return errcode.New(errcode.Usage, "--finish and --abort exclude each other").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
			case c.Bool("finish"):
				req.Action = apply.ActionFinish
			case c.Bool("abort"):
				req.Action = apply.ActionAbort
			}
			cl, _, err := a.client(c)
			if err != nil {
				return err
			}
			d, err := cl.Recover(ctx, req)
			if err != nil {
				return err
			}
			var warnings []string
			if d.Resolved != nil {
				warnings = d.Resolved.Warnings
			}
			a.emit("sync.recover", d, warnings, func(w io.Writer) { renderRecover(w, d) })
			return nil
		}),
	}
}

func renderRecover(w io.Writer, d *apply.RecoverResult) {
	if r := d.Resolved; r != nil {
		verb := "Finished"
		if r.Action == apply.ActionAbort {
			verb = "Aborted"
		}
		fmt.Fprintf(w, "%s transaction %s (now %s): %d file(s).\n", verb, r.TxID, r.State, len(r.Files))
		for _, f := range r.Files {
			fmt.Fprintf(w, "  %-7s %s\n", f.Action, f.Path)
		}
		for _, s := range r.Studio {
			if s.Side == apply.SideAfter {
				fmt.Fprintf(w, "  Studio still holds the %s of %s: use Ctrl+Z in Studio to take it back\n", s.Change, s.Path)
			}
		}
		fmt.Fprintf(w, "The pre-images stay in the journal of %s.\n", r.TxID)
	}
	if len(d.Transactions) == 0 {
		if d.Resolved == nil {
			fmt.Fprintln(w, "No open transaction.")
		}
		return
	}
	for _, t := range d.Transactions {
		fmt.Fprintf(w, "Transaction %s: %s", t.TxID, t.State)
		if t.Waiting != "" {
			fmt.Fprintf(w, ", waiting for %s", t.Waiting)
		}
		fmt.Fprintf(w, " (place %d %q, since %s)\n", t.PlaceID, t.PlaceName, t.CreatedAt.Local().Format("2006-01-02 15:04:05"))
		if t.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", t.Error)
		}
		fmt.Fprintf(w, "  Studio: %s\n", t.Studio)
		for _, s := range t.Instances {
			fmt.Fprintf(w, "    %-7s %-7s %s\n", s.Side, s.Change, s.Path)
		}
		fmt.Fprintln(w, "  Disk:")
		for _, f := range t.Files {
			fmt.Fprintf(w, "    %-7s %-7s %s\n", f.Side, f.Change, f.Path)
		}
	}
	fmt.Fprintln(w, "Resolve with 'atlas sync recover --finish' (write the files) or '--abort' (leave them; Ctrl+Z in Studio), with --tx ID when several are open.")
}
