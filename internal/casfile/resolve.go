package casfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
)

// maxLinks is how many symbolic links resolve follows for one name: os.Root's
// limit, so that what resolve accepts the root can open.
const maxLinks = 8

// step is a point in a swap where tests may run a concurrent writer or stop.
type step int

const (
	stepStaged    step = iota + 1 // the new bytes are staged
	stepAside                     // the old file is renamed aside
	stepVerified                  // the aside copy holds the expected bytes
	stepInstalled                 // the staged file is renamed in
)

// resolve checks name and returns its folder, root-relative with every symbolic
// link on the way followed (never out of the root; "." for the root itself),
// and its final element, which is not a symbolic link.
func (r *Root) resolve(name string) (dir, base string, err error) {
	if !validName(name) {
		return "", "", errcode.New(errcode.ProjectInvalid, "%q is not a clean path inside the project folder", name).
			Reason(errcode.ReasonBadPath, errcode.NextFixRequest).
			With("path", name)
	}
	dir, base = path.Split(name)
	if dir, err = r.follow(name, strings.TrimSuffix(dir, "/")); err != nil {
		return "", "", err
	}
	full := path.Join(dir, base)
	fi, err := r.root.Lstat(filepath.FromSlash(full))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil && isNotDir(err):
		// A file where a folder of name should be: the operations find no file.
	case err != nil:
		return "", "", fmt.Errorf("look at %s: %w", name, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		if _, ferr := r.follow(name, full); errors.Is(ferr, ErrOutsideRoot) {
			return "", "", ferr
		}
		return "", "", r.symlinkError(name, full, "")
	case fi.Mode()&fs.ModeIrregular != 0 && runtime.GOOS == "windows":
		return "", "", r.symlinkError(name, full, "a junction or other reparse point")
	}
	return dir, base, nil
}

// validName reports whether name is a clean, slash-separated path below the
// root: no "", ".", "..", leading or doubled slash; on Windows also no
// backslash, colon (alternate data streams) or reserved characters.
func validName(name string) bool {
	if !fs.ValidPath(name) || name == "." {
		return false
	}
	if runtime.GOOS == "windows" && strings.ContainsAny(name, `\:*?"<>|`) {
		return false
	}
	return true
}

// follow resolves the root-relative path p the way the kernel would, each link
// read through the root, and returns it with no symbolic link left. Elements
// that do not exist are kept as they are (nothing to follow). name is the
// caller's, for messages.
func (r *Root) follow(name, p string) (string, error) {
	todo := split(p)
	var done []string
	links := 0
	var link, target string // the last link followed, for messages
	for len(todo) > 0 {
		e := todo[0]
		todo = todo[1:]
		switch e {
		case "", ".":
			continue
		case "..":
			// Only a link's target brings these; a clean name has none.
			if len(done) == 0 {
				return "", r.outside(name, link, target)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(path.Join(done...), e)
		fi, err := r.root.Lstat(filepath.FromSlash(cur))
		switch {
		case errors.Is(err, fs.ErrNotExist) || (err != nil && isNotDir(err)):
			done = append(done, e)
			continue
		case err != nil:
			return "", fmt.Errorf("look at %s: %w", cur, err)
		case fi.Mode()&fs.ModeIrregular != 0 && runtime.GOOS == "windows":
			// A junction (mount point): os.Root does not follow it either.
			return "", r.symlinkError(name, cur, "a junction or other reparse point")
		case fi.Mode()&fs.ModeSymlink == 0:
			done = append(done, e)
			continue
		}
		if links++; links > maxLinks {
			return "", errcode.New(errcode.ProjectInvalid, "%s: more than %d symbolic links on the way (a loop?)", name, maxLinks).
				Reason(errcode.ReasonSymlink, errcode.NextFixSymlink).
				With("path", name)
		}
		link = cur
		target, err = r.root.Readlink(filepath.FromSlash(cur))
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", cur, err)
		}
		slashed := filepath.ToSlash(target)
		if filepath.IsAbs(target) || strings.HasPrefix(slashed, "/") {
			rel, ok := r.within(target)
			if !ok {
				return "", r.outside(name, cur, target)
			}
			done = nil
			todo = append(split(rel), todo...)
			continue
		}
		todo = append(split(slashed), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// within returns the slash-separated path of the absolute path target relative
// to the root, if it is inside the root.
func (r *Root) within(target string) (string, bool) {
	if !filepath.IsAbs(target) {
		return "", false
	}
	for _, base := range []string{r.abs, r.given} {
		rel, err := filepath.Rel(base, filepath.Clean(target))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return filepath.ToSlash(rel), true
	}
	return "", false
}

func split(p string) []string {
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// outside is the refusal of a name whose way leaves the root through link.
func (r *Root) outside(name, link, target string) error {
	e := errcode.New(errcode.ProjectInvalid, "%s: %s is a symbolic link to %s, outside the project folder; Atlas reads and writes only inside it",
		name, link, target).
		Reason(errcode.ReasonSymlinkOutsideProject, errcode.NextFixSymlink).With("link", link).
		With("path", name).With("link", link)
	e.Err = ErrOutsideRoot
	return e
}

// symlinkError is the refusal of a final element that is a link inside the
// root, or of a link kind Atlas does not follow (what says which).
func (r *Root) symlinkError(name, link, what string) error {
	if what == "" {
		what = "a symbolic link"
	}
	e := errcode.New(errcode.ProjectInvalid, "%s: %s is %s; Atlas never replaces a link with a file", name, link, what).
		Reason(errcode.ReasonSymlink, errcode.NextFixSymlink).With("link", link).
		With("path", name).With("link", link)
	e.Err = ErrSymlink
	return e
}
