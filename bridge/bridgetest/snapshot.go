package bridgetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/protocol"
)

// DefaultChunkSize is the snapshot chunk size when a request gives none.
const DefaultChunkSize = 2000

// sentSource is what the previous snapshot sent of a script.
type sentSource struct {
	handle string
	source json.RawMessage
}

// Marks of the instances a snapshot sends.
const (
	markSelf = 1 // the instance, not its descendants
	markTree = 2 // the instance and all its descendants
)

// snapshot sends the requested instances, in partial frames of at most chunkSize
// when there are more than chunkSize, and returns the final result.
func (p *Plugin) snapshot(params json.RawMessage, partial func(seq int, result any) error) (any, error) {
	var in protocol.SnapshotParams
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, badRequest(err)
	}
	chunk := in.ChunkSize
	if chunk <= 0 {
		chunk = DefaultChunkSize
	}

	p.mu.Lock()
	marks := map[*Node]int8{}
	mark := func(paths [][]string, m int8) {
		for _, path := range paths {
			for _, n := range p.match(path) {
				marks[n] = max(marks[n], m)
				for a := p.parent[n]; a != nil && marks[a] == 0; a = p.parent[a] {
					marks[a] = markSelf
				}
			}
		}
	}
	mark(in.Roots, markTree)
	mark(in.Nodes, markSelf)

	if in.AllowUnchanged && in.Reuse != "" && in.Reuse == p.snapshotID && !p.dirty && !asksTags(in.Properties) {
		id := p.snapshotID
		p.mu.Unlock()
		return protocol.SnapshotResult{Instances: []protocol.SnapshotInstance{}, SnapshotID: id, Unchanged: true}, nil
	}
	key := requestKey(in)
	delta := in.Delta && !p.NoDelta && in.Reuse != "" && in.Reuse == p.snapshotID && p.deltaBase != nil &&
		key == p.deltaKey && !asksTags(in.Properties)
	p.dirty = false
	reuse := in.Reuse != "" && in.Reuse == p.snapshotID
	prev := p.sent
	prevNodes := p.deltaBase
	if !delta {
		p.handles = map[string]*Node{}
		prevNodes = nil
	}
	p.sent = map[*Node]sentSource{}
	p.snapshotGen++
	p.snapshotID = fmt.Sprintf("s%d", p.snapshotGen)
	snapshotID := p.snapshotID
	nodes := map[*Node]*sentNode{}
	var known map[string]bool
	if p.HashSources && len(in.KnownSources) > 0 {
		known = make(map[string]bool, len(in.KnownSources))
		for _, id := range in.KnownSources {
			known[id] = true
		}
	}
	var out []protocol.SnapshotInstance
	var outNodes []*Node
	var walk func(n *Node, parent *Node, all bool)
	walk = func(n *Node, parent *Node, all bool) {
		m := marks[n]
		if !all && m == 0 {
			return
		}
		all = all || m == markTree
		old := prevNodes[n]
		var props protocol.Values
		if old != nil && sameRaw(n, in.Properties[n.ClassName], old.props) {
			// Edits and applies replace values, never change them in place: the
			// same bytes are the same values, read without copying the place.
			props = old.props
		} else {
			props = readProperties(n, in.Properties[n.ClassName])
		}
		sn := &sentNode{parent: parent, name: n.Name, props: props}
		if old != nil {
			sn.handle = old.handle
		} else {
			sn.handle = p.newHandle(n)
		}
		nodes[n] = sn
		if parent != nil {
			nodes[parent].children = append(nodes[parent].children, n)
		}
		if src, ok := props["Source"]; ok {
			p.sent[n] = sentSource{handle: sn.handle, source: src}
		}
		if old == nil || old.parent != parent || old.name != n.Name || !sameValues(old.props, props) {
			inst := protocol.SnapshotInstance{
				Handle:     sn.handle,
				Name:       n.Name,
				ClassName:  n.ClassName,
				Properties: maps.Clone(props),
			}
			if parent != nil {
				h := nodes[parent].handle
				inst.Parent = &h
			}
			if src, ok := props["Source"]; ok {
				if old, seen := prev[n]; reuse && seen && bytes.Equal(old.source, src) {
					delete(inst.Properties, "Source")
					inst.SourceFrom = old.handle
				} else if blob := knownBlob(src, known); blob != "" {
					delete(inst.Properties, "Source")
					inst.SourceHash = blob
				}
			}
			out = append(out, inst)
			outNodes = append(outNodes, n)
		}
		for _, c := range n.Children {
			walk(c, n, all)
		}
	}
	walk(p.place.Root, nil, false)
	p.deltaBase, p.deltaKey = nodes, key
	if delta {
		p.sentDeltas++
	} else {
		p.sentWhole++
	}
	var removed []string
	var children map[string][]string
	if delta {
		for n, old := range prevNodes {
			if nodes[n] == nil {
				removed = append(removed, old.handle)
				delete(p.handles, old.handle)
			}
		}
		sort.Strings(removed)
		for n, sn := range nodes {
			old := prevNodes[n]
			if old != nil && slices.Equal(old.children, sn.children) {
				continue
			}
			if old == nil && len(sn.children) == 0 {
				continue
			}
			if children == nil {
				children = map[string][]string{}
			}
			list := make([]string, len(sn.children))
			for i, c := range sn.children {
				list[i] = nodes[c].handle
			}
			children[sn.handle] = list
		}
	}
	p.mu.Unlock()
	p.mu.Lock()
	partBytes, limit := p.partBytes, p.frameLimit
	p.mu.Unlock()

	// The values are shared with the place, which apply changes only by replacing
	// them, so they can be encoded outside the lock. A partial frame holds at most
	// chunk instances and, past its first, at most partBytes of them; one instance
	// that cannot fit in a frame refuses the snapshot, as the plugin does.
	seq, start, size := 0, 0, 0
	for i := range out {
		n := instanceSize(&out[i])
		if n > protocol.InstanceLimit(limit) {
			p.mu.Lock()
			path := strings.Join(p.path(outNodes[i]), "/")
			p.mu.Unlock()
			return nil, tooLarge("instance "+path, n, protocol.InstanceLimit(limit)).With("path", path)
		}
		if i > start && (i-start >= chunk || size+n > partBytes) {
			if err := partial(seq, protocol.SnapshotPart{Instances: out[start:i]}); err != nil {
				return nil, errcode.Wrap(errcode.Internal, err, "send partial snapshot")
			}
			seq, start, size = seq+1, i, 0
		}
		size += n
	}
	out = out[start:]
	if out == nil {
		out = []protocol.SnapshotInstance{}
	}
	return protocol.SnapshotResult{Instances: out, SnapshotID: snapshotID, Delta: delta, Removed: removed, Children: children}, nil
}

