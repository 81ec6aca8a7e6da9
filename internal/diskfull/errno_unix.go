//go:build unix

package diskfull

import (
	"errors"
	"syscall"
)

func isErrno(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
