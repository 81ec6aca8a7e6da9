package gitblob

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// BlobHasher is implemented by file systems that know the git blob id of
// their files without reading them, such as the one CommitFS returns.
type BlobHasher interface {
	// BlobHash returns the blob id (40 hex digits) of the named file.
	BlobHash(name string) (string, error)
}

// Git tree entry modes.
const (
	modeDir     = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

var (
	errIsDir   = errors.New("is a directory")
	errNotDir  = errors.New("not a directory")
	errNotBlob = errors.New("not a blob")
)

// node is one entry of a commit's tree.
type node struct {
	name     string
	mode     uint32 // git mode, one of the mode constants (or a legacy file mode)
	hash     plumbing.Hash
	children []*node // sorted by name; set for directories only

	// size caches the blob's size plus one, zero until looked up: the size
	// is in the object header, which listing a tree does not need to read.
	size atomic.Int64
}

func (n *node) isDir() bool { return n.mode == modeDir || n.mode == modeGitlink }

// fsMode maps a git mode to the closest file mode a checkout would produce.
func (n *node) fsMode() fs.FileMode {
	switch {
	case n.isDir():
		return fs.ModeDir | 0o755
	case n.mode == modeSymlink:
		return fs.ModeSymlink | 0o777
	case n.mode&0o100 != 0:
		return 0o755
	}
	return 0o644
}

// snapshot is a commit's whole tree, read once: after loading it is never
// modified, so any number of goroutines may use it.
type snapshot struct {
	r       *Repo
	root    *node
	modTime time.Time
}

// CommitFS returns the tree of a commit as a read-only file system rooted at
// the repository's top directory; use SubFS (or fs.Sub) for a subdirectory.
// commit is a commit id or anything Resolve accepts.
//
// The result implements fs.ReadDirFS, fs.ReadFileFS, fs.StatFS, fs.SubFS,
// fs.ReadLinkFS and BlobHasher, and is safe for concurrent use. Directory
// listings are sorted by name and every file has the commit time as its
// modification time. Nothing is followed: a symlink is reported with mode
// fs.ModeSymlink and reading it yields the link's target text. A submodule
// appears as an empty directory.
func (r *Repo) CommitFS(commit string) (fs.FS, error) {
	var s *snapshot
	err := r.do(func() error {
		h, err := r.commitHash(commit)
		if err != nil {
			return err
		}
		// Snapshots never change, and callers tend to ask for the same
		// commit (HEAD) again and again.
		if r.last != nil && r.lastCommit == h {
			s = r.last
			return nil
		}
		c, err := object.GetCommit(r.repo.Storer, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return fmt.Errorf("%w %s: no such commit", ErrBadRevision, h)
		}
		if err != nil {
			return fmt.Errorf("read commit %s: %w", h, err)
		}
		root, err := r.readRoot(c.TreeHash)
		if err != nil {
			return fmt.Errorf("read tree of commit %s: %w", h, err)
		}
		r.keepTrees(root)
		s = &snapshot{r: r, root: root, modTime: c.Committer.When}
		r.last, r.lastCommit = s, h
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &commitFS{s: s}, nil
}

// commitHash skips revision parsing for full ids, the common case. Callers hold the lock.
func (r *Repo) commitHash(commit string) (plumbing.Hash, error) {
	if len(commit) == 2*len(plumbing.ZeroHash) && isHex(commit) {
		return plumbing.NewHash(commit), nil
	}
	return r.resolveLocked(commit)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// readRoot reads the tree root and every tree below it. It parses the raw tree
// objects itself: go-git's object.Tree builds a per-tree lookup map and copies
// that are wasted here. Callers hold the lock.
func (r *Repo) readRoot(root plumbing.Hash) (*node, error) {
	top := &node{name: ".", mode: modeDir, hash: root}
	if _, err := r.readTrees(top); err != nil {
		return nil, err
	}
	return top, nil
}

// pathsOf returns the entries of the tree top by slash path; "." is top.
func pathsOf(top *node) map[string]*node {
	nodes := map[string]*node{".": top}
	var index func(dir *node, prefix string)
	index = func(dir *node, prefix string) {
		for _, n := range dir.children {
			p := prefix + n.name
			nodes[p] = n
			if n.mode == modeDir {
				index(n, p+"/")
			}
		}
	}
	index(top, "")
	return nodes
}

// find returns the entry at slash path name below dir ("." is dir itself).
func find(dir *node, name string) (*node, bool) {
	if name == "." {
		return dir, true
	}
	for elem := range strings.SplitSeq(name, "/") {
		if dir.mode != modeDir {
			return nil, false
		}
		i, ok := slices.BinarySearchFunc(dir.children, elem, func(n *node, elem string) int { return strings.Compare(n.name, elem) })
		if !ok {
			return nil, false
		}
		dir = dir.children[i]
	}
	return dir, true
}

// readTrees fills in the children of dir and of every directory below it,
// returning how many entries it added. Callers hold the lock.
func (r *Repo) readTrees(dir *node) (int, error) {
	if t, ok := r.trees[dir.hash]; ok {
		dir.children = t.children
		return t.count, nil
	}
	raw, err := r.readObject(plumbing.TreeObject, dir.hash)
	if err != nil {
		return 0, err
	}
	kids, err := parseTree(raw)
	if err != nil {
		return 0, fmt.Errorf("tree %s: %w", dir.hash, err)
	}
	dir.children = make([]*node, len(kids))
	for i := range kids {
		dir.children[i] = &kids[i]
	}
	// Git orders a directory "a" as if named "a/", so "a-b" < "a" < "a0".
	if !slices.IsSortedFunc(dir.children, byName) {
		slices.SortFunc(dir.children, byName)
	}
	count := len(kids)
	for _, n := range dir.children {
		if n.mode == modeDir {
			c, err := r.readTrees(n)
			if err != nil {
				return 0, err
			}
			count += c
		}
	}
	r.cacheTree(dir.hash, parsedTree{children: dir.children, count: count})
	return count, nil
}

// parsedTree is a tree whose entries, and those of every tree below, are read.
type parsedTree struct {
	children []*node
	count    int // entries in the whole subtree
}

// treeCacheMax bounds the entries kept in Repo.trees, about 100 bytes each.
const treeCacheMax = 200_000

// keepTrees makes the tree cache hold the trees of top, a commit's root tree fully
// read, and nothing else. A commit shares most trees with the next one, but the
// trees a commit replaced would otherwise stay until the cache is full: after 25
// commits of a 10k-script project they were a third of the cache. Callers hold the
// lock.
func (r *Repo) keepTrees(top *node) {
	trees := make(map[plumbing.Hash]parsedTree, len(r.trees))
	entries := 0
	var walk func(dir *node) int
	walk = func(dir *node) int {
		if t, ok := trees[dir.hash]; ok {
			return t.count
		}
		count := len(dir.children)
		for _, n := range dir.children {
			if n.mode == modeDir {
				count += walk(n)
			}
		}
		trees[dir.hash] = parsedTree{children: dir.children, count: count}
		entries += len(dir.children)
		return count
	}
	walk(top)
	r.trees, r.treeEntries = trees, entries
}

// cacheTree remembers a fully read tree. A tree id names its content forever,
// so entries never go stale, and successive commits share most trees; the
// nodes are shared between snapshots, which never modify them after loading
// except for the atomic size cache. Callers hold the lock.
func (r *Repo) cacheTree(h plumbing.Hash, t parsedTree) {
	if r.trees == nil || r.treeEntries+len(t.children) > treeCacheMax {
		r.trees = make(map[plumbing.Hash]parsedTree)
		r.treeEntries = 0
	}
	r.trees[h] = t
	r.treeEntries += len(t.children)
}

func byName(a, b *node) int { return strings.Compare(a.name, b.name) }

// parseTree decodes a raw tree object: entries of "<octal mode> <name>\x00"
// followed by a 20-byte id.
func parseTree(raw []byte) ([]node, error) {
	// One string holds every name of the tree, saving an allocation per entry.
	text := string(raw)
	count := 0
	for i := 0; i < len(text); {
		nul := strings.IndexByte(text[i:], 0)
		if nul < 0 {
			return nil, errors.New("malformed tree entry")
		}
		i += nul + 1 + len(plumbing.ZeroHash)
		count++
	}
	kids := make([]node, 0, count)
	for i := 0; i < len(text); {
		sp := strings.IndexByte(text[i:], ' ')
		nul := strings.IndexByte(text[i:], 0)
		end := i + nul + 1 + len(plumbing.ZeroHash)
		if sp <= 0 || sp > nul || end > len(text) {
			return nil, errors.New("malformed tree entry")
		}
		var mode uint32
		for _, c := range []byte(text[i : i+sp]) {
			if c < '0' || c > '7' {
				return nil, fmt.Errorf("malformed tree entry mode %q", text[i:i+sp])
			}
			mode = mode<<3 | uint32(c-'0')
		}
		name := text[i+sp+1 : i+nul]
		kids = kids[:len(kids)+1]
		n := &kids[len(kids)-1]
		n.name = name
		n.mode = mode
		copy(n.hash[:], text[i+nul+1:end])
		i = end
		// Git refuses to check out such names; so does this file system.
		if name == "" || name == "." || name == ".." || strings.EqualFold(name, ".git") || strings.Contains(name, "/") {
			kids = kids[:len(kids)-1]
		}
	}
	return kids, nil
}

// readObject returns the content of an object. Callers hold the lock.
func (r *Repo) readObject(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	obj, err := r.repo.Storer.EncodedObject(t, h)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	rc, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	defer rc.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	return data, nil
}

// objectSizer is implemented by go-git's file system storage, which finds an
// object's size from its header without inflating the object.
type objectSizer interface {
	EncodedObjectSize(plumbing.Hash) (int64, error)
}

func (s *snapshot) size(n *node) (int64, error) {
	if n.isDir() {
		return 0, nil
	}
	if v := n.size.Load(); v > 0 {
		return v - 1, nil
	}
	var size int64
	storer := s.r.repo.Storer
	err := s.r.do(func() error {
		if sz, ok := storer.(objectSizer); ok {
			v, err := sz.EncodedObjectSize(n.hash)
			size = v
			return err
		}
		obj, err := storer.EncodedObject(plumbing.BlobObject, n.hash)
		if err != nil {
			return err
		}
		size = obj.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of blob %s: %w", n.hash, err)
	}
	n.size.Store(size + 1)
	return size, nil
}

func (s *snapshot) content(n *node) ([]byte, error) {
	var data []byte
	err := s.r.do(func() (err error) {
		data, err = s.r.readObject(plumbing.BlobObject, n.hash)
		return err
	})
	if err != nil {
		return nil, err
	}
	n.size.Store(int64(len(data)) + 1)
	return data, nil
}

func (s *snapshot) info(n *node) (*fileInfo, error) {
	size, err := s.size(n)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: n.name, size: size, mode: n.fsMode(), modTime: s.modTime}, nil
}

// commitFS is a view of a snapshot below dir.
type commitFS struct {
	s   *snapshot
	dir string // "" for the repository root
}

var (
	_ fs.ReadDirFS  = (*commitFS)(nil)
	_ fs.ReadFileFS = (*commitFS)(nil)
	_ fs.StatFS     = (*commitFS)(nil)
	_ fs.SubFS      = (*commitFS)(nil)
	_ fs.ReadLinkFS = (*commitFS)(nil)
	_ BlobHasher    = (*commitFS)(nil)
)

func (f *commitFS) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	key := name
	if f.dir != "" {
		key = f.dir
		if name != "." {
			key += "/" + name
		}
	}
	n, ok := find(f.s.root, key)
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open implements fs.FS. The file's content is read on the first read, so
// Open and Stat alone cost no blob access.
func (f *commitFS) Open(name string) (fs.File, error) {
	n, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return &openDir{s: f.s, n: n, path: name}, nil
	}
	return &openFile{s: f.s, n: n, path: name}, nil
}

// Stat implements fs.StatFS.
func (f *commitFS) Stat(name string) (fs.FileInfo, error) {
	n, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := f.s.info(n)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fi, nil
}

// Lstat implements fs.ReadLinkFS; it equals Stat, which follows no links.
func (f *commitFS) Lstat(name string) (fs.FileInfo, error) {
	return f.Stat(name)
}

// ReadLink implements fs.ReadLinkFS.
func (f *commitFS) ReadLink(name string) (string, error) {
	n, err := f.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if n.mode != modeSymlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	data, err := f.s.content(n)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(data), nil
}

// ReadFile implements fs.ReadFileFS.
func (f *commitFS) ReadFile(name string) ([]byte, error) {
	n, err := f.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.isDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	data, err := f.s.content(n)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadDir implements fs.ReadDirFS.
func (f *commitFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	return f.s.entries(n.children), nil
}

// BlobHash implements BlobHasher from the tree entry, without reading the blob.
func (f *commitFS) BlobHash(name string) (string, error) {
	n, err := f.lookup("blobhash", name)
	if err != nil {
		return "", err
	}
	if n.isDir() {
		return "", &fs.PathError{Op: "blobhash", Path: name, Err: errNotBlob}
	}
	return n.hash.String(), nil
}

// Sub implements fs.SubFS, so that fs.Sub keeps BlobHash too.
func (f *commitFS) Sub(dir string) (fs.FS, error) {
	return SubFS(f, dir)
}

func (s *snapshot) entries(nodes []*node) []fs.DirEntry {
	// One allocation for all entries rather than one per boxed entry.
	es := make([]dirEntry, len(nodes))
	list := make([]fs.DirEntry, len(nodes))
	for i, n := range nodes {
		es[i] = dirEntry{s: s, n: n}
		list[i] = &es[i]
	}
	return list
}

// SubFS is fs.Sub that keeps BlobHash: for a file system from CommitFS, or any
// other BlobHasher, the result implements BlobHasher and the fs interfaces of
// CommitFS's result. For other file systems it is fs.Sub.
func SubFS(fsys fs.FS, dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return fsys, nil
	}
	switch f := fsys.(type) {
	case *commitFS:
		return &commitFS{s: f.s, dir: path.Join(f.dir, dir)}, nil
	case BlobHasher:
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return nil, err
		}
		return &subHasher{FS: sub, h: f, dir: dir}, nil
	}
	return fs.Sub(fsys, dir)
}

// subHasher adds BlobHash to the result of fs.Sub, which delegates the
// standard interfaces itself.
type subHasher struct {
	fs.FS
	h   BlobHasher
	dir string
}

func (f *subHasher) BlobHash(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "blobhash", Path: name, Err: fs.ErrInvalid}
	}
	return f.h.BlobHash(path.Join(f.dir, name))
}

