package project

import (
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"strings"
	"unsafe"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// A record is what loading one file gave: its stat data and blob id when read, and
// its parsed form, so a later load builds the file's instances without reading or
// parsing it again.
type record struct {
	kind recKind
	stat fileStat
	// racy marks a record whose stat data cannot prove the content unchanged (the
	// file changed while or just before it was read): its content is compared
	// before it is trusted, as git does for racily clean index entries.
	racy bool
	hash string // blob id of the file's bytes
	gen  uint64 // the load that last used the record

	// text is the parsed text: a script's Source (after NormalizeSource), a data
	// module's Lua source, a .csv's Contents, a .txt's Value. A script's record
	// may hold no text (hasText false): one restored from an index, or one whose
	// text the cache let go (Cache.DropTexts). Its hashes still stand; the text is
	// read from the file when it is needed, and checked against them.
	text    string
	hasText bool
	// textHash is the blob id of text when it differs from hash (data modules,
	// scripts with CRLF line endings).
	textHash string
	meta     *metaRecord
	model    *modelRecord
	project  *projectFile // in memory only
}

type recKind uint8

// The record kinds; stored in the index: append only.
const (
	recNone recKind = iota
	recScript
	recJSON
	recTOML
	recYAML
	recCSV
	recText
	recMeta
	recModel
	recOpaque  // a file whose content is only hashed here (.rbxmx, .rbxm)
	recProject // a project file; its parse is kept in memory only
)

// metaRecord is a parsed meta file. Its properties resolve differently for each
// class (one meta file may apply to a script, a text file and a folder of the
// same name), so they are kept as read and resolved once per class.
type metaRecord struct {
	className     *string
	ignoreUnknown *bool
	id            *string
	rawProps      map[string]json.RawMessage
	rawAttrs      json.RawMessage
	resolved      map[string][]propValue // by class, in name order
	attrsDone     bool
	attrs         dom.Attributes
}

type propValue struct {
	name  string
	value dom.Value
}

// modelRecord is a parsed .model.json: its instances in dom's binary form (decoded
// into new instances for each load) and the warnings it gave.
type modelRecord struct {
	empty    bool
	tree     []byte
	warnings []string
	// fresh is the tree parsed ahead of the load (ahead.go), until the load
	// takes it.
	fresh *dom.Instance
}

// validation says how a load decides that a record still describes its file.
type validation uint8

const (
	// byStat compares the file's stat data (a restart, or no watcher).
	byStat validation = iota
	// trusted takes every record as valid: the caller removed those of the
	// paths that changed (a file system watcher said which).
	trusted
	// byBlob compares the blob id a commit's tree gives the path.
	byBlob
)

// memo is what a load shares with the loads before and after it.
type memo struct {
	records map[string]*record
	// shared are records the load may read but must not change (a base commit's
	// load reads the disk's records).
	shared map[string]*record
	mode   validation
	// racyFrom: a record whose mtime is at or after it is racy (ns).
	racyFrom int64
	gen      uint64

	// reuse allows old folder snapshots when clean says nothing under them changed.
	reuse bool
	old   map[string]*dirSnap
	clean func(dir string) bool
	used  map[*dirSnap]bool
	// snaps are the folder snapshots of this load, by key; nil values mark keys
	// made twice (ambiguous, never reused).
	snaps  map[string]*dirSnap
	put    map[string]bool // keys put in snaps by this load
	reused map[*dom.Instance]*dirSnap
	// oldParent is the Parent a reused instance had in the tree before, given
	// back if the new tree takes a copy instead.
	oldParent map[*dom.Instance]*dom.Instance
	// kept are the reused instances the new tree holds as they are.
	kept    map[*dom.Instance]bool
	fresh   map[*dom.Instance]*dirSnap
	stack   []*dirSnap
	symlink bool // the load went through a symlink

	inputs *inputs
	// ahead reads files ahead of a load without records (ahead.go); nil when not.
	ahead     *readAhead
	made      int // files read
	tookAhead int // records taken from ahead
	// checked holds, by path, whether a record was found valid by checks made
	// before the load (in parallel, see Cache.check).
	checked map[string]bool
}

// dirSnap is a folder reached through its parent's listing, as a load built it:
// the instance it became (nil for none), with everything needed to put it in a
// later tree unchanged.
type dirSnap struct {
	dir      string
	inst     *dom.Instance
	warnings []string
	dups     []string // duplicate sibling paths inside, in tree order
	// noReuse: the snapshot read something outside its folder (a $path leaving
	// it, a symlink), so a change elsewhere could change it.
	noReuse bool
	// idsDone is set once dups are known (the incremental id walk computed them).
	idsDone bool
}

func snapKey(ctx *context, dir string) string { return ctx.projectFile + "\x00" + dir }

// inputs are what a load read from the fs besides file contents (which records
// hold): the relevant names of each folder listed and the result of each probe.
// Comparing them and the records' blob ids with a commit tells whether loading the
// commit gives the same tree.
type inputs struct {
	dirs   map[string]dirInput
	probes map[string]probe
}

type dirInput struct {
	ctx   *context
	names [sha256.Size]byte // of relevantNames of the listing
}

type probe struct {
	lstat bool
	kind  fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 for a file; probeAbsent
}

const probeAbsent = fs.ModeIrregular

func newInputs() *inputs {
	return &inputs{dirs: map[string]dirInput{}, probes: map[string]probe{}}
}

// forget drops what is known about p and everything below it, and the listing of
// its folder.
func (in *inputs) forget(p string) {
	delete(in.dirs, dirOf(p))
	delete(in.dirs, p)
	delete(in.probes, p)
	for k := range in.dirs {
		if under(k, p) {
			delete(in.dirs, k)
		}
	}
	for k := range in.probes {
		if under(k, p) {
			delete(in.probes, k)
		}
	}
}

// under reports whether p is strictly inside folder dir ("" is the fs root).
func under(p, dir string) bool {
	if dir == "" {
		return p != ""
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

func fileKind(fi fs.FileMode) fs.FileMode {
	switch {
	case fi&fs.ModeSymlink != 0:
		return fs.ModeSymlink
	case fi.IsDir():
		return fs.ModeDir
	}
	return 0
}

func (l *loader) noteProbe(p string, lstat bool, st fs.FileInfo) {
	if l.mem == nil || l.mem.inputs == nil {
		return
	}
	k := probeAbsent
	if st != nil {
		k = fileKind(st.Mode())
	}
	l.mem.inputs.probes[p] = probe{lstat: lstat, kind: k}
}

// relevantNames is the part of a folder listing that can change what the folder
// loads as: names the loader ignores (no file rule, globIgnorePaths) are left out,
// so untracked clutter does not make a commit look different from the disk.
func relevantNames(ctx *context, dir string, entries []fs.DirEntry) string {
	var b strings.Builder
	for _, e := range entries {
		n := e.Name()
		p := join(dir, n)
		t := fileKind(e.Type())
		if t == 0 && !isInitName(n) && !isMetaName(n) && !IsProjectFile(n) {
			if ignored(ctx.ignores, p) {
				continue
			}
			if u, _, ok := classify(ctx, p); !ok || u == useIgnore {
				continue
			}
		}
		b.WriteString(n)
		switch t {
		case fs.ModeDir:
			b.WriteString("/")
		case fs.ModeSymlink:
			b.WriteString("@")
		}
		b.WriteByte(0)
	}
	return b.String()
}

func isMetaName(n string) bool {
	return strings.HasSuffix(n, ".meta.json") || strings.HasSuffix(n, ".meta.jsonc")
}

// cached returns p's record of kind k if it still describes the file, or nil.
func (l *loader) cached(p string, k recKind) *record {
	m := l.mem
	if m == nil {
		return nil
	}
	rec := m.records[p]
	if m.shared != nil {
		if rec == nil || rec.kind != k {
			rec = m.shared[p]
		}
	}
	if rec == nil || rec.kind != k {
		return nil
	}
	switch m.mode {
	case trusted:
	case byBlob:
		h, err := l.fsys.(gitblob.BlobHasher).BlobHash(p)
		if err != nil || h != rec.hash {
			return nil
		}
	case byStat:
		if ok, checked := m.checked[p]; checked {
			if !ok {
				return nil
			}
			break
		}
		fi, err := fs.Stat(l.fsys, p)
		if err != nil {
			return nil
		}
		st := statOf(fi)
		if st != rec.stat {
			return nil
		}
		if rec.racy || st.mtime >= m.racyFrom {
			// Racily clean: the same stat data may hide a change made in the
			// same clock tick as the recorded one. Compare the content.
			data, err := fs.ReadFile(l.fsys, p)
			m.made++
			if err != nil || gitblob.Hash(data) != rec.hash {
				return nil
			}
			if k == recScript && !rec.hasText {
				setScriptText(rec, data)
			}
			rec.racy = st.mtime >= m.racyFrom
		}
	}
	rec.gen = m.gen
	return rec
}

// keep stores a record made by this load.
func (l *loader) keep(p string, rec *record) {
	if l.mem == nil || l.mem.records == nil {
		return
	}
	rec.gen = l.mem.gen
	l.mem.records[p] = rec
}

// readRecord reads p for a new record: its stat data first, so that a change
// during the read leaves a record that no longer matches the file.
func (l *loader) readRecord(p string, k recKind) (*record, []byte, error) {
	rec := &record{kind: k}
	if sr, ok := l.fsys.(statReader); ok && l.mem != nil && l.mem.mode != byBlob {
		if data, st, done, err := sr.readStat(p); done {
			if err != nil {
				return nil, nil, err
			}
			rec.stat, rec.racy = st, st.mtime >= l.mem.racyFrom
			l.mem.made++
			rec.hash = gitblob.Hash(data)
			return rec, data, nil
		}
	}
	if l.mem != nil && l.mem.mode != byBlob {
		if fi, err := fs.Stat(l.fsys, p); err == nil {
			rec.stat = statOf(fi)
			rec.racy = rec.stat.mtime >= l.mem.racyFrom
		}
	}
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		return nil, nil, err
	}
	if l.mem != nil {
		l.mem.made++
	}
	rec.hash = gitblob.Hash(data)
	return rec, data, nil
}

// setScriptText fills a script record's text from the file's bytes.
// The record takes data over: the caller must not use it after.
func setScriptText(rec *record, data []byte) {
	// Sources are most of a project's bytes: the text is data itself, not a
	// copy. Nothing writes to data once it is read.
	text := ""
	if len(data) > 0 {
		text = unsafe.String(&data[0], len(data))
	}
	src := NormalizeSource(text)
	rec.text, rec.hasText = src, true
	if len(src) != len(data) {
		rec.textHash = gitblob.HashString(src)
	}
}

// file returns the record of a file of kind k that parse fills from its bytes.
// Read errors are the loader's "cannot read" errors.
func (l *loader) file(p string, k recKind, parse func(rec *record, data []byte) error) (*record, error) {
	if err := l.guard(p); err != nil {
		return nil, err
	}
	if rec := l.cached(p, k); rec != nil {
		return rec, nil
	}
	if rec := l.ahead(p, k); rec != nil {
		return rec, nil
	}
	rec, data, err := l.readRecord(p, k)
	if err != nil {
		return nil, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	if err := parse(rec, data); err != nil {
		return nil, err
	}
	l.keep(p, rec)
	return rec, nil
}

// openSnap starts recording a folder snapshot; done ends it.
func (l *loader) openSnap(dir string) *dirSnap {
	s := &dirSnap{dir: dir}
	l.mem.stack = append(l.mem.stack, s)
	return s
}

func (l *loader) closeSnap() { l.mem.stack = l.mem.stack[:len(l.mem.stack)-1] }

// readsOutside marks the open snapshots that do not contain p: they depend on it.
func (l *loader) readsOutside(p string) {
	if l.mem == nil {
		return
	}
	for _, s := range l.mem.stack {
		if p != s.dir && !under(p, s.dir) {
			s.noReuse = true
		}
	}
}

// sawSymlink marks every open snapshot: what a link points at can change with
// no event inside the folder.
func (l *loader) sawSymlink() {
	if l.mem == nil {
		return
	}
	l.mem.symlink = true
	for _, s := range l.mem.stack {
		s.noReuse = true
	}
}

// snapshotChildDir is snapshotDir for a folder found in its parent's listing: the
// one kind of folder snapshot the tree keeps unchanged, so a later load may reuse
// it whole when nothing under it changed.
func (l *loader) snapshotChildDir(ctx *context, p string) (*dom.Instance, error) {
	m := l.mem
	if m == nil || m.snaps == nil {
		return l.snapshotDir(ctx, p)
	}
	key := snapKey(ctx, p)
	if m.reuse && !m.put[key] {
		if s := m.old[key]; s != nil && !s.noReuse && s.idsDone && !m.used[s] && m.clean(p) {
			m.used[s] = true
			l.warnings = append(l.warnings, s.warnings...)
			if s.inst != nil {
				m.reused[s.inst] = s
				m.oldParent[s.inst] = s.inst.Parent
			}
			l.putSnap(key, s)
			return s.inst, nil
		}
	}
	start := len(l.warnings)
	s := l.openSnap(p)
	inst, err := l.snapshotDir(ctx, p)
	l.closeSnap()
	if err != nil {
		return nil, err
	}
	s.inst = inst
	s.warnings = append([]string(nil), l.warnings[start:]...)
	if inst != nil {
		m.fresh[inst] = s
	} else {
		s.idsDone = true
	}
	l.putSnap(key, s)
	return inst, nil
}

func (l *loader) putSnap(key string, s *dirSnap) {
	if l.mem.put[key] {
		l.mem.snaps[key] = nil // reached twice: which copy is which is unknown
		return
	}
	l.mem.put[key] = true
	l.mem.snaps[key] = s
}

// readOpaque reads a file the loader parses anew each time (.rbxmx, .rbxm: rare,
// and their refs are bound per load); its record keeps only its blob id.
func (l *loader) readOpaque(p string) ([]byte, error) {
	if err := l.guard(p); err != nil {
		return nil, err
	}
	rec, data, err := l.readRecord(p, recOpaque)
	if err != nil {
		return nil, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	l.keep(p, rec)
	return data, nil
}

func (l *loader) noteDir(ctx *context, dir string, entries []fs.DirEntry) {
	if l.mem == nil || l.mem.inputs == nil {
		return
	}
	l.mem.inputs.dirs[dir] = dirInput{ctx: ctx, names: sumNames(ctx, dir, entries)}
}

func sumNames(ctx *context, dir string, entries []fs.DirEntry) [sha256.Size]byte {
	return sha256.Sum256([]byte(relevantNames(ctx, dir, entries)))
}
