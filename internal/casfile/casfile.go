package casfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/diskfull"
)

// Root is a project folder opened for compare-and-swap file operations. Every
// name it takes is slash-separated and relative to the folder ("src/a.luau").
// It is safe for concurrent use on different names; two operations on one name
// with one tag at the same time are not (one host runs per project).
//
// # The swap
//
// Replace, Create and Delete share one protocol, which holds on Linux, macOS and
// Windows because it needs only two atomic primitives: a rename, and a rename
// that refuses to replace an existing file.
//
//  1. Resolve the name's folders inside the root; refuse a symbolic link that
//     leaves it, and refuse a final element that is a symbolic link at all.
//  2. Stage the new bytes in the same folder (".atlas-<tag>-<name>.new"), fsynced,
//     with the old file's mode.
//  3. Rename the current file aside (".atlas-<tag>-<name>.pre"), atomically. From
//     here on no other writer can change what we verify: an editor that saves by
//     path creates a new file at the path instead.
//  4. Verify the aside copy: a regular file whose blob id is the expected one. If
//     not, it was edited after the plan: rename it back without replacing and
//     report Kept. If something was created at the path meanwhile, it is not
//     replaced either: both stay, the edited copy at Result.Aside (Displaced).
//  5. Rename the staged file in without replacing (Linux renameat2
//     RENAME_NOREPLACE, else link+unlink; macOS renamex_np RENAME_EXCL, else
//     link+unlink; Windows MoveFileEx without MOVEFILE_REPLACE_EXISTING). If a
//     file appeared at the path while the old one was aside, the user created it:
//     the new bytes are not written and the result is Kept (Exists).
//
// The aside copy that remains after Written or Deleted holds exactly the expected
// bytes: the transaction's pre-image. The caller keeps it (a journal pointing at
// Result.Aside) or drops it with Discard once the transaction is recorded.
//
// # Crashes
//
// Every intermediate state is a set of named files in the target's folder, and
// the names are a function of (name, tag). Calling the same operation again with
// the same tag carries on from wherever an earlier call stopped (a staged file is
// re-staged, an aside copy is verified and then installed over or put back), so a
// journal recovers by replaying its operations. IsTemp recognises the names, for
// watchers and loaders that must ignore them.
//
// # What remains racy
//
// Between step 3 and step 5 the path briefly holds no file; a reader then sees it
// missing, never half-written. A writer that opened the old file before step 3
// and writes through that handle after step 4 writes into the aside copy: those
// bytes are kept as long as the aside copy is. Discard re-verifies the copy and
// keeps it when it changed, but a write through such a handle between that check
// and the unlink lands in a file no name points to any more.
//
// The symlink check of step 1 and the operations after it are two steps. Every
// operation after it goes through a handle of the target's folder, opened
// through os.Root (which refuses a link leaving the root, so a folder swapped
// for one before the handle is opened is refused, and one swapped after it no
// longer matters: the handle keeps the real folder). On Linux and macOS the
// renames take that handle (renameat2, renameatx_np); a final element turned
// into a link is moved aside, fails verification and is put back, never
// followed. On Windows, renames go by path (MoveFileEx), so a folder replaced by
// a link or junction between opening the handle and a rename could redirect that
// one rename; the window is microseconds and needs someone racing Atlas on
// purpose.
type Root struct {
	root *os.Root
	// abs is the folder's absolute path with symbolic links resolved; given is
	// the absolute path as the caller named it. An absolute link into either
	// stays inside.
	abs, given string
	// hook, when set (tests only), runs after each step of a swap; an error from
	// it stops the swap there as a crash would.
	hook func(step) error
}

// Open opens the folder dir for compare-and-swap operations. The caller closes it.
func Open(dir string) (*Root, error) {
	given, err := filepath.Abs(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "open project folder")
	}
	abs, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, errcode.Wrap(errcode.ProjectInvalid, err, "open project folder "+dir).
			Reason(errcode.ReasonProjectFolder, errcode.NextFixPermissions)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, errcode.Wrap(errcode.ProjectInvalid, err, "open project folder "+dir).
			Reason(errcode.ReasonProjectFolder, errcode.NextFixPermissions)
	}
	return &Root{root: root, abs: abs, given: given}, nil
}

