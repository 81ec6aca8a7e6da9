package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// studioCache is what the host keeps of Studio between snapshots: the scripts of a
// session's latest snapshot by handle, so the next snapshot need not carry sources
// that did not change, and that snapshot's tree, which still stands while the
// plugin answers that nothing changed.
//
// Its lock is the Studio lock. A snapshot replaces the plugin's handles, so
// whoever takes snapshots or uses a snapshot's handles (a plan's computation, an
// apply, an undo) does it inside use, one at a time. The turn may be held around
// use; inside, only the leaf locks of the base loader, the plan cache and the disk
// cache are taken, and nothing that holds one of them calls use.
//
// Background work (the warm-up plan when a Studio connects) takes the lock with
// useInBackground and gives it up as soon as a command asks for it: its context is
// cancelled, which ends its Studio request at once. Plans and applies are the
// exception (useAfterBackground): they would take the same snapshot again, so they
// wait for the one under way. A command waits for the lock only as long as its
// context allows (E_STUDIO_TIMEOUT after that).
type studioCache struct {
	sem chan struct{} // holding its one token is holding the Studio lock

	bgMu     sync.Mutex         // guards bgCancel and waiting; a leaf lock
	bgCancel context.CancelFunc // cancels the background holder; nil when none holds
	waiting  int                // commands waiting for the lock; background work waits for none

	session    string
	snapshotID string
	byHandle   map[string]cachedSource
	// tree and paramsKey are the latest snapshot and what it asked for.
	tree      *dom.Instance
	paramsKey string
	// index is tree's instances by handle.
	index map[string]*dom.Instance
	// deltas counts the snapshots Studio answered as deltas the host applied, and
	// byHash the scripts whose Source came by hash (knownSources).
	deltas, byHash int
	// wholes counts the whole snapshots taken (not deltas, not unchanged).
	wholes int
	// restored tells that tree is a previous host's (see studiostate.go), whose
	// Sources do not share the disk's strings yet.
	restored bool
	// pushed are the Sources the last apply wrote into Studio, by blob id: the next
	// snapshot off the cached one names them in knownSources, so that Studio sends
	// their ids instead of the texts the host holds already.
	pushed map[string]dom.Value
}

// cachedSource is a script's text and hash; the cache holds no instances, so an old
// snapshot's tree is freed.
type cachedSource struct {
	source dom.Value
	hash   string
}

func newStudioCache() *studioCache {
	return &studioCache{sem: make(chan struct{}, 1)}
}

// use runs fn with the Studio lock held; fn takes its snapshots through snaps,
// which is valid only until fn returns. Background work holding the lock is asked
// to give it up; when ctx ends before the lock is free, use fails with
// E_STUDIO_TIMEOUT (or ctx's error when it was cancelled).
func (c *studioCache) use(ctx context.Context, fn func(snaps *snapshots) error) error {
	return c.lock(ctx, false, fn)
}

// useAfterBackground is use for a command that takes the snapshot background work
// (the warm-up plan) is taking: a plan or an apply. It lets that work finish rather
// than give the lock up, since a snapshot of its own would cost as much again (a
// whole one of 10,000 scripts takes seconds in a slow Studio); the command's own
// snapshot is then a delta or "unchanged". When ctx ends first, the background work
// is cancelled as well: it did not deliver within a command's wait, and the next
// command does not wait for it again.
func (c *studioCache) useAfterBackground(ctx context.Context, fn func(snaps *snapshots) error) error {
	return c.lock(ctx, true, fn)
}

// lock is use, and useAfterBackground when join.
func (c *studioCache) lock(ctx context.Context, join bool, fn func(snaps *snapshots) error) error {
	c.bgMu.Lock()
	c.waiting++
	afterBackground := join && c.bgCancel != nil
	if c.bgCancel != nil && !join {
		c.bgCancel()
	}
	c.bgMu.Unlock()
	var err error
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		err = ctx.Err()
		background := false
		if join {
			c.bgMu.Lock()
			if background = c.bgCancel != nil; background {
				c.bgCancel()
			}
			c.bgMu.Unlock()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			msg := "another command kept Studio busy for the whole timeout"
			if background {
				msg = "Studio did not answer the warm-up plan's snapshot within the timeout; it is given up, and the next command asks for its own"
			}
			err = errcode.New(errcode.StudioTimeout, "%s", msg).
				Reason(errcode.ReasonStudioTimeout, errcode.NextWait, errcode.NextRetry)
		}
	}
	c.bgMu.Lock()
	c.waiting--
	c.bgMu.Unlock()
	if err != nil {
		return err
	}
	defer func() { <-c.sem }()
	return fn(&snapshots{c: c, afterBackground: afterBackground})
}

