package host

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project"
)

// diskCache keeps the project loaded from disk up to date at the cost of what
// changed: a project.Cache holds every file's parsed form and every folder's
// subtree, and an inotify watcher names the paths that changed, so a plan after one
// edit re-reads that file only, and a plan with nothing changed re-reads nothing.
//
// Events reach the watcher a moment after the write that caused them, and an agent
// that edits a file and plans at once must not see the old tree. So before the cache
// is used, sync writes a barrier file in a private watched folder and waits for its
// event: one inotify queue is ordered, so every earlier change has been seen by then.
//
// Where that cannot be proven (no inotify, the barrier not seen in time, a lost
// event, ATLAS_NO_WATCH set) the cache is brought up to date by stat instead: every
// file it holds is compared with its record (size, mtime, inode, with git's rule for
// racily clean files) and folders are listed again, and only files that differ are
// read. That is correct on every platform, at the cost of a stat per file.
//
// Updating a tree re-points the shared subtrees of the previous tree at their new
// parents (project.Cache), so the cache is updated only by a holder of the Studio
// lock (under which every plan and apply computes), and never while a reader outside
// it holds a tree: those go through read, under treeMu, and never update.
//
// mu is a leaf lock (seenCond waits on it): nothing is called with it held.
type diskCache struct {
	mu      sync.Mutex
	gen     uint64          // bumped by every event
	pending map[string]bool // paths (relative to fsRoot, '/') changed since the last update
	lost    bool            // an event was lost or not understood: update by stat
	// watched is every folder watched; rewatch says folders were renamed, moved or
	// made, whose watches inotify may have dropped or left under their old names: the
	// next load watches the whole tree again (and updates by stat).
	watched map[string]bool
	rewatch bool
	root    string
	proj    *project.Project
	projGen uint64
	w       *fsnotify.Watcher
	log     *slog.Logger
	done    chan struct{}
	loops   sync.WaitGroup // the watcher's loop; close waits for it

	// loadMu serialises updates of cache; treeMu keeps readers out while one runs.
	loadMu sync.Mutex
	treeMu sync.RWMutex
	cache  *project.Cache
	loc    *project.Location
	fsRoot string
	// updates and full count the loads by named paths and by stat, and parsed the
	// files all loads read, for tests.
	updates, full, parsed int
	rebuilt               int                        // loads that built the whole tree
	bases                 map[project.BaseSource]int // where base trees came from
	// index is the file (in the project's state dir) the cache's records are kept
	// in between hosts, like git's index: a restarted host reads only the files
	// whose stat data changed. It is written when the host is first idle after its
	// first load (writeDueIndex), and as the host stops.
	index string
	// indexDue says a load made records the index does not have yet; the index is
	// written once the host is idle (writeDueIndex), or as it stops.
	indexDue, indexWritten bool

	barrier  string // the barrier file
	seen     uint64 // barrier writes observed
	sent     uint64 // barrier writes made
	seenCond *sync.Cond
}

func newDiskCache(loc *project.Location, stateDir string, log *slog.Logger) *diskCache {
	root := loc.Dir
	c := &diskCache{log: log, done: make(chan struct{}), loc: loc, fsRoot: loc.FSRoot, pending: map[string]bool{}, watched: map[string]bool{}, root: root,
		cache: project.NewCache(project.DirFS(loc.FSRoot), loc.FileInFS, loc.Options())}
	c.seenCond = sync.NewCond(&c.mu)
	c.index = filepath.Join(stateDir, "disk.index")
	if err := c.cache.ReadIndex(c.index); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Info("not using the disk index; the first plan reads every file", "err", err)
	}
	if os.Getenv("ATLAS_NO_WATCH") != "" {
		log.Info("not watching the project folder (ATLAS_NO_WATCH): every plan compares each file's stat data with the last load's")
		return c
	}
	if runtime.GOOS != "linux" {
		// The barrier needs one ordered event queue, which inotify gives; elsewhere
		// every plan checks the files by stat.
		return c
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Info("not watching the project folder; every plan compares each file's stat data with the last load's", "err", err)
		return c
	}
	barrierDir := filepath.Join(stateDir, "watch")
	if err := os.MkdirAll(barrierDir, 0o700); err == nil {
		err = w.Add(barrierDir)
		if err == nil {
			c.w = w
			err = c.watchTree(root)
		}
		if err == nil {
			c.barrier = filepath.Join(barrierDir, "barrier")
			c.loops.Add(1)
			go func() {
				defer c.loops.Done()
				c.loop()
			}()
			return c
		}
	}
	log.Info("not watching the project folder; every plan compares each file's stat data with the last load's", "err", err)
	c.w = nil
	w.Close()
	return c
}