// Close releases the folder.
func (r *Root) Close() error { return r.root.Close() }

// Dir returns the folder's absolute path, symbolic links resolved.
func (r *Root) Dir() string { return r.abs }

// Outcome is what an operation did. Its words are apply's file actions.
type Outcome string

// The outcomes.
const (
	// Written: the file held the expected bytes and now holds the new ones.
	Written Outcome = "write"
	// Created: there was no file and now there is one with the new bytes.
	Created Outcome = "create"
	// Deleted: the file held the expected bytes and is gone (its bytes are in
	// the aside copy).
	Deleted Outcome = "delete"
	// Unchanged: the path was already as the operation wanted it (holding the
	// new bytes, or absent for a delete); nothing was touched.
	Unchanged Outcome = "unchanged"
	// Kept: the path did not hold what the caller expected; it was left as the
	// user made it. Result.Reason says why.
	Kept Outcome = "kept"
)

// Reason says why an operation's outcome is Kept.
type Reason string

// The reasons.
const (
	// Changed: the file holds other bytes than expected (edited after the plan),
	// or is not a regular file any more. It is where it was.
	Changed Reason = "changed"
	// Missing: the file expected is gone (deleted after the plan). Nothing was
	// created in its place.
	Missing Reason = "missing"
	// Exists: a file is at the path where the caller expected none, or one was
	// created there while the old file was aside. It is the user's; the new bytes
	// were not written.
	Exists Reason = "exists"
	// Displaced: the file was edited after the plan and, while it was aside, a
	// new file was created at its path. Both are kept: the new one at the path,
	// the edited one at Result.Aside. Report it; never discard it.
	Displaced Reason = "displaced"
)

// Result is the outcome of one operation.
type Result struct {
	Outcome Outcome
	Reason  Reason // why Kept; "" otherwise
	// Found is the blob id of what was at the path when it was not what the
	// caller expected ("" when there was no regular file).
	Found string
	// Aside is the root-relative path of the old file's aside copy when one
	// remains, else "". After Written or Deleted, and after Kept with Exists, it
	// holds exactly the expected bytes (the pre-image); after Kept with Displaced
	// it holds the user's edit. Discard drops it only while it holds the
	// expected bytes.
	Aside string
}

// Options are the settings of one operation.
type Options struct {
	// Tag names the operation's temporary files (".atlas-<Tag>-…"): the
	// transaction id. Required: 1 to 40 of A-Z a-z 0-9 _ -. Calling again with
	// the same tag carries on an interrupted operation.
	Tag string
	// Mode is the permission of a file Replace or Create makes where there was
	// none (0644 if zero), less the umask. A replaced file keeps its mode.
	Mode fs.FileMode
}

// Sentinel errors, for callers that branch; the errors returned wrap them in an
// *errcode.Error with code E_PROJECT_INVALID.
var (
	// ErrOutsideRoot: a symbolic link on the way (or the final element) leads
	// outside the root. reasonCode "symlink_outside_project".
	ErrOutsideRoot = errors.New("symbolic link leads outside the project folder")
	// ErrSymlink: the final element is a symbolic link (inside the root), or a
	// folder on the way is a link Atlas does not follow. reasonCode "symlink".
	ErrSymlink = errors.New("symbolic link where a file is expected")
)

// Replace makes name hold data if it holds exactly the bytes whose blob id is
// expect; expect "" means no file may be there (Create). Outcomes: Written,
// Created, Unchanged (it already held data), Kept (Changed, Missing, Exists,
// Displaced). An error means the path is as it was (or, if Result.Aside is set,
// that the old bytes wait there, which the error says). Errors are
// E_PROJECT_INVALID for the refusals of Check, E_DISK_FULL (reasonCode
// "disk_full") when the disk is full, E_BUSY ("file_in_use") when another
// program kept the file locked past the retries (Windows), else plain errors
// with the cause wrapped.
func (r *Root) Replace(name, expect string, data []byte, o Options) (Result, error) {
	if data == nil {
		data = []byte{}
	}
	return r.swap(name, expect, data, o)
}

