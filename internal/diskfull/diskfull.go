package diskfull

import (
	"errors"

	"github.com/atlas-rbx/atlas/errcode"
)

// ReasonCode is the details.reasonCode of the errors Wrap returns.
const ReasonCode = errcode.ReasonDiskFull

// Is reports whether err, or any error in its chain, says that the disk or the
// user's quota is full: ENOSPC or EDQUOT on Unix, ERROR_DISK_FULL or
// ERROR_HANDLE_DISK_FULL on Windows. An *errcode.Error with code E_DISK_FULL
// counts too, so classifying twice is harmless.
func Is(err error) bool {
	if err == nil {
		return false
	}
	var e *errcode.Error
	if errors.As(err, &e) && e.Code == errcode.DiskFull {
		return true
	}
	return isErrno(err)
}

// Wrap returns err as an E_DISK_FULL *errcode.Error (reasonCode "disk_full",
// message msg followed by the cause) when Is(err), and err unchanged otherwise,
// so a caller can classify every write error in one place:
//
//	if err := f.Write(b); err != nil {
//		return diskfull.Wrap(err, "stage "+name)
//	}
func Wrap(err error, msg string) error {
	if !Is(err) {
		return err
	}
	var e *errcode.Error
	if errors.As(err, &e) && e.Code == errcode.DiskFull {
		return err
	}
	return errcode.Wrap(errcode.DiskFull, err, msg).
		Reason(ReasonCode, errcode.NextFreeDisk)
}
