//go:build darwin

package casfile

import (
	"errors"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to in d with renameatx_np(RENAME_EXCL). File
// systems without it (ENOTSUP: some network and FAT volumes) get link+unlink,
// which refuses an existing target too.
func renameNoReplace(d *folder, from, to string) error {
	fd := int(d.file.Fd())
	err := unix.RenameatxNp(fd, from, fd, to, unix.RENAME_EXCL)
	runtime.KeepAlive(d.file)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL):
		return linkUnlink(d, from, to)
	}
	return &os.LinkError{Op: "renameatx_np", Old: from, New: to, Err: err}
}
