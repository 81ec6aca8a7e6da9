//go:build unix

package plugin

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a folder that another user owns or can write: in the shared temp
// folder someone else could otherwise plant the code that node runs.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a folder that only this user can write", dir)
	}
	return nil
}
