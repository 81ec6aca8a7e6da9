package project

import (
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/gitblob"
)

// readAhead reads a first load's files before the loader asks for them, on other
// goroutines, and parses them there: scripts (their text and hashes), text files,
// meta files and JSON models. A load without records reads, hashes and parses every
// file, and the loader's own walk, which builds the tree in order, is left with
// little else.
//
// The walk ahead lists the folders the loader enters, in the loader's order (byte
// order, a folder's files and subfolders as they come), and never follows a link.
// What it made is used only where the loader would read the same path itself, after
// its own checks (guard, the file rules): a record made ahead is the record the
// loader would have made, its stat data taken before the read as readRecord does.
// Whatever the loader does not take (a file its rules ignore, a kind its sync rules
// read differently) is dropped with the load.
type readAhead struct {
	fsys     statReader
	rel      *loader // a loader for errors (its projDir only); a model gets its own, for warnings
	racyFrom int64

	mu    sync.Mutex
	cond  sync.Cond
	items map[string]*aheadItem
	order []*aheadItem
	next  int // the index of the next item for a worker
	// taken is the highest index the loader took: workers stay within
	// aheadWindow of it, and skip what it has left behind.
	taken  int
	roots  []string        // folders to walk, in the order the loader entered them
	walked map[string]bool // the roots walked or queued (enter skips what is below one)
	// walking counts the roots queued or being walked.
	walking int
	stop    bool
	wg      sync.WaitGroup
}

// aheadWindow is how many files the workers may be ahead of the loader.
const aheadWindow = 2048

// aheadInOrder, for tests, has the loader wait for every file read ahead instead of
// reading one itself when no worker has started on it, and the workers skip none:
// every file the walk found is then read ahead.
var aheadInOrder = false

type aheadItem struct {
	path  string
	kind  recKind
	index int
	state aheadState
	rec   *record
}

type aheadState uint8

const (
	aheadQueued  aheadState = iota
	aheadWorking            // a worker reads it
	aheadReady              // rec is set
	aheadTaken              // the loader took it, or reads it itself
)

// startReadAhead starts reading ahead for l's load, when its fs reads with stat
// data and the load has no records to reuse. The caller stops it (stop) when the
// load ends.
func startReadAhead(l *loader) *readAhead {
	sr, ok := l.fsys.(statReader)
	if !ok || l.mem == nil || l.mem.mode != byStat || len(l.mem.records) > 0 || l.mem.shared != nil {
		return nil
	}
	a := &readAhead{fsys: sr, rel: &loader{projDir: l.projDir, opts: l.opts}, racyFrom: l.mem.racyFrom,
		items: map[string]*aheadItem{}, walked: map[string]bool{}, taken: -1}
	a.cond.L = &a.mu
	a.wg.Go(a.walk)
	for range runtime.GOMAXPROCS(0) {
		a.wg.Go(a.work)
	}
	return a
}

// enter tells the walk ahead that the loader entered folder dir.
func (a *readAhead) enter(dir string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.walked[dir] {
		return
	}
	for d := dir; d != ""; {
		d = dirOf(d)
		if a.walked[d] {
			return // under a folder walked already
		}
	}
	a.walked[dir] = true
	a.roots = append(a.roots, dir)
	a.walking++
	a.cond.Broadcast()
	for aheadInOrder && a.walking > 0 && !a.stop {
		a.cond.Wait() // the walk lists the folder before the loader does
	}
}

// stopAndWait ends the walk and the workers, and waits for them.
func (a *readAhead) stopAndWait() {
	a.mu.Lock()
	a.stop = true
	a.items, a.order = nil, nil
	a.cond.Broadcast()
	a.mu.Unlock()
	a.wg.Wait()
}

// walk lists the folders given to enter, each with everything below it.
func (a *readAhead) walk() {
	for {
		a.mu.Lock()
		for !a.stop && len(a.roots) == 0 {
			a.cond.Wait()
		}
		if a.stop {
			a.mu.Unlock()
			return
		}
		root := a.roots[0]
		a.roots = a.roots[1:]
		a.mu.Unlock()
		if !a.walkDir(root) {
			return
		}
		a.mu.Lock()
		a.walking--
		a.cond.Broadcast()
		a.mu.Unlock()
	}
}

