package host

import (
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

	"github.com/atlas-rbx/atlas/project"
)

// diskCache keeps the last project loaded from disk while nothing under the project
// folder changes, so a plan with nothing changed does not re-read and re-hash every
// file. Any file system event invalidates it; without a watcher it never holds.
//
// Events reach the watcher a moment after the write that caused them, and an agent
// that edits a file and plans at once must not see the old tree. So before the cache
// is used, sync writes a barrier file in a private watched folder and waits for its
// event: one inotify queue is ordered, so every earlier change has been seen by then.
//
// mu is a leaf lock (seenCond waits on it): nothing is called with it held.
type diskCache struct {
	mu      sync.Mutex
	gen     uint64 // bumped by every event
	proj    *project.Project
	projGen uint64
	w       *fsnotify.Watcher
	log     *slog.Logger
	done    chan struct{}
	loops   sync.WaitGroup // the watcher's loop; close waits for it

	barrier  string // the barrier file
	seen     uint64 // barrier writes observed
	sent     uint64 // barrier writes made
	seenCond *sync.Cond
}

func newDiskCache(root, stateDir string, log *slog.Logger) *diskCache {
	c := &diskCache{log: log, done: make(chan struct{})}
	c.seenCond = sync.NewCond(&c.mu)
	if runtime.GOOS != "linux" {
		// The barrier needs one ordered event queue, which inotify gives; elsewhere
		// every plan reads the project again.
		return c
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Info("not watching the project folder; every plan reads it", "err", err)
		return c
	}
	barrierDir := filepath.Join(stateDir, "watch")
	if err := os.MkdirAll(barrierDir, 0o700); err == nil {
		err = w.Add(barrierDir)
		if err == nil {
			err = addTree(w, root)
		}
		if err == nil {
			c.w = w
			c.barrier = filepath.Join(barrierDir, "barrier")
			c.loops.Add(1)
			go func() {
				defer c.loops.Done()
				c.loop()
			}()
			return c
		}
	}
	log.Info("not watching the project folder; every plan reads it", "err", err)
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
			c.invalidate()
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					_ = addTree(c.w, ev.Name)
				}
			}
		case _, ok := <-c.w.Errors:
			if !ok {
				return
			}
			c.invalidate() // a lost event (queue overflow) must not leave a stale tree
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

func (c *diskCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// get returns the cached project while no event has come since it was loaded,
// after making sure every change made before the call has been seen.
func (c *diskCache) get() (*project.Project, uint64) {
	synced := c.w != nil && c.sync()
	c.mu.Lock()
	defer c.mu.Unlock()
	if synced && c.proj != nil && c.projGen == c.gen {
		return c.proj, c.gen
	}
	return nil, c.gen
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

// put caches p if no event came since gen (the generation before loading it).
func (c *diskCache) put(p *project.Project, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.proj, c.projGen = p, gen
	}
}

// close stops the watcher and waits for its loop to end.
func (c *diskCache) close() {
	if c.w != nil {
		close(c.done)
		c.w.Close()
		c.loops.Wait()
	}
}
