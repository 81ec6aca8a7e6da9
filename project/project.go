package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project/format"
)

// Options tunes Load.
type Options struct {
	// DirName names the folder that holds the project file when that folder is the
	// fs root (a default.project.json's root instance is named after its folder).
	DirName string
	// HashOnly skips reading script files on an fs that can give blob ids without
	// reading (a commit): scripts get RawHash but no Source and no SourceHash.
	HashOnly bool
	// RecordFiles fills Project.Files. Off by default: only the sourcemap needs it,
	// and a plan should not pay for it.
	RecordFiles bool
	// Root is the OS folder fsys is rooted at, when it is one (os.DirFS): a
	// symbolic link with an absolute target is followed only when the target is
	// inside the project folder, which takes knowing where the fs is. Without
	// it, a link with an absolute target is refused as leaving the project (in
	// a commit's tree, which cannot follow it, it reads as missing).
	Root string
}

// Project is a loaded project: its settings and its instance tree.
type Project struct {
	// File is the root project file, relative to the fs root.
	File string
	// Dir is the folder of File ("" for the fs root). Every FsPath is relative to it.
	Dir  string
	Name string
	Root *dom.Instance

	ServePort         int
	ServePlaceIDs     []uint64
	BlockedPlaceIDs   []uint64
	PlaceID, GameID   uint64
	EmitLegacyScripts bool
	// Warnings are non-fatal findings (duplicate sibling names, dropped keys…).
	Warnings []string
	// Files lists, per instance, the existing files it is made from, in the order
	// and by the rules of Rojo's "relevant paths" (the filePaths of a sourcemap):
	// a file and its adjacent meta files; a folder's init files and init meta files;
	// a model file for its root only; a project file for the root of its tree.
	// Paths are relative to Dir. Set only with Options.RecordFiles.
	Files map[*dom.Instance][]string

	indexOnce sync.Once
	indexed   atomic.Bool
	index     map[string]*dom.Instance
	// prev is the tree a Cache's Update made this one from, when prev's index
	// was built; kept are the subtrees they share. Index starts from prev's.
	prev *Project
	kept map[*dom.Instance]bool
}

// Index returns every instance by id, computed once (a loaded project is not changed).
// After an Update it is the previous tree's index with the changed subtrees
// replaced, when that one was built.
func (p *Project) Index() map[string]*dom.Instance {
	p.indexOnce.Do(func() {
		if p.prev != nil && p.prev.indexed.Load() {
			p.index = maps.Clone(p.prev.index)
			var drop, add func(x *dom.Instance)
			drop = func(x *dom.Instance) {
				if p.kept[x] {
					return
				}
				if p.index[x.ID] == x {
					delete(p.index, x.ID)
				}
				for _, c := range x.Children {
					drop(c)
				}
			}
			add = func(x *dom.Instance) {
				if p.kept[x] {
					return
				}
				p.index[x.ID] = x
				for _, c := range x.Children {
					add(c)
				}
			}
			drop(p.prev.Root)
			add(p.Root)
		} else {
			p.index = p.Root.Index()
		}
		p.prev, p.kept = nil, nil
		p.indexed.Store(true)
	})
	return p.index
}

// IsPlace reports whether the project describes a place (its root is a DataModel).
func (p *Project) IsPlace() bool { return p.Root != nil && p.Root.ClassName == "DataModel" }

// Error is a project that cannot be loaded. It maps to E_PROJECT_INVALID.
type Error struct {
	File         string // relative to the project folder
	Line, Column int    // 1-based, when parsing failed
	Msg          string
	// Reason is set for a refusal with its own reason code; Link and Target
	// name the symbolic link of a symlink_outside_project and its text.
	Reason       errcode.Reason
	Link, Target string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	if e.File != "" {
		return e.File + ": " + e.Msg
	}
	return e.Msg
}

