package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/atlas-rbx/atlas/dom"
)

// Compute returns the plan for in. It does not modify the trees.
//
// With in.Memo, Compute reuses the results of the previous Compute on the same memo
// for every subtree whose disk and Studio instances are the same (the same
// *dom.Instance, which trees that are never changed in place share when only some
// of their parts changed) and whose base is the same tree: only the changed parts
// are compared again. The plan, and its hash, are the ones a Compute from scratch
// gives.
func Compute(in Input) *Plan {
	c := &computer{in: in, base: map[string]*dom.Instance{}, disk: map[string]*dom.Instance{}}
	switch {
	case in.BaseIndex != nil:
		c.base = in.BaseIndex
	case in.Base != nil:
		c.base = in.Base.Index()
	}
	switch {
	case in.DiskIndex != nil:
		c.disk = in.DiskIndex
	case in.Disk != nil:
		c.disk = in.Disk.Index()
	}
	var prev *result
	if m := in.Memo; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.used && m.base == in.Base {
			prev = m.root
		}
	}
	top := &result{}
	var prevKids []*result
	if prev != nil {
		prevKids = []*result{prev}
	}
	c.visit(in.Disk, in.Studio, c.base[dom.RootID], newLookup(prevKids), top)
	if m := in.Memo; m != nil {
		m.used, m.base, m.root = true, in.Base, nil
		m.stats = c.stats
		if len(top.kids) == 1 {
			m.root = top.kids[0]
		}
	}
	// The memo keeps its changes as they were made: the guards change the plan's.
	changes := make([]*Change, len(top.changes))
	for i, ch := range top.changes {
		cp := *ch
		cp.Fields = slices.Clip(ch.Fields)
		changes[i] = &cp
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].ID < changes[j].ID })
	p := &Plan{BaseCommit: in.BaseCommit, BaseRef: in.BaseRef, SessionID: in.SessionID, Changes: changes,
		Warnings: top.warnings()}
	c.rebase(p)
	c.guard(p, top.total, top.present)
	p.Warnings = append(p.Warnings, editorWarnings(p.Changes)...)
	p.Hash = hashOf(in.BaseCommit, in.SessionID, p.Changes)
	return p
}

