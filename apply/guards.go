package apply

import (
	"errors"
	"fmt"
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
	plan.MergeConflict:      errcode.ReasonMergeConflict,
	plan.NameTooLong:        errcode.ReasonNameTooLong,
	plan.Int64NotWritable:   errcode.ReasonInt64NotWritable,
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
	if p.Guards != nil && len(p.Guards.Unwritable) > 0 {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		var held []plan.Unwritable
		for _, u := range p.Guards.Unwritable {
			if want[u.ID] {
				held = append(held, u)
			}
		}
		if len(held) == len(ids) {
			// Every change lacking a direction is a pull the files cannot take:
			// the refusal is theirs, as an apply that tried them would give it.
			reason = errcode.Reason(common)
			if common == "" {
				reason = errcode.ReasonUnresolved
			}
			msg := held[0].Message
			if len(held) > 1 {
				msg = fmt.Sprintf("%d change(s) made in Studio cannot be written to the project's files as they are (details.unwritable says why for each); the first: %s", len(held), msg)
			}
			return errcode.New(errcode.Unresolved, "%s", msg).
				Reason(reason, errcode.NextPassOverride, errcode.NextSkipUnresolved).
				With("ids", ids).With("unwritable", held)
		}
	}
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

// Unwritable runs, for a plan, the checks an apply makes before it writes pulls to
// the project's files: the writes each pull would make (project.PullEdit,
// PullAdd, PullRemove, on the files as they are) and no file written by two
// pulls. It returns the pulls an apply would refuse, by change id, with the
// refusal's reason and message. A pull whose check fails otherwise (a text that
// cannot be read back, a file that changed since the disk was read) is left out:
// the apply decides it. readTexts, when set, gives a pull's scripts the texts
// their trees let go. Nothing is written.
func Unwritable(st *State, diskIdx map[string]*dom.Instance, pulls []*plan.Change, readTexts func(*plan.Change) error) map[string]plan.Refusal {
	out := map[string]plan.Refusal{}
	set := newPullSet(st)
	w := &work{}
	for _, c := range pulls {
		if readTexts != nil && readTexts(c) != nil {
			continue
		}
		err := set.add(w, c, diskIdx)
		var r *project.Refusal
		var e *errcode.Error
		switch {
		case err == nil:
		case errors.As(err, &r):
			out[c.ID] = plan.Refusal{Reason: plan.Reason(r.Reason), Message: r.Error()}
		case errors.As(err, &e) && e.ReasonCode() == errcode.ReasonDuplicateName:
			out[c.ID] = plan.Refusal{Reason: plan.DuplicateName, Message: e.Message}
		}
	}
	return out
}
