package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// Write replaces path with data, durably: when it returns nil, the new bytes and
// the name both survive a crash. The file gets mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	if err := replace(path, data, perm); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// UmaskMode, as the perm of Write, gives a new file the mode a tool's output has
// (0666 less the process's umask) and a replaced file the mode it had.
const UmaskMode fs.FileMode = 1 << 31 // no permission bit; never a real mode here

// Output replaces path with data as Write does, with the mode of a tool's output:
// a file it replaces keeps its mode, a new one gets 0666 less the umask.
func Output(path string, data []byte) error {
	return Write(path, data, UmaskMode)
}

// Create writes data to path only if no file is there yet: it never replaces one,
// and when path exists it returns an error wrapping fs.ErrExist and leaves it as it
// is. Of two processes creating the same file, one wins whole.
func Create(path string, data []byte, perm fs.FileMode) error {
	tmp, err := temp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		// Some file systems have no hard links; an exclusive create still never
		// replaces another's file, at the cost of a short window with a partial one.
		err = createExclusive(path, data, perm)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// Temp writes data to a new synced file beside path and returns its name, for a
// caller that moves many files into place (Place) only once all are written. perm
// is as for Write; the caller removes the file if it never places it.
func Temp(path string, data []byte, perm fs.FileMode) (string, error) {
	return temp(path, data, perm)
}

// Place moves tmp, a file Temp made beside path, to path. With replace it replaces
// whatever is there; without, it never does: when path exists it returns an error
// wrapping fs.ErrExist and leaves tmp for the caller to remove. Path's folder is not
// synced: call SyncDir once the files of a folder are placed.
func Place(tmp, path string, replace bool) error {
	if replace {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		return nil
	}
	err := os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		// Some file systems have no hard links: rename when nothing is there, with a
		// short window in which a file created meanwhile would be replaced.
		if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	os.Remove(tmp)
	return nil
}

// Batch replaces many files and syncs each of their folders once, in Sync: a
// rename is durable only once its folder is synced, and a folder holding many of
// the files need not be synced for each.
type Batch struct {
	dirs map[string]bool
}

// Replace replaces path with data, as Write does but for the folder's sync, which
// waits for Sync.
func (b *Batch) Replace(path string, data []byte, perm fs.FileMode) error {
	if err := replace(path, data, perm); err != nil {
		return err
	}
	if b.dirs == nil {
		b.dirs = map[string]bool{}
	}
	b.dirs[filepath.Dir(path)] = true
	return nil
}

// Sync syncs the folder of every file replaced since the last Sync.
func (b *Batch) Sync() error {
	for dir := range b.dirs {
		if err := SyncDir(dir); err != nil {
			return err
		}
		delete(b.dirs, dir)
	}
	return nil
}

// SyncDir makes the names in dir durable (a rename or link into it). Windows has
// no such sync; its renames are durable when they return.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// replace writes a synced temp file beside path and renames it over path.
func replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := temp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

// temp writes data to a new synced file of mode perm in path's folder and returns
// its name.
func temp(path string, data []byte, perm fs.FileMode) (string, error) {
	var f *os.File
	var err error
	if perm == UmaskMode {
		if fi, serr := os.Stat(path); serr == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
			f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
		} else {
			perm = 0 // keep the mode the umask gave at creation
			f, err = createUmask(path)
		}
	} else {
		f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	name := f.Name()
	err = write(f, data, perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return name, nil
}

func write(f *os.File, data []byte, perm fs.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; the mode is set exactly, not through the umask
	// (perm 0: createUmask made it with the umask's mode, which stays).
	if perm != 0 {
		if err := f.Chmod(perm); err != nil {
			return err
		}
	}
	return f.Sync()
}

func createExclusive(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = write(f, data, perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// createUmask creates a new temp file beside path with mode 0666 less the umask
// (os.CreateTemp would make it 0600).
func createUmask(path string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temp name beside %s", path)
}
