package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
)

// baseLoader loads the project at a base revision, the tree B of the decision
// table, from the git repository it holds for the host's life (found on first
// use; a repository made later is found by a later use). It keeps the latest base
// it loaded, so a plan against the same commit reads nothing.
//
// mu is a leaf lock: it guards repo and latest, and nothing is called with it held
// that takes another lock.
type baseLoader struct {
	loc *project.Location
	// build, when set, builds the project at a commit from the commit's fs
	// (gitblob's CommitFS); else the project is loaded from the commit.
	build func(fsys fs.FS, commit string) (*project.Project, error)

	mu     sync.Mutex
	repo   *gitblob.Repo
	latest *base
}

// base is the project at a base commit. The project's tree is shared by every plan
// against that commit; only hashes writes into it, once. It may be a disk tree (the
// commit holds the files the disk tree was loaded from), whose scripts carry their
// Source; a base tree built from the commit has only their hashes.
type base struct {
	commit string
	ref    string
	fsys   fs.FS
	proj   *project.Project
	// resolve gives every base script its Source hash, once per commit.
	resolve *sync.Once
}

// repository returns the project's git repository, nil when there is none (yet).
func (l *baseLoader) repository() (*gitblob.Repo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.repo != nil {
		return l.repo, nil
	}
	repo, err := gitblob.Discover(l.loc.Dir)
	if errors.Is(err, gitblob.ErrNoRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "open git repository")
	}
	l.repo = repo
	return repo, nil
}

// load builds the project at rev (default HEAD). No repository, an unborn HEAD, or
// a commit without the project file is "no base": (nil, nil); a revision asked for
// by name (--base) that gives none of them is refused instead.
func (l *baseLoader) load(rev string) (*base, error) {
	named := rev != "" && rev != "HEAD"
	noBase := func(why string) (*base, error) {
		if named {
			return nil, errcode.New(errcode.NotFound, "base revision %q: %s", rev, why).
				Reason(errcode.ReasonBadRevision, errcode.NextPassBase)
		}
		return nil, nil
	}
	repo, err := l.repository()
	if err != nil {
		return nil, err
	}
	if repo == nil {
		return noBase("the project is in no git repository")
	}
	commit, err := repo.Resolve(rev)
	if errors.Is(err, gitblob.ErrNoBase) {
		return noBase("the repository has no commit")
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.NotFound, err, "resolve base revision "+strconv.Quote(rev)).
			Reason(errcode.ReasonBadRevision, errcode.NextPassBase)
	}
	ref := rev
	if rev == "" || rev == "HEAD" {
		if r, err := repo.HeadRef(); err == nil && r != "" {
			ref = r
		} else {
			ref = "HEAD"
		}
	}
	l.mu.Lock()
	if l.latest != nil && l.latest.commit == commit {
		b := *l.latest
		l.mu.Unlock()
		b.ref = ref
		return &b, nil
	}
	l.mu.Unlock()
	fsys, err := repo.CommitFS(commit)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "read commit "+commit)
	}
	if _, err := fs.Stat(fsys, l.loc.FileInFS); err != nil {
		return noBase("the commit has no " + l.loc.FileInFS) // the project file is not committed yet
	}
	var p *project.Project
	if l.build != nil {
		p, err = l.build(fsys, commit)
	} else {
		opts := l.loc.Options() // Root: a committed link's absolute target is judged as on disk
		opts.HashOnly = true
		p, err = project.Load(fsys, l.loc.FileInFS, opts)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.ProjectInvalid, err, "load the project at base commit "+commit[:12]).
			Reason(errcode.ReasonBaseInvalid, errcode.NextPassBase)
	}
	b := &base{commit: commit, ref: ref, fsys: fsys, proj: p, resolve: new(sync.Once)}
	l.mu.Lock()
	l.latest = b
	l.mu.Unlock()
	return b, nil
}

// stagedFiles lists the files being committed, relative to the project folder:
// those the repository's index stages, or with indexFile set those that index
// file stages (see DriftRequest.IndexFile).
func (l *baseLoader) stagedFiles(indexFile string) ([]string, error) {
	repo, err := l.repository()
	if err != nil {
		return nil, err
	}
	if repo == nil && indexFile == "" {
		return []string{}, nil
	}
	var paths []string
	if indexFile == "" {
		paths, err = repo.StagedChanges()
	} else {
		var real string
		if real, err = checkIndexFile(repo, indexFile); err != nil {
			return nil, err
		}
		paths, err = repo.StagedChangesIn(real)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "read the git index")
	}
	out := []string{}
	for _, p := range paths {
		if rel, ok := within(l.loc.Dir, filepath.Join(repo.Root(), filepath.FromSlash(p))); ok {
			out = append(out, rel)
		}
	}
	return out, nil
}

// checkIndexFile returns the index file a drift request names, with symbolic links
// resolved, if it is a file inside the repository's git folder (a linked work
// tree's, or the common one); anything else is refused: a request names no other
// file for the host to read.
func checkIndexFile(repo *gitblob.Repo, path string) (string, error) {
	refuse := func(format string, args ...any) error {
		return errcode.New(errcode.BadRequest, "index file %s: "+format, append([]any{path}, args...)...).
			Reason(errcode.ReasonBadIndexFile, errcode.NextFixRequest).With("indexFile", path)
	}
	if repo == nil {
		return "", refuse("the project is not in a git repository")
	}
	if !filepath.IsAbs(path) {
		return "", refuse("not an absolute path")
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", refuse("not found")
	}
	dirs, err := repo.GitDirs()
	if err != nil {
		return "", errcode.Wrap(errcode.Internal, err, "find the git folder")
	}
	inside := false
	for _, d := range dirs {
		if rel, ok := within(d, real); ok && rel != "" {
			inside = true
			break
		}
	}
	if !inside {
		return "", refuse("not inside the repository's git folder")
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", refuse("not a file")
	}
	return real, nil
}

// unmerged returns the files of the project the git index holds in conflict (a
// merge, rebase, cherry-pick or stash apply stopped on them), relative to the
// project folder; nil when there are none, or no repository.
func (l *baseLoader) unmerged() map[string]bool {
	repo, err := l.repository()
	if repo == nil || err != nil {
		return nil
	}
	paths, err := repo.Unmerged()
	if err != nil || len(paths) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, p := range paths {
		if rel, ok := within(l.loc.Dir, filepath.Join(repo.Root(), filepath.FromSlash(p))); ok {
			out[rel] = true
		}
	}
	return out
}

// hashes gives the base scripts their Source hash the first time a plan needs
// them; the disk and Studio trees spare reading most blobs. The Studio tree is
// indexed only then, not on every plan.
func (b *base) hashes(disk map[string]*dom.Instance, studio *dom.Instance) {
	b.resolve.Do(func() { b.proj.ResolveSourceHashes(b.fsys, disk, studio.Index()) })
}

// last returns the latest base loaded, nil when there is none.
func (l *baseLoader) last() *base {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.latest
}

// openedRepo returns the repository if a use opened it, without opening it.
func (l *baseLoader) openedRepo() *gitblob.Repo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.repo
}