// useInBackground is use for work nobody waits for: fn runs with a context that
// is cancelled as soon as a command asks for the lock. It does not wait for the
// lock: when a command holds it or waits for it, the work is not needed now.
func (c *studioCache) useInBackground(ctx context.Context, fn func(ctx context.Context, snaps *snapshots) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.bgMu.Lock()
	if c.waiting > 0 {
		c.bgMu.Unlock()
		return nil
	}
	select {
	case c.sem <- struct{}{}:
	default:
		c.bgMu.Unlock()
		return nil
	}
	c.bgCancel = cancel
	c.bgMu.Unlock()
	defer func() {
		c.bgMu.Lock()
		c.bgCancel = nil
		c.bgMu.Unlock()
		<-c.sem
	}()
	return fn(ctx, &snapshots{c: c, background: true})
}

// snapshots takes Studio snapshots for a holder of the Studio lock.
type snapshots struct {
	c *studioCache
	// background tells that the holder is background work (useInBackground), whose
	// context a command's request for the lock cancels.
	background bool
	// afterBackground tells that the holder waited for background work to give the
	// lock up (useAfterBackground), which may have taken a whole snapshot.
	afterBackground bool
}

// take asks a Studio session for the instances in scope, without the cache.
func (sn *snapshots) take(ctx context.Context, s *bridge.Session, params protocol.SnapshotParams) (*dom.Instance, error) {
	res, err := s.Snapshot(ctx, params)
	if err != nil {
		return nil, err
	}
	if res.Unchanged {
		return nil, errcode.New(errcode.Internal, "studio answered 'unchanged' for a snapshot Atlas did not offer")
	}
	t, err := buildTree(res, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return t, nil
}

// cached is take reusing, and then updating, the sources the cache holds; Studio
// scripts whose text equals the disk's share the disk's string.
//
// With the same request as last time, the plugin may answer that nothing it
// watches changed; the cached tree is then returned as it is (its handles still
// stand). Every write still carries its own preconditions.
func (sn *snapshots) cached(ctx context.Context, s *bridge.Session, params protocol.SnapshotParams, disk map[string]*dom.Instance) (*dom.Instance, error) {
	c := sn.c
	var prev map[string]cachedSource
	key := paramsKey(params)
	if c.restored && c.tree != nil {
		c.restored = false
		shareSources(c.tree, disk)
	}
	if c.session == s.Info().ID && c.snapshotID != "" {
		params.Reuse, prev = c.snapshotID, c.byHandle
		params.AllowUnchanged = c.tree != nil && c.paramsKey == key
		params.Delta = params.AllowUnchanged
	}
	var known map[string]dom.Value
	if params.Reuse == "" {
		// A whole snapshot with every Source: the disk's texts need not come over.
		known = knownSources(disk)
		params.KnownSources = slices.Sorted(maps.Keys(known))
	} else if len(c.pushed) > 0 {
		// The scripts an apply wrote are sent again; the host has their texts.
		known = c.pushed
		params.KnownSources = slices.Sorted(maps.Keys(known))
	}
	sctx := ctx
	if sn.background && params.Reuse != "" {
		// Background work (a prewarm) does not give up a snapshot off the cached one
		// when a command asks for the lock: the plugin's latest snapshot would then
		// be one the host never received, and the command's own snapshot a whole one
		// instead of a delta. Its deadline still bounds it; a command's own context
		// is kept whole.
		var cancel context.CancelFunc
		sctx, cancel = context.WithoutCancel(ctx), func() {}
		if deadline, ok := ctx.Deadline(); ok {
			sctx, cancel = context.WithDeadline(sctx, deadline)
		}
		defer cancel()
	}
	res, err := s.Snapshot(sctx, params)
	if err != nil {
		return nil, err
	}
	c.pushed = nil
	if res.Unchanged {
		if params.AllowUnchanged && res.SnapshotID == c.snapshotID {
			return c.tree, nil
		}
		return nil, errcode.New(errcode.Internal, "studio answered 'unchanged' for a snapshot Atlas did not offer")
	}
	var t *dom.Instance
	var touched []*dom.Instance // with a delta: the instances it sent
	if res.Delta {
		if !params.Delta {
			return nil, errcode.New(errcode.Internal, "studio answered a delta Atlas did not ask for")
		}
		var index map[string]*dom.Instance
		if t, touched, index, err = applyDelta(c.tree, c.index, res, prev, known); err == nil {
			c.index = index
			c.deltas++
			c.byHash += countByHash(res)
		}
	} else {
		c.wholes++
		t, err = buildTree(res, prev, known)
		if err == nil {
			c.byHash += countByHash(res)
		}
	}
	if errors.Is(err, errStaleReuse) {
		touched = nil
		// The host cannot follow what Studio sent off the cached snapshot: ask for
		// the whole place with every Source.
		params.Reuse, params.AllowUnchanged, params.Delta, params.KnownSources = "", false, false, nil
		if res, err = s.Snapshot(ctx, params); err != nil {
			return nil, err
		}
		c.wholes++
		t, err = buildTree(res, nil, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	c.session, c.snapshotID = s.Info().ID, res.SnapshotID
	c.tree, c.paramsKey = t, key
	if res.Delta && touched != nil {
		// Only what the delta sent is new: the rest shares what the cache held.
		// Handles are never reused, so the sources of removed ones can stay.
		for _, x := range touched {
			shareSource(x, disk)
			if x.SourceHash != "" {
				c.byHandle[x.Handle] = cachedSource{source: x.Properties.Get("Source"), hash: x.SourceHash}
			}
		}
		return t, nil
	}
	shareSources(t, disk)
	c.index, c.byHandle = indexTree(t)
	return t, nil
}

// countByHash is how many of res's scripts came with sourceHash.
func countByHash(res *protocol.SnapshotResult) int {
	n := 0
	for _, w := range res.Instances {
		if w.SourceHash != "" {
			n++
		}
	}
	return n
}

// indexTree returns a whole snapshot's instances by handle, and its scripts' sources
// and hashes by handle.
func indexTree(t *dom.Instance) (map[string]*dom.Instance, map[string]cachedSource) {
	index := map[string]*dom.Instance{}
	byHandle := map[string]cachedSource{}
	t.Walk(func(x *dom.Instance) bool {
		if x.Handle != "" {
			index[x.Handle] = x
		}
		if x.SourceHash != "" {
			byHandle[x.Handle] = cachedSource{source: x.Properties.Get("Source"), hash: x.SourceHash}
		}
		return true
	})
	return index, byHandle
}

// lastScope is the latest scope computed, by its trees: loaded trees are never
// changed (an update makes a new root), so the same roots give the same scope.
var lastScope struct {
	sync.Mutex
	trees  []*dom.Instance
	params protocol.SnapshotParams
	key    string
	// frags are the property types of the trees' subtrees, by tree.
	frags []*scopeFrag
}

// scope computes what to ask Studio for: every instance the disk or base tree knows,
// with whole subtrees where unknown Studio children matter (ignoreUnknownInstances
// false), and the managed properties by class. The request is shared with other
// callers for the same trees: nobody changes its slices and maps.
func scope(trees ...*dom.Instance) protocol.SnapshotParams {
	p, _ := scopeWithKey(trees...)
	return p
}

// scopeWithKey is scope and the request's JSON, which tells requests apart.
func scopeWithKey(trees ...*dom.Instance) (protocol.SnapshotParams, string) {
	lastScope.Lock()
	defer lastScope.Unlock()
	if slices.Equal(lastScope.trees, trees) {
		return lastScope.params, lastScope.key
	}
	p, frags := computeScopeFrom(lastScope.frags, trees...)
	b, _ := json.Marshal(p)
	lastScope.trees, lastScope.params, lastScope.key = slices.Clone(trees), p, string(b)
	lastScope.frags = frags
	return p, lastScope.key
}

// paramsKey returns the JSON of a snapshot request, from scope's memory when it is
// the latest scope.
func paramsKey(p protocol.SnapshotParams) string {
	lastScope.Lock()
	last, key := lastScope.params, lastScope.key
	lastScope.Unlock()
	if key != "" && sameRequest(p, last) {
		return key
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// sameRequest reports whether two requests are the same values, checking first
// whether they share their slices and maps (a scope handed out twice).
func sameRequest(a, b protocol.SnapshotParams) bool {
	if a.ChunkSize != b.ChunkSize || a.Reuse != b.Reuse || a.AllowUnchanged != b.AllowUnchanged || a.Delta != b.Delta {
		return false
	}
	same := func(x, y [][]string) bool {
		return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	if !same(a.Roots, b.Roots) || !same(a.Nodes, b.Nodes) || len(a.Properties) != len(b.Properties) {
		return false
	}
	for class, props := range a.Properties {
		other, ok := b.Properties[class]
		if !ok || !maps.Equal(props, other) {
			return false
		}
	}
	return true
}

// computeScope is scope without the memory.
func computeScope(trees ...*dom.Instance) protocol.SnapshotParams {
	p, _ := computeScopeFrom(nil, trees...)
	return p
}

// computeScopeFrom is computeScope reusing the property types of every subtree that
// is the same instance as in the trees prev was computed for (trees that are never
// changed in place share their unchanged subtrees), so that a scope after a small
// change walks only the changed subtrees. It returns what the next call reuses.
func computeScopeFrom(prev []*scopeFrag, trees ...*dom.Instance) (protocol.SnapshotParams, []*scopeFrag) {
	p := protocol.SnapshotParams{Properties: map[string]map[string]string{}}
	roots := map[string][]string{}
	nodes := map[string][]string{}
	// The walk carries each instance's path down, and stops at a full-subtree root
	// (it is sent whole).
	var walk func(i *dom.Instance, names []string, key string)
	walk = func(i *dom.Instance, names []string, key string) {
		if i.Parent != nil {
			path := append([]string(nil), names...)
			if !i.IgnoreUnknown {
				roots[key] = path
				return
			}
			nodes[key] = path
		}
		for _, c := range i.Children {
			childKey := c.Name
			if key != "" {
				childKey = key + "/" + c.Name
			}
			walk(c, append(names, c.Name), childKey)
		}
	}
	frags := make([]*scopeFrag, len(trees))
	tab := propTable{}
	for k, t := range trees {
		if t == nil {
			continue
		}
		if k > 0 && t == trees[k-1] {
			// The base tree is the disk tree itself (HEAD holds the disk's files).
			frags[k] = frags[k-1]
			continue
		}
		walk(t, nil, "")
		var old *scopeFrag
		if k < len(prev) {
			old = prev[k]
		}
		frags[k] = fragOf(t, old, tab)
		for class, props := range frags[k].props {
			dst := p.Properties[class]
			if dst == nil {
				dst = make(map[string]string, len(props))
				p.Properties[class] = dst
			}
			for name, t := range props {
				dst[name] = t
			}
		}
	}
	// A value a file of the project holds whatever the project has now: a new
	// StringValue pulled becomes a .txt file holding it, so its Value is asked even
	// while no other StringValue sets one.
	for _, fp := range fileProperties {
		dst := p.Properties[fp.class]
		if dst == nil {
			dst = map[string]string{}
			p.Properties[fp.class] = dst
		}
		if _, ok := dst[fp.name]; !ok {
			dst[fp.name] = fp.typ
		}
	}
	// A path under a full-subtree root is already covered. Looking up each ancestor
	// keeps this linear in the tree (not roots × paths).
	covered := func(path string) bool {
		for j := strings.LastIndexByte(path, '/'); j >= 0; j = strings.LastIndexByte(path[:j], '/') {
			if _, ok := roots[path[:j]]; ok {
				return true
			}
		}
		return false
	}
	for k, v := range roots {
		if !covered(k) {
			p.Roots = append(p.Roots, v)
		}
	}
	for k, v := range nodes {
		if _, full := roots[k]; !full && !covered(k) {
			p.Nodes = append(p.Nodes, v)
		}
	}
	sortPaths(p.Roots)
	sortPaths(p.Nodes)
	if p.Roots == nil {
		p.Roots = [][]string{}
	}
	if p.Nodes == nil {
		p.Nodes = [][]string{}
	}
	return p, frags
}

// fileProperties are the properties a file format holds (a .txt file's Value),
// which every snapshot asks for, with their wire types.
var fileProperties = []struct{ class, name, typ string }{{"StringValue", "Value", "String"}}

// scopeFrag is the managed properties of one subtree, with the type the plugin
// encodes each in, by class (a later instance's type wins, in tree order), and the
// fragments of its children that have children. Its maps are never changed once
// made; a fragment that adds nothing to a child's shares the child's.
type scopeFrag struct {
	inst  *dom.Instance
	props map[string]map[string]string
	kids  []*scopeFrag
	// borrowed says props is another fragment's: copied before a change.
	borrowed bool
}

// fragOf returns x's fragment: old when old is x's (the same instance), else one
// made from x's own properties and its children's fragments, reusing old's. Its
// properties are tab's when tab holds the same.
func fragOf(x *dom.Instance, old *scopeFrag, tab propTable) *scopeFrag {
	if old != nil && old.inst == x {
		return old
	}
	var byID map[string]*scopeFrag
	if old != nil && len(old.kids) > 0 {
		byID = make(map[string]*scopeFrag, len(old.kids))
		for _, k := range old.kids {
			byID[k.inst.ID] = k
		}
	}
	f := &scopeFrag{inst: x}
	f.addOwn(x)
	for _, c := range x.Children {
		if len(c.Children) == 0 {
			f.addOwn(c)
			continue
		}
		k := fragOf(c, byID[c.ID], tab)
		f.kids = append(f.kids, k)
		if len(f.props) == 0 {
			f.props, f.borrowed = k.props, true
			continue
		}
		for class, props := range k.props {
			for name, t := range props {
				f.set(class, name, t)
			}
		}
	}
	if !f.borrowed && len(f.props) > 0 {
		f.props, f.borrowed = tab.share(f.props), true
	}
	return f
}

// propTable shares equal property maps between fragments: many subtrees (every
// model file of one shape, say) manage the same properties, and a fragment's map
// is never changed once shared (set copies a borrowed one).
type propTable map[string]map[string]map[string]string

// share returns the table's map equal to props, adding props when there is none.
func (t propTable) share(props map[string]map[string]string) map[string]map[string]string {
	var b strings.Builder
	for _, class := range slices.Sorted(maps.Keys(props)) {
		b.WriteString(class)
		b.WriteByte(0)
		m := props[class]
		for _, name := range slices.Sorted(maps.Keys(m)) {
			b.WriteString(name)
			b.WriteByte(1)
			b.WriteString(m[name])
			b.WriteByte(1)
		}
		b.WriteByte(0)
	}
	key := b.String()
	if same, ok := t[key]; ok {
		return same
	}
	t[key] = props
	return props
}

func (f *scopeFrag) set(class, name, t string) {
	if cur, ok := f.props[class][name]; ok && cur == t {
		return
	}
	if f.borrowed || f.props == nil {
		own := make(map[string]map[string]string, len(f.props)+1)
		for c, props := range f.props {
			own[c] = maps.Clone(props)
		}
		f.props, f.borrowed = own, false
	}
	props := f.props[class]
	if props == nil {
		props = map[string]string{}
		f.props[class] = props
	}
	props[name] = t
}

// addOwn adds the managed properties i sets.
func (f *scopeFrag) addOwn(i *dom.Instance) {
	for name, v := range i.Properties.All() {
		if name == "Source" || !dom.StudioSyncable(i.ClassName, name) {
			continue
		}
		// The type is the same for every instance of the class with this value
		// type: work it out once (an enum's costs a lookup and a string).
		if t, ok := f.props[i.ClassName][name]; !ok || t != v.Type() && !(v.Type() == "Enum" && strings.HasPrefix(t, "Enum:")) {
			f.set(i.ClassName, name, wireType(i.ClassName, name, v))
		}
	}
}

func sortPaths(ps [][]string) {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

// wireType names how the plugin should encode a property: the tagged type, or
// "Enum:<Name>" for enums.
func wireType(class, prop string, v dom.Value) string {
	if v.Type() == "Enum" {
		if _, enum, ok := dom.PropertyType(class, prop); ok && enum != "" {
			return "Enum:" + enum
		}
	}
	return v.Type()
}

// buildTree turns a snapshot into an instance tree rooted at game, with ids assigned
// and script hashes computed; prev resolves sourceFrom handles.
func buildTree(res *protocol.SnapshotResult, prev map[string]cachedSource, known map[string]dom.Value) (*dom.Instance, error) {
	byHandle := make(map[string]*dom.Instance, len(res.Instances))
	var root *dom.Instance
	for _, w := range res.Instances {
		inst := dom.New(w.Name, w.ClassName)
		inst.Handle = w.Handle
		if err := readRecord(inst, w, prev, known); err != nil {
			return nil, err
		}
		if w.Parent == nil {
			if root != nil {
				return nil, errcode.New(errcode.Internal, "studio snapshot has two roots")
			}
			root = inst
		} else {
			parent := byHandle[*w.Parent]
			if parent == nil {
				return nil, errcode.New(errcode.Internal, "studio snapshot lists %s before its parent", w.Name)
			}
			parent.AddChild(inst)
		}
		byHandle[w.Handle] = inst
	}
	if root == nil {
		root = dom.New("game", "DataModel")
	}
	root.AssignIDs()
	return root, nil
}

// readRecord sets inst's properties from w (replacing any it has), its Source from the
// host's copy when w has sourceFrom (prev, by handle) or sourceHash (known, by blob id),
// its Source hash, and its EditorSha1 (cleared when w has none).
func readRecord(inst *dom.Instance, w protocol.SnapshotInstance, prev map[string]cachedSource, known map[string]dom.Value) error {
	props := make([]dom.Property, 0, len(w.Properties)+1)
	for name, raw := range w.Properties {
		v, err := dom.Unmarshal(raw)
		if err != nil {
			return errcode.New(errcode.Internal, "studio sent a bad value for %s.%s: %v", w.Name, name, err)
		}
		props = append(props, dom.Property{Name: dom.Intern(name), Value: v})
	}
	defer func() { inst.Properties = dom.MakeProps(props) }()
	inst.SetEditorSha1(w.EditorSha1)
	if w.SourceFrom != "" {
		old, ok := prev[w.SourceFrom]
		if !ok {
			return errStaleReuse
		}
		if old.source != nil {
			props = append(props, dom.Property{Name: "Source", Value: old.source})
		}
		inst.SourceHash = old.hash
	} else if w.SourceHash != "" {
		src, ok := known[w.SourceHash]
		if !ok {
			return errStaleReuse
		}
		// A known text the host let go (nil) is read again when it is needed
		// (texts.go); the hash is all a plan compares.
		if src != nil {
			props = append(props, dom.Property{Name: "Source", Value: src})
		}
		inst.SourceHash = w.SourceHash
	} else {
		for _, p := range props {
			if src, ok := p.Value.(dom.String); ok && p.Name == "Source" {
				inst.SourceHash = gitblob.HashString(string(src))
			}
		}
	}
	return nil
}

// errStaleReuse means a sourceFrom named a handle the host does not hold, or a
// delta did not fit the cached tree.
var errStaleReuse = errors.New("snapshot refers to a source or instance the host does not hold")

// applyDelta returns the tree of the snapshot res describes as changes to prev (the
// snapshot res's request named as Reuse; index is prev's instances by handle), the
// instances res sent, and the new tree's index.
//
// A delta that only updates the properties of instances (no instance added,
// removed, renamed or moved) copies those instances and their ancestors alone: the
// new tree shares every other subtree with prev (see patchDelta). Any other delta
// copies prev, then res's removed handles are detached, its instances added or
// updated (moved when their parent changed), and the children it lists put in that
// order. The result is the tree a whole snapshot would have given; anything that
// does not fit prev is errStaleReuse, and prev is left as it was.
func applyDelta(prev *dom.Instance, index map[string]*dom.Instance, res *protocol.SnapshotResult, sources map[string]cachedSource, known map[string]dom.Value) (*dom.Instance, []*dom.Instance, map[string]*dom.Instance, error) {
	if prev == nil {
		return nil, nil, nil, errStaleReuse
	}
	if root, touched, ok := patchDelta(prev, index, res, sources, known); ok {
		return root, touched, index, nil
	}
	byHandle := make(map[string]*dom.Instance, len(sources)*5)
	root := cloneIndexed(prev, byHandle)
	// Ids change only when names or places do.
	structural := len(res.Removed) > 0 || len(res.Children) > 0
	for _, h := range res.Removed {
		x := byHandle[h]
		if x == nil {
			return nil, nil, nil, errStaleReuse
		}
		detach(x)
		delete(byHandle, h)
	}
	touched := make([]*dom.Instance, 0, len(res.Instances))
	for _, w := range res.Instances {
		x := byHandle[w.Handle]
		if x == nil {
			x = dom.New(w.Name, w.ClassName)
			x.Handle = w.Handle
			byHandle[w.Handle] = x
			structural = true
		} else if x.ClassName != w.ClassName {
			return nil, nil, nil, errStaleReuse
		}
		touched = append(touched, x)
		if x.Name != w.Name {
			structural = true
		}
		x.Name = w.Name
		x.SourceHash = ""
		if err := readRecord(x, w, sources, known); err != nil {
			return nil, nil, nil, err
		}
		if w.Parent == nil {
			if x != root {
				return nil, nil, nil, errStaleReuse
			}
			continue
		}
		parent := byHandle[*w.Parent]
		if parent == nil {
			return nil, nil, nil, errStaleReuse
		}
		if x.Parent != parent {
			for a := parent; a != nil; a = a.Parent {
				if a == x {
					return nil, nil, nil, errStaleReuse
				}
			}
			detach(x)
			parent.AddChild(x)
			structural = true
		}
	}
	for ph, order := range res.Children {
		parent := byHandle[ph]
		if parent == nil || len(order) != len(parent.Children) {
			return nil, nil, nil, errStaleReuse
		}
		kids := make([]*dom.Instance, len(order))
		for i, h := range order {
			c := byHandle[h]
			if c == nil || c.Parent != parent {
				return nil, nil, nil, errStaleReuse
			}
			kids[i] = c
		}
		parent.Children = kids
	}
	if structural {
		root.AssignIDs()
	}
	return root, touched, byHandle, nil
}

// patchDelta is applyDelta for a delta that only sets the properties of instances
// prev holds, under the same names and parents: each such instance and its
// ancestors are copied (path copying), and the copies take the shared subtrees'
// roots as their children (the roots' Parent is set to the copy, an instance with
// the same id and path). prev still reads as it was downwards from its root. It
// reports false, having changed nothing, for any other delta. index is updated to
// the new tree.
func patchDelta(prev *dom.Instance, index map[string]*dom.Instance, res *protocol.SnapshotResult, sources map[string]cachedSource, known map[string]dom.Value) (*dom.Instance, []*dom.Instance, bool) {
	if index == nil || len(res.Removed) > 0 || len(res.Children) > 0 || len(res.Instances) == 0 {
		return nil, nil, false
	}
	// Everything is checked and read before anything changes.
	records := make([]*dom.Instance, len(res.Instances))
	olds := make([]*dom.Instance, len(res.Instances))
	for i, w := range res.Instances {
		x := index[w.Handle]
		if x == nil || x.ClassName != w.ClassName || x.Name != w.Name {
			return nil, nil, false
		}
		if w.Parent == nil {
			if x != prev {
				return nil, nil, false
			}
		} else if x.Parent == nil || x.Parent.Handle != *w.Parent || index[*w.Parent] != x.Parent || !inTree(x, prev) {
			// (an index may still hold the descendants of a subtree a delta removed)
			return nil, nil, false
		}
		r := &dom.Instance{Name: w.Name}
		if err := readRecord(r, w, sources, known); err != nil {
			return nil, nil, false
		}
		records[i], olds[i] = r, x
	}
	copies := make(map[*dom.Instance]*dom.Instance, 8*len(olds))
	var copyOf func(x *dom.Instance) *dom.Instance
	copyOf = func(x *dom.Instance) *dom.Instance {
		if c := copies[x]; c != nil {
			return c
		}
		c := new(dom.Instance)
		*c = *x
		c.Children = slices.Clone(x.Children)
		copies[x] = c
		if x.Handle != "" {
			index[x.Handle] = c
		}
		if x.Parent != nil {
			p := copyOf(x.Parent)
			for i, sib := range p.Children {
				if sib == x {
					p.Children[i] = c
					break
				}
			}
			c.Parent = p
		}
		return c
	}
	touched := make([]*dom.Instance, 0, len(olds))
	for i, x := range olds {
		c := copyOf(x)
		c.Properties, c.SourceHash = records[i].Properties, records[i].SourceHash
		c.SetEditorSha1(records[i].EditorSha1())
		touched = append(touched, c)
	}
	for _, c := range copies {
		for _, child := range c.Children {
			child.Parent = c
		}
	}
	return copies[prev], touched, true
}

// cloneIndexed copies the tree x for a delta, noting every copy with a handle in
// byHandle. The copies share their property lists with x: a cached tree is never
// changed, and applyDelta gives the instances a delta sends lists of their own.
func cloneIndexed(x *dom.Instance, byHandle map[string]*dom.Instance) *dom.Instance {
	var clone func(x, parent *dom.Instance) *dom.Instance
	clone = func(x, parent *dom.Instance) *dom.Instance {
		c := *x
		c.Parent = parent
		c.Children = nil // never x's array: an append must not write into it
		if len(x.Children) > 0 {
			c.Children = make([]*dom.Instance, len(x.Children))
			for i, ch := range x.Children {
				c.Children[i] = clone(ch, &c)
			}
		}
		if c.Handle != "" {
			byHandle[c.Handle] = &c
		}
		return &c
	}
	return clone(x, nil)
}

// inTree reports whether x is in the tree rooted at root.
func inTree(x, root *dom.Instance) bool {
	for x.Parent != nil {
		x = x.Parent
	}
	return x == root
}

// detach takes x out of its parent's children.
func detach(x *dom.Instance) {
	p := x.Parent
	if p == nil {
		return
	}
	for i, c := range p.Children {
		if c == x {
			p.Children = append(p.Children[:i:i], p.Children[i+1:]...)
			break
		}
	}
	x.Parent = nil
}

// knownSources are the disk scripts' texts by git blob id, which a whole snapshot
// need not carry (SnapshotParams.KnownSources). A script whose text the disk tree
// let go is known by its hash alone (a nil text): its file holds the text, which is
// read when it is needed.
func knownSources(disk map[string]*dom.Instance) map[string]dom.Value {
	known := map[string]dom.Value{}
	for _, x := range disk {
		if x.SourceHash == "" || !x.IsScript() {
			continue
		}
		if src, ok := x.Properties.Get("Source").(dom.String); ok {
			known[x.SourceHash] = src
		} else if _, ok := known[x.SourceHash]; !ok && project.TextDroppable(x) {
			known[x.SourceHash] = nil
		}
	}
	return known
}

// shareSources points Studio scripts whose text equals the disk's at the disk's
// string, so the same text is held once.
func shareSources(studio *dom.Instance, d map[string]*dom.Instance) {
	studio.Walk(func(x *dom.Instance) bool {
		shareSource(x, d)
		return true
	})
}

// shareSource is shareSources for one instance.
func shareSource(x *dom.Instance, d map[string]*dom.Instance) {
	if x.SourceHash == "" {
		return
	}
	if di := d[x.ID]; di != nil && di.SourceHash == x.SourceHash {
		if src, ok := di.Properties.Lookup("Source"); ok {
			x.Properties.Set("Source", src)
		}
	}
}