// walkDir queues dir's files and walks its subfolders; false once stopped.
func (a *readAhead) walkDir(dir string) bool {
	entries, err := fs.ReadDir(a.fsys.(fs.FS), fsName(dir))
	if err != nil {
		return true // the loader meets the error itself
	}
	var batch []*aheadItem
	flush := func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.stop {
			return false
		}
		for _, it := range batch {
			if a.items[it.path] == nil {
				it.index = len(a.order)
				a.items[it.path] = it
				a.order = append(a.order, it)
			}
		}
		batch = batch[:0]
		a.cond.Broadcast()
		return true
	}
	for _, e := range entries {
		p := join(dir, e.Name())
		switch {
		case e.IsDir():
			if e.Name() == ".git" {
				continue
			}
			if !flush() {
				return false
			}
			if !a.walkDir(p) {
				return false
			}
		case e.Type().IsRegular():
			if k := aheadKind(e.Name()); k != recNone {
				batch = append(batch, &aheadItem{path: p, kind: k})
			}
		}
	}
	return flush()
}

// aheadKind is the record a file is read ahead as, by the default file rules.
func aheadKind(name string) recKind {
	switch {
	case isMetaName(name):
		return recMeta
	case strings.HasSuffix(name, ".model.json") || strings.HasSuffix(name, ".model.jsonc"):
		return recModel
	case strings.HasSuffix(name, ".luau") || strings.HasSuffix(name, ".lua"):
		return recScript
	case strings.HasSuffix(name, ".txt"):
		return recText
	}
	return recNone
}

// work reads and parses queued files until stopped.
func (a *readAhead) work() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		for !a.stop && (a.next >= len(a.order) || a.next > a.taken+aheadWindow) {
			a.cond.Wait()
		}
		if a.stop {
			return
		}
		it := a.order[a.next]
		a.next++
		if it.state != aheadQueued || it.index < a.taken-64 && !aheadInOrder {
			continue // the loader reads it itself, or is past it
		}
		it.state = aheadWorking
		a.mu.Unlock()
		rec := a.read(it)
		a.mu.Lock()
		it.rec, it.state = rec, aheadReady
		a.cond.Broadcast()
	}
}

// read makes the record of the file it names; nil when the loader should read the file
// itself (an error it reports in its own words, a file no longer regular).
func (a *readAhead) read(it *aheadItem) *record {
	data, st, ok, err := a.fsys.readStat(it.path)
	if !ok || err != nil {
		return nil
	}
	rec := &record{kind: it.kind, stat: st, racy: st.mtime >= a.racyFrom, hash: gitblob.Hash(data)}
	switch it.kind {
	case recScript:
		if !utf8.Valid(data) {
			return nil
		}
		setScriptText(rec, data)
	case recText:
		if !setText(rec, data) {
			return nil
		}
	case recMeta:
		if a.rel.parseMeta(it.path, rec, data) != nil {
			return nil
		}
	case recModel:
		l := &loader{projDir: a.rel.projDir, opts: a.rel.opts}
		inst, err := l.parseModel(it.path, "", rec, data, true)
		if err != nil {
			return nil
		}
		rec.model.fresh = inst
	}
	return rec
}

// take returns the record made ahead for p, when it is of kind k; nil when there
// is none, and then no worker starts on p. It waits for a worker reading p.
func (a *readAhead) take(p string, k recKind) *record {
	a.mu.Lock()
	defer a.mu.Unlock()
	it := a.items[p]
	if it == nil {
		return nil
	}
	if it.index > a.taken {
		a.taken = it.index
		a.cond.Broadcast()
	}
	for it.state == aheadWorking || it.state == aheadQueued && aheadInOrder {
		a.cond.Wait()
	}
	rec := it.rec
	it.state, it.rec = aheadTaken, nil
	delete(a.items, p)
	if rec == nil || rec.kind != k {
		return nil
	}
	return rec
}

// ahead returns p's record of kind k when it was read ahead (see readAhead), and
// keeps it; nil otherwise. The caller has checked p (guard).
func (l *loader) ahead(p string, k recKind) *record {
	if l.mem == nil || l.mem.ahead == nil {
		return nil
	}
	rec := l.mem.ahead.take(p, k)
	if rec == nil {
		return nil
	}
	l.mem.made++
	l.mem.tookAhead++
	l.keep(p, rec)
	return rec
}
