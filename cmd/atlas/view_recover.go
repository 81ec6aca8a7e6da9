package main

import (
	"fmt"
	"io"

	"github.com/atlas-rbx/atlas/apply"
)

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
