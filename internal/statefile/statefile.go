package statefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// ErrStale means a file exists but cannot be used: it is corrupt, truncated, of
// another kind or version, or written by another build of Atlas. Callers rebuild
// what it held and overwrite it.
var ErrStale = errors.New("cache file cannot be used")

const magic = "ATLASCACHE\n"

// Write stores payload at path as a cache file of kind and version, atomically: a
// reader sees the old file or the new one, never a mix.
func Write(path, kind string, version uint32, payload []byte) error {
	head := header(kind, version)
	sum := sha256.New()
	sum.Write(head)
	sum.Write(payload)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", kind, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", kind, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	for _, b := range [][]byte{head, payload, sum.Sum(nil)} {
		if _, err := f.Write(b); err != nil {
			return fmt.Errorf("write %s: %w", kind, err)
		}
	}
	// The rename must not reach the disk before the data: a crash would leave
	// a file that fails its checksum, which is safe, but there is no reason to.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", kind, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", kind, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", kind, err)
	}
	ok = true
	return nil
}

// Read returns the payload of the cache file at path and the file's modification
// time. A missing file is an error wrapping fs.ErrNotExist; any file that cannot
// be used is one wrapping ErrStale.
func Read(path, kind string, version uint32) (payload []byte, modTime time.Time, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read %s: %w", kind, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read %s: %w", kind, err)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, time.Time{}, fmt.Errorf("read %s: %w", kind, err)
	}
	head := header(kind, version)
	if len(data) < len(head)+sha256.Size || !bytes.Equal(data[:len(head)], head) {
		return nil, time.Time{}, fmt.Errorf("read %s: %w: other kind, version or build", kind, ErrStale)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, time.Time{}, fmt.Errorf("read %s: %w: checksum mismatch", kind, ErrStale)
	}
	return body[len(head):], st.ModTime(), nil
}

func header(kind string, version uint32) []byte {
	var b []byte
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(len(kind)))
	b = append(b, kind...)
	b = binary.BigEndian.AppendUint32(b, version)
	stamp := buildStamp()
	b = binary.AppendUvarint(b, uint64(len(stamp)))
	return append(b, stamp...)
}

// buildStamp names the build that writes a file: what a cache holds is computed
// by this build's code (the loader, the reflection database), so another build
// must not trust it. A build without a clean commit is named by its executable's
// size and time too.
var buildStamp = sync.OnceValue(func() string {
	stamp := "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return stamp
	}
	stamp = info.GoVersion + " " + info.Main.Path + "@" + info.Main.Version + " " + info.Main.Sum
	revision, modified := "", true
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	stamp += " " + revision
	if revision == "" || modified {
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				stamp += " " + strconv.FormatInt(st.Size(), 10) + " " + strconv.FormatInt(st.ModTime().UnixNano(), 10)
			}
		}
	}
	return stamp
})