// AsCoded converts err into the coded error the CLI and MCP edges report.
func AsCoded(err error) *errcode.Error {
	if errors.Is(err, ErrNoProject) {
		return errcode.Wrap(errcode.ProjectInvalid, err, "").Reason(errcode.ReasonNoProject, errcode.NextPassProject)
	}
	var pe *Error
	if errors.As(err, &pe) {
		ce := errcode.New(errcode.ProjectInvalid, "invalid project: %s", pe.Error()).
			Reason(errcode.ReasonProjectInvalid, errcode.NextFixProject)
		if pe.Reason == errcode.ReasonSymlinkOutsideProject {
			ce = errcode.New(errcode.ProjectInvalid, "%s", pe.Error()).
				Reason(pe.Reason, errcode.NextFixSymlink)
			ce.With("link", pe.Link).With("target", pe.Target)
		}
		ce.With("file", pe.File)
		if pe.Line > 0 {
			ce.With("line", pe.Line).With("column", pe.Column)
		}
		ce.Err = err
		return ce
	}
	return errcode.As(err)
}

// DefaultFiles are the names probed, in order, when a folder is given as a project.
var DefaultFiles = []string{"default.project.json", "default.project.jsonc"}

// IsProjectFile reports whether name is a project file name.
func IsProjectFile(name string) bool {
	return strings.HasSuffix(name, ".project.json") || strings.HasSuffix(name, ".project.jsonc")
}

// Load reads the project file at file (a path in fsys, or a folder holding a
// default project file) and everything it points at.
func Load(fsys fs.FS, file string, opts Options) (*Project, error) {
	return loadWith(fsys, file, opts, nil)
}

// loadWith is Load sharing what it reads with other loads through mem (nil for none).
func loadWith(fsys fs.FS, file string, opts Options, mem *memo) (*Project, error) {
	fsys = followLinks(fsys)
	file = path.Clean(file)
	if st, err := fs.Stat(fsys, file); err == nil && st.IsDir() {
		found := ""
		for _, name := range DefaultFiles {
			if _, err := fs.Stat(fsys, path.Join(file, name)); err == nil {
				found = path.Join(file, name)
				break
			}
		}
		if found == "" {
			return nil, &Error{File: file, Msg: "no project file was found (default.project.json)"}
		}
		file = found
	}
	dir := path.Dir(file)
	if dir == "." {
		dir = ""
	}
	l := &loader{fsys: fsys, opts: opts, projDir: dir, mem: mem,
		listings: map[string]map[string]bool{}, plainDirs: map[string]bool{}, realPaths: map[string]string{"": ""},
		links: map[string]map[string]bool{}, safe: map[string]bool{}}
	l.lfs, _ = fsys.(*linkFS)
	_, hashOK := fsys.(gitblob.BlobHasher)
	l.hashOnly = opts.HashOnly && hashOK
	if opts.RecordFiles {
		l.files = map[*dom.Instance][]string{}
	}
	if a := startReadAhead(l); a != nil {
		mem.ahead = a
		defer func() {
			a.stopAndWait()
			mem.ahead = nil
		}()
	}

	name := ""
	base := path.Base(file)
	if base == "default.project.json" || base == "default.project.jsonc" {
		if dir == "" {
			name = opts.DirName
		} else {
			name = path.Base(dir)
		}
	} else {
		name = stripProjectSuffix(base)
	}
	pf, err := l.readProjectFile(file)
	if err != nil {
		return nil, err
	}
	if pf.Name != nil {
		name = *pf.Name
	}
	if name == "" {
		name = "Project"
	}
	ctx := l.contextFor(pf, file, nil)
	root, err := l.buildNode(ctx, pf, name, pf.Tree, "", nil)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, l.errf(file, "the project's tree produced no instance (its $path does not exist)")
	}
	p := &Project{File: file, Dir: dir, Name: name, Root: root, EmitLegacyScripts: ctx.emitLegacy}
	if pf.ServePort != nil {
		p.ServePort = *pf.ServePort
	}
	p.ServePlaceIDs = pf.ServePlaceIDs
	p.BlockedPlaceIDs = pf.BlockedPlaceIDs
	if pf.PlaceID != nil {
		p.PlaceID = *pf.PlaceID
	}
	if pf.GameID != nil {
		p.GameID = *pf.GameID
	}
	var dups []string
	if mem != nil && mem.snaps != nil {
		// A tree that may hold subtrees of an earlier load: ids are assigned
		// where they may have changed only. Links between instances need the
		// whole tree; such a project is loaded without reuse.
		var links bool
		if dups, links = l.assignIDs(root); links {
			return nil, errLinks
		}
	} else {
		if err := l.resolveRefs(root); err != nil {
			return nil, err
		}
		dups = root.AssignIDs()
	}
	for _, d := range dups {
		l.warnf("duplicate sibling name %q: instances are matched by order", d)
	}
	for _, refs := range l.modelRefs {
		refs.Rebind()
	}
	p.Warnings = l.warnings
	p.Files = l.files
	return p, nil
}