// addTree watches dir and every folder below it except .git.
func addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder that vanished or cannot be read is not watched
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		return w.Add(p)
	})
}

// watchTree watches dir and every folder below it (as addTree) and records them.
func (c *diskCache) watchTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if err := c.w.Add(p); err != nil {
			return err
		}
		c.mu.Lock()
		c.watched[p] = true
		c.mu.Unlock()
		return nil
	})
}

func (c *diskCache) loop() {
	for {
		select {
		case ev, ok := <-c.w.Events:
			if !ok {
				return
			}
			if n, ok := c.barrierNumber(ev.Name); ok {
				// Only this barrier is seen: a later one may still be queued behind
				// changes made in between.
				c.mu.Lock()
				if n > c.seen {
					c.seen = n
				}
				c.seenCond.Broadcast()
				c.mu.Unlock()
				if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
					os.Remove(ev.Name)
				}
				continue
			}
			c.changed(ev.Name, ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove))
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					_ = c.watchTree(ev.Name)
					c.mu.Lock()
					c.lost, c.rewatch = true, true
					c.mu.Unlock()
				}
			}
		case _, ok := <-c.w.Errors:
			if !ok {
				return
			}
			c.invalidate() // a lost event (queue overflow): check everything by stat
		case <-c.done:
			return
		}
	}
}

