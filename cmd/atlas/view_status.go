package main

import (
	"fmt"
	"io"

	"github.com/atlas-rbx/atlas/host"
)

// renderStatus shows the host, the Studio sessions and open transactions.
func renderStatus(w io.Writer, d *host.StatusData, st style) {
	fmt.Fprintf(w, "project  %s (%s)\nhost     %s (pid %d, %s)\n", d.Project.Name, d.Project.File, d.Host.URL, d.Host.PID, d.Host.Kind)
	if len(d.Sessions) == 0 {
		fmt.Fprintf(w, "studio   %s\n", st.yellow("not connected"))
	}
	for _, s := range d.Sessions {
		playtest := ""
		if s.Context != "" && s.Context != "edit" {
			playtest = "  (a playtest's " + s.Context + ": read-only)"
		}
		fmt.Fprintf(w, "studio   %s  place %q (%d)%s\n", s.ID, s.PlaceName, s.PlaceID, playtest)
		if pc := s.PlaceCheck; pc != nil && (pc.State == "different" || pc.State == "empty") {
			held := "deletions on disk are left unresolved"
			if pc.State == "different" {
				held = "deletions on disk (and edits too, where it has another marker or place id) are left unresolved"
			}
			fmt.Fprintf(w, "         %s\n", st.yellow(string(pc.State)+" place: not the place of the last sync; "+held))
		}
	}
	for _, p := range d.Pending {
		fmt.Fprintf(w, "pending  transaction %s (%s)\n", p.TxID, p.State)
	}
}

// renderExec shows what code printed and returned; a failure goes to errOut.
func renderExec(w, errOut io.Writer, d *host.ExecData) {
	for _, l := range d.Output {
		prefix := ""
		if l.Level != "output" {
			prefix = string(l.Level) + ": "
		}
		fmt.Fprintln(w, prefix+l.Text)
	}
	for _, r := range d.Returns {
		fmt.Fprintln(w, "=>", r)
	}
	if !d.Success {
		fmt.Fprintln(errOut, "error:", d.Error)
	}
}
