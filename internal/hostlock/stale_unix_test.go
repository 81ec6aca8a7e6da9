//go:build unix

package hostlock_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/hostlock"
)

// A killed holder leaves its record in the lock file. A new holder locks, then
// writes its own record; a second host that looks in between must not name the
// dead process: it waits for the live holder's record.
func TestStaleRecordOfAKilledHolderIsNotNamed(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, hostlock.FileName)
	stale, _ := json.Marshal(hostlock.Holder{PID: dead.Process.Pid, Port: 1111})
	if err := os.WriteFile(path, append(stale, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	// The new holder: locked, its record not written yet.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		live, _ := json.Marshal(hostlock.Holder{PID: os.Getpid(), Port: 2222})
		f.WriteAt(append(live, '\n'), 0)
		f.Truncate(int64(len(live) + 1))
	}()
	_, err = hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid()})
	if o := outcomeOf(err); o.Code != string(errcode.Busy) || o.PID != os.Getpid() || o.Port != 2222 {
		t.Fatalf("Acquire = %+v, want E_BUSY naming the live holder (pid %d, port 2222), not the dead pid %d", o, os.Getpid(), dead.Process.Pid)
	}
}
