package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/host"
)

// renderApply shows an applied transaction by its effect on each side: Studio's
// from the applied changes, disk's from the files written (a pull may write a meta
// or project file, or a folder, besides the file the plan named).
func renderApply(w io.Writer, d *host.ApplyData, st style) {
	if d.TxID == "" {
		// Nothing was written, so no transaction was journaled: none to name, or undo.
		n := len(d.Skipped)
		fmt.Fprintf(w, "%s: %d %s left as %s; nothing was written, so there is no transaction to undo.\n",
			st.bold("Applied nothing"), n, plural(n, "change", "changes"), plural(n, "it was", "they were"))
		return
	}
	fmt.Fprintf(w, "%s transaction %s: %d %s, %d Studio %s, %d %s.\n", st.bold("Applied"), d.TxID,
		len(d.Applied), plural(len(d.Applied), "change", "changes"), d.StudioOps, plural(d.StudioOps, "op", "ops"),
		len(d.Files), plural(len(d.Files), "file", "files"))
	var lines []effect
	for _, x := range d.Applied {
		if e := effectOf(x.Direction, x.PatchType, x.Path, x.FsPath); e.side == sideStudio {
			lines = append(lines, e)
		}
	}
	var kept []string
	for _, f := range d.Files {
		switch f.Action {
		case "kept":
			kept = append(kept, f.Path)
		case "mkdir":
			lines = append(lines, effect{sideDisk, "create", f.Path + "/"})
		case "rmdir":
			lines = append(lines, effect{sideDisk, "delete", f.Path + "/"})
		case "write":
			lines = append(lines, effect{sideDisk, "update", f.Path})
		default:
			lines = append(lines, effect{sideDisk, f.Action, f.Path})
		}
	}
	sortEffects(lines)
	for _, e := range lines {
		fmt.Fprintf(w, "  %s %s %s\n", st.bold(e.side+":"), verbColor(st, e.verb), e.target)
	}
	for _, k := range kept {
		fmt.Fprintf(w, "  %s %s %s\n", st.yellow("kept:"), k, st.dim("(it changed after the plan; the next plan shows it)"))
	}
	if n := len(d.Skipped); n > 0 {
		fmt.Fprintf(w, "Left %d %s as %s.\n", n, plural(n, "change", "changes"), plural(n, "it was", "they were"))
	}
}

// renderUndo shows an undone transaction.
func renderUndo(w io.Writer, d *apply.UndoResult, st style) {
	files := d.FilesUndone()
	fmt.Fprintf(w, "%s transaction %s: %d Studio %s, %d %s.\n", st.bold("Undid"), d.TxID,
		d.StudioOps, plural(d.StudioOps, "op", "ops"), files, plural(files, "file", "files"))
	// Each side as an apply lists it: Studio's ops (what was put back, or removed),
	// then the files.
	for _, c := range d.Studio {
		what := ""
		if len(c.Properties) > 0 {
			what = " " + st.dim("("+strings.Join(c.Properties, ", ")+")")
		}
		fmt.Fprintf(w, "  %s %s %s%s\n", st.bold(sideStudio+":"), verbColor(st, c.Action), c.Path, what)
	}
	var kept []apply.FileChange
	for _, f := range d.Files {
		switch f.Action {
		case "kept":
			kept = append(kept, f)
		case "mkdir":
			fmt.Fprintf(w, "  %s %s %s/\n", st.bold(sideDisk+":"), verbColor(st, "create"), f.Path)
		case "rmdir":
			fmt.Fprintf(w, "  %s %s %s/\n", st.bold(sideDisk+":"), verbColor(st, "delete"), f.Path)
		default:
			fmt.Fprintf(w, "  %s %s %s\n", st.bold(sideDisk+":"), verbColor(st, f.Action), f.Path)
		}
	}
	for _, k := range kept {
		why := "(it changed while the undo ran; left as it is)"
		if k.Reason == apply.KeptNotWritten {
			why = "(the sync left it as you had it and wrote nothing there; left as it is)"
		}
		fmt.Fprintf(w, "  %s %s %s\n", st.yellow("kept:"), k.Path, st.dim(why))
	}
	// Studio's history: this undo's own recording (when it changed Studio) is the
	// newest, then the sync's.
	how := "Ctrl+Z in Studio takes back the sync"
	if d.StudioOps > 0 {
		how = "in Studio, Ctrl+Z twice takes back this undo, then the sync"
	}
	for _, m := range d.Manual {
		fmt.Fprintf(w, "  Studio: %s was removed by the sync and an undo cannot put it back (%s)\n", m, how)
	}
}