// sentNode is what the latest snapshot holds of an instance: the base of a delta.
type sentNode struct {
	handle   string
	parent   *Node
	name     string
	props    protocol.Values
	children []*Node // in scope, in order
}

// requestKey is what a snapshot's content depends on in a request.
func requestKey(in protocol.SnapshotParams) string {
	b, _ := json.Marshal([]any{in.Roots, in.Nodes, in.Properties})
	return string(b)
}

// sameRaw reports whether the properties a snapshot reads of n are the very
// values (same backing bytes) of props, read by an earlier snapshot.
func sameRaw(n *Node, asked map[string]string, props protocol.Values) bool {
	count := 0
	same := func(name string) bool {
		v, ok := n.Properties[name]
		w, had := props[name]
		if ok != had {
			return false
		}
		if ok {
			count++
			return len(v) == len(w) && (len(v) == 0 || &v[0] == &w[0])
		}
		return true
	}
	for name := range asked {
		if !same(name) {
			return false
		}
	}
	if n.IsScript() {
		if _, ok := n.Properties["Source"]; !ok {
			return false // read as an empty Source: compare by value
		}
		if _, asked := asked["Source"]; !asked && !same("Source") {
			return false
		}
	}
	if _, asked := asked["RunContext"]; n.ClassName == "Script" && !asked && !same("RunContext") {
		return false
	}
	return count == len(props)
}

