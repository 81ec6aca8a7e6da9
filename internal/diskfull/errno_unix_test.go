//go:build unix

package diskfull_test

import "syscall"

var (
	diskFullErrno error = syscall.ENOSPC
	quotaErrno    error = syscall.EDQUOT
)
