//go:build unix

package casfile

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// linkUnlink renames from to to in d by a hard link, which fails with EEXIST
// when to exists, then removing from. Between the two both names exist; a crash
// there leaves an extra name of the same file, never a lost one.
func linkUnlink(d *folder, from, to string) error {
	defer runtime.KeepAlive(d.file)
	fd := int(d.file.Fd())
	if err := unix.Linkat(fd, from, fd, to, 0); err != nil {
		if !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.ENOENT) {
			err = fmt.Errorf("%w (the file system has neither a no-replace rename nor hard links, and Atlas never renames over a file)", err)
		}
		return &os.LinkError{Op: "link", Old: from, New: to, Err: err}
	}
	if err := unix.Unlinkat(fd, from, 0); err != nil {
		return &os.LinkError{Op: "unlink", Old: from, New: to, Err: err}
	}
	return nil
}

// syncDir flushes the folder's entries (the renames) to disk.
func syncDir(f *os.File) { _ = f.Sync() }

// transient: Unix renames and opens are not refused for a while by other
// processes' open handles.
func transient(error) bool { return false }