// barrierNumber reads n from a barrier file's name ("barrier-n").
func (c *diskCache) barrierNumber(name string) (uint64, bool) {
	rest, ok := strings.CutPrefix(name, c.barrier+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// invalidate says the cache can no longer trust the events it has: the next load
// checks every file by stat.
func (c *diskCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.lost = true
	c.mu.Unlock()
}

// changed records a path an event named; gone says it was renamed or removed,
// which for a watched folder drops or strands the watches below it.
func (c *diskCache) changed(name string, gone bool) {
	rel, err := filepath.Rel(c.fsRoot, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if gone && c.watched[name] {
		// The folder's watches (inotify's are by inode) would report its files under
		// their old names: drop them; the next load watches the new names.
		for d := range c.watched {
			if d == name || strings.HasPrefix(d, name+string(filepath.Separator)) {
				delete(c.watched, d)
				_ = c.w.Remove(d)
			}
		}
		c.lost, c.rewatch = true, true
	}
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		c.lost = true
		return
	}
	c.pending[filepath.ToSlash(rel)] = true
}

// load returns the project as it is on disk now, updating the cache by what
// changed. The caller holds the Studio lock (see diskCache).
func (c *diskCache) load() (*project.Project, error) {
	synced := c.w != nil && c.sync()
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	c.mu.Lock()
	p, gen, lost := c.proj, c.gen, c.lost || !synced
	if p != nil && c.projGen == gen && !lost {
		c.mu.Unlock()
		return p, nil
	}
	paths := make([]string, 0, len(c.pending))
	for k := range c.pending {
		paths = append(paths, k)
	}
	rewatch := c.rewatch
	c.pending, c.lost, c.rewatch = map[string]bool{}, false, false
	c.mu.Unlock()
	if rewatch {
		// Before the files are compared, so that a change made after is an event.
		_ = c.watchTree(c.root)
	}
	c.treeMu.Lock()
	var err error
	if lost || p == nil {
		p, err = c.cache.Load()
		c.full++
		if c.cache.Stats().Full {
			c.rebuilt++
		}
	} else {
		p, err = c.cache.Update(paths)
		c.updates++
	}
	c.parsed += c.cache.Stats().Parsed
	c.treeMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.proj, c.lost = nil, true // the next load starts over, by stat
		return nil, err
	}
	c.proj, c.projGen = p, gen
	if !c.indexWritten {
		// Not now: the write holds loadMu, which the plan's base tree, built
		// next, waits for.
		c.indexDue = true
	}
	return p, nil
}

// builtBases is how many base trees were built (from a commit, or a copy of the
// disk tree) or read from the state dir: all but the disk tree itself.
func (c *diskCache) builtBases() int {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	return c.bases[project.BaseFromCommit] + c.bases[project.BaseFromFile] + c.bases[project.BaseFromDiskScripts]
}

// fullLoads is how many loads built the whole tree.
func (c *diskCache) fullLoads() int {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	return c.rebuilt
}

// base builds the project at a commit from the commit's fs with the cache
// (project.Cache.Base): the disk tree itself when the commit holds the same files,
// else the state dir's copy of the commit's tree, else a load of the commit that
// parses only the files whose blob ids differ from the disk's. No load of the disk
// runs meanwhile.
func (c *diskCache) base(fsys fs.FS, commit string) (*project.Project, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	p, from, err := c.cache.Base(fsys, commit, filepath.Join(filepath.Dir(c.index), "base.tree"))
	if err == nil {
		if c.bases == nil {
			c.bases = map[project.BaseSource]int{}
		}
		c.bases[from]++
	}
	return p, err
}

// saveBase keeps the last base tree built from a commit in the state dir, for the
// next host. Its caller holds the Studio lock: plans give base trees their Source
// hashes under it, and the tree is encoded here.
func (c *diskCache) saveBase() {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	started := time.Now()
	if saved, err := c.cache.SaveBase(); err != nil {
		c.log.Info("could not keep the base tree", "err", err)
	} else if saved {
		c.log.Debug("base tree kept", "ms", time.Since(started).Milliseconds())
	}
}

// writeDueIndex writes the index after the host's first load, once.
func (c *diskCache) writeDueIndex() {
	c.mu.Lock()
	due := c.indexDue && !c.indexWritten
	c.indexWritten = c.indexWritten || due
	c.mu.Unlock()
	if due {
		c.writeIndex()
	}
}

// writeIndex stores the cache's records for the next host.
func (c *diskCache) writeIndex() {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	if c.cache.Project() == nil {
		return
	}
	if err := c.cache.WriteIndex(c.index); err != nil {
		c.log.Info("could not write the disk index", "err", err)
	}
}

// read calls fn with the project as the last load left it or, when files changed
// since, with a project loaded apart from the cache. It is for readers outside the
// Studio lock: they never update the cache, and no update runs while fn does.
func (c *diskCache) read(fn func(*project.Project) error) error {
	synced := c.w != nil && c.sync()
	c.treeMu.RLock()
	defer c.treeMu.RUnlock()
	c.mu.Lock()
	p := c.proj
	if !synced || c.projGen != c.gen || c.lost {
		p = nil
	}
	c.mu.Unlock()
	if p == nil {
		var err error
		if p, err = project.LoadDisk(c.loc); err != nil {
			return project.AsCoded(err)
		}
	}
	return fn(p)
}

// sync writes the barrier and waits (briefly) until the watcher has seen it.
func (c *diskCache) sync() bool {
	c.mu.Lock()
	c.sent++
	want := c.sent
	c.mu.Unlock()
	if err := os.WriteFile(c.barrier+"-"+strconv.FormatUint(want, 10), nil, 0o600); err != nil {
		return false
	}
	deadline := time.Now().Add(250 * time.Millisecond)
	timer := time.AfterFunc(250*time.Millisecond, func() {
		c.mu.Lock()
		c.seenCond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.seen < want {
		if time.Now().After(deadline) {
			return false
		}
		c.seenCond.Wait()
	}
	return true
}

// close stops the watcher and waits for its loop to end.
func (c *diskCache) close() {
	if c.w != nil {
		close(c.done)
		c.w.Close()
		c.loops.Wait()
	}
	c.writeIndex()
}

// dropTexts lets go of the script texts the cache holds (project.Cache.DropTexts).
// The caller holds the Studio lock.
func (c *diskCache) dropTexts() int {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	return c.mutate(c.cache.DropTexts)
}

// mutate runs fn, which writes into the cache's tree, with readers (read) kept out.
func (c *diskCache) mutate(fn func() int) int {
	c.treeMu.Lock()
	defer c.treeMu.Unlock()
	return fn()
}

// readText reads a disk script's text back from its file, checked against its hashes
// (project.Cache.ReadText).
func (c *diskCache) readText(x *dom.Instance) (string, error) {
	c.loadMu.Lock()
	defer c.loadMu.Unlock()
	return c.cache.ReadText(x)
}
