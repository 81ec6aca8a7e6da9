package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/internal/casfile"
	"github.com/atlas-rbx/atlas/internal/diskfull"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// Journal states.
const (
	statePrepared   = "prepared"    // pre-images saved, nothing staged yet
	stateStaged     = "staged"      // new contents staged in the journal
	stateStudioSent = "studio-sent" // the Studio patch was sent: Studio holds the answer
	stateCommitting = "committing"  // Studio applied the patch (or there was none): disk is being written
	stateCommitted  = "committed"   // both sides written
	stateAborted    = "aborted"     // nothing written (or rolled back)
	stateUndone     = "undone"      // committed, then undone
)

// What an open transaction waits for (Pending.Waiting).
const (
	// WaitStudio: the patch was sent and Studio's answer was lost; Atlas waits for
	// a Studio with the transaction's place to connect, and then finishes or rolls
	// back the transaction by what that Studio holds.
	WaitStudio = "studio"
	// WaitDecision: Studio holds part of the patch, or what it holds cannot be
	// told; a person decides (sync recover --finish or --abort).
	WaitDecision = "decision"
	// WaitDisk: Studio holds the patch but the files could not all be written
	// (Pending.Error says why); Atlas tries again at each start, Studio connection
	// and apply, or sync recover --finish does.
	WaitDisk = "disk"
)

// Journal keeps one record per transaction under a folder of the state dir: the
// pre-image of every file and Studio value it overwrites, and the staged new files.
type Journal struct {
	Dir string
}

// Place names the Studio place a transaction was sent to. Recovery asks only a
// Studio with the same place: the same place id, or, for an unpublished place
// (id 0), the same place name.
type Place struct {
	ID   int64  `json:"placeId"`
	Name string `json:"placeName"`
	// Marker is the place's Atlas marker (Studio's attribute), when it had one at the
	// apply or got one right after it (NotePlaceMarker): undo tells places apart by it.
	Marker string `json:"marker,omitempty"`
}

// Same reports whether o is the place p.
func (p Place) Same(o Place) bool {
	if p.ID != 0 || o.ID != 0 {
		return p.ID == o.ID
	}
	return p.Name == o.Name
}

type journalFile struct {
	Path   string `json:"path"` // relative to the project folder
	Delete bool   `json:"delete,omitempty"`
	Dir    bool   `json:"dir,omitempty"`
	Expect string `json:"expect"`
	Pre    string `json:"pre,omitempty"` // journal-relative copy of the old bytes
	// PreHash is the blob id of the bytes at Pre; the commit replaces them with the
	// file's aside copy when it is not Expect (the file moved after it was read).
	PreHash string `json:"preHash,omitempty"`
	New     string `json:"new,omitempty"` // journal-relative staged new bytes
	// NewHash is the blob id of what the transaction wrote ("" for deletes): undo
	// restores the pre-image only while the file still holds exactly that.
	NewHash string `json:"newHash,omitempty"`
	// Mode is the permission bits of the file before, when it had a pre-image: an
	// undo that makes the file again (the transaction deleted it) gives them back.
	Mode uint32 `json:"mode,omitempty"`
	// Kept: the commit found the file changed since the plan and left it as it was
	// (files[].action "kept"); the transaction wrote nothing there, so undo has
	// nothing to put back.
	Kept bool `json:"kept,omitempty"`
	// ChangeID and ChangePath are the change the file is written for (a pull), when
	// known.
	ChangeID   string `json:"changeId,omitempty"`
	ChangePath string `json:"changePath,omitempty"`
}

type studioPreImage struct {
	ChangeID   string         `json:"changeId"`
	Handle     string         `json:"handle"`
	Path       string         `json:"path"`
	ClassName  string         `json:"className"`
	Source     *string        `json:"source,omitempty"`
	Properties dom.Properties `json:"properties,omitempty"`
}

type parentRef struct {
	Handle string `json:"handle"`
	Path   string `json:"path"`
}