func (f *subHasher) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }
func (f *subHasher) ReadFile(name string) ([]byte, error)       { return fs.ReadFile(f.FS, name) }
func (f *subHasher) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(f.FS, name) }
func (f *subHasher) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(f.FS, name) }
func (f *subHasher) ReadLink(name string) (string, error)       { return fs.ReadLink(f.FS, name) }
func (f *subHasher) Sub(dir string) (fs.FS, error)              { return SubFS(f, dir) }

// fileInfo implements fs.FileInfo.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.modTime }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return nil }

// dirEntry implements fs.DirEntry; only Info looks up the blob size.
type dirEntry struct {
	s *snapshot
	n *node
}

func (e *dirEntry) Name() string               { return e.n.name }
func (e *dirEntry) IsDir() bool                { return e.n.isDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.n.fsMode().Type() }
func (e *dirEntry) Info() (fs.FileInfo, error) { return e.s.info(e.n) }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }

// openFile is an open file or symlink.
type openFile struct {
	s      *snapshot
	n      *node
	path   string
	r      *bytes.Reader // nil until the first read
	closed bool
}

func (f *openFile) Stat() (fs.FileInfo, error) {
	if f.closed {
		return nil, &fs.PathError{Op: "stat", Path: f.path, Err: fs.ErrClosed}
	}
	fi, err := f.s.info(f.n)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.path, Err: err}
	}
	return fi, nil
}

