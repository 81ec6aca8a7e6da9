//go:build !unix

package host

import "os"

// processAlive reports whether a process with this id may exist: here only that
// the system knows the id.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
