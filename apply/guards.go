package apply

import (
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// The guards over the decision table (plan.Guards) at apply: their refusals, and a
// pull that cannot be written to disk unambiguously.

// guardReasons are the plan reasons of the guards that override the table, and the
// reason an apply gives when every change it lacks a direction for has that one.
var guardReasons = map[plan.Reason]errcode.Reason{
	plan.PlaceChanged:       errcode.ReasonPlaceChanged,
	plan.MassDelete:         errcode.ReasonMassDelete,
	plan.DuplicateName:      errcode.ReasonDuplicateName,
	plan.ProjectNodeRemoved: errcode.ReasonProjectNodeRemoved,
	plan.StudioMassDelete:   errcode.ReasonStudioMassDelete,
}

// unresolvedError refuses changes without a direction (ids). When a guard held them
// all back, the reason is the guard's; details.duplicates names the same-named
// siblings of those held back for their names.
func unresolvedError(p *plan.Plan, ids []string) error {
	reason, next := errcode.ReasonUnresolved, []errcode.NextAction{errcode.NextPassOverride, errcode.NextSkipUnresolved}
	common := p.Find(ids[0]).Reason
	for _, id := range ids[1:] {
		if p.Find(id).Reason != common {
			common = ""
		}
	}
	if r, ok := guardReasons[common]; ok {
		reason = r
		if common == plan.DuplicateName {
			next = []errcode.NextAction{errcode.NextRenameInStudio, errcode.NextSkipUnresolved}
		}
	}
	e := errcode.New(errcode.Unresolved, "%d change(s) have no direction; choose push, pull or skip for each", len(ids)).
		Reason(reason, next...).With("ids", ids)
	if p.Guards != nil && len(p.Guards.Duplicates) > 0 {
		var dups []plan.Duplicate
		for _, d := range p.Guards.Duplicates {
			if slices.Contains(ids, d.ID) {
				dups = append(dups, d)
			}
		}
		if dups != nil {
			e.With("duplicates", dups)
		}
	}
	return e
}

// duplicateError refuses to pull change c, whose instance shares its name with
// siblings (or whose file would be another pulled change's): nothing is written.
func duplicateError(c *plan.Change, sibs []plan.Sibling) error {
	names := make([]string, len(sibs))
	for i, s := range sibs {
		names[i] = s.Path + " (" + s.ID + ")"
	}
	return errcode.New(errcode.Unresolved, "%s (%s) cannot be pulled unambiguously: %s has the same name, and both would be one file; nothing was written",
		c.Path, c.ID, strings.Join(names, ", ")).
		Reason(errcode.ReasonDuplicateName, errcode.NextRenameInStudio, errcode.NextPassOverride).
		With("ids", []string{c.ID}).
		With("duplicates", []plan.Duplicate{{ID: c.ID, Path: c.Path, FsPath: c.FsPath, Siblings: sibs}})
}

// unambiguous refuses to pull c when its instance shares its name with a sibling
// (on disk or in Studio; ignoring case where the file system does).
func unambiguous(st *State, c *plan.Change, disk, studio map[string]*dom.Instance) error {
	x := c.Studio
	if x == nil {
		x = c.Disk
	}
	if sibs := plan.SameNamed(x, disk, studio, st.FoldCase); len(sibs) > 0 {
		return duplicateError(c, sibs)
	}
	return nil
}

// claim records the files c's pull writes or deletes in files (by the name the file
// system compares), refusing a file another change of the transaction already has.
func claim(files map[string]*plan.Change, c *plan.Change, ops []project.FileOp, foldCase bool) error {
	for _, f := range ops {
		if f.Dir {
			continue
		}
		key := f.Path
		if foldCase {
			key = strings.ToLower(key)
		}
		if other := files[key]; other != nil && other != c {
			return duplicateError(c, []plan.Sibling{{ID: other.ID, Path: other.Path, FsPath: f.Path}})
		}
		files[key] = c
	}
	return nil
}
