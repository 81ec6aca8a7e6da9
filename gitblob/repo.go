package gitblob

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

var (
	// ErrNoRepo means no git repository contains the directory.
	ErrNoRepo = errors.New("no git repository")
	// ErrNoBase means there is no commit to compare with: HEAD is unborn (a new
	// repository before its first commit) and the revision did not resolve.
	ErrNoBase = errors.New("no base commit")
	// ErrBadRevision means a revision names no commit.
	ErrBadRevision = errors.New("bad revision")
)

// Repo is a git repository with a work tree. It is safe for concurrent use.
type Repo struct {
	// mu serialises every use of repo and storage: go-git's object storage
	// keeps caches and shared file handles without locking of its own.
	mu      sync.Mutex
	repo    *git.Repository
	storage *filesystem.Storage
	objects cache.Object // storage's object cache
	read    bool         // objects may have been read since DropObjectCache
	packs   string       // names of the pack indexes storage last read; see lock

	trees       map[plumbing.Hash]parsedTree // see cacheTree
	treeEntries int
	last        *snapshot // the latest CommitFS, of lastCommit
	lastCommit  plumbing.Hash

	root     string
	realRoot string // root with symlinks resolved, for Rel on such paths

	// unmerged caches Unmerged's answer for the index file it read.
	unmergedMu   sync.Mutex
	unmergedSeen bool
	unmergedSize int64
	unmergedMod  time.Time
	unmerged     []string
}

// Discover finds the repository containing dir, walking up the parent
// directories like git does. It understands linked work trees (a .git file
// pointing elsewhere). With no repository it returns ErrNoRepo.
func Discover(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("discover repository: %w", err)
	}
	// go-git would silently walk up from a missing directory.
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("discover repository: %w", err)
	}
	found, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%w at or above %s", ErrNoRepo, abs)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository at or above %s: %w", abs, err)
	}
	wt, err := found.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return nil, fmt.Errorf("%w with a work tree at or above %s", ErrNoRepo, abs)
	}
	if err != nil {
		return nil, fmt.Errorf("open work tree: %w", err)
	}
	dot, ok := found.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("open repository at or above %s: unexpected storage %T", abs, found.Storer)
	}
	// Reopen the same .git with packfiles kept open between reads: otherwise
	// go-git opens the packfile again for every object, which dominates
	// walking a big tree. lock closes them after each operation, so no file
	// stays open for long (on Windows an open pack would block git gc).
	// go-git's object cache (96 MiB by default) keeps every object read, and
	// a host reads a commit's scripts back by the thousand (an apply's journal
	// takes Studio's old texts from the commit): it held 23 MB after the
	// benchmark's applies at 10k. Parsed trees have a cache of their own
	// (cacheTree); 8 MiB still holds the delta bases a packfile read needs,
	// and walking a packed commit's trees took no longer for it. An idle host
	// empties it (DropObjectCache).
	objects := cache.NewObjectLRU(8 * cache.MiByte)
	storage := filesystem.NewStorageWithOptions(dot.Filesystem(), objects,
		filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(storage, wt.Filesystem)
	if err != nil {
		return nil, fmt.Errorf("open repository at or above %s: %w", abs, err)
	}
	root := filepath.Clean(wt.Filesystem.Root())
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	r := &Repo{repo: repo, storage: storage, objects: objects, root: root, realRoot: realRoot}
	r.packs = r.packNames()
	return r, nil
}

// DropObjectCache empties the cache of the objects read (not the parsed trees'),
// for a process going idle: what it holds is only worth it within a burst of reads.
// It reports whether any object was read since it last ran.
func (r *Repo) DropObjectCache() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	read := r.read
	r.objects.Clear()
	r.read = false
	return read
}

// lock takes mu for one operation on the repository; the returned function
// ends it.
func (r *Repo) lock() (unlock func()) {
	r.mu.Lock()
	r.read = true
	return func() {
		// Closing read-only files cannot lose data; there is nothing to report.
		_ = r.storage.Close()
		r.mu.Unlock()
	}
}

// do runs op, which reads objects, under the lock. go-git reads the list of
// packfiles once, so objects go missing after a repack (git gc, which git
// also runs by itself after commits); when op fails and the packs changed,
// do runs it again with a fresh list. Success costs no extra file access.
func (r *Repo) do(op func() error) error {
	defer r.lock()()
	err := op()
	if err != nil {
		if packs := r.packNames(); packs != r.packs {
			r.packs = packs
			r.storage.Reindex()
			err = op()
		}
	}
	return err
}