type record struct {
	j     *Journal
	dir   string
	TxID  string `json:"txId"`
	State string `json:"state"`
	// SessionID is the Studio session the patch goes to; Place is its place, which
	// recovery looks for (a restarted Studio has a new session id).
	SessionID string `json:"sessionId"`
	Place     Place  `json:"place"`
	// Results are the plugin's per-op answers (handles of added instances).
	Results    json.RawMessage  `json:"results,omitempty"`
	PlanHash   string           `json:"planHash"`
	ProjectDir string           `json:"projectDir"`
	CreatedAt  time.Time        `json:"createdAt"`
	UpdatedAt  time.Time        `json:"updatedAt"`
	Files      []journalFile    `json:"files"`
	Ops        []protocol.Op    `json:"ops"`
	StudioPre  []studioPreImage `json:"studioPreImages"`
	// Checks are the instance paths the patch changes, each with what Studio
	// holds there before and after it: recovery compares them with Studio.
	Checks []instanceCheck `json:"checks"`
	// Parents are the instance paths of add ops' parents, for undo.
	Parents []parentRef `json:"parents,omitempty"`
	// Waiting, Error and Untidy live in the state file (recordState), and so do
	// the Files the commit kept (their indexes, kept).
	Waiting   string `json:"-"`
	Error     string `json:"-"`
	Untidy    bool   `json:"-"`
	kept      []int
	stageData []project.FileOp
	// opsJSON is Ops encoded once (protocol.EncodeOps), for the record and the wire.
	opsJSON []byte
}

// Prepare writes the journal record with every pre-image.
func (j *Journal) Prepare(txID string, st *State, w *work, place Place) (rec *record, err error) {
	r := &record{j: j, dir: filepath.Join(j.Dir, txID), TxID: txID, State: statePrepared, PlanHash: st.Plan.Hash, SessionID: st.Plan.SessionID,
		Place: place, ProjectDir: st.Dir, CreatedAt: time.Now().UTC(), Ops: w.ops, Files: []journalFile{}, StudioPre: []studioPreImage{}}
	defer func() {
		if err != nil {
			os.RemoveAll(r.dir) // a record that was never complete must not linger
		}
	}()
	for _, sub := range []string{"pre", "new"} {
		if err := os.MkdirAll(filepath.Join(r.dir, sub), 0o700); err != nil {
			return nil, journalError(err, "create journal")
		}
	}
	for i, f := range w.files {
		jf := journalFile{Path: f.Path, Delete: f.Delete, Dir: f.Dir, Expect: f.Expect}
		if i < len(w.fileOf) {
			jf.ChangeID, jf.ChangePath = w.fileOf[i].ID, w.fileOf[i].Path
		}
		if !f.Dir && f.Expect != "" {
			old, err := os.ReadFile(r.abs(f.Path))
			switch {
			case err == nil:
				jf.Pre = filepath.Join("pre", strconv.Itoa(i))
				jf.PreHash = gitblob.Hash(old)
				if info, err := os.Stat(r.abs(f.Path)); err == nil {
					jf.Mode = uint32(info.Mode().Perm())
				}
				if err := writeFile(filepath.Join(r.dir, jf.Pre), old); err != nil {
					return nil, journalError(err, "journal pre-image")
				}
			case errors.Is(err, fs.ErrNotExist):
			default:
				return nil, errcode.Wrap(errcode.Internal, err, "read "+f.Path)
			}
		}
		if !f.Delete && !f.Dir {
			jf.New = filepath.Join("new", strconv.Itoa(i))
			jf.NewHash = gitblob.Hash(f.Data)
		}
		r.Files = append(r.Files, jf)
	}
	byID := map[string]bool{}
	for _, op := range w.ops {
		if byID[op.ChangeID+op.Handle] || op.Handle == "" {
			continue
		}
		byID[op.ChangeID+op.Handle] = true
		c := st.Plan.Find(op.ChangeID)
		if c == nil || c.Studio == nil {
			continue
		}
		pre := studioPreImage{ChangeID: op.ChangeID, Handle: op.Handle, Path: c.Path, ClassName: c.Studio.ClassName, Properties: dom.Properties{}}
		for k, v := range c.Studio.Properties.All() {
			if k != "Source" {
				pre.Properties[k] = v
			}
		}
		if err := sourceLoaded(c.Studio); err != nil {
			return nil, err
		}
		if src, ok := c.Studio.Source(); ok {
			pre.Source = &src
		}
		r.StudioPre = append(r.StudioPre, pre)
	}
	// The Studio instances the ops name, by handle.
	byHandle := make(map[string]*dom.Instance, len(w.ops))
	if st.Studio != nil {
		for _, op := range w.ops {
			for _, h := range [2]string{op.Handle, op.Parent} {
				if h != "" {
					byHandle[h] = nil
				}
			}
		}
		st.Studio.Walk(func(x *dom.Instance) bool {
			if _, named := byHandle[x.Handle]; named {
				byHandle[x.Handle] = x
			}
			return true
		})
		for _, op := range w.ops {
			if op.Op == protocol.OpAdd {
				if p := byHandle[op.Parent]; p != nil {
					r.Parents = append(r.Parents, parentRef{Handle: op.Parent, Path: p.Path()})
				}
			}
		}
	}
	r.Checks = checksOf(w.ops, byHandle, w.sourceHashes)
	if r.opsJSON = w.opsJSON; r.opsJSON == nil {
		if r.opsJSON, err = protocol.EncodeOps(w.ops); err != nil {
			return nil, errcode.Wrap(errcode.Internal, err, "encode journal")
		}
	}
	if err := r.save(); err != nil {
		return nil, err
	}
	r.stageData = w.files
	return r, nil
}

