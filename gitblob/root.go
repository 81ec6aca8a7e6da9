package gitblob

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WorkTreeRoot returns the work tree Discover would find for dir, without opening
// the repository: the nearest folder at or above dir holding a .git folder (with a
// HEAD) or a .git file naming one (a linked work tree). "" when there is none. A
// command that only needs to know where the project's tree starts (every CLI call
// does) saves opening the repository with it.
func WorkTreeRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	st, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	if !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	for d := abs; ; {
		dot := filepath.Join(d, ".git")
		fi, err := os.Stat(dot)
		switch {
		case err == nil && fi.IsDir():
			if hasHead(dot) {
				return d
			}
			return ""
		case err == nil:
			if gitDir, ok := readGitFile(dot); ok && hasHead(gitDir) {
				return d
			}
			return ""
		case !errors.Is(err, fs.ErrNotExist):
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func hasHead(gitDir string) bool {
	fi, err := os.Stat(filepath.Join(gitDir, "HEAD"))
	return err == nil && !fi.IsDir()
}

// readGitFile reads a .git file ("gitdir: <path>", relative to its folder or
// absolute).
func readGitFile(p string) (string, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return target, true
}
