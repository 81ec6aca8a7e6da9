//go:build unix

package casfile_test

import (
	"os"

	"golang.org/x/sys/unix"
)

// withSeq runs fn holding the lock file lock (shared by every writer, in any
// process) and returns the next number of the counter kept in it.
func withSeq(lock string, fn func()) int {
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		panic(err)
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return nextSeq(f, fn)
}