// Create makes name hold data if no file is there; its missing folders are
// made. Outcomes: Created, Unchanged (a file with exactly data is there), Kept
// (Exists).
func (r *Root) Create(name string, data []byte, o Options) (Result, error) {
	return r.Replace(name, "", data, o)
}

// Delete removes name if it holds exactly the bytes whose blob id is expect.
// Outcomes: Deleted (the bytes wait at Result.Aside), Unchanged (no file was
// there), Kept (Changed, Exists when expect is "" and a file is there,
// Displaced).
func (r *Root) Delete(name, expect string, o Options) (Result, error) {
	return r.swap(name, expect, nil, o)
}

// Discard removes the aside copy and any staged file that operations on name
// with tag left, but the aside copy only while it holds exactly the bytes whose
// blob id is expect. It reports whether nothing is left; false means the copy
// holds other bytes (a late write, or a Displaced edit) and stays.
func (r *Root) Discard(name, tag, expect string) (bool, error) {
	if err := validTag(tag); err != nil {
		return false, err
	}
	d, base, err := r.folder(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer d.close()
	aside, staged := tempName(base, tag, asideSuffix), tempName(base, tag, stagedSuffix)
	if err := d.remove(staged); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("discard %s: %w", name, err)
	}
	found, regular, err := d.hash(aside)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("discard %s: %w", name, err)
	}
	if !regular || found != expect {
		return false, nil
	}
	if err := d.remove(aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("discard %s: %w", name, err)
	}
	d.sync()
	return true, nil
}

// Hash returns the blob id of the file at name, or "" if there is none. A final
// element that is a symbolic link, or a folder on the way that leads outside
// the root, is refused like the writes refuse it; a folder at name is an error.
func (r *Root) Hash(name string) (string, error) {
	d, base, err := r.folder(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer d.close()
	h, regular, err := d.hash(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("hash %s: %w", name, err)
	case !regular:
		return "", fmt.Errorf("hash %s: not a regular file", name)
	}
	return h, nil
}

// Check returns the error Replace, Create or Delete would refuse name with
// (a name that is not a clean relative path, a symbolic link that leaves the
// root, or one as the final element), or nil. Apply checks every path before
// it touches Studio, so that a refusal changes nothing on either side.
func (r *Root) Check(name string) error {
	_, _, err := r.resolve(name)
	return err
}

const (
	tempPrefix   = ".atlas-"
	stagedSuffix = ".new"
	asideSuffix  = ".pre"
	// maxNameLen is the longest file name most file systems allow (bytes).
	maxNameLen = 255
	maxTagLen  = 40
)

// IsTemp reports whether base, a file name without its folder, is a staged or
// aside file of this package.
func IsTemp(base string) bool {
	return strings.HasPrefix(base, tempPrefix) &&
		(strings.HasSuffix(base, stagedSuffix) || strings.HasSuffix(base, asideSuffix))
}

// tempName is the name of base's staged or aside file for tag: readable when it
// fits in a file name, else with base replaced by a digest of it.
func tempName(base, tag, suffix string) string {
	n := tempPrefix + tag + "-" + base + suffix
	if len(n) <= maxNameLen {
		return n
	}
	sum := sha256.Sum256([]byte(base))
	return tempPrefix + tag + "-" + hex.EncodeToString(sum[:12]) + suffix
}

func validTag(tag string) error {
	ok := tag != "" && len(tag) <= maxTagLen
	for _, c := range tag {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			ok = false
		}
	}
	if !ok {
		return errcode.New(errcode.Usage, "file operation tag %q is not 1 to %d of A-Z a-z 0-9 _ -", tag, maxTagLen).
			Reason(errcode.ReasonBadTag)
	}
	return nil
}

