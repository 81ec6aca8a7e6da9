package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// The thresholds of the mass-deletion guard. Deletions on disk that the table
// defaults (deleted_in_studio) are held back, all of them, when together they
// would remove more than MassDeleteFiles files, or more than MassDeleteShare of the
// project's files (once at least MassDeleteMinFiles would go), or every file of a
// mapped folder or service (a project-file node with a $path to a folder) that
// holds at least MassDeleteMinContainer files.
const (
	MassDeleteFiles        = 20
	MassDeleteShare        = 0.5
	MassDeleteMinFiles     = 5
	MassDeleteMinContainer = 2
)

// Guards is what the guards that override the table held back (ARCHITECTURE §4).
type Guards struct {
	// PlaceChanged lists the deletions held back because Studio holds another
	// place, or an empty one.
	PlaceChanged []string `json:"placeChanged,omitempty"`
	// MassDelete lists the deletions held back because there are too many.
	MassDelete []string `json:"massDelete,omitempty"`
	// MassDeleteFiles is how many files those deletions would remove, and
	// MassDeleteRule which threshold they pass: "files", "share", or
	// "container" (then MassDeleteContainer is the folder's instance path).
	MassDeleteFiles     int    `json:"massDeleteFiles,omitempty"`
	MassDeleteRule      string `json:"massDeleteRule,omitempty"`
	MassDeleteContainer string `json:"massDeleteContainer,omitempty"`
	// Duplicates are the pulls held back because a sibling has the same name.
	Duplicates []Duplicate `json:"duplicates,omitempty"`
	// CannotPull lists the deletions in Studio no file removal can carry out: of
	// an instance a project file declares, or one inside a model file.
	CannotPull []string `json:"cannotPull,omitempty"`
	// ProjectNodeRemoved lists the deletions in Studio held back because the
	// project file no longer declares the instance it declared at the base.
	ProjectNodeRemoved []string `json:"projectNodeRemoved,omitempty"`
	// StudioMassDelete lists the deletions in Studio (files deleted on disk) held
	// back because there are too many: the thresholds of MassDelete, counted in
	// the base's files; StudioMassDeleteFiles, Rule and Container as MassDelete's.
	StudioMassDelete          []string `json:"studioMassDelete,omitempty"`
	StudioMassDeleteFiles     int      `json:"studioMassDeleteFiles,omitempty"`
	StudioMassDeleteRule      string   `json:"studioMassDeleteRule,omitempty"`
	StudioMassDeleteContainer string   `json:"studioMassDeleteContainer,omitempty"`
	// MergeConflict lists the changes held back because git holds their file in
	// conflict (Input.Unmerged).
	MergeConflict []string `json:"mergeConflict,omitempty"`
	// NameTooLong lists the pushes held back because they would give an instance
	// in Studio a name longer than it takes (MaxNameLength).
	NameTooLong []string `json:"nameTooLong,omitempty"`
	// Int64NotWritable lists the pushes held back because they would write an Int64
	// value Studio's scripts cannot write as it is (WritableInt64).
	Int64NotWritable []string `json:"int64NotWritable,omitempty"`
	// Unwritable are the pulls held back because the project's files cannot take
	// them as they are (Input.Writable): a class or name changed in Studio, an
	// instance inside a model file, a folder holding files no instance comes
	// from, and the like. Each change's reason is its refusal's.
	Unwritable []Unwritable `json:"unwritable,omitempty"`
}

// Unwritable is a pull held back because the project's files cannot take it.
type Unwritable struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	FsPath string `json:"fsPath,omitempty"`
	Refusal
}

// Duplicate is a change whose instance shares its name with siblings.
type Duplicate struct {
	ID       string    `json:"id"`
	Path     string    `json:"path"`
	FsPath   string    `json:"fsPath,omitempty"`
	Siblings []Sibling `json:"siblings"`
}

// Sibling is an instance that shares a name with a change's instance.
type Sibling struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	FsPath string `json:"fsPath,omitempty"`
}

// census counts file-backed instances and scripts among them.
type census struct{ files, scripts int }

