package project

import (
	"io/fs"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/gitblob"
)

// linkFS follows the symbolic links of an fs that does not (a commit's tree,
// where a link is a blob holding its target's path), so that a link inside the
// project reads as what it points at there, as it does on disk: otherwise the
// base of a linked script would be its link's text, and every later change to it
// would look like a change on both sides. A link that leaves the fs, or has an
// absolute target, reads as missing (the loader refuses links leaving the project
// before it reads them).
//
// It starts switched off, every call going straight through: following costs a
// lookup per call, and most trees hold no link. The loader switches it on when
// it meets the first link (in a listing, or on the way to a path).
type linkFS struct {
	inner fs.FS
	bh    gitblob.BlobHasher
	on    bool
}

// followLinks wraps fsys when it can read links but its Stat does not follow
// them; an fs that follows links (os.DirFS) is returned as it is.
func followLinks(fsys fs.FS) fs.FS {
	bh, ok := fsys.(gitblob.BlobHasher)
	if !ok {
		return fsys
	}
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		return fsys
	}
	return &linkFS{inner: fsys, bh: bh}
}

var (
	_ fs.ReadDirFS       = (*linkFS)(nil)
	_ fs.ReadFileFS      = (*linkFS)(nil)
	_ fs.StatFS          = (*linkFS)(nil)
	_ fs.ReadLinkFS      = (*linkFS)(nil)
	_ gitblob.BlobHasher = (*linkFS)(nil)
)

// resolve returns name with every link on the way followed, or false when a
// link leads out of the fs or too many links are chained.
func (f *linkFS) resolve(name string) (string, bool) {
	if st, err := fs.Lstat(f.inner, name); err == nil && st.Mode()&fs.ModeSymlink == 0 {
		return name, true // no link at the end, and every folder above is a folder
	}
	if name == "." {
		return name, true
	}
	parts := strings.Split(name, "/")
	cur := ""
	hops := 0
	for i := 0; i < len(parts); i++ {
		next := join(cur, parts[i])
		for {
			st, err := fs.Lstat(f.inner, next)
			if err != nil || st.Mode()&fs.ModeSymlink == 0 {
				break
			}
			if hops++; hops > 40 {
				return "", false
			}
			t, err := fs.ReadLink(f.inner, next)
			if err != nil || isAbsTarget(t) {
				return "", false
			}
			next = path.Clean(path.Join(cur, strings.ReplaceAll(t, `\`, "/")))
			if next == ".." || strings.HasPrefix(next, "../") {
				return "", false
			}
			if next == "." {
				next = ""
			}
		}
		cur = next
	}
	return fsName(cur), true
}

func (f *linkFS) path(op, name string) (string, error) {
	if !f.on {
		return name, nil
	}
	r, ok := f.resolve(name)
	if !ok {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return r, nil
}

func (f *linkFS) Open(name string) (fs.File, error) {
	r, err := f.path("open", name)
	if err != nil {
		return nil, err
	}
	return f.inner.Open(r)
}

func (f *linkFS) Stat(name string) (fs.FileInfo, error) {
	r, err := f.path("stat", name)
	if err != nil {
		return nil, err
	}
	return fs.Stat(f.inner, r)
}

func (f *linkFS) ReadFile(name string) ([]byte, error) {
	r, err := f.path("read", name)
	if err != nil {
		return nil, err
	}
	return fs.ReadFile(f.inner, r)
}

func (f *linkFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r, err := f.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return fs.ReadDir(f.inner, r)
}

// lpath resolves the folders above name, not name itself.
func (f *linkFS) lpath(op, name string) (string, error) {
	dir, base := dirOf(name), path.Base(name)
	if dir == "" || !f.on {
		return name, nil
	}
	r, err := f.path(op, dir)
	if err != nil {
		return "", err
	}
	return path.Join(r, base), nil
}

func (f *linkFS) Lstat(name string) (fs.FileInfo, error) {
	r, err := f.lpath("lstat", name)
	if err != nil {
		return nil, err
	}
	return fs.Lstat(f.inner, r)
}

func (f *linkFS) ReadLink(name string) (string, error) {
	r, err := f.lpath("readlink", name)
	if err != nil {
		return "", err
	}
	return fs.ReadLink(f.inner, r)
}

func (f *linkFS) BlobHash(name string) (string, error) {
	r, err := f.path("blobhash", name)
	if err != nil {
		return "", err
	}
	return f.bh.BlobHash(r)
}
