package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Location is where a project lives on the OS filesystem.
type Location struct {
	// File is the absolute path of the root project file.
	File string
	// Dir is the absolute folder of File.
	Dir string
	// FSRoot is the folder an fs.FS for Load is rooted at: the git work tree when the
	// project is in one (so the base commit's tree is read the same way), else Dir.
	FSRoot string
	// FileInFS is File relative to FSRoot with '/' separators.
	FileInFS string
}

// ErrNoProject is returned by Locate when no project file is found.
var ErrNoProject = errors.New("no project file found")

// Locate finds the project like git finds its repo: flag (a file or a folder) if
// given, else default.project.json(c) in cwd or the nearest parent. repoRoot, if not
// empty, is the git work tree holding the project.
func Locate(cwd, flag string, repoRoot func(dir string) string) (*Location, error) {
	var file string
	if flag != "" {
		p := flag
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, &Error{File: flag, Msg: fmt.Sprintf("cannot open project: %v", unwrapPathError(err))}
		}
		if st.IsDir() {
			file = findDefault(p)
			if file == "" {
				return nil, &Error{File: flag, Msg: "no project file was found (default.project.json)"}
			}
		} else {
			file = p
		}
	} else {
		for dir := cwd; ; {
			if f := findDefault(dir); f != "" {
				file = f
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil, fmt.Errorf("%w in %s or any parent folder (default.project.json); pass --project", ErrNoProject, cwd)
			}
			dir = parent
		}
	}
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	if resolved, err := filepath.EvalSymlinks(file); err == nil {
		file = resolved
	}
	loc := &Location{File: file, Dir: filepath.Dir(file), FSRoot: filepath.Dir(file)}
	if repoRoot != nil {
		if root := repoRoot(loc.Dir); root != "" {
			if r, err := filepath.EvalSymlinks(root); err == nil {
				root = r
			}
			if rel, err := filepath.Rel(root, loc.Dir); err == nil && !filepath.IsAbs(rel) && rel != ".." && !startsWithDotDot(rel) {
				loc.FSRoot = root
			}
		}
	}
	rel, err := filepath.Rel(loc.FSRoot, loc.File)
	if err != nil {
		return nil, err
	}
	loc.FileInFS = filepath.ToSlash(rel)
	return loc, nil
}

func startsWithDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}

func findDefault(dir string) string {
	for _, name := range DefaultFiles {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// DirName is the name Load gives a default.project.json's root: its folder's name.
func (l *Location) DirName() string { return filepath.Base(l.Dir) }

// ToFS turns a path relative to the project folder into a path in the FS rooted at FSRoot.
func (l *Location) ToFS(rel string) string {
	dirInFS := filepath.ToSlash(mustRel(l.FSRoot, l.Dir))
	if dirInFS == "." {
		return rel
	}
	if rel == "" {
		return dirInFS
	}
	return dirInFS + "/" + rel
}

// Abs turns a path relative to the project folder into an absolute OS path.
func (l *Location) Abs(rel string) string {
	return filepath.Join(l.Dir, filepath.FromSlash(rel))
}

func mustRel(base, target string) string {
	r, err := filepath.Rel(base, target)
	if err != nil {
		return "."
	}
	return r
}

// Options are the options Load takes for the project at loc from the OS
// filesystem (os.DirFS(loc.FSRoot)).
func (l *Location) Options() Options {
	return Options{DirName: l.DirName(), Root: l.FSRoot}
}

// LoadDisk loads the project at loc from the OS filesystem.
func LoadDisk(loc *Location) (*Project, error) {
	return Load(DirFS(loc.FSRoot), loc.FileInFS, loc.Options())
}
