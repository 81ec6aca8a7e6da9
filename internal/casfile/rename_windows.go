//go:build windows

package casfile

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// renameNoReplace renames from to to in d with MoveFileEx without
// MOVEFILE_REPLACE_EXISTING, which fails with ERROR_ALREADY_EXISTS (matching
// fs.ErrExist) when to exists. It goes by path: see Root's note on what that
// leaves racy. A file another process holds open without sharing delete access
// refuses the rename for a while; folder.renameNoReplace retries those.
func renameNoReplace(d *folder, from, to string) error {
	src, dst := filepath.Join(d.abs, from), filepath.Join(d.abs, to)
	p, err := windows.UTF16PtrFromString(src)
	if err != nil {
		return &os.LinkError{Op: "MoveFileEx", Old: src, New: dst, Err: err}
	}
	q, err := windows.UTF16PtrFromString(dst)
	if err != nil {
		return &os.LinkError{Op: "MoveFileEx", Old: src, New: dst, Err: err}
	}
	if err := windows.MoveFileEx(p, q, windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "MoveFileEx", Old: src, New: dst, Err: err}
	}
	return nil
}

// syncDir: MOVEFILE_WRITE_THROUGH already flushed the rename.
func syncDir(*os.File) {}

// transient reports the refusals an editor or a virus scanner holding the file
// open causes, which pass when it lets go.
func transient(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
