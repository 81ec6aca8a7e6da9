package project

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
)

// Every path the loader reads is checked to stay inside the project folder once
// its symbolic links are resolved: a link to a file or folder elsewhere would
// push that file's contents into Studio, and a later pull would write through
// it. The check costs nothing for a path found in a folder listing without a
// link (the listing says it is no link, and its folder was checked); only links,
// and paths no listing covers ($path targets and what sits next to them), are
// resolved.

// guard refuses p (an fs path) when the way to it leaves the project folder
// through a symbolic link.
func (l *loader) guard(p string) error {
	if l.safe == nil {
		l.safe, l.links = map[string]bool{}, map[string]map[string]bool{}
	}
	if p == "" || p == l.projDir || l.safe[p] {
		return nil
	}
	dir := dirOf(p)
	if _, listed := l.listings[dir]; listed && l.safe[dir] && !l.links[dir][path.Base(p)] {
		return nil
	}
	real, link, target := l.resolveLinks(p)
	if link == "" || l.insideProject(real) {
		l.safe[p] = true
		return nil
	}
	if l.lfs != nil && isAbsTarget(target) && strings.HasPrefix(real, "/") {
		// A commit's link to an absolute path: the commit cannot say where that
		// is (a checkout may be anywhere) and linkFS does not follow it, so it
		// reads as missing; the disk's load, which knows, decides.
		l.safe[p] = true
		return nil
	}
	return &Error{File: l.rel(p), Reason: errcode.ReasonSymlinkOutsideProject, Link: l.rel(link), Target: target,
		Msg: "the symbolic link " + l.rel(link) + " leads to " + target +
			", outside the project folder; Atlas reads and writes only files inside it"}
}

// insideProject reports whether real, a path resolveLinks gave, is the project
// folder or inside it.
func (l *loader) insideProject(real string) bool {
	if strings.HasPrefix(real, "/") || real == ".." || strings.HasPrefix(real, "../") {
		return false
	}
	proj := l.realProject()
	return real == proj || under(real, proj)
}

// realProject is the project folder with its links resolved, computed once.
func (l *loader) realProject() string {
	if l.projReal == nil {
		r, _, _ := l.resolveLinks(l.projDir)
		l.projReal = &r
	}
	return *l.projReal
}

// resolveLinks resolves every symbolic link on the way to p, as the OS would.
// real is the path reached: a path in the fs, one starting with "../" when a
// link leaves the fs, or "/abs/…" for an absolute target that is not inside
// Options.Root. link is the last link followed and target its text ("" when
// there was none).
func (l *loader) resolveLinks(p string) (real, link, target string) {
	if p == "" {
		return "", "", ""
	}
	parts := strings.Split(p, "/")
	cur := ""
	for i := 0; i < len(parts); i++ {
		next := join(cur, parts[i])
		for hops := 0; ; hops++ {
			if hops == 40 || strings.HasPrefix(next, "/") || next == ".." || strings.HasPrefix(next, "../") {
				break
			}
			st, err := fs.Lstat(l.fsys, fsName(next))
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				l.noteProbe(next, true, st)
			}
			if err != nil || st.Mode()&fs.ModeSymlink == 0 {
				break
			}
			l.sawSymlink()
			if l.lfs != nil {
				l.lfs.on = true
			}
			t, err := fs.ReadLink(l.fsys, fsName(next))
			if err != nil {
				break
			}
			link, target = next, t
			if isAbsTarget(t) {
				rel, ok := l.inRoot(t)
				if !ok {
					rest := strings.Join(parts[i+1:], "/")
					return "/abs" + path.Clean("/"+filepath.ToSlash(t)) + "/" + rest, link, target
				}
				next = rel
				continue
			}
			next = path.Clean(path.Join(cur, filepath.ToSlash(t)))
			if next == "." {
				next = ""
			}
		}
		cur = next
		if strings.HasPrefix(cur, "/") || cur == ".." || strings.HasPrefix(cur, "../") {
			return path.Join(cur, strings.Join(parts[i+1:], "/")), link, target
		}
	}
	return cur, link, target
}

// isAbsTarget reports whether a link's text is an absolute path, in slash or
// OS form (a Windows link reads as C:\…).
func isAbsTarget(t string) bool {
	return path.IsAbs(t) || filepath.IsAbs(t) || (len(t) > 2 && t[1] == ':' && (t[2] == '\\' || t[2] == '/'))
}

// inRoot turns an absolute link target into a path in the fs, when Options.Root
// says where the fs is and the target, its links resolved, is inside it.
func (l *loader) inRoot(target string) (string, bool) {
	if l.opts.Root == "" {
		return "", false
	}
	if l.rootReal == "" {
		l.rootReal = filepath.Clean(l.opts.Root)
		if r, err := filepath.EvalSymlinks(l.rootReal); err == nil {
			l.rootReal = r
		}
	}
	t := filepath.Clean(filepath.FromSlash(target))
	if r, err := filepath.EvalSymlinks(t); err == nil {
		t = r
	}
	for _, base := range []string{l.rootReal, filepath.Clean(l.opts.Root)} {
		rel, err := filepath.Rel(base, t)
		if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel == "." {
			return "", true
		}
		return filepath.ToSlash(rel), true
	}
	return "", false
}