// fileKinds are the kinds of instances that own a file of their own.
var fileKinds = map[dom.FileKind]bool{
	dom.KindInit: true, dom.KindScript: true, dom.KindText: true, dom.KindCSV: true, dom.KindJSON: true,
	dom.KindTOML: true, dom.KindYAML: true, dom.KindModel: true, dom.KindRbxmx: true, dom.KindRbxm: true,
}

// fileBacked reports whether x comes from a file of its own (not a project-file node).
func fileBacked(x *dom.Instance) bool { return x.ProjectFile() == "" && fileKinds[x.Kind] }

func (c *census) count(x *dom.Instance) {
	if fileBacked(x) {
		c.files++
		if x.IsScript() {
			c.scripts++
		}
	}
}

// censusOf counts the file-backed instances of x's subtree.
func censusOf(x *dom.Instance) census {
	var c census
	if x != nil {
		x.Walk(func(i *dom.Instance) bool { c.count(i); return true })
	}
	return c
}

// mappedContainer reports whether x is a folder a project file maps with $path.
func mappedContainer(x *dom.Instance) bool {
	return x.ProjectFile() != "" && (x.Kind == dom.KindDir || x.Kind == dom.KindInit)
}

// guard applies the guards to the table's result, in order: duplicate names,
// then the place, then mass deletion; a change held back by one is not counted by
// the next. The plan's hash is computed afterwards, so it binds their result.
func (c *computer) guard(p *Plan, total, present census) {
	g := &Guards{}
	c.guardMergeConflict(p, g)
	c.guardDuplicates(p, g)
	p.Place = c.in.Place
	if p.Place == "" {
		p.Place = PlaceUnknown
	}
	if empty(total, present) {
		p.Place = PlaceEmpty
	}
	var deletions, pulls []*Change
	for _, ch := range p.Changes {
		if ch.Direction != Pull {
			continue
		}
		if ch.PatchType == Add {
			deletions = append(deletions, ch)
		} else {
			pulls = append(pulls, ch)
		}
	}
	switch {
	case p.Place == PlaceDifferent && c.in.OtherPlace && len(deletions)+len(pulls) > 0:
		// Another place's scripts are not this project's newer work: nothing of
		// it is written to disk by default (a second project's Studio on the same
		// port, a place opened by mistake).
		for _, ch := range append(slices.Clip(deletions), pulls...) {
			hold(ch, PlaceChanged)
			g.PlaceChanged = append(g.PlaceChanged, ch.ID)
		}
		slices.Sort(g.PlaceChanged)
		p.Warnings = append(p.Warnings, fmt.Sprintf("Studio holds another place than the project's last sync: its %d change(s) to disk (%d deletion(s) of files) are left unresolved (place_changed); choose pull for a change to write it to disk, or push to give the place the project's version", len(deletions)+len(pulls), len(deletions)))
		deletions = nil
	case (p.Place == PlaceEmpty || p.Place == PlaceDifferent) && len(deletions) > 0:
		for _, ch := range deletions {
			hold(ch, PlaceChanged)
			g.PlaceChanged = append(g.PlaceChanged, ch.ID)
		}
		what := "another place than the project's last sync (or the synced one, saved before the sync marked it)"
		if p.Place == PlaceEmpty {
			what = "none of the project's instances (a new or different place)"
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("Studio holds %s: %d deletion(s) on disk are left unresolved (place_changed); choose pull for a change to delete its files", what, len(deletions)))
		deletions = nil
	}
	deletions = guardCannotPull(p, g, deletions)
	if rule, container, files := c.massDelete(deletions, total); rule != "" {
		for _, ch := range deletions {
			hold(ch, MassDelete)
			g.MassDelete = append(g.MassDelete, ch.ID)
		}
		g.MassDeleteFiles, g.MassDeleteRule, g.MassDeleteContainer = files, rule, container
		why := massDeleteWhy(rule, container, total)
		p.Warnings = append(p.Warnings, fmt.Sprintf("the plan would delete %d file(s) from disk, %s: the %d deletion(s) are left unresolved (mass_delete); choose pull for a change to delete its files", files, why, len(deletions)))
	}
	guardProjectNodeRemoved(p, g)
	c.guardUnwritable(p, g)
	guardStudioMassDelete(p, g, total)
	guardNameTooLong(p, g)
	guardInt64NotWritable(p, g)
	if len(g.PlaceChanged)+len(g.MassDelete)+len(g.Duplicates)+len(g.CannotPull)+len(g.ProjectNodeRemoved)+len(g.StudioMassDelete)+len(g.Unwritable)+len(g.MergeConflict)+len(g.NameTooLong)+len(g.Int64NotWritable) > 0 {
		p.Guards = g
	}
}