func (f *openFile) load(op string) error {
	if f.closed {
		return &fs.PathError{Op: op, Path: f.path, Err: fs.ErrClosed}
	}
	if f.r == nil {
		data, err := f.s.content(f.n)
		if err != nil {
			return &fs.PathError{Op: op, Path: f.path, Err: err}
		}
		f.r = bytes.NewReader(data)
	}
	return nil
}

func (f *openFile) Read(p []byte) (int, error) {
	if err := f.load("read"); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}

func (f *openFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.load("read"); err != nil {
		return 0, err
	}
	return f.r.ReadAt(p, off)
}

func (f *openFile) Seek(offset int64, whence int) (int64, error) {
	if err := f.load("seek"); err != nil {
		return 0, err
	}
	return f.r.Seek(offset, whence)
}

func (f *openFile) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	f.closed = true
	f.r = nil
	return nil
}

// openDir is an open directory; ReadDir continues where the last call ended.
type openDir struct {
	s      *snapshot
	n      *node
	path   string
	off    int
	closed bool
}

func (d *openDir) Stat() (fs.FileInfo, error) {
	if d.closed {
		return nil, &fs.PathError{Op: "stat", Path: d.path, Err: fs.ErrClosed}
	}
	return d.s.info(d.n)
}

func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errIsDir}
}

func (d *openDir) ReadDir(count int) ([]fs.DirEntry, error) {
	if d.closed {
		return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: fs.ErrClosed}
	}
	rest := d.n.children[d.off:]
	if count > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(count, len(rest))]
	}
	d.off += len(rest)
	return d.s.entries(rest), nil
}

func (d *openDir) Close() error {
	if d.closed {
		return &fs.PathError{Op: "close", Path: d.path, Err: fs.ErrClosed}
	}
	d.closed = true
	return nil
}
