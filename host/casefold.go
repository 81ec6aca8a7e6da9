package host

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// caseFolding says, once per host, whether the project folder's file system
// compares names ignoring case (Windows' NTFS and macOS's APFS by default; a
// casefold ext4 folder; a vfat mount), where two Studio siblings "Foo" and "foo"
// would be one file.
type caseFolding struct {
	once  sync.Once
	fixed *bool // set by Options.FoldsCase: no probe
	folds bool
}

// get probes dir on first use: it creates a file with a lower-case name and looks
// for it under the upper-case name. When no file can be created there, the system's
// default is assumed (folding on Windows and macOS).
func (c *caseFolding) get(dir string) bool {
	c.once.Do(func() {
		if c.fixed != nil {
			c.folds = *c.fixed
			return
		}
		folds, err := probeCaseFolding(dir)
		if err != nil {
			folds = defaultFolds()
		}
		c.folds = folds
	})
	return c.folds
}

// defaultFolds is whether the system's default file system folds case.
func defaultFolds() bool { return runtime.GOOS == "windows" || runtime.GOOS == "darwin" }

func probeCaseFolding(dir string) (bool, error) {
	f, err := os.CreateTemp(dir, ".atlas-case-probe-*")
	if err != nil {
		return false, err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	base := filepath.Base(name)
	_, err = os.Lstat(filepath.Join(filepath.Dir(name), strings.ToUpper(base)))
	return err == nil, nil
}
