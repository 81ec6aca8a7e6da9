package hostlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
)

// FileName is the lock file in the state folder. It is never removed: removing
// a lock file while another process waits on it would let a third one lock a
// new file with the same name, and two hosts would run.
const FileName = "host.lock"

// ReasonCode is the details.reasonCode of the E_BUSY error of a second host.
const ReasonCode = errcode.ReasonHostRunning

// waitHolder bounds how long Acquire waits for the holder to record itself (it
// writes right after it locks) or to finish letting go.
const waitHolder = 2 * time.Second

// errLocked is what the platform's try-lock returns when another handle holds
// the lock.
var errLocked = errors.New("locked by another handle")

// Holder describes the process that holds the lock. It is written, as JSON, in
// the lock file; the OS lock sits past its end, so others can read it.
type Holder struct {
	PID int `json:"pid"`
	// Port is the local API's port; 0 until the host listens (SetPort).
	Port      int       `json:"port"`
	StartedAt time.Time `json:"startedAt"`
}

// Lock is a held host lock. Close releases it; so does the OS when the process
// ends, however it ends.
type Lock struct {
	mu     sync.Mutex
	f      *os.File // nil once closed
	holder Holder
}

// Acquire takes the host lock of the state folder dir (made if missing) for h,
// without waiting for another holder. If another process (or another Lock in
// this one) holds it, the error is E_BUSY with reasonCode "host_running" and
// details pid and port naming the holder (port 0: not listening yet; both 0:
// the holder did not say in time).
func Acquire(dir string, h Holder) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "host lock").
			Reason(errcode.ReasonStateDir, errcode.NextFixPermissions).With("dir", dir)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "host lock").
			Reason(errcode.ReasonStateDir, errcode.NextFixPermissions).With("file", path)
	}
	deadline := time.Now().Add(waitHolder)
	for {
		err := tryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, errcode.Wrap(errcode.Internal, err, "lock "+path)
		}
		// Held. The holder records itself right after locking; until it has (or
		// while it is letting go, its record already cleared) try again. A record
		// naming a process that is gone is a killed holder's, which could not clear
		// it: the new holder has not written its own yet.
		other, ok := readHolder(f)
		live := ok && alive(other.PID)
		if live || time.Now().After(deadline) {
			f.Close()
			if !live {
				other = Holder{}
			}
			return nil, busy(other, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
	l := &Lock{f: f, holder: h}
	if err := l.write(); err != nil {
		l.Close()
		return nil, errcode.Wrap(errcode.Internal, err, "record the host in "+path)
	}
	return l, nil
}

// SetPort records the port the holder listens on, once it knows it.
func (l *Lock) SetPort(port int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("host lock: closed")
	}
	l.holder.Port = port
	return l.write()
}

// Holder returns what the lock records of its holder.
func (l *Lock) Holder() Holder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.holder
}

// Close clears the record and releases the lock. Closing twice is harmless.
func (l *Lock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// write records l.holder in the file: content first, then the length, so a
// reader sees either a whole record or something that does not parse.
func (l *Lock) write() error {
	b, err := json.Marshal(l.holder)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return err
	}
	if err := l.f.Truncate(int64(len(b))); err != nil {
		return err
	}
	return l.f.Sync()
}

// Read returns the holder recorded in the state folder dir, and whether one is
// recorded (a lock held by a live host, or left by one that died before it
// could clear it: only Acquire can tell which).
func Read(dir string) (Holder, bool, error) {
	f, err := os.Open(filepath.Join(dir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	defer f.Close()
	h, ok := readHolder(f)
	return h, ok, nil
}

// readHolder parses the record in f: a whole one, or none.
func readHolder(f *os.File) (Holder, bool) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return Holder{}, false
	}
	// Unmarshal refuses trailing bytes: the tail of a longer old record still
	// there while a shorter one is written does not parse.
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return Holder{}, false
	}
	return h, true
}

func busy(h Holder, path string) error {
	var e *errcode.Error
	switch {
	case h.PID == 0:
		e = errcode.New(errcode.Busy, "another Atlas host holds the lock %s for this project", path)
	case h.Port == 0:
		e = errcode.New(errcode.Busy, "another Atlas host is running for this project (pid %d, still starting)", h.PID)
	default:
		e = errcode.New(errcode.Busy, "another Atlas host is running for this project (pid %d, port %d)", h.PID, h.Port)
	}
	return e.Reason(ReasonCode, errcode.NextUseRunningHost, errcode.NextStopHost).
		With("pid", h.PID).With("port", h.Port)
}
