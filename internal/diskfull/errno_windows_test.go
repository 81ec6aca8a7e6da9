//go:build windows

package diskfull_test

import "golang.org/x/sys/windows"

var (
	diskFullErrno error = windows.ERROR_DISK_FULL
	quotaErrno    error = windows.ERROR_HANDLE_DISK_FULL
)
