package host

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// A snapshot reads the properties the project manages (scope): those some file sets
// for the class. An instance made in Studio is written to files by a pull, so for
// those alone the plan reads every property a file can hold and Studio's scripts can
// write (serialized, read-write, not a reference), with their attributes and tags:
// an IntValue's Value, a Part's Size, an attribute set in Studio are written with
// it, not lost (a file that does not set them would leave git without that work).
// The read is part of every plan (and of the apply's fresh plan), so the plan's hash
// covers what a pull writes, and a change made to them in between refuses the apply
// as any other.

// maxNewPropsRead bounds the instances new in Studio whose properties one plan reads
// (beyond, a pull writes what the snapshot read, as for the rest of the project).
const maxNewPropsRead = 5000

// withNewProps returns studio with the subtrees of the plan's instances new in Studio
// carrying every property, attribute and tag of theirs a file can hold (copies along
// the paths to them; the rest is shared), or nil when there are none to read or Studio
// could not say.
func (h *Host) withNewProps(ctx context.Context, s *bridge.Session, studio *dom.Instance, p *plan.Plan) *dom.Instance {
	var roots []*dom.Instance
	for _, ch := range p.Changes {
		if ch.Reason == plan.NewInStudio && ch.Studio != nil && ch.Studio.Parent != nil {
			roots = append(roots, ch.Studio)
		}
	}
	if len(roots) == 0 {
		return nil
	}
	replaced := map[*dom.Instance]*dom.Instance{}
	budget := maxNewPropsRead
	for _, r := range roots {
		if budget <= 0 {
			break
		}
		n := 0
		r.Walk(func(*dom.Instance) bool { n++; return true })
		if n > budget {
			continue
		}
		budget -= n
		c, err := readNewSubtree(ctx, s, r)
		if err != nil {
			h.log.Debug("could not read the properties of an instance new in Studio", "path", r.Path(), "err", err)
			continue
		}
		if c != nil {
			replaced[r] = c
		}
	}
	if len(replaced) == 0 {
		return nil
	}
	return replaceSubtrees(studio, replaced)
}

// readNewSubtree reads r's subtree in Studio (one query) and returns a copy of it
// whose instances carry what the query found besides what they had; nil when the
// query found nothing to add.
func readNewSubtree(ctx context.Context, s *bridge.Session, r *dom.Instance) (*dom.Instance, error) {
	var names []string
	for x := r; x.Parent != nil; x = x.Parent {
		names = append(names, x.Name)
	}
	slices.Reverse(names)
	ords := ordinals(r)
	depth := 0
	props := map[string]map[string]string{}
	var walk func(x *dom.Instance, d int)
	walk = func(x *dom.Instance, d int) {
		depth = max(depth, d)
		if _, done := props[x.ClassName]; !done {
			props[x.ClassName] = fileProps(x.ClassName)
		}
		for _, c := range x.Children {
			walk(c, d+1)
		}
	}
	walk(r, 0)
	res, err := s.Query(ctx, protocol.QueryParams{Path: names, Ordinals: ords, Depth: depth, Attributes: true, Tags: true,
		Properties: props, MaxNodes: maxNewPropsRead})
	if err != nil {
		return nil, err
	}
	c := r.Clone()
	idx := c.Index()
	added := false
	var fill func(q *protocol.QueryNode, id string)
	fill = func(q *protocol.QueryNode, id string) {
		x := idx[id]
		if q == nil || x == nil || x.ClassName != q.ClassName {
			return
		}
		for name, raw := range q.Properties {
			if x.Properties.Get(name) != nil {
				continue // the snapshot's, as the rest of the plan has it
			}
			var t dom.Tagged
			if json.Unmarshal(raw, &t) == nil && t.V != nil {
				x.Properties.Set(name, t.V)
				added = true
			}
		}
		if len(q.Attributes) > 0 && x.Properties.Get("Attributes") == nil {
			attrs := dom.Attributes{}
			for name, raw := range q.Attributes {
				var t dom.Tagged
				if json.Unmarshal(raw, &t) == nil && t.V != nil {
					attrs[name] = t.V
				}
			}
			if len(attrs) > 0 {
				x.Properties.Set("Attributes", attrs)
				added = true
			}
		}
		if len(q.Tags) > 0 && x.Properties.Get("Tags") == nil {
			x.Properties.Set("Tags", dom.Tags(slices.Clone(q.Tags)))
			added = true
		}
		for _, k := range q.Children {
			fill(k, dom.ChildID(id, k.Name, k.Ordinal))
		}
	}
	fill(res.Instance, r.ID)
	if !added {
		return nil, nil
	}
	return c, nil
}

// fileProps are the properties of class a file can hold and Studio's scripts can
// write, with the types the plugin reads them in.
func fileProps(class string) map[string]string {
	m := map[string]string{}
	for _, p := range classProperties(class) {
		switch p.Name {
		case "Name", "Parent", "Source":
			continue
		}
		if !p.Serializes || !dom.StudioSyncable(class, p.Name) {
			continue
		}
		if t, ok := readableType(p, true); ok {
			m[p.Name] = t
		}
	}
	return m
}

// replaceSubtrees returns a copy of root in which each key of replaced is its value:
// the replaced instances' ancestors are copied (path copying), every other subtree is
// shared with root (its Parent still root's instance, with the same names and ids).
func replaceSubtrees(root *dom.Instance, replaced map[*dom.Instance]*dom.Instance) *dom.Instance {
	copies := map[*dom.Instance]*dom.Instance{}
	var copyOf func(x *dom.Instance) *dom.Instance
	copyOf = func(x *dom.Instance) *dom.Instance {
		if c := copies[x]; c != nil {
			return c
		}
		c := new(dom.Instance)
		*c = *x
		c.Children = slices.Clone(x.Children)
		copies[x] = c
		if x.Parent != nil {
			parent := copyOf(x.Parent)
			if i := slices.Index(parent.Children, x); i >= 0 {
				parent.Children[i] = c
			}
			c.Parent = parent
		}
		return c
	}
	for old, nu := range replaced {
		parent := copyOf(old.Parent)
		if i := slices.Index(parent.Children, old); i >= 0 {
			parent.Children[i] = nu
		}
		nu.Parent = parent
	}
	return copies[root]
}
