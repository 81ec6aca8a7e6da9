//go:build linux

package casfile

import (
	"errors"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to in d with renameat2(RENAME_NOREPLACE). File
// systems without it (some FUSE and network ones answer EINVAL, old kernels
// ENOSYS) get link+unlink, which refuses an existing target too.
func renameNoReplace(d *folder, from, to string) error {
	fd := int(d.file.Fd())
	err := unix.Renameat2(fd, from, fd, to, unix.RENAME_NOREPLACE)
	runtime.KeepAlive(d.file)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return linkUnlink(d, from, to)
	}
	return &os.LinkError{Op: "renameat2", Old: from, New: to, Err: err}
}
