package project

import (
	"io/fs"
	"os"
)

// DirFS is os.DirFS(dir) for loading projects: the same files, with the same
// errors, but a file is read, and its stat data taken, in fewer system calls. A
// load reads every file of a project, and os.Open spends more calls on setting
// up a file for the poller (which a regular file cannot use) than on reading it.
func DirFS(dir string) fs.FS { return &osFS{FS: os.DirFS(dir), dir: dir} }

type osFS struct {
	fs.FS // os.DirFS(dir)
	dir   string
}

var (
	_ fs.ReadDirFS  = (*osFS)(nil)
	_ fs.ReadFileFS = (*osFS)(nil)
	_ fs.StatFS     = (*osFS)(nil)
	_ fs.ReadLinkFS = (*osFS)(nil)
)

func (f *osFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(f.FS, name) }
func (f *osFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }
func (f *osFS) ReadLink(name string) (string, error)       { return fs.ReadLink(f.FS, name) }
func (f *osFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(f.FS, name) }

// ReadFile reads the named file.
func (f *osFS) ReadFile(name string) ([]byte, error) {
	data, _, ok, err := f.readStat(name)
	if !ok {
		return fs.ReadFile(f.FS, name)
	}
	return data, err
}

// statReader is an fs that reads a file with its stat data, taken before the
// read (on the open file).
type statReader interface {
	// readStat reports ok false, having done nothing, when it cannot: the
	// caller then stats and reads the usual way.
	readStat(name string) (data []byte, st fileStat, ok bool, err error)
}