// writeFile writes a journal file; tests replace it to fail as a full disk does.
var writeFile = func(name string, data []byte) error { return os.WriteFile(name, data, 0o600) }

// journalError is a failed write or read of the journal: E_DISK_FULL when the disk
// is full, else E_INTERNAL.
func journalError(err error, msg string) error {
	if diskfull.Is(err) {
		return diskfull.Wrap(err, msg)
	}
	if unusableDir(err) {
		// The journal lives in the state folder: the person's to fix, as when the
		// host cannot create that folder at its start.
		return errcode.Wrap(errcode.Internal, err, msg+": the state folder is not usable").
			Reason(errcode.ReasonStateDir, errcode.NextFixPermissions, errcode.NextSetStateDir)
	}
	return errcode.Wrap(errcode.Internal, err, msg)
}

// unusableDir reports whether err says a folder cannot be written or read where it
// is: no permission, a read-only mount, or a file in the way of a folder.
func unusableDir(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}

func (r *record) abs(rel string) string { return filepath.Join(r.ProjectDir, filepath.FromSlash(rel)) }

// tag names the transaction's temporary files in the project (casfile's tag).
func (r *record) tag() string { return r.TxID }

// save writes the whole record once, when it is prepared; later transitions only
// rewrite the small state file, so a big transaction is not re-encoded at each step.
func (r *record) save() error {
	r.UpdatedAt = time.Now().UTC()
	b, err := r.encode()
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "encode journal")
	}
	var batch atomicfile.Batch
	if err := batch.Replace(filepath.Join(r.dir, "journal.json"), b, 0o600); err != nil {
		return journalError(err, "write journal")
	}
	if err := batch.Replace(filepath.Join(r.dir, "state.json"), r.stateJSON(), 0o600); err != nil {
		return journalError(err, "write journal")
	}
	if err := batch.Sync(); err != nil {
		return journalError(err, "write journal")
	}
	return nil
}

// encode is json.Marshal(r), with the two big parts, the ops (encoded once, for
// the wire too) and the Studio pre-images, written without encoding/json's second
// pass over every value.
func (r *record) encode() ([]byte, error) {
	if r.opsJSON == nil {
		return json.Marshal(r)
	}
	c := *r
	c.Ops, c.StudioPre = nil, nil
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	// Keys and strings are escaped, so this is the two fields and no other text.
	const hole = `,"ops":null,"studioPreImages":null,`
	at := bytes.Index(b, []byte(hole))
	if at < 0 || bytes.Contains(b[at+len(hole):], []byte(hole)) {
		return json.Marshal(r)
	}
	out := make([]byte, 0, len(b)+len(r.opsJSON)+preImagesSize(r.StudioPre))
	out = append(out, b[:at]...)
	out = append(out, `,"ops":`...)
	out = append(out, r.opsJSON...)
	out = append(out, `,"studioPreImages":`...)
	if out, err = appendPreImages(out, r.StudioPre); err != nil {
		return nil, err
	}
	return append(out, b[at+len(hole)-1:]...), nil
}

