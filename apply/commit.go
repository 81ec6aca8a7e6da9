package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/casfile"
	"github.com/atlas-rbx/atlas/internal/diskfull"
)

// commitWorkers bounds how many files a commit swaps at once: each swap waits on
// fsync, and the file system batches concurrent ones.
const commitWorkers = 8

// Commit writes the staged files into the project, each by compare-and-swap
// (casfile, tagged with the transaction id): a file is replaced or deleted only
// while it holds exactly what the plan saw, and one changed since is left as the
// user made it and reported "kept". It is idempotent: a commit interrupted by a
// crash is finished by running it again, which carries on each file's swap from
// where it stopped. The aside copies (the pre-images) are dropped once the journal
// says committed; the journal keeps its own copy of each.
func (r *record) Commit() ([]FileChange, []string, error) {
	if r.State == stateCommitted {
		return []FileChange{}, nil, nil
	}
	root, dirs, closeRoots, err := r.openRoots()
	if err != nil {
		return nil, nil, r.commitFailed(err)
	}
	defer closeRoots()

	changes := make([]FileChange, len(r.Files))
	errs := make([]error, len(r.Files))
	// Folders are made first; files are swapped side by side; folders are removed
	// last, in order (each after the files listed before it).
	for i, f := range r.Files {
		if f.Dir && !f.Delete {
			changes[i] = FileChange{Path: f.Path, Action: "mkdir"}
			errs[i] = dirs.MkdirAll(filepath.FromSlash(f.Path), 0o755)
		}
	}
	r.eachFile(func(i int) { changes[i], errs[i] = r.commitFile(root, i) })
	if err := errors.Join(errs...); err != nil {
		return nil, nil, r.commitFailed(err)
	}
	var warnings []string
	kept := func(path string) {
		warnings = append(warnings, path+" changed after the plan and was left as it is; plan again to see the difference")
	}
	for i, c := range changes {
		if c.Action != "kept" {
			continue
		}
		if c.Reason == string(casfile.Displaced) {
			// The user's edit waits at the aside copy; keep its bytes in the journal too.
			if b, err := root.ReadAside(c.Path, r.tag()); err == nil {
				_ = writeFile(filepath.Join(r.dir, "kept-"+strconv.Itoa(i)), b)
			}
			warnings = append(warnings, fmt.Sprintf("%s was edited and created again during the apply: both are kept, the new file at %s and the edited one at %s (also in the journal of %s)",
				c.Path, c.Path, c.KeptAt, r.TxID))
			continue
		}
		kept(c.Path)
		r.Files[i].Kept = true
	}
	r.State, r.Untidy = stateCommitted, true
	r.Waiting, r.Error = "", ""
	if err := r.saveState(); err != nil {
		return nil, nil, err
	}
	r.tidy(root)
	r.j.prune()
	// Folders last, once tidy has taken the aside copies of the files deleted out of
	// them: a folder the transaction emptied holds them until then.
	for i, f := range r.Files {
		if f.Dir && f.Delete {
			changes[i] = FileChange{Path: f.Path, Action: "rmdir"}
			switch err := dirs.Remove(filepath.FromSlash(f.Path)); {
			case err == nil, errors.Is(err, fs.ErrNotExist):
			case isNotEmpty(dirs, f.Path):
				// Someone put a file in it since the plan: it stays, with the folder.
				changes[i] = FileChange{Path: f.Path, Action: "kept", Reason: string(casfile.Changed)}
				kept(f.Path)
			default:
				// The files are committed: a folder left behind is only reported.
				changes[i] = FileChange{Path: f.Path, Action: "kept", Reason: string(casfile.Changed)}
				warnings = append(warnings, fmt.Sprintf("the folder %s could not be removed (%v); remove it by hand", f.Path, err))
			}
		}
	}
	return changes, warnings, nil
}