// rebase decides again, against what Studio was last known to hold in step with
// disk (Input.InStep), the changes the table gives to Studio. Where Studio still
// holds that version and disk does not, the difference is disk's, which moved since:
// with the base (a commit made before syncing, a checkout, a reset), back to it (a
// restore, a stash), or on from a text only Studio and the last sync had. The change
// is pushed. Where both sides moved since, it is unresolved: a pull would write
// Studio's version over disk's work. A file new since the base that Studio had in
// step and deleted since is left for a decision, not created there again. It never
// turns a change toward Studio's side.
func (c *computer) rebase(p *Plan) {
	if c.in.InStep == nil || c.in.Base == nil {
		return
	}
	var then *InStep
	pushed, held := 0, 0
	for i, ch := range p.Changes {
		// (A file new since the base that Studio had in step and deleted since is
		// Studio's deletion, not a file to create there again.)
		if !ch.Reason.StudioMoved() && ch.Reason != NewOnDisk {
			continue
		}
		if then == nil {
			if then = c.in.InStep(); then == nil {
				return
			}
		}
		r := &result{}
		sb := then.Find(ch.ID)
		switch ch.PatchType {
		case Edit:
			c.edit(ch.Disk, ch.Studio, sb, r)
		case Add:
			c.presence(Add, ch.Disk, sb, r)
		case Remove:
			c.presence(Remove, ch.Studio, sb, r)
		}
		if len(r.changes) != 1 {
			continue
		}
		switch again := r.changes[0]; {
		case ch.Reason == NewOnDisk:
			if again.Reason == DeletedInStudio || again.Reason == DeleteEditConflict {
				// Never turned toward Studio's side: left for a decision.
				hold(again, again.Reason)
				p.Changes[i] = again
				held++
			}
		case again.Direction == Push:
			p.Changes[i] = again
			pushed++
		case again.Direction == "" && ch.Direction == Pull && (again.Reason == BothChanged || again.Reason == DeleteEditConflict):
			p.Changes[i] = again
			held++
		}
	}
	switch {
	case pushed+held == 0:
	case then.Commit == c.in.BaseCommit:
		p.Warnings = append(p.Warnings, fmt.Sprintf("disk moved since Studio was last in step with it at %s (an edit, a restore, a stash or a reset of synced files); %d change(s) where Studio still holds its version then are pushed, and %d where both sides moved since are left unresolved", shortCommit(then.Commit), pushed, held))
	default:
		p.Warnings = append(p.Warnings, fmt.Sprintf("the base moved since Studio was last in step with the project (%s then, %s now: a commit, a checkout or a reset); %d change(s) where Studio still holds its version then are pushed, and %d where both sides moved since are left unresolved", shortCommit(then.Commit), shortCommit(c.in.BaseCommit), pushed, held))
	}
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// Memo carries per-subtree results from one Compute to the next (Input.Memo). It
// holds the instances of the last plan's trees, and is safe for concurrent use (a
// Compute holds it while it runs).
type Memo struct {
	mu    sync.Mutex
	used  bool
	base  *dom.Instance // the base tree root holds results for
	root  *result
	stats MemoStats
}

// MemoStats counts what the last Compute on a memo did with subtrees that have
// children: how many results it reused, and how many it compared again.
type MemoStats struct {
	Reused, Compared int
}

// Stats returns what the last Compute on m did.
func (m *Memo) Stats() MemoStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

type computer struct {
	in    Input
	base  map[string]*dom.Instance
	disk  map[string]*dom.Instance
	stats MemoStats
}

// result is what the comparison of one subtree found: its changes (as made, before
// the guards), its censuses, what its warnings need, and the results of its
// children's subtrees that have children of their own, for the next Compute.
type result struct {
	id   string
	d, s *dom.Instance
	// changes are the changes in the subtree.
	changes []*Change
	// total counts the disk's file-backed instances (and scripts among them), and
	// present those that Studio also holds, for the empty-place check.
	total, present census
	// unsyncable counts the disk's properties Studio's scripts cannot write, by
	// "Class.Property"; nil when there are none.
	unsyncable map[string]*seen
	// unknown counts the disk's properties neither the reflection database nor
	// Studio knows (Studio read none), by "Class.Property"; nil when there are none.
	unknown map[string]*seen
	// badDisk and badStudio are the paths of scripts whose Source is not UTF-8.
	badDisk, badStudio []string
	kids               []*result
}

// seen is one class's unsyncable property: where first (by path) and how often.
type seen struct {
	first string
	n     int
}

// add merges r's findings into into.
func (into *result) add(r *result) {
	into.changes = append(into.changes, r.changes...)
	into.total.files += r.total.files
	into.total.scripts += r.total.scripts
	into.present.files += r.present.files
	into.present.scripts += r.present.scripts
	for k, v := range r.unsyncable {
		into.unsyncableAt(k, v.first, v.n)
	}
	for k, v := range r.unknown {
		seenAt(&into.unknown, k, v.first, v.n)
	}
	into.badDisk = append(into.badDisk, r.badDisk...)
	into.badStudio = append(into.badStudio, r.badStudio...)
}

func (into *result) unsyncableAt(key, path string, n int) { seenAt(&into.unsyncable, key, path, n) }

// seenAt counts n more of key in *m, first at the least path.
func seenAt(m *map[string]*seen, key, path string, n int) {
	if *m == nil {
		*m = map[string]*seen{}
	}
	if s := (*m)[key]; s != nil {
		s.n += n
		if path < s.first {
			s.first = path
		}
	} else {
		(*m)[key] = &seen{first: path, n: n}
	}
}

// lookup finds the previous results of a node's children by id.
type lookup struct {
	kids []*result
	byID map[string]*result
}

func newLookup(kids []*result) lookup {
	l := lookup{kids: kids}
	if len(kids) > 8 {
		l.byID = make(map[string]*result, len(kids))
		for _, r := range kids {
			l.byID[r.id] = r
		}
	}
	return l
}

func (l lookup) find(id string) *result {
	if l.byID != nil {
		return l.byID[id]
	}
	for _, r := range l.kids {
		if r.id == id {
			return r
		}
	}
	return nil
}

// visit compares the pair d, s (either may be nil; b is the base's instance) and
// adds what it finds to into. A pair with children gets a result of its own, taken
// from prev when the pair is the same as then.
func (c *computer) visit(d, s, b *dom.Instance, prev lookup, into *result) {
	x := d
	if x == nil {
		x = s
	}
	if x == nil {
		return
	}
	if (d == nil || len(d.Children) == 0) && (s == nil || len(s.Children) == 0) {
		c.compare(d, s, b, lookup{}, into)
		return
	}
	old := prev.find(x.ID)
	if old != nil && old.d == d && old.s == s {
		c.stats.Reused++
		into.add(old)
		into.kids = append(into.kids, old)
		return
	}
	c.stats.Compared++
	r := &result{id: x.ID, d: d, s: s}
	var oldKids lookup
	if old != nil {
		oldKids = newLookup(old.kids)
	}
	c.compare(d, s, b, oldKids, r)
	into.add(r)
	into.kids = append(into.kids, r)
}

// compare is visit without the memo: it compares the pair and walks on.
func (c *computer) compare(d, s, b *dom.Instance, prev lookup, into *result) {
	switch {
	case d != nil && s != nil:
		into.total.count(d)
		into.present.count(d)
		c.diskNotes(d, into)
		studioNote(s, into)
		c.edit(d, s, b, into)
		c.children(d, s, prev, into)
	case d != nil:
		d.Walk(func(x *dom.Instance) bool {
			into.total.count(x)
			c.diskNotes(x, into)
			return true
		})
		c.presence(Add, d, b, into)
	case s != nil:
		s.Walk(func(x *dom.Instance) bool { studioNote(x, into); return true })
		c.presence(Remove, s, b, into)
	}
}

// diskNotes notes what the warnings say of a disk instance: the properties it sets
// that Studio's scripts cannot write, and a Source that is not UTF-8.
func (c *computer) diskNotes(x *dom.Instance, into *result) {
	for k := range x.Properties.All() {
		if !dom.StudioSyncable(x.ClassName, k) {
			into.unsyncableAt(x.ClassName+"."+k, x.Path(), 1)
		}
	}
	if badSource(x) {
		into.badDisk = append(into.badDisk, x.Path())
	}
}

func studioNote(x *dom.Instance, into *result) {
	if badSource(x) {
		into.badStudio = append(into.badStudio, x.Path())
	}
}

// children pairs the children of d and s by id. Studio children that neither disk nor
// base knows are Atlas's business only where the instance does not ignore unknowns.
func (c *computer) children(d, s *dom.Instance, prev lookup, into *result) {
	if len(s.Children) == 0 {
		for _, dc := range d.Children {
			c.visit(dc, nil, c.base[dc.ID], prev, into)
		}
		return
	}
	studio := make(map[string]*dom.Instance, len(s.Children))
	for _, sc := range s.Children {
		studio[sc.ID] = sc
	}
	for _, dc := range d.Children {
		sc := studio[dc.ID]
		delete(studio, dc.ID)
		c.visit(dc, sc, c.base[dc.ID], prev, into)
	}
	for _, sc := range s.Children {
		if _, left := studio[sc.ID]; !left {
			continue
		}
		b := c.base[sc.ID]
		if b == nil && (d.IgnoreUnknown || engineOwned(d, sc)) {
			continue
		}
		c.visit(nil, sc, b, prev, into)
	}
}

// engineOwned reports whether s, a Studio child of d that the project does not
// declare, is one Studio makes in every place itself: the Workspace's Terrain and
// Camera, by those names (a camera a person made has its own). A project that does not declare them leaves them alone (Studio cannot
// delete or create the Terrain, and the Camera moves with the view), even where
// it does not ignore unknown instances.
func engineOwned(d, s *dom.Instance) bool {
	return d.ClassName == "Workspace" && s.Name == s.ClassName && (s.ClassName == "Terrain" || s.ClassName == "Camera")
}

func (c *computer) newChange(x, d, s, b *dom.Instance, patch PatchType) *Change {
	ch := &Change{
		ID: x.ID, Path: x.Path(), ClassName: x.ClassName, PatchType: patch,
		Properties: map[string]PropertyDiff{}, Fields: []string{},
		Disk: d, Studio: s, Base: b,
	}
	if d != nil {
		ch.FsPath = d.FsPath
		ch.DiskHash = d.SourceHash
	} else if b != nil {
		ch.FsPath = b.FsPath
	}
	if s != nil {
		ch.StudioHash = s.SourceHash
	}
	if b != nil {
		ch.BaseHash = sourceHash(b)
	}
	return ch
}

func sourceHash(i *dom.Instance) string {
	if i.SourceHash != "" {
		return i.SourceHash
	}
	return i.RawHash
}

func finish(into *result, ch *Change, dir Direction, reason Reason) {
	ch.Direction, ch.Reason = dir, reason
	ch.DefaultSelection = dir // "" (null) where the table leaves it unresolved
	into.changes = append(into.changes, ch)
}

// presence handles an instance on one side only (patch Add: disk; Remove: Studio).
func (c *computer) presence(patch PatchType, x, b *dom.Instance, into *result) {
	var ch *Change
	if patch == Add {
		ch = c.newChange(x, x, nil, b, Add)
	} else {
		ch = c.newChange(x, nil, x, b, Remove)
	}
	ch.Fields = []string{"Instance"}
	ch.Descendants = x.Count() - 1
	ch.SubtreeHash = subtreeHash(x)
	switch {
	case c.in.Base == nil:
		finish(into, ch, "", NoBase)
	case b == nil && patch == Add:
		finish(into, ch, Push, NewOnDisk)
	case b == nil:
		finish(into, ch, Pull, NewInStudio)
	case !c.subtreeEqual(x, b, patch == Remove):
		finish(into, ch, "", DeleteEditConflict)
	case patch == Add:
		finish(into, ch, Pull, DeletedInStudio)
	default:
		finish(into, ch, Push, DeletedOnDisk)
	}
}

// subtreeEqual reports whether x's subtree has the same managed content as b's.
// For a Studio subtree, children unknown to the base are ignored where b ignores unknowns.
func (c *computer) subtreeEqual(x, b *dom.Instance, studio bool) bool {
	d := x
	if studio {
		d = nil // Studio reports more properties than the project manages
	}
	if len(c.diffFields(x, b, d, b)) > 0 {
		return false
	}
	seen := 0
	for _, xc := range x.Children {
		var bc *dom.Instance
		for _, cand := range b.Children {
			if cand.ID == xc.ID {
				bc = cand
				break
			}
		}
		if bc == nil {
			if studio && b.IgnoreUnknown {
				continue
			}
			return false
		}
		seen++
		if !c.subtreeEqual(xc, bc, studio) {
			return false
		}
	}
	return seen == len(b.Children)
}

// diffFields lists the managed fields that differ between x and y; props come from
// the disk and base instances (the properties the project sets anywhere).
func (c *computer) diffFields(x, y, d, b *dom.Instance) []string {
	var out []string
	if x.ClassName != y.ClassName {
		out = append(out, "ClassName")
	}
	if x.IsScript() || y.IsScript() {
		if sourceHash(x) != sourceHash(y) {
			out = append(out, "Source")
		}
	}
	for _, name := range managedProps(d, b) {
		if d != nil && d.Properties.Get(name) == nil {
			continue // no longer set by the project: not managed
		}
		if !dom.Equal(x.Properties.Get(name), y.Properties.Get(name)) {
			out = append(out, name)
		}
	}
	return out
}

// managedProps are the property names set on disk or in the base, without Source and
// without those Studio's scripts cannot read and write (dom.StudioSyncable).
func managedProps(d, b *dom.Instance) []string {
	set := map[string]bool{}
	for _, i := range []*dom.Instance{d, b} {
		if i == nil {
			continue
		}
		for k := range i.Properties.All() {
			if k != "Source" && dom.StudioSyncable(i.ClassName, k) {
				set[k] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// edit compares an instance present on both sides, field by field, three-way.
// differs is a quick check that d and s differ in a managed field, so that the
// common case (equal) allocates nothing.
func differs(d, s *dom.Instance) bool {
	if d.ClassName != s.ClassName {
		return true
	}
	if (d.IsScript() || s.IsScript()) && sourceHash(d) != sourceHash(s) {
		return true
	}
	for k, v := range d.Properties.All() {
		if k != "Source" && !dom.Equal(v, s.Properties.Get(k)) && dom.StudioSyncable(d.ClassName, k) {
			return true
		}
	}
	return false
}

func (c *computer) edit(d, s, b *dom.Instance, into *result) {
	if !differs(d, s) {
		return
	}
	ch := c.newChange(d, d, s, b, Edit)
	var dirs []Direction
	var reasons []Reason
	decide := func(name string, studioBaseEq, diskBaseEq bool) {
		ch.Fields = append(ch.Fields, name)
		switch {
		case c.in.Base == nil || b == nil:
			dirs, reasons = append(dirs, ""), append(reasons, NoBase)
		case !diskBaseEq && studioBaseEq:
			dirs, reasons = append(dirs, Push), append(reasons, DiskChanged)
		case diskBaseEq && !studioBaseEq:
			dirs, reasons = append(dirs, Pull), append(reasons, StudioChanged)
		default:
			dirs, reasons = append(dirs, ""), append(reasons, BothChanged)
		}
	}
	if d.ClassName != s.ClassName {
		bc := ""
		if b != nil {
			bc = b.ClassName
		}
		decide("ClassName", b != nil && s.ClassName == bc, b != nil && d.ClassName == bc)
		ch.Properties["ClassName"] = PropertyDiff{Current: dom.Tagged{V: dom.String(s.ClassName)},
			Incoming: dom.Tagged{V: dom.String(d.ClassName)}, Base: classTagged(b)}
	}
	if d.IsScript() || s.IsScript() {
		dh, sh := sourceHash(d), sourceHash(s)
		if dh != sh {
			bh := ""
			if b != nil {
				bh = sourceHash(b)
			}
			decide("Source", b != nil && sh == bh, b != nil && dh == bh)
		}
	}
	for _, name := range managedProps(d, b) {
		dv, sv := d.Properties.Get(name), s.Properties.Get(name)
		if dv == nil || dom.Equal(dv, sv) {
			// A property the project no longer sets is no longer managed: Atlas
			// cannot reset it, so it is not a difference.
			continue
		}
		if sv == nil && !dom.KnownProperty(s.ClassName, name) {
			// Assumed syncable (a newer Studio may have it), but this Studio read
			// none: it has no such property, and no write could give it one.
			seenAt(&into.unknown, s.ClassName+"."+name, d.Path(), 1)
			continue
		}
		var bv dom.Value
		if b != nil {
			bv = b.Properties.Get(name)
		}
		decide(name, b != nil && dom.Equal(sv, bv), b != nil && dom.Equal(dv, bv))
		ch.Properties[name] = PropertyDiff{Current: dom.Tagged{V: sv}, Incoming: dom.Tagged{V: dv}, Base: dom.Tagged{V: bv}}
	}
	if len(dirs) == 0 {
		return
	}
	dir, reason := dirs[0], reasons[0]
	for i := 1; i < len(dirs); i++ {
		if dirs[i] != dir || reasons[i] != reason {
			if reasons[i] == NoBase || reason == NoBase {
				dir, reason = "", NoBase
				continue
			}
			dir, reason = "", BothChanged
		}
	}
	finish(into, ch, dir, reason)
}

func classTagged(b *dom.Instance) dom.Tagged {
	if b == nil {
		return dom.Tagged{}
	}
	return dom.Tagged{V: dom.String(b.ClassName)}
}

// subtreeHash digests what an Add or Remove carries: every instance below x (names,
// classes, script hashes, properties), so a plan changes when any of it does.
func subtreeHash(x *dom.Instance) string {
	h := sha256.New()
	var walk func(i *dom.Instance, path string)
	walk = func(i *dom.Instance, path string) {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", path, i.ClassName, sourceHash(i))
		for _, k := range i.PropertyNames() {
			if k == "Source" {
				continue
			}
			b, _ := dom.Marshal(i.Properties.Get(k))
			fmt.Fprintf(h, "%s=%s\x00", k, b)
		}
		h.Write([]byte{'\n'})
		for _, c := range i.Children {
			walk(c, path+"/"+c.Name)
		}
	}
	walk(x, "")
	return hex.EncodeToString(h.Sum(nil))
}
