package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// planView says how to show a plan.
type planView struct {
	style style
	// diff adds unified diffs of scripts (from the plan's sources).
	diff bool
	// choices are the directions the person gave (--override, --prefer) by change
	// id; they stand in for the plan's own.
	choices map[string]plan.Direction
	// token ends the view with the command that applies the plan.
	token bool
}

// The sides a change writes, as the plan view groups them.
const (
	sideStudio   = "Studio"
	sideDisk     = "disk"
	sideDecision = "needs your decision"
	sideSkip     = "left as they are"
)

// effect is what a change does, in a person's terms: the side it writes, the verb
// (create, update, delete) and what it names there (the file for disk, the
// instance's path in the DataModel for Studio).
type effect struct {
	side, verb, target string
}

// effectOf turns a change's direction and patch type (from the disk→Studio point
// of view) into its effect: a pull of a Remove creates the file.
func effectOf(dir plan.Direction, pt plan.PatchType, path, fsPath string) effect {
	verbs := map[plan.PatchType]string{plan.Add: "create", plan.Edit: "update", plan.Remove: "delete"}
	switch dir {
	case plan.Push:
		return effect{sideStudio, verbs[pt], path}
	case plan.Pull:
		switch pt {
		case plan.Add:
			return effect{sideDisk, "delete", orPath(fsPath, path)}
		case plan.Remove:
			return effect{sideDisk, "create", orPath(fsPath, path)}
		}
		return effect{sideDisk, "update", orPath(fsPath, path)}
	case plan.Skip:
		return effect{sideSkip, "", orPath(fsPath, path)}
	}
	return effect{sideDecision, "", orPath(fsPath, path)}
}

func orPath(fsPath, path string) string {
	if fsPath != "" {
		return fsPath
	}
	return path
}

// baseName is how the view names the base commit: its branch, else its commit.
func baseName(b host.BaseData) string {
	ref := strings.TrimPrefix(strings.TrimPrefix(b.Ref, "refs/heads/"), "refs/tags/")
	switch {
	case ref != "" && ref != "HEAD":
		return ref
	case len(b.Commit) >= 12:
		return b.Commit[:12]
	case b.Commit != "":
		return b.Commit
	}
	return "HEAD"
}

// reasonText says why a change got its direction, in words.
func reasonText(c *plan.Change, b host.BaseData) string {
	since := " since " + baseName(b)
	switch c.Reason {
	case plan.DiskChanged:
		return "changed on disk" + since
	case plan.StudioChanged:
		return "changed in Studio" + since
	case plan.BothChanged:
		return "changed on both sides" + since
	case plan.NewOnDisk:
		return "new on disk"
	case plan.NewInStudio:
		return "new in Studio"
	case plan.DeletedOnDisk:
		return "deleted on disk"
	case plan.DeletedInStudio:
		return "deleted in Studio"
	case plan.DeleteEditConflict:
		switch c.PatchType {
		case plan.Add: // on disk, gone from Studio
			return "deleted in Studio, changed on disk" + since
		case plan.Remove:
			return "deleted on disk, changed in Studio" + since
		}
		return "deleted on one side, changed on the other" + since
	case plan.NoBase:
		if b.Commit == "" {
			return "no base commit to compare with"
		}
		return "on both sides, not in " + baseName(b)
	}
	return string(c.Reason)
}

// planGroups is the order of the groups, and the order of verbs in one.
var (
	planGroups = []string{sideStudio, sideDisk, sideDecision, sideSkip}
	verbOrder  = map[string]int{"create": 0, "update": 1, "delete": 2}
)

// effectLess orders effects by side (Studio, disk, …), verb, then target.
func effectLess(a, b effect) bool {
	if a.side != b.side {
		return slices.Index(planGroups, a.side) < slices.Index(planGroups, b.side)
	}
	if verbOrder[a.verb] != verbOrder[b.verb] {
		return verbOrder[a.verb] < verbOrder[b.verb]
	}
	return a.target < b.target
}

func sortEffects(es []effect) {
	sort.SliceStable(es, func(i, j int) bool { return effectLess(es[i], es[j]) })
}