// guardCannotPull holds back the deletions on disk that the apply would refuse to
// write (project.PullRemove), a plan offering only what an apply can do, and
// returns the others.
func guardCannotPull(p *Plan, g *Guards, deletions []*Change) []*Change {
	n := 0
	kept := deletions[:0:0]
	for _, ch := range deletions {
		var r Reason
		switch {
		case ch.Disk == nil:
		case ch.Disk.ProjectFile() != "":
			r = ProjectNode
		case ch.Disk.Kind == dom.KindModelSub || ch.Disk.Kind == dom.KindInFile:
			r = InModelFile
		}
		if r == "" {
			kept = append(kept, ch)
			continue
		}
		hold(ch, r)
		g.CannotPull = append(g.CannotPull, ch.ID)
		n++
	}
	if n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d instance(s) deleted in Studio are declared in a project file or stored inside a model file, so no file can be removed for them: left unresolved (project_node, in_model_file); push to put them back in Studio, or edit the file by hand", n))
	}
	return kept
}

// guardStudioMassDelete holds back the deletions in Studio that the table pushes
// (files deleted on disk since the base), all of them, when together they pass the
// thresholds of the mass-deletion guard, counted in the base's files: more than
// MassDeleteFiles, more than MassDeleteShare of the project's, or every file of a
// mapped folder (StudioMassDelete). A folder emptied by mistake, or a checkout that
// dropped half the project, would otherwise empty Studio too.
func guardStudioMassDelete(p *Plan, g *Guards, total census) {
	var removals []*Change
	for _, ch := range p.Changes {
		if ch.PatchType == Remove && ch.Direction == Push && ch.Base != nil {
			removals = append(removals, ch)
		}
	}
	rule, container, files := massDeleteOf(removals, total, func(ch *Change) *dom.Instance { return ch.Base })
	if rule == "" {
		return
	}
	for _, ch := range removals {
		hold(ch, StudioMassDelete)
		g.StudioMassDelete = append(g.StudioMassDelete, ch.ID)
	}
	g.StudioMassDeleteFiles, g.StudioMassDeleteRule, g.StudioMassDeleteContainer = files, rule, container
	why := massDeleteWhy(rule, container, total)
	p.Warnings = append(p.Warnings, fmt.Sprintf("the plan would delete in Studio the instances of %d file(s) deleted on disk, %s: the %d deletion(s) are left unresolved (studio_mass_delete); choose push for a change to delete it in Studio", files, why, len(removals)))
}

// guardNameTooLong holds back the pushes that would make an instance in Studio whose
// name (or a descendant's) is longer than Studio takes: the apply would fail there.
func guardNameTooLong(p *Plan, g *Guards) {
	var first string
	for _, ch := range p.Changes {
		if ch.Direction != Push || ch.PatchType != Add || ch.Disk == nil {
			continue
		}
		long := ""
		ch.Disk.Walk(func(x *dom.Instance) bool {
			if len(x.Name) > MaxNameLength {
				long = x.Path()
				return false
			}
			return long == ""
		})
		if long == "" {
			continue
		}
		hold(ch, NameTooLong)
		g.NameTooLong = append(g.NameTooLong, ch.ID)
		if first == "" {
			first = long
		}
	}
	if n := len(g.NameTooLong); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d instance(s) new on disk have a name longer than Studio takes (%d bytes; e.g. %s): left unresolved (name_too_long); rename the file", n, MaxNameLength, first))
	}
}

// WritableInt64 reports whether a Studio script can write v as it is: Luau's numbers
// are doubles, which hold every integer up to 2^53 and only some past it, and none
// from 2^63 (2^63 - 1 is read as 2^63, past the Int64 range).
func WritableInt64(v int64) bool {
	f := float64(v)
	return f < 1<<63 && f >= -(1<<63) && int64(f) == v
}