// swap runs Replace (data != nil) or Delete (data == nil).
func (r *Root) swap(name, expect string, data []byte, o Options) (Result, error) {
	if err := validTag(o.Tag); err != nil {
		return Result{}, err
	}
	create := data != nil && expect == ""
	d, base, err := r.folder(name, create)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder is gone, so is the file.
		switch {
		case data == nil:
			return Result{Outcome: Unchanged}, nil
		default:
			return Result{Outcome: Kept, Reason: Missing}, nil
		}
	}
	if err != nil {
		return Result{}, err
	}
	defer d.close()
	mode := o.Mode
	if mode == 0 {
		mode = 0o644
	}
	s := &swapper{r: r, d: d, name: name, base: base, expect: expect, data: data, mode: mode.Perm(),
		staged: tempName(base, o.Tag, stagedSuffix), aside: tempName(base, o.Tag, asideSuffix)}
	if data != nil {
		s.newHash = gitblob.Hash(data)
	}
	res, err := s.run()
	if err != nil && !isCoded(err) {
		verb := "replace"
		if data == nil {
			verb = "delete"
		}
		err = fmt.Errorf("%s %s: %w", verb, name, err)
		if transient(err) {
			// Still refused when the retries ran out (Windows: an editor or a
			// scanner holds the file without sharing).
			err = errcode.Wrap(errcode.Busy, err, "").
				Reason(errcode.ReasonFileInUse, errcode.NextCloseFile).With("file", name)
		}
		err = diskfull.Wrap(err, verb+" "+name)
	}
	return res, err
}

func isCoded(err error) bool {
	var e *errcode.Error
	return errors.As(err, &e)
}

// swapper is one operation on one file: the state its steps share.
type swapper struct {
	r      *Root
	d      *folder
	name   string // as the caller gave it, for messages
	base   string // the final element, in d
	expect string // blob id the file must hold; "" for no file
	data   []byte // the new bytes; nil to delete
	// newHash is data's blob id ("" for a delete).
	newHash string
	mode    fs.FileMode // for a file made where there was none
	staged  string      // names in d
	aside   string
}

func (s *swapper) deleting() bool { return s.data == nil }

// asideRel is the aside copy's root-relative path, for Result.Aside.
func (s *swapper) asideRel() string { return path.Join(s.d.rel, s.aside) }

func (s *swapper) step(st step) error {
	if s.r.hook == nil {
		return nil
	}
	return s.r.hook(st)
}

func (s *swapper) run() (res Result, err error) {
	if !s.deleting() {
		// Whatever happens, no staged file outlives the call: installed, it has
		// moved; otherwise it is garbage. (A crash leaves it for the next call.)
		defer func() {
			if rerr := s.d.remove(s.staged); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
				err = fmt.Errorf("remove staged file: %w", rerr)
			}
		}()
	}
	// An aside copy with this tag: an earlier call was interrupted, or finished.
	if fi, err := s.d.lstat(s.aside); err == nil {
		return s.resume(fi)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	cur, err := s.d.lstat(s.base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		switch {
		case s.deleting():
			return Result{Outcome: Unchanged}, nil
		case s.expect != "":
			return Result{Outcome: Kept, Reason: Missing}, nil
		}
		return s.create()
	case err != nil:
		return Result{}, err
	case cur.Mode()&fs.ModeSymlink != 0:
		// Resolved as no link a moment ago: someone made it one since.
		return Result{}, s.r.symlinkError(s.name, path.Join(s.d.rel, s.base), "")
	}
	if s.expect == "" {
		found, _, err := s.d.hash(s.base)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Result{}, err
		}
		if !s.deleting() && found == s.newHash {
			return Result{Outcome: Unchanged}, nil
		}
		return Result{Outcome: Kept, Reason: Exists, Found: found}, nil
	}
	if !cur.Mode().IsRegular() {
		return Result{Outcome: Kept, Reason: Changed}, nil
	}
	if !s.deleting() {
		if err := s.stage(cur.Mode().Perm(), true); err != nil {
			return Result{}, err
		}
		if err := s.step(stepStaged); err != nil {
			return Result{}, err
		}
	}
	switch err := s.d.renameNoReplace(s.base, s.aside); {
	case errors.Is(err, fs.ErrNotExist):
		// Deleted after we looked: the user's deletion stands.
		if s.deleting() {
			return Result{Outcome: Unchanged}, nil
		}
		return Result{Outcome: Kept, Reason: Missing}, nil
	case err != nil:
		return Result{}, err
	}
	if err := s.step(stepAside); err != nil {
		return Result{}, err
	}
	return s.settle()
}

