//go:build windows

package casfile_test

import (
	"os"

	"golang.org/x/sys/windows"
)

// withSeq runs fn holding the lock file lock (shared by every writer, in any
// process) and returns the next number of the counter kept in it.
func withSeq(lock string, fn func()) int {
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	// Lock a byte far past the counter, so reading and writing it stay allowed.
	ol := &windows.Overlapped{OffsetHigh: 1}
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		panic(err)
	}
	defer windows.UnlockFileEx(h, 0, 1, 0, ol)
	return nextSeq(f, fn)
}
