package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/atlas-rbx/atlas/host"
)

// renderDrift shows Studio work that git lacks, marking what blocks a commit.
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