func stripProjectSuffix(name string) string {
	name = strings.TrimSuffix(name, ".jsonc")
	name = strings.TrimSuffix(name, ".json")
	return strings.TrimSuffix(name, ".project")
}

type loader struct {
	fsys     fs.FS
	opts     Options
	mem      *memo // nil for a load that shares nothing
	hashOnly bool
	projDir  string // folder of the root project; FsPaths are relative to it
	warnings []string
	// dirStack holds the folders being scanned, to catch symlink loops.
	dirStack []string
	// listings are the names in each folder read so far.
	listings map[string]map[string]bool
	// plainDirs are folders reached through a listing without a symlink, and
	// realPaths the resolved paths of folders entered.
	plainDirs map[string]bool
	realPaths map[string]string
	// links are the names of the symbolic links in each folder listed, and
	// safe the paths (folders, links) known to stay inside the project folder.
	links    map[string]map[string]bool
	safe     map[string]bool
	projReal *string
	rootReal string
	lfs      *linkFS // the fs, when it follows links for the loader; nil otherwise
	refIDs   map[string]*dom.Instance
	// modelRefs are the Ref properties inside .rbxmx models, which point at
	// provisional ids until the tree's ids are assigned.
	modelRefs []rbxmx.Refs
	// files is Project.Files while loading; nil when not recording.
	files map[*dom.Instance][]string
}

// record appends the fs paths that exist as files to inst's Files, when recording.
func (l *loader) record(inst *dom.Instance, paths ...string) {
	if l.files == nil {
		return
	}
	for _, p := range paths {
		if st, err := fs.Stat(l.fsys, p); err == nil && !st.IsDir() {
			l.files[inst] = append(l.files[inst], l.rel(p))
		}
	}
}

// context is the per-project-file state: settings that nested projects reset or accumulate.
type context struct {
	projectFile string
	projectDir  string
	emitLegacy  bool
	syncRules   []syncRule
	ignores     []ignoreRule
}

func (l *loader) warnf(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// rel turns an fs path into a path relative to the root project's folder.
func (l *loader) rel(p string) string {
	if l.projDir == "" {
		return p
	}
	if p == l.projDir {
		return ""
	}
	if r, ok := relTo(l.projDir, p); ok {
		return r
	}
	// Outside the project folder (a $path with ".."): keep it relative with "..".
	up := strings.Count(l.projDir, "/") + 1
	return strings.Repeat("../", up) + p
}

func (l *loader) errf(file string, format string, args ...any) error {
	return &Error{File: l.rel(file), Msg: fmt.Sprintf(format, args...)}
}

func (l *loader) contextFor(pf *projectFile, file string, parent *context) *context {
	dir := path.Dir(file)
	if dir == "." {
		dir = ""
	}
	c := &context{projectFile: file, projectDir: dir, emitLegacy: true}
	if pf.EmitLegacyScripts != nil {
		c.emitLegacy = *pf.EmitLegacyScripts
	}
	c.syncRules = pf.syncRules
	if parent != nil {
		c.ignores = append(c.ignores, parent.ignores...)
	}
	c.ignores = append(c.ignores, pf.ignores...)
	return c
}

// readFile reads a file, refusing invalid UTF-8 where the format needs text.
func (l *loader) readFile(p string) ([]byte, error) {
	if err := l.guard(p); err != nil {
		return nil, err
	}
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		return nil, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	return data, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *loader) readText(p string) (string, error) {
	data, err := l.readFile(p)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", l.errf(p, "the file is not valid UTF-8")
	}
	return string(data), nil
}

