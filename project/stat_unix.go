//go:build unix

package project

import (
	"io/fs"
	"syscall"
)

// fileStat is the stat data a record keeps to tell, without reading a file,
// that it has not changed since: git's index keeps the same.
type fileStat struct {
	size, mtime int64 // mtime in ns
	ino         uint64
	mode        uint32
}

func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = uint64(s.Ino)
	}
	return st
}