// guardInt64NotWritable holds back the pushes that would write an Int64 value no
// Studio script can write as it is (WritableInt64): Studio would get the nearest
// double (the change would stay different for good) or refuse it (the whole apply
// would fail). A pull of such a value writes it exactly. A change already left
// without a direction (both_changed, no_base…) keeps its reason, and is listed too:
// --prefer push gives it no direction either.
func guardInt64NotWritable(p *Plan, g *Guards) {
	var first string
	for _, ch := range p.Changes {
		if ch.Direction == Pull || ch.Disk == nil || ch.PatchType == Remove {
			continue
		}
		bad := ""
		check := func(x *dom.Instance, name string) bool {
			if v, ok := x.Properties.Get(name).(dom.Int64); ok && !WritableInt64(int64(v)) {
				bad = fmt.Sprintf("%s.%s = %d", x.Path(), name, int64(v))
			}
			return bad == ""
		}
		if ch.PatchType == Add || slices.Contains(ch.Fields, "ClassName") {
			// (a class change replaces the instance: the whole subtree is written)
			ch.Disk.Walk(func(x *dom.Instance) bool {
				for name := range x.Properties.All() {
					if !check(x, name) {
						return false
					}
				}
				return true
			})
		} else {
			for _, name := range ch.Fields {
				if !check(ch.Disk, name) {
					break
				}
			}
		}
		if bad == "" {
			continue
		}
		if ch.Direction == Push {
			hold(ch, Int64NotWritable)
		}
		g.Int64NotWritable = append(g.Int64NotWritable, ch.ID)
		if first == "" {
			first = bad
		}
	}
	if n := len(g.Int64NotWritable); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d change(s) would push an Int64 value Studio's scripts cannot write as it is (past 2^53 only some integers are a Luau number; e.g. %s): left unresolved (int64_not_writable, data.guards.int64NotWritable); change the value on disk or skip it (or pull Studio's, where the file can take it)", n, first))
	}
}

// guardProjectNodeRemoved holds back the deletions in Studio (pushes of a Remove)
// of instances the base's project file declared and the project file no longer
// declares (ProjectNodeRemoved): the table pushes them as deleted on disk, but what
// changed is the project file, and removing a service or a mapped folder in Studio
// takes with it everything Studio holds there.
func guardProjectNodeRemoved(p *Plan, g *Guards) {
	for _, ch := range p.Changes {
		if ch.PatchType == Remove && ch.Direction == Push && ch.Base != nil && ch.Base.ProjectFile() != "" {
			hold(ch, ProjectNodeRemoved)
			g.ProjectNodeRemoved = append(g.ProjectNodeRemoved, ch.ID)
		}
	}
	if n := len(g.ProjectNodeRemoved); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d instance(s) declared by a project file at the base are not declared now: their deletion in Studio is left unresolved (project_node_removed); push to delete them in Studio (with everything Studio holds in them), or skip; to keep them, declare them in the project file again", n))
	}
}

// guardMergeConflict holds back every change (push, pull, or one the table left
// unresolved: the conflict is what to know) of an instance whose
// file (or a file in whose folder) git holds in conflict (Input.Unmerged).
func (c *computer) guardMergeConflict(p *Plan, g *Guards) {
	if len(c.in.Unmerged) == 0 {
		return
	}
	conflicted := func(ch *Change) bool {
		if fsPath := ch.FsPath; fsPath != "" {
			if c.in.Unmerged[fsPath] {
				return true
			}
			for f := range c.in.Unmerged {
				if strings.HasPrefix(f, fsPath+"/") {
					return true
				}
			}
		}
		// The project file that declares it, the meta file that sets its
		// properties, on disk or at the base.
		for _, x := range []*dom.Instance{ch.Disk, ch.Base} {
			if x != nil && (c.in.Unmerged[x.ProjectFile()] || c.in.Unmerged[x.MetaPath()]) {
				return true
			}
		}
		return false
	}
	var files []string
	for _, ch := range p.Changes {
		if !conflicted(ch) {
			continue
		}
		hold(ch, MergeConflict)
		g.MergeConflict = append(g.MergeConflict, ch.ID)
		files = append(files, ch.FsPath)
	}
	if len(files) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d change(s) are of files git holds in conflict (%s): left unresolved (merge_conflict); finish the merge (resolve, git add), then plan again", len(files), strings.Join(files, ", ")))
	}
}