func preImagesSize(pres []studioPreImage) int {
	n := 2
	for _, p := range pres {
		n += 200
		if p.Source != nil {
			n += len(*p.Source) + len(*p.Source)/16
		}
	}
	return n
}

// appendPreImages appends pres as json.Marshal writes them.
func appendPreImages(b []byte, pres []studioPreImage) ([]byte, error) {
	if pres == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, p := range pres {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"changeId":`...)
		b = protocol.AppendString(b, p.ChangeID)
		b = append(b, `,"handle":`...)
		b = protocol.AppendString(b, p.Handle)
		b = append(b, `,"path":`...)
		b = protocol.AppendString(b, p.Path)
		b = append(b, `,"className":`...)
		b = protocol.AppendString(b, p.ClassName)
		if p.Source != nil {
			b = append(b, `,"source":`...)
			b = protocol.AppendString(b, *p.Source)
		}
		if len(p.Properties) > 0 {
			props, err := p.Properties.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b = append(b, `,"properties":`...)
			b = append(b, props...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// recordState is the part of a record that changes after it is prepared.
type recordState struct {
	TxID      string    `json:"txId"`
	State     string    `json:"state"`
	Place     Place     `json:"place"`
	SessionID string    `json:"sessionId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Waiting   string    `json:"waiting,omitempty"`
	Error     string    `json:"error,omitempty"`
	// Untidy: committed, but its aside copies may still be in the project.
	Untidy bool `json:"untidy,omitempty"`
	// Kept are the indexes of the Files the commit left as the user had changed
	// them (journalFile.Kept).
	Kept []int `json:"kept,omitempty"`
}

func (r *record) stateJSON() []byte {
	kept := r.kept
	for i, f := range r.Files {
		if f.Kept && !slices.Contains(kept, i) {
			kept = append(kept, i)
		}
	}
	r.kept = kept
	b, _ := json.Marshal(recordState{TxID: r.TxID, State: r.State, Place: r.Place, SessionID: r.SessionID, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, Waiting: r.Waiting, Error: r.Error, Untidy: r.Untidy, Kept: kept})
	return b
}

// saveState records a transition: the state file is replaced whole and durably.
func (r *record) saveState() error {
	r.UpdatedAt = time.Now().UTC()
	if err := atomicfile.Write(filepath.Join(r.dir, "state.json"), r.stateJSON(), 0o600); err != nil {
		return journalError(err, "write journal")
	}
	return nil
}

// wait records what an open transaction waits for, when that changed.
func (r *record) wait(waiting, why string) {
	if r.Waiting == waiting && r.Error == why {
		return
	}
	r.Waiting, r.Error = waiting, why
	_ = r.saveState()
}

// Stage writes the new contents into the journal; nothing in the project changes yet.
func (r *record) Stage() error {
	for i, f := range r.Files {
		if f.New == "" {
			continue
		}
		if err := writeFile(filepath.Join(r.dir, f.New), r.stageData[i].Data); err != nil {
			return journalError(err, "stage "+f.Path)
		}
	}
	r.State = stateStaged
	return r.saveState()
}

// fileHash is the blob id of a file's bytes, or "" when there is no file.
func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return gitblob.Hash(b), nil
}

// CheckDisk verifies that every file is still what the plan saw.
func (r *record) CheckDisk() error {
	if failures := r.diskFailures(func(f journalFile) string { return f.Expect }); len(failures) > 0 {
		return errcode.New(errcode.PreconditionFailed, "%d file(s) changed on disk after the plan was recomputed", len(failures)).
			Reason(errcode.ReasonDiskMoved, errcode.NextReplan).With("failures", failures)
	}
	return nil
}

// diskFailures lists, as precondition failures, the files that do not hold what
// want gives: a blob id, or "" for no file. A file that cannot be read fails too.
func (r *record) diskFailures(want func(journalFile) string) []map[string]any {
	var failures []map[string]any
	for _, f := range r.Files {
		if f.Dir || f.Kept {
			continue
		}
		expected := want(f)
		actual, err := fileHash(r.abs(f.Path))
		if err != nil {
			actual = "unreadable: " + err.Error()
		}
		if actual != expected {
			failures = append(failures, map[string]any{"path": f.Path, "field": "diskHash", "expected": orNoFile(expected), "actual": orNoFile(actual)})
		}
	}
	return failures
}

