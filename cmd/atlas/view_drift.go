package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
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
	undecided := false
	for _, c := range d.Changes {
		mark := " "
		if blocking[c.ID] {
			mark = "!"
			undecided = undecided || c.Direction == ""
		}
		fmt.Fprintf(w, " %s %-17s %s [%s] %s (%s)\n", mark, studioWork(c.PatchType), c.Path, c.ClassName, c.FsPath, c.Reason)
	}
	if staged && len(d.Blocking) > 0 {
		fmt.Fprintln(w, "Commit blocked: files you are committing differ in Studio ('!' above).")
		if undecided {
			// A change both sides made, or one a guard holds: 'atlas sync' would not
			// pull it.
			fmt.Fprintln(w, "Decide them first ('atlas sync plan', then 'atlas sync --yes --override ID=pull' or =push, after merging), or commit with --no-verify to skip this check.")
		} else {
			fmt.Fprintln(w, "Pull them first ('atlas sync'), or commit with --no-verify to skip this check.")
		}
	} else {
		fmt.Fprintln(w, strings.TrimSpace("Run 'atlas sync plan' to see them in detail."))
	}
}

// studioWork says what Studio did, for a change of Studio's: a patch type says what
// a push would do to Studio (an Add is what Studio lacks, a Remove what it has more).
func studioWork(p plan.PatchType) string {
	switch p {
	case plan.Add:
		return "deleted in Studio"
	case plan.Remove:
		return "added in Studio"
	}
	return "edited in Studio"
}