// guardUnwritable holds back the pulls left that the apply would refuse to write
// to the project's files (Input.Writable), each with its refusal's reason.
func (c *computer) guardUnwritable(p *Plan, g *Guards) {
	if c.in.Writable == nil {
		return
	}
	var pulls []*Change
	for _, ch := range p.Changes {
		if ch.Direction == Pull {
			pulls = append(pulls, ch)
		}
	}
	if len(pulls) == 0 {
		return
	}
	refused := c.in.Writable(pulls)
	for _, ch := range pulls {
		r, ok := refused[ch.ID]
		if !ok {
			continue
		}
		hold(ch, r.Reason)
		g.Unwritable = append(g.Unwritable, Unwritable{ID: ch.ID, Path: ch.Path, FsPath: ch.FsPath, Refusal: r})
	}
	// A Studio-only instance the files cannot take, beside a deletion in Studio of
	// one of its class: maybe one rename (to a name no file can have, or that a file
	// holds), whose pull would delete the old file and write nothing.
	held := map[[2]string]string{} // parent id and class → the held instance's path
	for _, ch := range pulls {
		if _, ok := refused[ch.ID]; ok && ch.PatchType == Remove && ch.Studio != nil && ch.Studio.Parent != nil {
			held[[2]string{ch.Studio.Parent.ID, ch.Studio.ClassName}] = ch.Path
		}
	}
	for _, ch := range pulls {
		if ch.Direction != Pull || ch.PatchType != Add || ch.Disk == nil || ch.Disk.Parent == nil {
			continue
		}
		other, ok := held[[2]string{ch.Disk.Parent.ID, ch.Disk.ClassName}]
		if !ok {
			continue
		}
		hold(ch, RenameUnwritable)
		g.Unwritable = append(g.Unwritable, Unwritable{ID: ch.ID, Path: ch.Path, FsPath: ch.FsPath, Refusal: Refusal{Reason: RenameUnwritable,
			Message: fmt.Sprintf("deleted in Studio beside %s, which the files cannot take: maybe a rename, whose pull would delete %s and write nothing in its place; rename it in Studio to a name a file can have, or push to put it back", other, ch.FsPath)}})
	}
	if n := len(g.Unwritable); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d change(s) made in Studio cannot be written to the project's files as they are: left unresolved, each with its reason (data.guards.unwritable says why and what to do); push to undo them in Studio, or skip", n))
	}
}

// hold leaves ch unresolved for reason: the guards override the table.
func hold(ch *Change, reason Reason) {
	ch.Direction, ch.DefaultSelection, ch.Reason = "", "", reason
}

// empty reports whether Studio holds none of the project's scripts (or, for a
// project without scripts, none of its file-backed instances) while disk has some.
func empty(total, present census) bool {
	if total.scripts > 0 {
		return present.scripts == 0
	}
	return total.files > 0 && present.files == 0
}

// massDeleteWhy says in words which threshold of the mass-deletion guard passed.
func massDeleteWhy(rule, container string, total census) string {
	switch rule {
	case "files":
		return fmt.Sprintf("more than %d files", MassDeleteFiles)
	case "share":
		return fmt.Sprintf("more than %.0f%% of the project's %d files", MassDeleteShare*100, total.files)
	}
	return "every file of " + container
}

// massDelete says which threshold deletions pass ("" for none), the container
// they empty (rule "container"), and how many files they would remove.
func (c *computer) massDelete(deletions []*Change, total census) (rule, container string, files int) {
	return massDeleteOf(deletions, total, func(ch *Change) *dom.Instance { return ch.Disk })
}

