package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/atlas-rbx/atlas/dom"
)

// Compute returns the plan for in. It does not modify the trees.
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
	c.visit(in.Disk, in.Studio, c.base[dom.RootID])
	sort.Slice(c.changes, func(i, j int) bool { return c.changes[i].ID < c.changes[j].ID })
	p := &Plan{BaseCommit: in.BaseCommit, BaseRef: in.BaseRef, SessionID: in.SessionID, Changes: c.changes,
		Warnings: warnings(in)}
	c.guard(p)
	if p.Changes == nil {
		p.Changes = []*Change{}
	}
	p.Hash = hashOf(in.BaseCommit, in.SessionID, p.Changes)
	return p
}

type computer struct {
	in      Input
	base    map[string]*dom.Instance
	disk    map[string]*dom.Instance
	changes []*Change
	// present counts the disk's file-backed instances (and scripts among them)
	// that Studio also holds, for the empty-place check.
	present census
}

func (c *computer) visit(d, s, b *dom.Instance) {
	switch {
	case d != nil && s != nil:
		c.present.count(d)
		c.edit(d, s, b)
		c.children(d, s)
	case d != nil:
		c.presence(Add, d, b)
	case s != nil:
		c.presence(Remove, s, b)
	}
}

// children pairs the children of d and s by id. Studio children that neither disk nor
// base knows are Atlas's business only where the instance does not ignore unknowns.
func (c *computer) children(d, s *dom.Instance) {
	studio := make(map[string]*dom.Instance, len(s.Children))
	for _, sc := range s.Children {
		studio[sc.ID] = sc
	}
	for _, dc := range d.Children {
		sc := studio[dc.ID]
		delete(studio, dc.ID)
		c.visit(dc, sc, c.base[dc.ID])
	}
	for _, sc := range s.Children {
		if _, left := studio[sc.ID]; !left {
			continue
		}
		b := c.base[sc.ID]
		if b == nil && d.IgnoreUnknown {
			continue
		}
		c.visit(nil, sc, b)
	}
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

func (c *computer) finish(ch *Change, dir Direction, reason Reason) {
	ch.Direction, ch.Reason = dir, reason
	ch.DefaultSelection = dir // "" (null) where the table leaves it unresolved
	c.changes = append(c.changes, ch)
}

// presence handles an instance on one side only (patch Add: disk; Remove: Studio).
func (c *computer) presence(patch PatchType, x, b *dom.Instance) {
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
		c.finish(ch, "", NoBase)
	case b == nil && patch == Add:
		c.finish(ch, Push, NewOnDisk)
	case b == nil:
		c.finish(ch, Pull, NewInStudio)
	case !c.subtreeEqual(x, b, patch == Remove):
		c.finish(ch, "", DeleteEditConflict)
	case patch == Add:
		c.finish(ch, Pull, DeletedInStudio)
	default:
		c.finish(ch, Push, DeletedOnDisk)
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
		if d != nil && d.Properties[name] == nil {
			continue // no longer set by the project: not managed
		}
		if !dom.Equal(x.Properties[name], y.Properties[name]) {
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
		for k := range i.Properties {
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
	for k, v := range d.Properties {
		if k != "Source" && !dom.Equal(v, s.Properties[k]) && dom.StudioSyncable(d.ClassName, k) {
			return true
		}
	}
	return false
}

func (c *computer) edit(d, s, b *dom.Instance) {
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
		dv, sv := d.Properties[name], s.Properties[name]
		if dv == nil || dom.Equal(dv, sv) {
			// A property the project no longer sets is no longer managed: Atlas
			// cannot reset it, so it is not a difference.
			continue
		}
		var bv dom.Value
		if b != nil {
			bv = b.Properties[name]
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
	c.finish(ch, dir, reason)
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
			b, _ := dom.Marshal(i.Properties[k])
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
