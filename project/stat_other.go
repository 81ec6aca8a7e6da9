//go:build !unix

package project

import "io/fs"

// fileStat is the stat data a record keeps to tell, without reading a file,
// that it has not changed since: git's index keeps the same. Where the fs.FileInfo
// gives no file id, size, time and mode have to do.
type fileStat struct {
	size, mtime int64 // mtime in ns
	ino         uint64
	mode        uint32
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}