// massDeleteOf is massDelete counting the files of side(ch) for each deletion: the
// disk's instance for a deletion on disk, the base's for one in Studio.
func massDeleteOf(deletions []*Change, total census, side func(*Change) *dom.Instance) (rule, container string, files int) {
	if len(deletions) == 0 {
		return "", "", 0
	}
	byContainer := map[*dom.Instance]int{}
	for _, ch := range deletions {
		x := side(ch)
		n := censusOf(x).files
		files += n
		for a := x.Parent; a != nil; a = a.Parent {
			if mappedContainer(a) {
				byContainer[a] += n
			}
		}
	}
	switch {
	case files > MassDeleteFiles:
		return "files", "", files
	case files >= MassDeleteMinFiles && float64(files) > MassDeleteShare*float64(total.files):
		return "share", "", files
	}
	var emptied []string
	for m, n := range byContainer {
		if all := censusOf(m).files; all >= MassDeleteMinContainer && n == all {
			emptied = append(emptied, m.Path())
		}
	}
	if len(emptied) > 0 {
		sort.Strings(emptied)
		return "container", emptied[0], files
	}
	return "", "", files
}

// nameKey is how a file system that folds case, or one that does not, compares a
// name.
func nameKey(name string, foldCase bool) string {
	if foldCase {
		return strings.ToLower(name)
	}
	return name
}

// guardDuplicates holds back every pull of an instance that has a sibling of the
// same name on either side: the files of two such siblings would be one path, and
// siblings of one name are paired by order, so the pull would be a guess.
func (c *computer) guardDuplicates(p *Plan, g *Guards) {
	var index map[string]*dom.Instance // the Studio tree's, made when first needed
	for _, ch := range p.Changes {
		if ch.Direction != Pull {
			continue
		}
		var studio map[string]*dom.Instance
		switch {
		case ch.Studio != nil && ch.Studio.Parent != nil:
			// The Studio parent is the change's own instance's.
			studio = map[string]*dom.Instance{ch.Studio.Parent.ID: ch.Studio.Parent}
		case ch.Studio == nil && index == nil && c.in.Studio != nil:
			index = c.in.Studio.Index()
			fallthrough
		default:
			studio = index
		}
		sibs := c.siblings(ch, studio)
		if len(sibs) == 0 {
			continue
		}
		hold(ch, DuplicateName)
		g.Duplicates = append(g.Duplicates, Duplicate{ID: ch.ID, Path: ch.Path, FsPath: ch.FsPath, Siblings: sibs})
		names := make([]string, len(sibs))
		for i, s := range sibs {
			names[i] = s.Path + " (" + s.ID + ")"
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s (%s) shares its name with %s: it is left unresolved (duplicate_name); give each sibling its own name in Studio", ch.Path, ch.ID, strings.Join(names, ", ")))
	}
}

// siblings lists the instances that share ch's instance's name.
func (c *computer) siblings(ch *Change, studio map[string]*dom.Instance) []Sibling {
	x := ch.Studio
	if x == nil {
		x = ch.Disk
	}
	return SameNamed(x, c.disk, studio, c.in.FoldCase)
}

// SameNamed lists the siblings of x (an instance of the disk or the Studio tree) that
// have its name, on disk or in Studio, each once, sorted by id; disk and studio index
// the two trees by id. With foldCase, names that differ only in case are the same
// name, as the file system compares them. Any sibling makes a pull of x ambiguous:
// their files would be one path, and siblings of one name are paired by order.
func SameNamed(x *dom.Instance, disk, studio map[string]*dom.Instance, foldCase bool) []Sibling {
	if x == nil || x.Parent == nil {
		return nil
	}
	key := nameKey(x.Name, foldCase)
	seen := map[string]bool{x.ID: true}
	var out []Sibling
	for _, parent := range []*dom.Instance{studio[x.Parent.ID], disk[x.Parent.ID]} {
		if parent == nil {
			continue
		}
		for _, s := range parent.Children {
			if seen[s.ID] || nameKey(s.Name, foldCase) != key {
				continue
			}
			seen[s.ID] = true
			fsPath := s.FsPath
			if d := disk[s.ID]; d != nil {
				fsPath = d.FsPath
			}
			out = append(out, Sibling{ID: s.ID, Path: s.Path(), FsPath: fsPath})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