// parseJSONC parses a JSON-family file, turning syntax errors into located errors.
func (l *loader) parseJSONC(p string, data []byte) (json.RawMessage, error) {
	return l.parseWith(format.ParseJSONC, p, data)
}

// parseUnordered is parseJSONC for a file whose objects are only read into maps
// and structs (format.ParseJSONCUnordered).
func (l *loader) parseUnordered(p string, data []byte) (json.RawMessage, error) {
	return l.parseWith(format.ParseJSONCUnordered, p, data)
}

// parseWith parses file p's bytes with parse, turning a syntax error into an error
// located in the file.
func (l *loader) parseWith(parse func([]byte) (json.RawMessage, error), p string, data []byte) (json.RawMessage, error) {
	raw, err := parse(data)
	if err != nil {
		var se *format.SyntaxError
		if errors.As(err, &se) {
			return nil, &Error{File: l.rel(p), Line: se.Line, Column: se.Column, Msg: se.Msg}
		}
		return nil, l.errf(p, "%v", err)
	}
	return raw, nil
}

// resolvePath joins a $path value onto the folder of its project file.
func (l *loader) resolvePath(ctx *context, file, p string) (string, error) {
	if path.IsAbs(p) || (len(p) > 1 && p[1] == ':') {
		return "", l.errf(file, "$path %q is absolute: use a path relative to the project file", p)
	}
	p = strings.ReplaceAll(p, `\`, "/")
	joined := path.Clean(path.Join(ctx.projectDir, p))
	if joined == "." {
		joined = ""
	}
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", l.errf(file, "$path %q points outside the repository", p)
	}
	if _, inside := relTo(l.projDir, joined); !inside && joined != l.projDir {
		return "", l.errf(file, "$path %q points outside the project folder; Atlas syncs files inside it only", p)
	}
	return joined, nil
}

func fsName(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// stat follows symlinks (fs.Stat does); a missing path is (nil, nil).
func (l *loader) stat(p string) (fs.FileInfo, error) {
	st, err := fs.Stat(l.fsys, fsName(p))
	if l.lfs != nil && !l.lfs.on && (err != nil || st.Mode()&fs.ModeSymlink != 0) {
		// A link on the way switches the fs to following links.
		l.resolveLinks(p)
		if l.lfs.on {
			st, err = fs.Stat(l.fsys, fsName(p))
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.noteProbe(p, false, nil)
			return nil, nil
		}
		return nil, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	l.noteProbe(p, false, st)
	if err := l.guard(p); err != nil {
		return nil, err
	}
	return st, nil
}

// snapshotPath turns a path into an instance with the file rules; nil when the path
// does not exist or matches no rule. The target of a $path is never ignored by globs.
func (l *loader) snapshotPath(ctx *context, p string, filtered bool) (*dom.Instance, error) {
	st, err := l.stat(p)
	if err != nil || st == nil {
		return nil, err
	}
	if filtered && ignored(ctx.ignores, p) {
		return nil, nil
	}
	if st.IsDir() {
		return l.snapshotDir(ctx, p)
	}
	return l.snapshotFile(ctx, p)
}

// snapshotEntry is snapshotPath for an entry of a folder listing: its type is known,
// so nothing is stat'ed unless it is a symlink.
func (l *loader) snapshotEntry(ctx *context, p string, e fs.DirEntry) (*dom.Instance, error) {
	if e.Type()&fs.ModeSymlink != 0 {
		l.sawSymlink()
		// Checked before it is followed: an fs that cannot follow it (a
		// commit's, for a link leaving it) would show it as missing.
		if ignored(ctx.ignores, p) {
			return nil, nil
		}
		if err := l.guard(p); err != nil {
			return nil, err
		}
		return l.snapshotPath(ctx, p, true)
	}
	if ignored(ctx.ignores, p) {
		return nil, nil
	}
	if e.IsDir() {
		l.plainDirs[p] = true
		return l.snapshotChildDir(ctx, p)
	}
	return l.snapshotFile(ctx, p)
}

// readDir lists a folder's entries in byte order and remembers their names, so
// probes for meta and project files in it need no system call.
func (l *loader) readDir(p string) ([]fs.DirEntry, error) {
	if err := l.guard(p); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(l.fsys, fsName(p))
	if err != nil {
		return nil, l.errf(p, "cannot read folder: %v", unwrapPathError(err))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
		if e.Type()&fs.ModeSymlink != 0 {
			if l.lfs != nil {
				l.lfs.on = true
			}
			if l.links == nil {
				l.links = map[string]map[string]bool{}
			}
			if l.links[p] == nil {
				l.links[p] = map[string]bool{}
			}
			l.links[p][e.Name()] = true
		}
	}
	l.safe[p] = true
	l.listings[p] = names
	return entries, nil
}

// listed reports whether name may exist in dir: false only when dir was listed and
// name was not in it.
func (l *loader) listed(dir, name string) bool {
	names, ok := l.listings[dir]
	return !ok || names[name]
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// enterDir guards against symlink loops: a folder reached again while it is still
// being scanned (through a link to an ancestor) is an error, not an endless walk.
func (l *loader) enterDir(p string) (func(), error) {
	real := l.realPath(p)
	for _, d := range l.dirStack {
		if d == real {
			return nil, l.errf(p, "symlink loop: this folder contains itself")
		}
	}
	if len(l.dirStack) > 256 {
		return nil, l.errf(p, "folders nested too deep (a symlink loop?)")
	}
	l.dirStack = append(l.dirStack, real)
	return func() { l.dirStack = l.dirStack[:len(l.dirStack)-1] }, nil
}

// realPath resolves symlinks along p inside the fs, as far as the fs can tell. A
// folder reached from its parent's listing without a symlink extends the parent's.
func (l *loader) realPath(p string) string {
	if p == "" {
		return ""
	}
	if l.plainDirs[p] {
		if parent, ok := l.realPaths[dirOf(p)]; ok {
			r := join(parent, path.Base(p))
			l.realPaths[p] = r
			return r
		}
	}
	r := l.resolveReal(p)
	l.realPaths[p] = r
	return r
}

func (l *loader) resolveReal(p string) string {
	parts := strings.Split(p, "/")
	cur := ""
	for i := 0; i < len(parts); i++ {
		next := join(cur, parts[i])
		for hops := 0; hops < 40; hops++ {
			st, err := fs.Lstat(l.fsys, next)
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				l.noteProbe(next, true, st)
			}
			if err != nil || st.Mode()&fs.ModeSymlink == 0 {
				break
			}
			l.sawSymlink()
			target, err := fs.ReadLink(l.fsys, next)
			if err != nil {
				break
			}
			if path.IsAbs(target) {
				return "/abs" + path.Clean(target) + "/" + strings.Join(parts[i+1:], "/")
			}
			next = path.Clean(path.Join(cur, target))
			if next == "." {
				next = ""
			}
		}
		cur = next
	}
	return cur
}