// settle runs with the old file aside and the path (as far as we know) free:
// verify the aside copy, then install the new file or put the old one back.
func (s *swapper) settle() (Result, error) {
	found, regular, err := s.d.hash(s.aside)
	if err != nil {
		return s.putBack(Result{Outcome: Kept, Reason: Changed}, fmt.Errorf("verify: %w", err))
	}
	if !regular || found != s.expect {
		res := Result{Outcome: Kept, Reason: Changed, Found: found}
		if !regular {
			res.Found = ""
		} else if !s.deleting() && found == s.newHash {
			// Someone already wrote exactly the new bytes.
			res = Result{Outcome: Unchanged}
		}
		return s.putBack(res, nil)
	}
	if err := s.step(stepVerified); err != nil {
		return Result{}, err
	}
	if s.deleting() {
		s.d.sync()
		return Result{Outcome: Deleted, Aside: s.asideRel()}, nil
	}
	switch err := s.d.renameNoReplace(s.staged, s.base); {
	case errors.Is(err, fs.ErrExist):
		// Created while the old file was aside: the user's. The aside copy holds
		// the expected bytes, so nothing of anyone's is lost.
		found, _, _ := s.d.hash(s.base)
		return Result{Outcome: Kept, Reason: Exists, Found: found, Aside: s.asideRel()}, nil
	case err != nil:
		return s.putBack(Result{}, fmt.Errorf("install: %w", err))
	}
	if err := s.step(stepInstalled); err != nil {
		return Result{}, err
	}
	s.d.sync()
	return Result{Outcome: Written, Aside: s.asideRel()}, nil
}

// putBack renames the aside copy back to the path without replacing, then
// returns res and cause. A file created at the path meanwhile stays; the copy
// then stays aside too (Displaced).
func (s *swapper) putBack(res Result, cause error) (Result, error) {
	err := s.d.renameNoReplace(s.aside, s.base)
	switch {
	case err == nil:
		s.d.sync()
		return res, cause
	case errors.Is(err, fs.ErrExist):
		if cause != nil {
			return Result{Aside: s.asideRel()}, fmt.Errorf("%w; the old file is kept at %s", cause, s.asideRel())
		}
		if res.Outcome == Unchanged {
			res = Result{Outcome: Kept, Reason: Changed, Found: s.newHash}
		}
		res.Outcome, res.Reason, res.Aside = Kept, Displaced, s.asideRel()
		return res, nil
	default:
		return Result{Aside: s.asideRel()}, errors.Join(cause,
			fmt.Errorf("put the old file back from %s: %w; it is kept there", s.asideRel(), err))
	}
}

// resume carries on an operation whose aside copy exists (fi).
func (s *swapper) resume(fi fs.FileInfo) (Result, error) {
	_, err := s.d.lstat(s.base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Stopped between the move aside and the install or put back.
		if !s.deleting() {
			if err := s.stage(fi.Mode().Perm(), true); err != nil {
				return Result{}, err
			}
		}
		return s.settle()
	case err != nil:
		return Result{}, err
	}
	// The path holds a file again: ours from an earlier call, or the user's.
	if !s.deleting() {
		if h, regular, err := s.d.hash(s.base); err == nil && regular && h == s.newHash {
			return Result{Outcome: Written, Aside: s.asideRel()}, nil
		}
	}
	found, regular, err := s.d.hash(s.aside)
	if err != nil {
		return Result{Aside: s.asideRel()}, fmt.Errorf("verify %s: %w; it is kept there", s.asideRel(), err)
	}
	if !regular || found != s.expect {
		return Result{Outcome: Kept, Reason: Displaced, Found: found, Aside: s.asideRel()}, nil
	}
	if s.deleting() {
		return Result{Outcome: Deleted, Aside: s.asideRel()}, nil
	}
	cur, _, _ := s.d.hash(s.base)
	return Result{Outcome: Kept, Reason: Exists, Found: cur, Aside: s.asideRel()}, nil
}

