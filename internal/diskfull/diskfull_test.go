package diskfull_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/diskfull"
)

func TestIs(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"disk full", diskFullErrno, true},
		{"quota", quotaErrno, quotaErrno != nil},
		{"wrapped in a PathError", &fs.PathError{Op: "write", Path: "a.luau", Err: diskFullErrno}, true},
		{"wrapped with %w", fmt.Errorf("stage a.luau: %w", &fs.PathError{Op: "write", Path: "a.luau", Err: diskFullErrno}), true},
		{"already classified", errcode.New(errcode.DiskFull, "full"), true},
		{"permission", fs.ErrPermission, false},
		{"not exist", &fs.PathError{Op: "open", Path: "a", Err: fs.ErrNotExist}, false},
		{"other code", errcode.New(errcode.Internal, "no space left on device"), false},
		{"plain text", errors.New("no space left on device"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "quota" && quotaErrno == nil {
				t.Skipf("no quota errno on %s", runtime.GOOS)
			}
			if got := diskfull.Is(tt.err); got != tt.want {
				t.Errorf("Is(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	cause := &fs.PathError{Op: "write", Path: "a.luau", Err: diskFullErrno}
	err := diskfull.Wrap(cause, "stage a.luau")
	e := errcode.As(err)
	if e.Code != errcode.DiskFull {
		t.Fatalf("Wrap(disk full).Code = %s, want %s", e.Code, errcode.DiskFull)
	}
	if got := e.Details["reasonCode"]; got != string(diskfull.ReasonCode) {
		t.Errorf("reasonCode = %v, want %s", got, diskfull.ReasonCode)
	}
	if !errors.Is(err, diskFullErrno) {
		t.Errorf("Wrap lost its cause: %v", err)
	}
	if again := diskfull.Wrap(err, "outer"); again != err {
		t.Errorf("Wrap(E_DISK_FULL) = %v, want the same error back", again)
	}

	other := &fs.PathError{Op: "write", Path: "a.luau", Err: fs.ErrPermission}
	if got := diskfull.Wrap(other, "stage a.luau"); got != error(other) {
		t.Errorf("Wrap(permission) = %v, want the error unchanged", got)
	}
	if got := diskfull.Wrap(nil, "x"); got != nil {
		t.Errorf("Wrap(nil) = %v, want nil", got)
	}
}

// TestRealDiskFull writes to /dev/full, which fails every write with ENOSPC: the
// error of a real system call, not one made up by the test.
func TestRealDiskFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full is Linux's")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer f.Close()
	_, err = f.Write([]byte("x"))
	if err == nil {
		t.Fatal("write to /dev/full succeeded")
	}
	if !diskfull.Is(err) {
		t.Errorf("Is(%v) = false, want true", err)
	}
	if code := errcode.Of(diskfull.Wrap(err, "write")); code != errcode.DiskFull {
		t.Errorf("Wrap(%v) code = %s, want %s", err, code, errcode.DiskFull)
	}
}