// sameValues reports whether two property sets are the same bytes.
func sameValues(a, b protocol.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// instanceSize is about the size of an instance's JSON (its values dominate).
func instanceSize(i *protocol.SnapshotInstance) int {
	n := 96 + len(i.Handle) + len(i.Name) + len(i.ClassName) + len(i.SourceFrom)
	for k, v := range i.Properties {
		n += len(k) + len(v) + 4
	}
	return n
}

// match returns every instance reached by path from the root: a name matches every
// child with that name. The empty path is the root.
func (p *Plugin) match(path []string) []*Node {
	level := []*Node{p.place.Root}
	for _, name := range path {
		var next []*Node
		for _, n := range level {
			for _, c := range n.Children {
				if c.Name == name {
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return level
}

// newHandle gives n a fresh handle.
func (p *Plugin) newHandle(n *Node) string {
	p.nextHandle++
	h := fmt.Sprintf("h%d", p.nextHandle)
	p.handles[h] = n
	return h
}

// knownBlob returns the git blob id of a Source value when known lists it, else "".
func knownBlob(src json.RawMessage, known map[string]bool) string {
	if known == nil {
		return ""
	}
	v, err := dom.Unmarshal(src)
	s, ok := v.(dom.String)
	if err != nil || !ok {
		return ""
	}
	if blob := gitblob.HashString(string(s)); known[blob] {
		return blob
	}
	return ""
}

// readProperties picks the asked properties that n has, plus those always sent:
// Source of scripts and RunContext of Script.
func readProperties(n *Node, asked map[string]string) protocol.Values {
	props := make(protocol.Values, len(asked)+1)
	for name := range asked {
		if v, ok := n.Properties[name]; ok {
			props[name] = v
		}
	}
	if n.IsScript() {
		if v, ok := n.Properties["Source"]; ok {
			props["Source"] = v
		} else {
			props["Source"] = tagged("String", "")
		}
	}
	if n.ClassName == "Script" {
		if v, ok := n.Properties["RunContext"]; ok {
			props["RunContext"] = v
		}
	}
	return props
}

// lookup returns the live instance of a handle, or E_NOT_FOUND.
func (p *Plugin) lookup(handle string) (*Node, error) {
	n := p.handles[handle]
	if n == nil || !p.alive(n) {
		return nil, errcode.New(errcode.NotFound, "no instance has handle %q; take a new snapshot", handle).
			With("handle", handle)
	}
	return n, nil
}

// path returns the names from the root to n.
func (p *Plugin) path(n *Node) []string {
	var names []string
	for ; n != p.place.Root && n != nil; n = p.parent[n] {
		names = append(names, n.Name)
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	if names == nil {
		names = []string{}
	}
	return names
}

func (p *Plugin) getScript(params json.RawMessage) (any, error) {
	var in protocol.GetScriptParams
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, badRequest(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var n *Node
	switch {
	case in.Handle != "":
		var err error
		if n, err = p.lookup(in.Handle); err != nil {
			return nil, err
		}
	case in.Path != nil:
		if in.Ordinals != nil && len(in.Ordinals) != len(in.Path) {
			return nil, errcode.New(errcode.BadRequest, "ordinals must have one index per path name")
		}
		if n = p.findNth(in.Path, in.Ordinals); n == nil {
			return nil, errcode.New(errcode.NotFound, "no instance at %v", in.Path).With("path", in.Path)
		}
	default:
		return nil, errcode.New(errcode.BadRequest, "getScript needs a handle or a path")
	}
	if !n.IsScript() {
		return nil, errcode.New(errcode.NotAScript, "%s is a %s, not a script", n.Name, n.ClassName).
			With("className", n.ClassName)
	}
	src, isDraft := n.Source(), false
	if d, ok := p.drafts[n]; ok && in.Draft {
		src, isDraft = d, true
	}
	return protocol.GetScriptResult{
		Source:     src,
		SourceSha1: BlobSHA1(src),
		ClassName:  n.ClassName,
		IsDraft:    isDraft,
		Path:       p.path(n),
	}, nil
}

// asksTags reports whether a request reads Tags, whose changes the plugin does not watch.
func asksTags(props map[string]map[string]string) bool {
	for _, byName := range props {
		if _, ok := byName["Tags"]; ok {
			return true
		}
	}
	return false
}

// findNth follows path from the root, taking at each step the child of that name
// whose index among the children of that name is ordinals[i] (the first without
// ordinals).
func (p *Plugin) findNth(path []string, ordinals []int) *Node {
	n := p.place.Root
	for i, name := range path {
		want := 0
		if ordinals != nil {
			want = ordinals[i]
		}
		var next *Node
		seen := 0
		for _, c := range n.Children {
			if c.Name != name {
				continue
			}
			if seen == want {
				next = c
				break
			}
			seen++
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}
