package project

import (
	"errors"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// Cache loads one project again and again, re-reading only what changed. It keeps
// each file's parsed form (a record, validated by its stat data like git's index,
// and persisted with WriteIndex) and each folder's instance subtree, so that:
//
//   - Update, told which paths a file system watcher saw change, re-parses those
//     files only and rebuilds only the subtrees they are in;
//   - Load stats every file and re-reads only those whose stat data changed (a
//     restart with ReadIndex, or a host without a watcher).
//
// Either gives exactly the project Load would. A Cache is not safe for concurrent
// use.
//
// Trees share instances: the tree an Update returns holds every subtree of the
// previous tree that did not change (the same *dom.Instance), and a changed
// instance is a new one, so the previous tree still reads as it was, downwards
// from its root. Only the Parent of a shared subtree's root is set to its new
// parent (an instance with the same id and path); so no reader may use the previous
// tree while an Update runs.
type Cache struct {
	fsys fs.FS
	file string
	opts Options

	records map[string]*record
	snaps   map[string]*dirSnap // the folder snapshots of the last tree
	inputs  *inputs
	gen     uint64

	proj    *Project // the last tree; nil after a failed load
	links   bool     // it holds instance links (Rojo refs): Update loads it whole
	symlink bool     // its load went through a symlink: Update re-stats everything
	// unverified: the records came from an index and no Load checked them yet.
	unverified bool
	stats      CacheStats
	// unsaved is the last base tree Base built from a commit, until SaveBase keeps it.
	unsaved *savedBase
}

// CacheStats counts what the last load did, for tests and benchmarks.
type CacheStats struct {
	// Full is true when the last load rebuilt the whole tree.
	Full bool
	// Reused is the number of folder subtrees taken unchanged from the tree before.
	Reused int
	// Files is the number of records, and Parsed how many files the last load read.
	Files, Parsed int
	// Ahead is how many of the files read were read ahead of the load, on other
	// goroutines (a load without records: ahead.go).
	Ahead int
}

// racySlack widens the racy window for file systems with coarse timestamps (FAT
// keeps 2 s): a file modified this close to a load is compared by content.
const racySlack = int64(2 * time.Second)

// NewCache returns an empty cache for the project at file in fsys (as Load takes).
func NewCache(fsys fs.FS, file string, opts Options) *Cache {
	return &Cache{fsys: fsys, file: path.Clean(file), opts: opts, records: map[string]*record{}}
}

// Project returns the last tree loaded, or nil if the last load failed.
func (c *Cache) Project() *Project { return c.proj }

// Stats returns what the last load did.
func (c *Cache) Stats() CacheStats { return c.stats }

// errLinks stops a load that reuses subtrees when the tree holds links between
// instances, which are resolved over the whole tree.
var errLinks = errors.New("the tree holds instance links")

// Load loads the whole project, taking each file's parsed form from its record
// when the file's stat data still matches (and, for a racily clean record, its
// content too). After a load it can check in full (not from an index, no links, no
// symlinks), it finds what changed by stat data and folder listings, and rebuilds
// only the subtrees those changes are in, as Update does; with nothing changed it
// returns the same project.
func (c *Cache) Load() (*Project, error) {
	if c.proj != nil && c.gen > 0 && !c.symlink && !c.unverified && !c.links && c.inputs != nil {
		start := time.Now().UnixNano()
		changed := c.changedByStat(start)
		if len(changed) == 0 {
			c.stats = CacheStats{Files: len(c.records)}
			return c.proj, nil
		}
		return c.Update(changed)
	}
	return c.loadAll(byStat)
}

// changedByStat lists what changed since the last load, as Update takes it: the
// files whose stat data differ (or, racily clean, whose content does) or that are
// gone, the new entries of the folders whose listing of the names that matter
// changed, folders gone, and paths probed that appeared or vanished.
func (c *Cache) changedByStat(start int64) []string {
	m := c.newMemo(byStat, start)
	c.check(m)
	var changed []string
	for p, r := range c.records {
		ok, checked := m.checked[p]
		if !checked {
			// Project files and opaque files are not checked by check: by stat.
			fi, err := fs.Stat(c.fsys, p)
			ok = err == nil && statOf(fi) == r.stat
			if ok && (r.racy || r.stat.mtime >= m.racyFrom) {
				data, err := fs.ReadFile(c.fsys, p)
				ok = err == nil && gitblob.Hash(data) == r.hash
			}
		}
		if !ok {
			changed = append(changed, p)
		}
	}
	// The folders are listed in parallel, as check stats the files.
	type listing struct {
		dir     string
		entries []fs.DirEntry
		err     error
		same    bool
	}
	lists := make([]listing, 0, len(c.inputs.dirs))
	for dir := range c.inputs.dirs {
		lists = append(lists, listing{dir: dir})
	}
	parallel(len(lists), func(i int) {
		l := &lists[i]
		l.entries, l.err = fs.ReadDir(c.fsys, fsName(l.dir))
		l.same = l.err == nil && sumNames(c.inputs.dirs[l.dir].ctx, l.dir, l.entries) == c.inputs.dirs[l.dir].names
	})
	for _, l := range lists {
		dir, entries := l.dir, l.entries
		if l.err != nil {
			changed = append(changed, dir)
			continue
		}
		if l.same {
			continue
		}
		// A new name is named; one that went away is a record or a folder that is
		// gone, found by its own check. The update lists the folder again.
		found := false
		for _, e := range entries {
			p := join(dir, e.Name())
			_, known := c.records[p]
			_, listed := c.inputs.dirs[p]
			if !known && !listed {
				changed = append(changed, p)
				found = true
			}
		}
		if !found {
			changed = append(changed, dir)
		}
	}
	for p, pr := range c.inputs.probes {
		var st fs.FileInfo
		var err error
		if pr.lstat {
			st, err = fs.Lstat(c.fsys, fsName(p))
		} else {
			st, err = fs.Stat(c.fsys, fsName(p))
		}
		k := probeAbsent
		if err == nil {
			k = fileKind(st.Mode())
		}
		if k != pr.kind {
			changed = append(changed, p)
		}
	}
	return changed
}

func (c *Cache) loadAll(mode validation) (*Project, error) {
	start := time.Now().UnixNano()
	c.gen++
	if mode == byStat {
		c.unverified = false
	}
	m := c.newMemo(mode, start)
	m.snaps = map[string]*dirSnap{}
	if mode == byStat {
		c.check(m)
	}
	p, err := c.run(m)
	if errors.Is(err, errLinks) {
		m = c.newMemo(mode, start)
		p, err = c.run(m)
		c.links = err == nil
	} else {
		c.links = false
	}
	// Records no load used since are of files gone or no longer read.
	for k, r := range c.records {
		if r.gen != c.gen {
			delete(c.records, k)
		}
	}
	c.stats = CacheStats{Full: true, Files: len(c.records), Parsed: c.parsed(m), Ahead: m.tookAhead}
	c.finish(m, p, err)
	return p, err
}

// check validates the records against their files before a load, in parallel
// (stat calls and reads of script texts are most of a restart's time; git's
// status preloads its index the same way), and reads the texts of unchanged
// scripts restored from an index.
func (c *Cache) check(m *memo) {
	type job struct {
		path string
		rec  *record
		ok   bool
		data []byte // a script's bytes, when its record has no text
	}
	jobs := make([]job, 0, len(c.records))
	for p, r := range c.records {
		if r.kind != recOpaque && r.kind != recProject {
			jobs = append(jobs, job{path: p, rec: r})
		}
	}
	var reads atomic.Int64
	parallel(len(jobs), func(i int) {
		j := &jobs[i]
		fi, err := fs.Stat(c.fsys, j.path)
		if err != nil || statOf(fi) != j.rec.stat {
			return
		}
		racy := j.rec.racy || j.rec.stat.mtime >= m.racyFrom
		if !racy {
			j.ok = true
			return
		}
		data, err := fs.ReadFile(c.fsys, j.path)
		reads.Add(1)
		if err != nil || racy && gitblob.Hash(data) != j.rec.hash {
			return
		}
		if j.rec.kind == recScript && !j.rec.hasText {
			if !utf8.Valid(data) {
				return
			}
			j.data = data
		}
		j.ok = true
	})
	m.checked = make(map[string]bool, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		m.checked[j.path] = j.ok
		if j.ok {
			j.rec.racy = j.rec.stat.mtime >= m.racyFrom
			if j.data != nil {
				setScriptText(j.rec, j.data)
			}
		}
	}
	m.made += int(reads.Load())
}

// parallel calls fn(i) for i in [0, n) on a few goroutines (file system calls wait
// more than they compute) and returns when all have returned.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

func (c *Cache) newMemo(mode validation, start int64) *memo {
	return &memo{
		records: c.records, mode: mode, racyFrom: start - racySlack, gen: c.gen,
		used: map[*dirSnap]bool{}, put: map[string]bool{}, reused: map[*dom.Instance]*dirSnap{}, oldParent: map[*dom.Instance]*dom.Instance{}, kept: map[*dom.Instance]bool{}, fresh: map[*dom.Instance]*dirSnap{},
		inputs: newInputs(),
	}
}

func (c *Cache) run(m *memo) (*Project, error) {
	return loadWith(c.fsys, c.file, c.opts, m)
}

func (c *Cache) parsed(m *memo) int { return m.made }

func (c *Cache) finish(m *memo, p *Project, err error) {
	if err != nil {
		c.proj, c.snaps, c.inputs = nil, nil, nil
		return
	}
	c.proj, c.inputs, c.symlink = p, m.inputs, m.symlink
	c.snaps = m.snaps
	if c.snaps == nil {
		c.snaps = map[string]*dirSnap{}
	}
}

// Update brings the project up to date after changes to the given paths (slash
// paths relative to the fs root: files or folders created, written, removed or
// renamed, both names of a rename). Every change since the last load must be
// named, as a watcher reports them; after a lost event, call Load instead.
func (c *Cache) Update(changed []string) (*Project, error) {
	if c.symlink || c.unverified || c.gen == 0 {
		// A change behind a link is not reported under the link's path, and
		// records from an index or none at all are checked by stat first.
		return c.Load()
	}
	start := time.Now().UnixNano()
	full := c.proj == nil || c.links
	set := make(map[string]bool, len(changed))
	dirty := map[string]bool{} // changed paths and every folder above them
	for _, p := range changed {
		p = cleanRel(p)
		set[p] = true
		if p == "" || IsProjectFile(path.Base(p)) || p == c.file || under(c.file, p) {
			full = true // a project file's settings reach everything below it
		}
		for d := p; ; d = dirOf(d) {
			if dirty[d] {
				break
			}
			dirty[d] = true
			if d == "" {
				break
			}
		}
	}
	c.forget(set)
	clean := func(dir string) bool {
		if dirty[dir] {
			return false
		}
		for d := dir; d != ""; {
			d = dirOf(d)
			if set[d] {
				return false
			}
		}
		return true
	}
	c.gen++
	if full {
		return c.loadAll(trusted)
	}
	for k, s := range c.snaps {
		if s == nil || !clean(s.dir) {
			delete(c.snaps, k)
		}
	}
	m := c.newMemo(trusted, start)
	m.reuse, m.old, m.clean = true, c.snaps, clean
	m.snaps = c.snaps
	m.inputs = c.inputs
	p, err := c.run(m)
	if err != nil {
		// The previous tree gets its shared instances back. The whole load
		// gives the error Load gives, in the same words, or handles links.
		for inst, parent := range m.oldParent {
			inst.Parent = parent
		}
		return c.loadAll(trusted)
	}
	c.stats = CacheStats{Reused: len(m.used), Files: len(c.records), Parsed: c.parsed(m)}
	if prev := c.proj; prev.indexed.Load() {
		p.prev, p.kept = prev, m.kept
	}
	c.finish(m, p, nil)
	return p, nil
}

// forget drops the records and inputs of the changed paths and of everything
// below those that are folders.
func (c *Cache) forget(set map[string]bool) {
	var dirs []string
	for p := range set {
		if _, ok := c.records[p]; ok {
			delete(c.records, p)
		} else {
			dirs = append(dirs, p)
		}
		if c.inputs != nil {
			c.inputs.forget(p)
		}
	}
	if len(dirs) == 0 {
		return
	}
	for k := range c.records {
		for _, d := range dirs {
			if under(k, d) {
				delete(c.records, k)
				break
			}
		}
	}
}

// cleanRel turns a watcher's path into the fs path a load uses.
func cleanRel(p string) string {
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if p == "." || p == "/" {
		return ""
	}
	return strings.TrimPrefix(p, "/")
}

// assignIDs is dom's AssignIDs for a tree that may hold subtrees of an earlier
// tree: a subtree whose id is unchanged keeps every id below it and brings its
// list of duplicate sibling names along, so only the new parts are hashed. links
// reports instance links (Rojo refs) in the new parts, which need the whole tree.
func (l *loader) assignIDs(root *dom.Instance) (dups []string, links bool) {
	root.ID = dom.RootID
	links = len(l.modelRefs) > 0 || hasLinks(root)
	l.assignChildIDs(root, &dups, &links)
	return dups, links
}

func (l *loader) assignChildIDs(i *dom.Instance, dups *[]string, links *bool) {
	var seen map[string]int
	if len(i.Children) > 1 {
		seen = make(map[string]int, len(i.Children))
	}
	for k, c := range i.Children {
		n := 0
		if seen != nil {
			n = seen[c.Name]
			seen[c.Name] = n + 1
		}
		id := dom.ChildID(i.ID, c.Name, n)
		if n == 1 {
			*dups = append(*dups, c.Path())
		}
		if s := l.mem.reused[c]; s != nil {
			if c.ID == id {
				*dups = append(*dups, s.dups...)
				l.mem.kept[c] = true
				continue
			}
			// Its place among same-named siblings moved, so every id below
			// changes: the new tree gets a copy, the old one keeps its own.
			old := c
			c = c.Clone()
			c.Parent = i
			i.Children[k] = c
			old.Parent = l.mem.oldParent[old]
			l.dropSnaps(s.dir)
		}
		c.ID = id
		if hasLinks(c) {
			*links = true
		}
		s := l.mem.fresh[c]
		start := len(*dups)
		l.assignChildIDs(c, dups, links)
		if s != nil {
			s.dups = append([]string(nil), (*dups)[start:]...)
			s.idsDone = true
		}
	}
}

// dropSnaps forgets the snapshots of dir and below: their instances are no longer
// the tree's.
func (l *loader) dropSnaps(dir string) {
	for k, s := range l.mem.snaps {
		if s != nil && (s.dir == dir || under(s.dir, dir)) {
			delete(l.mem.snaps, k)
		}
	}
}

// hasLinks reports whether x has Rojo_Target_ attributes, which resolveRefs turns
// into Ref properties.
func hasLinks(x *dom.Instance) bool {
	a, ok := x.Properties.Get("Attributes").(dom.Attributes)
	if !ok {
		return false
	}
	for name := range a {
		if strings.HasPrefix(name, "Rojo_Target_") {
			return true
		}
	}
	return false
}