// eachFile runs fn for the index of every file (not folder) of the record, on
// commitWorkers goroutines: casfile is safe for concurrent use on different names.
func (r *record) eachFile(fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(commitWorkers, len(r.Files)) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i, f := range r.Files {
		if !f.Dir {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}

// commitFile swaps one file in.
func (r *record) commitFile(root *casfile.Root, i int) (FileChange, error) {
	f := r.Files[i]
	fc := FileChange{Path: f.Path, Action: "write"}
	var res casfile.Result
	var err error
	o := casfile.Options{Tag: r.tag()}
	switch {
	case f.Delete:
		fc.Action = "delete"
		res, err = root.Delete(f.Path, f.Expect, o)
	default:
		if f.Expect == "" {
			fc.Action = "create"
		}
		var data []byte
		if data, err = r.newBytes(i); err == nil {
			res, err = root.Replace(f.Path, f.Expect, data, o)
		}
	}
	if err != nil {
		return fc, err
	}
	if res.Outcome == casfile.Kept {
		fc.Action, fc.Reason = "kept", string(res.Reason)
		if res.Reason == casfile.Displaced {
			fc.KeptAt = res.Aside
		}
	}
	return fc, nil
}

// newBytes returns what the transaction writes to its i-th file: from memory in
// the process that planned it, else from the journal.
func (r *record) newBytes(i int) ([]byte, error) {
	if r.stageData != nil {
		return r.stageData[i].Data, nil
	}
	return os.ReadFile(filepath.Join(r.dir, r.Files[i].New))
}

// tidy removes the temporary files of a committed transaction from the project
// (staged copies, and aside copies whose bytes the journal holds) and records
// that it is tidy.
func (r *record) tidy(root *casfile.Root) {
	var mu sync.Mutex // discard may rewrite the record (a pre-image from an aside copy)
	r.eachFile(func(i int) {
		f := r.Files[i]
		if f.Expect != "" && f.PreHash != f.Expect {
			mu.Lock()
			defer mu.Unlock()
		}
		r.discard(root, f, r.tag())
	})
	for _, dir := range r.probeDirs() {
		_ = os.Remove(filepath.Join(dir, probeName(r.tag())))
	}
	_ = os.RemoveAll(filepath.Join(r.dir, "new"))
	r.Untidy = false
	_ = r.saveState()
}

// commitFailed records why the disk side could not be finished and returns the
// refusal: E_DISK_FULL for a full disk, else E_INTERNAL. The transaction stays
// open (Studio holds the patch): the host tries again when it starts, when a
// Studio connects and before each apply, and sync recover --finish does.
func (r *record) commitFailed(err error) error {
	r.wait(WaitDisk, err.Error())
	msg := "transaction " + r.TxID + " is written in Studio but its files could not all be written"
	var ce *errcode.Error
	if diskfull.Is(err) {
		ce = errcode.As(diskfull.Wrap(err, msg))
		ce.Reason(errcode.ReasonDiskFull, errcode.NextFreeDisk, errcode.NextResolveTransaction)
	} else {
		ce = errcode.Wrap(errcode.Internal, err, msg).
			Reason(errcode.ReasonDiskCommitFailed, errcode.NextFixPermissions, errcode.NextResolveTransaction)
	}
	return ce.With("txId", r.TxID).With("pending", true)
}

func openRoot(r *record) (*casfile.Root, error) { return casfile.Open(r.ProjectDir) }

// openRoots opens the project folder for compare-and-swap writes, and as an os.Root
// for the folders around them; closeRoots closes both.
func (r *record) openRoots() (root *casfile.Root, dirs *os.Root, closeRoots func(), err error) {
	if root, err = casfile.Open(r.ProjectDir); err != nil {
		return nil, nil, nil, err
	}
	if dirs, err = os.OpenRoot(root.Dir()); err != nil {
		root.Close()
		return nil, nil, nil, err
	}
	return root, dirs, func() { dirs.Close(); root.Close() }, nil
}

func isNotEmpty(root *os.Root, dir string) bool {
	f, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}

// restoreDisk puts back the files a transaction that was being committed wrote
// (an abort after Studio applied it): by compare-and-swap, each only while it
// holds exactly what the transaction wrote, from the journal's pre-image; a
// file caught half-swapped (its old bytes aside, nothing at its path) gets them
// back; a file changed since is kept and reported. Temporary files go.
func (r *record) restoreDisk() ([]FileChange, error) {
	root, dirs, closeRoots, err := r.openRoots()
	if err != nil {
		return nil, err
	}
	defer closeRoots()
	undoTag := r.tag() + "-r"
	changes := []FileChange{}
	var firstErr error
	for i := len(r.Files) - 1; i >= 0; i-- {
		f := r.Files[i]
		switch {
		case f.Dir && f.Delete:
			if _, err := dirs.Stat(filepath.FromSlash(f.Path)); errors.Is(err, fs.ErrNotExist) {
				if err := dirs.MkdirAll(filepath.FromSlash(f.Path), 0o755); err == nil {
					changes = append(changes, FileChange{Path: f.Path, Action: "mkdir"})
				}
			}
			continue
		case f.Dir:
			if dirs.Remove(filepath.FromSlash(f.Path)) == nil {
				changes = append(changes, FileChange{Path: f.Path, Action: "rmdir"})
			}
			continue
		}
		fc, err := r.restoreFile(root, i, undoTag)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if fc.Action != "" {
			changes = append(changes, fc)
		}
		if err == nil {
			r.discard(root, f, r.tag())
			_, _ = root.Discard(f.Path, undoTag, f.NewHash)
		}
	}
	for _, dir := range r.probeDirs() {
		_ = os.Remove(filepath.Join(dir, probeName(r.tag())))
	}
	return changes, firstErr
}

// restoreFile puts back one file of restoreDisk; an empty Action means there was
// nothing to do.
func (r *record) restoreFile(root *casfile.Root, i int, tag string) (FileChange, error) {
	f := r.Files[i]
	o := casfile.Options{Tag: tag}
	cur, err := root.Hash(f.Path)
	if err != nil {
		return FileChange{}, err
	}
	pre := func() ([]byte, error) {
		if f.Pre != "" && f.PreHash == f.Expect {
			return os.ReadFile(filepath.Join(r.dir, f.Pre))
		}
		b, err := root.ReadAside(f.Path, r.tag())
		if err == nil && gitblob.Hash(b) != f.Expect {
			err = fmt.Errorf("no copy of the old bytes of %s", f.Path)
		}
		return b, err
	}
	var res casfile.Result
	switch {
	case cur == f.Expect:
		return FileChange{}, nil // never written, or already put back
	case f.Expect == "":
		if cur != f.NewHash {
			return FileChange{Path: f.Path, Action: "kept", Reason: string(casfile.Changed)}, nil
		}
		res, err = root.Delete(f.Path, f.NewHash, o)
	case cur == "":
		aside, found, aerr := root.AsideHash(f.Path, r.tag())
		if aerr != nil {
			return FileChange{}, aerr
		}
		if !found || aside != f.Expect {
			return FileChange{}, nil // the user deleted it: that stands
		}
		b, perr := pre()
		if perr != nil {
			return FileChange{}, perr
		}
		res, err = root.Create(f.Path, b, o)
	case cur == f.NewHash:
		b, perr := pre()
		if perr != nil {
			return FileChange{}, perr
		}
		res, err = root.Replace(f.Path, f.NewHash, b, o)
	default:
		return FileChange{Path: f.Path, Action: "kept", Reason: string(casfile.Changed)}, nil
	}
	if err != nil {
		return FileChange{}, err
	}
	if res.Outcome == casfile.Kept {
		return FileChange{Path: f.Path, Action: "kept", Reason: string(res.Reason), KeptAt: res.Aside}, nil
	}
	if res.Outcome == casfile.Deleted {
		return FileChange{Path: f.Path, Action: "delete"}, nil
	}
	return FileChange{Path: f.Path, Action: "restore"}, nil
}