func (r *Repo) packNames() string {
	infos, err := r.storage.Filesystem().ReadDir("objects/pack")
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, fi := range infos {
		if strings.HasSuffix(fi.Name(), ".idx") {
			b.WriteString(fi.Name())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Root returns the absolute path of the work tree's top directory.
func (r *Repo) Root() string { return r.root }

// GitDirs returns the repository's git folder (".git", or a linked work tree's
// folder under the main one's "worktrees") and, for a linked work tree, the
// common git folder it shares with the main work tree, with symbolic links
// resolved.
func (r *Repo) GitDirs() ([]string, error) {
	dir := r.storage.Filesystem().Root()
	dirs := []string{dir}
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if common != "" {
			if !filepath.IsAbs(common) {
				common = filepath.Join(dir, common)
			}
			dirs = append(dirs, common)
		}
	}
	for i, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("git folder: %w", err)
		}
		dirs[i] = real
	}
	return dirs, nil
}

// Rel returns the slash-separated path of abs relative to Root, "" for Root
// itself. It fails for a path outside the work tree.
func (r *Repo) Rel(abs string) (string, error) {
	p, err := filepath.Abs(abs)
	if err != nil {
		return "", fmt.Errorf("relative path of %s: %w", abs, err)
	}
	if rel, ok := relInside(r.root, p); ok {
		return rel, nil
	}
	// The path may reach the work tree through a symlinked directory
	// (/tmp and /private/tmp on macOS); git compares resolved paths too.
	if real, err := evalExisting(p); err == nil {
		if rel, ok := relInside(r.realRoot, real); ok {
			return rel, nil
		}
	}
	return "", fmt.Errorf("path %s is outside the repository at %s", abs, r.root)
}

func relInside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// evalExisting resolves symlinks in the longest existing prefix of p, so that
// paths of files not created yet can still be placed.
func evalExisting(p string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// Resolve returns the commit id (40 hex digits) a revision names: "HEAD" when
// rev is empty, a branch, a tag, a full or abbreviated commit id, or forms like
// "HEAD~1" and "main^2". When rev does not resolve it returns an error wrapping
// ErrNoBase if HEAD is unborn, ErrBadRevision otherwise.
func (r *Repo) Resolve(rev string) (string, error) {
	var h plumbing.Hash
	err := r.do(func() (err error) {
		h, err = r.resolveLocked(rev)
		return err
	})
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// resolveLocked is Resolve for callers holding the lock.
func (r *Repo) resolveLocked(rev string) (plumbing.Hash, error) {
	if rev == "" {
		rev = "HEAD"
	}
	h, err := r.resolve(rev)
	if err == nil {
		return h, nil
	}
	unborn, uerr := r.unborn()
	if uerr != nil {
		return plumbing.ZeroHash, uerr
	}
	if unborn {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w (HEAD has no commit yet)", rev, ErrNoBase)
	}
	return plumbing.ZeroHash, err
}

// resolve wraps go-git's resolver, mapping its "no such thing" errors to
// ErrBadRevision and keeping real failures (I/O, corruption) as they are.
func (r *Repo) resolve(rev string) (plumbing.Hash, error) {
	if unsupportedRevision(rev) {
		return plumbing.ZeroHash, fmt.Errorf("%w %q: not a commit or unsupported syntax", ErrBadRevision, rev)
	}
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err == nil {
		return *h, nil
	}
	if isNotFound(err) {
		return plumbing.ZeroHash, fmt.Errorf("%w %q: %v", ErrBadRevision, rev, err)
	}
	return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w", rev, err)
}

// unsupportedRevision reports revisions that go-git parses but does not
// apply: it skips reflog ("main@{1}"), path ("HEAD:a.lua") and peel
// ("v1^{tree}") suffixes, and would answer "HEAD:a.lua" with HEAD. Ref names
// cannot contain these sequences, so nothing valid is refused.
func unsupportedRevision(rev string) bool {
	if strings.Contains(rev, ":") || strings.Contains(rev, "@{") {
		return true
	}
	for rest := rev; ; {
		i := strings.Index(rest, "^{")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		// Peeling to a commit is what resolving does anyway.
		if !strings.HasPrefix(rest, "}") && !strings.HasPrefix(rest, "commit}") {
			return true
		}
	}
}

// isNotFound reports whether a go-git resolver error is the revision's fault.
// go-git reports unknown names, missing objects, running out of parents
// ("HEAD~5" past the root) and syntax errors each in its own way; only file
// system errors mean the repository itself could not be read.
func isNotFound(err error) bool {
	var pathErr *fs.PathError
	return !errors.As(err, &pathErr)
}

// unborn reports whether HEAD points to a branch without commits. Callers hold the lock.
func (r *Repo) unborn() (bool, error) {
	_, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read HEAD: %w", err)
	}
	return false, nil
}

// HeadRef returns the full name of the branch HEAD points to
// ("refs/heads/main"), even before its first commit, or "" when HEAD is
// detached.
func (r *Repo) HeadRef() (string, error) {
	defer r.lock()()
	ref, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if ref.Type() != plumbing.SymbolicReference {
		return "", nil
	}
	return ref.Target().String(), nil
}