// create installs data where there is no file.
func (s *swapper) create() (Result, error) {
	if err := s.stage(s.mode, false); err != nil {
		return Result{}, err
	}
	if err := s.step(stepStaged); err != nil {
		return Result{}, err
	}
	switch err := s.d.renameNoReplace(s.staged, s.base); {
	case errors.Is(err, fs.ErrExist):
		found, _, _ := s.d.hash(s.base)
		if found == s.newHash {
			return Result{Outcome: Unchanged}, nil
		}
		return Result{Outcome: Kept, Reason: Exists, Found: found}, nil
	case err != nil:
		return Result{}, fmt.Errorf("install: %w", err)
	}
	if err := s.step(stepInstalled); err != nil {
		return Result{}, err
	}
	s.d.sync()
	return Result{Outcome: Created}, nil
}

// stage writes data to the staged file, fsynced. exact sets mode exactly (a
// replaced file keeps its mode); otherwise the umask applies.
func (s *swapper) stage(mode fs.FileMode, exact bool) (err error) {
	// A leftover of an interrupted call with this tag.
	if err := s.d.remove(s.staged); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stage: %w", err)
	}
	f, err := s.d.root.OpenFile(s.staged, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	defer func() {
		if err != nil {
			_ = s.d.remove(s.staged)
		}
	}()
	_, err = f.Write(s.data)
	if err == nil && exact {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	return nil
}

// folder is one folder of the root, opened for the operations on its entries.
type folder struct {
	root *os.Root // the folder; entries are single names
	file *os.File // the same folder, for the platform's *at system calls
	rel  string   // root-relative, slash-separated ("." for the root)
	abs  string   // absolute, for the platforms that rename by path
}

// folder resolves name and opens its folder, making missing folders when mkdir
// is set. A missing folder is fs.ErrNotExist; refusals are *errcode.Error.
func (r *Root) folder(name string, mkdir bool) (*folder, string, error) {
	dir, base, err := r.resolve(name)
	if err != nil {
		return nil, "", err
	}
	osDir := filepath.FromSlash(dir)
	if mkdir && dir != "." {
		if err := r.root.MkdirAll(osDir, 0o755); err != nil {
			return nil, "", diskfull.Wrap(fmt.Errorf("make folder %s: %w", dir, err), "make folder "+dir)
		}
	}
	// No such folder, or a file in its place: no file at name either.
	if fi, err := r.root.Lstat(osDir); errors.Is(err, fs.ErrNotExist) || isNotDir(err) || (err == nil && !fi.IsDir()) {
		return nil, "", fmt.Errorf("open folder %s: %w", dir, fs.ErrNotExist)
	}
	fr, err := r.root.OpenRoot(osDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("open folder %s: %w", dir, err)
	}
	f, err := fr.Open(".")
	if err != nil {
		fr.Close()
		return nil, "", fmt.Errorf("open folder %s: %w", dir, err)
	}
	return &folder{root: fr, file: f, rel: dir, abs: filepath.Join(r.abs, osDir)}, base, nil
}

func (d *folder) close() {
	d.file.Close()
	d.root.Close()
}

func (d *folder) lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }

func (d *folder) remove(name string) error {
	return retry(func() error { return d.root.Remove(name) })
}

// sync makes the folder's renames durable where the platform can. A failure
// leaves the renames done but perhaps not on disk yet; nothing to undo.
func (d *folder) sync() { syncDir(d.file) }

// hash returns the blob id of the entry name and whether it is a regular file
// (a link or folder is not; its hash is then ""). It reads through a handle it
// checks to be the entry it looked at, so a link swapped in is never followed.
func (d *folder) hash(name string) (string, bool, error) {
	fi, err := d.lstat(name)
	if err != nil {
		return "", false, err
	}
	if !fi.Mode().IsRegular() {
		return "", false, nil
	}
	var f *os.File
	if err := retry(func() (err error) { f, err = d.root.Open(name); return err }); err != nil {
		return "", false, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if !os.SameFile(fi, ofi) {
		return "", false, nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false, err
	}
	return gitblob.Hash(b), true, nil
}

// renameNoReplace renames the entry from to to, failing with an error that
// matches fs.ErrExist when to exists, and never replacing it.
func (d *folder) renameNoReplace(from, to string) error {
	return retry(func() error { return renameNoReplace(d, from, to) })
}