func orNoFile(hash string) string {
	if hash == "" {
		return "(no file)"
	}
	return hash
}

// probeName is the file Preflight creates, and at once removes, in each folder
// the commit writes in; named like casfile's temporary files (IsTemp), so that
// loaders ignore it and recovery removes one a killed host left.
func probeName(tag string) string { return ".atlas-" + tag + "-probe.new" }

// probeWritable checks that the file name can be created in dir; tests replace it.
var probeWritable = func(dir, name string) error {
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(p)
}

// probeDirs lists the folders the commit writes in (the nearest existing ancestor
// of a folder it makes), each once.
func (r *record) probeDirs() []string {
	checked := map[string]bool{}
	var out []string
	for _, f := range r.Files {
		dir := filepath.Dir(r.abs(f.Path))
		if f.Dir && !f.Delete {
			dir = r.abs(f.Path)
		}
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		if !checked[dir] {
			checked[dir] = true
			out = append(out, dir)
		}
	}
	return out
}

// Preflight checks, before Studio is touched, that every path the commit writes
// stays inside the project (no symbolic link leaving it, none replaced by a file:
// E_PROJECT_INVALID) and that every folder it writes in can be written.
func (r *record) Preflight() error {
	root, err := casfile.Open(r.ProjectDir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range r.Files {
		if err := root.Check(f.Path); err != nil {
			return err
		}
	}
	var failures []map[string]any
	for _, dir := range r.probeDirs() {
		if err := probeWritable(dir, probeName(r.tag())); err != nil {
			if diskfull.Is(err) {
				return diskfull.Wrap(err, "write in "+dir)
			}
			rel, _ := filepath.Rel(r.ProjectDir, dir)
			failures = append(failures, map[string]any{"path": filepath.ToSlash(rel), "field": "writable", "expected": "a writable folder", "actual": err.Error()})
		}
	}
	if len(failures) > 0 {
		return errcode.New(errcode.PreconditionFailed, "%d folder(s) of the project cannot be written", len(failures)).
			Reason(errcode.ReasonDiskNotWritable, errcode.NextFixPermissions, errcode.NextReplan).With("failures", failures)
	}
	return nil
}

// MarkStudioSent records that the Studio patch is about to be sent.
func (r *record) MarkStudioSent() error {
	r.State = stateStudioSent
	return r.saveState()
}

// MarkCommitting records that Studio holds the patch (or there was none): from
// here on the transaction can only be finished.
func (r *record) MarkCommitting() error {
	r.State = stateCommitting
	r.Waiting, r.Error = "", ""
	return r.saveState()
}

// Abort drops a transaction whose files were never written (any state before
// committing): its staged copies and temporary files go, the project's files
// are as they were.
func (r *record) Abort() {
	r.removeTemp()
	r.State = stateAborted
	r.Waiting, r.Error = "", ""
	_ = os.RemoveAll(filepath.Join(r.dir, "new"))
	_ = r.saveState()
}

// removeTemp removes the temporary files the transaction may have left in the
// project before its commit: staged copies and write probes. An aside copy is
// removed only while it holds exactly the bytes of the journal's pre-image.
func (r *record) removeTemp() {
	for _, dir := range r.probeDirs() {
		_ = os.Remove(filepath.Join(dir, probeName(r.tag())))
	}
	root, err := casfile.Open(r.ProjectDir)
	if err != nil {
		return
	}
	defer root.Close()
	for _, f := range r.Files {
		if !f.Dir {
			r.discard(root, f, r.tag())
		}
	}
}

// discard removes what operations on f with tag left in the project: the staged
// copy always, the aside copy only when the journal holds the same bytes (or it
// is not f's expected bytes, in which case casfile keeps it).
func (r *record) discard(root *casfile.Root, f journalFile, tag string) {
	if f.Expect != "" && f.PreHash != f.Expect {
		if h, found, _ := root.AsideHash(f.Path, tag); found && h == f.Expect {
			// The only copy of the old bytes: keep it in the journal first.
			if err := r.keepAside(root, f, tag); err != nil {
				return
			}
		}
	}
	_, _ = root.Discard(f.Path, tag, f.Expect)
}

// keepAside copies f's aside copy (with tag) into the journal as its pre-image.
func (r *record) keepAside(root *casfile.Root, f journalFile, tag string) error {
	b, err := root.ReadAside(f.Path, tag)
	if err != nil {
		return err
	}
	if gitblob.Hash(b) != f.Expect {
		return fmt.Errorf("the aside copy of %s changed", f.Path)
	}
	i := r.fileIndex(f.Path)
	name := filepath.Join("pre", strconv.Itoa(i))
	if err := writeFile(filepath.Join(r.dir, name), b); err != nil {
		return err
	}
	r.Files[i].Pre, r.Files[i].PreHash = name, f.Expect
	return r.save()
}

func (r *record) fileIndex(p string) int {
	for i, f := range r.Files {
		if f.Path == p {
			return i
		}
	}
	return -1
}

// Pending is an open transaction.
type Pending struct {
	TxID      string    `json:"txId"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	PlaceID   int64     `json:"placeId"`
	PlaceName string    `json:"placeName"`
	// Waiting says what the transaction waits for: studio, decision or disk
	// (absent while it runs).
	Waiting string `json:"waiting,omitempty"`
	// Error is why its files could not be written yet (waiting disk).
	Error string `json:"error,omitempty"`
}

func (r *record) pending() Pending {
	return Pending{TxID: r.TxID, State: r.State, CreatedAt: r.CreatedAt, PlaceID: r.Place.ID, PlaceName: r.Place.Name, Waiting: r.Waiting, Error: r.Error}
}

// open reports whether the record is neither finished nor aborted.
func (r *record) open() bool {
	switch r.State {
	case statePrepared, stateStaged, stateStudioSent, stateCommitting:
		return true
	}
	return false
}

// NotePlaceMarker records the marker the place of committed transaction txID got
// after it (the first sync of a place marks it), for undo; a record that has one
// keeps it.
func (j *Journal) NotePlaceMarker(txID, marker string) error {
	if marker == "" {
		return nil
	}
	recs, err := j.records(false)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.TxID == txID && r.Place.Marker == "" {
			r.Place.Marker = marker
			return r.saveState()
		}
	}
	return nil
}

// records lists the transactions from their small state files, oldest first; full
// is true to also read each whole record.
func (j *Journal) records(full bool) ([]*record, error) {
	entries, err := os.ReadDir(j.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, journalError(err, "read journal")
	}
	var out []*record
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(j.Dir, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "state.json"))
		if err != nil {
			continue
		}
		var st recordState
		if json.Unmarshal(b, &st) != nil {
			continue
		}
		r := &record{j: j, dir: dir, TxID: st.TxID, State: st.State, Place: st.Place, SessionID: st.SessionID, CreatedAt: st.CreatedAt,
			UpdatedAt: st.UpdatedAt, Waiting: st.Waiting, Error: st.Error, Untidy: st.Untidy, kept: st.Kept}
		if full {
			if err := r.load(); err != nil {
				continue
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].CreatedAt.Before(out[b].CreatedAt) })
	return out, nil
}

// load reads the whole record; the state file has the latest state.
func (r *record) load() error {
	state := r.State
	b, err := os.ReadFile(filepath.Join(r.dir, "journal.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, r); err != nil {
		return err
	}
	r.State = state
	for _, i := range r.kept {
		if i >= 0 && i < len(r.Files) {
			r.Files[i].Kept = true
		}
	}
	return nil
}

// keepFinished is how many finished transactions the journal keeps for undo.
const keepFinished = 50

// prune removes the oldest finished transactions beyond keepFinished.
func (j *Journal) prune() {
	recs, err := j.records(false)
	if err != nil {
		return
	}
	var finished []*record
	for _, r := range recs {
		if !r.open() && !r.Untidy {
			finished = append(finished, r)
		}
	}
	for i := 0; i < len(finished)-keepFinished; i++ {
		os.RemoveAll(finished[i].dir)
	}
}

// Pending lists the open transactions: neither committed nor aborted.
func (j *Journal) Pending() ([]Pending, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	out := []Pending{}
	for _, r := range recs {
		if r.open() {
			out = append(out, r.pending())
		}
	}
	return out, nil
}
