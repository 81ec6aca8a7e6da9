//go:build !unix && !windows

package casfile

import (
	"errors"
	"os"
)

// renameNoReplace: this platform has no rename that refuses to replace, and
// Atlas never renames over a file.
func renameNoReplace(d *folder, from, to string) error {
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.ErrUnsupported}
}

func syncDir(*os.File) {}

func transient(error) bool { return false }
