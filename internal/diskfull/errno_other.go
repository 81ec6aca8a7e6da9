//go:build !unix && !windows

package diskfull

// isErrno knows no disk-full errno on platforms Atlas does not ship for.
func isErrno(error) bool { return false }