// renderPlan shows a plan grouped by what each change does to each side, with the
// reason in words, property values as old → new, and with v.diff unified diffs.
func renderPlan(w io.Writer, d *host.PlanData, v planView) {
	st := v.style
	base := "no base commit"
	if d.Base.Commit != "" {
		base = "base " + baseName(d.Base)
		if short := shortHash(d.Base.Commit); short != baseName(d.Base) {
			base += " (" + short + ")"
		}
	}
	fmt.Fprintf(w, "%s %s, %s, Studio %q (session %s)\n", st.bold("Plan"), shortHash(d.PlanHash), base, d.Session.PlaceName, d.Session.ID)
	if len(d.Changes) == 0 {
		fmt.Fprintln(w, "No differences: disk and Studio are in sync.")
		return
	}
	type item struct {
		c      *plan.Change
		e      effect
		chosen bool
	}
	groups := map[string][]item{}
	for _, c := range d.Changes {
		dir, chosen := c.Direction, false
		if ch, ok := v.choices[c.ID]; ok {
			dir, chosen = ch, true
		}
		e := effectOf(dir, c.PatchType, c.Path, c.FsPath)
		if f, ok := d.Files[c.ID]; ok && e.side != sideStudio {
			switch {
			case c.FsPath != "":
				e.target = f // the file a pull of properties writes (a meta file)
			case c.PatchType == plan.Edit:
				e.target = c.Path + " in " + f // the project file that declares it
			default:
				e.target = f // the file a pull creates
			}
		}
		groups[e.side] = append(groups[e.side], item{c, e, chosen})
	}
	fmt.Fprintln(w, countLine(len(groups[sideStudio]), len(groups[sideDisk]), len(groups[sideDecision]), len(groups[sideSkip])))
	for _, side := range planGroups {
		items := groups[side]
		sort.SliceStable(items, func(i, j int) bool { return effectLess(items[i].e, items[j].e) })
		if len(items) > 0 {
			fmt.Fprintln(w)
		}
		for _, it := range items {
			c, e := it.c, it.e
			why := reasonText(c, d.Base)
			if it.chosen {
				why += "; your choice"
			}
			extra := ""
			if c.Descendants > 0 {
				extra = fmt.Sprintf(", with %d inside", c.Descendants)
			}
			switch side {
			case sideDecision:
				fmt.Fprintf(w, "%s %s (%s%s)\n", st.magenta(st.bold(side+":")), e.target, why, extra)
				fmt.Fprintf(w, "    %s\n", st.dim(fmt.Sprintf("%s (%s), id %s", c.Path, c.ClassName, c.ID)))
			case sideSkip:
				fmt.Fprintf(w, "%s %s (%s%s)\n", st.dim(side+":"), e.target, why, extra)
			default:
				fmt.Fprintf(w, "%s %s %s (%s%s)\n", st.bold(side+":"), verbColor(st, e.verb), e.target, why, extra)
			}
			renderDetails(w, c, side, v, d.Sources)
		}
	}
	if n := len(groups[sideDecision]); n > 0 {
		fmt.Fprintf(w, "\n%s\n", st.dim("Decide with --override ID=push (Studio takes disk's version), =pull (disk takes Studio's) or =skip; or --prefer disk|studio for all."))
	}
	if v.token {
		fmt.Fprintf(w, "\nTo apply: atlas sync apply --token %s\n", d.ConfirmToken)
		note := "the token expires at " + d.ExpiresAt.Local().Format(time.Kitchen)
		if n := len(groups[sideDecision]); n > 0 {
			note += fmt.Sprintf("; add an --override for each of the %d undecided, or --skip-unresolved to leave them", n)
		}
		fmt.Fprintf(w, "(%s)\n", note)
	}
}

// countLine counts the changes per group: "4 changes: 2 in Studio, 1 on disk, 1
// needs your decision".
func countLine(studio, disk, decide, skip int) string {
	var parts []string
	if studio > 0 {
		parts = append(parts, fmt.Sprintf("%d in Studio", studio))
	}
	if disk > 0 {
		parts = append(parts, fmt.Sprintf("%d on disk", disk))
	}
	if decide > 0 {
		parts = append(parts, fmt.Sprintf("%d %s your decision", decide, plural(decide, "needs", "need")))
	}
	if skip > 0 {
		parts = append(parts, fmt.Sprintf("%d left as %s", skip, plural(skip, "it is", "they are")))
	}
	total := studio + disk + decide + skip
	return fmt.Sprintf("%d %s: %s", total, plural(total, "change", "changes"), strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func verbColor(st style, verb string) string {
	switch verb {
	case "create":
		return st.green(verb)
	case "delete":
		return st.red(verb)
	}
	return st.yellow(verb)
}

// renderDetails shows what changes inside one change: property values as old →
// new on the side that is written (or all three when undecided), the other fields
// by name, and with v.diff the script's unified diff.
func renderDetails(w io.Writer, c *plan.Change, side string, v planView, sources map[string]host.ChangeSources) {
	st := v.style
	const indent = "    "
	names := make([]string, 0, len(c.Properties))
	for n := range c.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := c.Properties[n]
		studio, disk := valueText(p.Current.V), valueText(p.Incoming.V)
		switch side {
		case sideStudio:
			fmt.Fprintf(w, "%s%s: %s → %s\n", indent, n, studio, disk)
		case sideDisk:
			fmt.Fprintf(w, "%s%s: %s → %s\n", indent, n, disk, studio)
		default:
			fmt.Fprintf(w, "%s%s: Studio %s, disk %s, base %s\n", indent, n, studio, disk, valueText(p.Base.V))
		}
	}
	var other []string
	for _, f := range c.Fields {
		if _, ok := c.Properties[f]; !ok && f != "Instance" {
			other = append(other, f)
		}
	}
	if len(other) > 0 && c.PatchType == plan.Edit {
		fmt.Fprintf(w, "%s%s\n", indent, st.dim("changed: "+strings.Join(other, ", ")))
	}
	if src, ok := sources[c.ID]; ok && v.diff {
		writeDiff(w, c, side, src, st)
	}
}

func shortHash(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+13 {
		return h[:i+13]
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// writeDiff shows a script change as a unified diff of what the written side has
// now against what it gets: Studio → disk for a push, disk → Studio for a pull,
// Studio → disk for an undecided one.
func writeDiff(w io.Writer, c *plan.Change, side string, src host.ChangeSources, st style) {
	text := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	studioName, diskName := "Studio "+c.Path, "disk "+orPath(c.FsPath, c.Path)
	from, to, fromName, toName := text(src.Studio), text(src.Disk), studioName, diskName
	if side == sideDisk {
		from, to, fromName, toName = text(src.Disk), text(src.Studio), diskName, studioName
	}
	for _, line := range strings.Split(strings.TrimRight(unifiedDiff(fromName, toName, from, to), "\n"), "\n") {
		if line == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			line = st.bold(line)
		case strings.HasPrefix(line, "+"):
			line = st.green(line)
		case strings.HasPrefix(line, "-"):
			line = st.red(line)
		case strings.HasPrefix(line, "@@"):
			line = st.cyan(line)
		}
		fmt.Fprintln(w, "    "+line)
	}
}
