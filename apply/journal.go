package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// Journal states.
const (
	statePrepared   = "prepared"    // pre-images saved, nothing staged yet
	stateStaged     = "staged"      // new contents staged in the journal
	stateStudioSent = "studio-sent" // the Studio patch was sent: outcome known only to the plugin
	stateCommitted  = "committed"   // both sides written
	stateAborted    = "aborted"     // nothing written (or rolled back)
	stateUndone     = "undone"      // committed, then undone
)

// Journal keeps one record per transaction under a folder of the state dir: the
// pre-image of every file and Studio value it overwrites, and the staged new files.
type Journal struct {
	Dir string
}

type journalFile struct {
	Path   string `json:"path"` // relative to the project folder
	Delete bool   `json:"delete,omitempty"`
	Dir    bool   `json:"dir,omitempty"`
	Expect string `json:"expect"`
	Pre    string `json:"pre,omitempty"` // journal-relative copy of the old bytes
	New    string `json:"new,omitempty"` // journal-relative staged new bytes
	// NewHash is the blob id of what the transaction wrote ("" for deletes): undo
	// restores the pre-image only while the file still holds exactly that.
	NewHash string `json:"newHash,omitempty"`
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
	// SessionID is the Studio session the patch goes to: only it can say whether
	// the patch was applied.
	SessionID string `json:"sessionId"`
	// Results are the plugin's per-op answers (handles of added instances).
	Results    json.RawMessage  `json:"results,omitempty"`
	PlanHash   string           `json:"planHash"`
	ProjectDir string           `json:"projectDir"`
	CreatedAt  time.Time        `json:"createdAt"`
	UpdatedAt  time.Time        `json:"updatedAt"`
	Files      []journalFile    `json:"files"`
	Ops        []protocol.Op    `json:"ops"`
	StudioPre  []studioPreImage `json:"studioPreImages"`
	// Parents are the instance paths of add ops' parents, for undo.
	Parents   []parentRef `json:"parents,omitempty"`
	stageData []project.FileOp
}

// Prepare writes the journal record with every pre-image.
func (j *Journal) Prepare(txID string, st *State, w *work) (rec *record, err error) {
	r := &record{j: j, dir: filepath.Join(j.Dir, txID), TxID: txID, State: statePrepared, PlanHash: st.Plan.Hash, SessionID: st.Plan.SessionID,
		ProjectDir: st.Dir, CreatedAt: time.Now().UTC(), Ops: w.ops, Files: []journalFile{}, StudioPre: []studioPreImage{}}
	defer func() {
		if err != nil {
			os.RemoveAll(r.dir) // a record that was never complete must not linger
		}
	}()
	if err := os.MkdirAll(filepath.Join(r.dir, "pre"), 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create journal")
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "new"), 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create journal")
	}
	for i, f := range w.files {
		jf := journalFile{Path: f.Path, Delete: f.Delete, Dir: f.Dir, Expect: f.Expect}
		if !f.Dir {
			old, err := os.ReadFile(r.abs(f.Path))
			switch {
			case err == nil:
				jf.Pre = filepath.Join("pre", strconv.Itoa(i))
				if err := os.WriteFile(filepath.Join(r.dir, jf.Pre), old, 0o600); err != nil {
					return nil, errcode.Wrap(errcode.Internal, err, "journal pre-image")
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
		for k, v := range c.Studio.Properties {
			if k != "Source" {
				pre.Properties[k] = v
			}
		}
		if src, ok := c.Studio.Source(); ok {
			pre.Source = &src
		}
		r.StudioPre = append(r.StudioPre, pre)
	}
	if st.Studio != nil {
		byHandle := map[string]*dom.Instance{}
		st.Studio.Walk(func(x *dom.Instance) bool { byHandle[x.Handle] = x; return true })
		for _, op := range w.ops {
			if op.Op == protocol.OpAdd {
				if p := byHandle[op.Parent]; p != nil {
					r.Parents = append(r.Parents, parentRef{Handle: op.Parent, Path: p.Path()})
				}
			}
		}
	}
	if err := r.save(); err != nil {
		return nil, err
	}
	r.stageData = w.files
	return r, nil
}

func (r *record) abs(rel string) string { return filepath.Join(r.ProjectDir, filepath.FromSlash(rel)) }

// save writes the whole record once, when it is prepared; later transitions only
// rewrite the small state file, so a big transaction is not re-encoded at each step.
func (r *record) save() error {
	r.UpdatedAt = time.Now().UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "encode journal")
	}
	var batch atomicfile.Batch
	if err := batch.Replace(filepath.Join(r.dir, "journal.json"), b, 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write journal")
	}
	if err := batch.Replace(filepath.Join(r.dir, "state.json"), r.stateJSON(), 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write journal")
	}
	if err := batch.Sync(); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write journal")
	}
	return nil
}

// recordState is the part of a record that changes after it is prepared.
type recordState struct {
	TxID      string    `json:"txId"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func (r *record) stateJSON() []byte {
	b, _ := json.Marshal(recordState{TxID: r.TxID, State: r.State, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
	return b
}

// saveState records a transition: the state file is replaced whole and durably.
func (r *record) saveState() error {
	r.UpdatedAt = time.Now().UTC()
	if err := atomicfile.Write(filepath.Join(r.dir, "state.json"), r.stateJSON(), 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write journal")
	}
	return nil
}

// Stage writes the new contents into the journal; nothing in the project changes yet.
func (r *record) Stage() error {
	for i, f := range r.Files {
		if f.New == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(r.dir, f.New), r.stageData[i].Data, 0o600); err != nil {
			return errcode.Wrap(errcode.Internal, err, "stage "+f.Path)
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
		if f.Dir {
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

// probeWritable checks that a file can be created in dir; tests replace it.
var probeWritable = func(dir string) error {
	f, err := os.CreateTemp(dir, ".atlas-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Preflight checks that every folder the commit writes in can be written, so a
// read-only folder refuses the transaction before Studio is touched.
func (r *record) Preflight() error {
	checked := map[string]bool{}
	var failures []map[string]any
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
		if checked[dir] {
			continue
		}
		checked[dir] = true
		if err := probeWritable(dir); err != nil {
			failures = append(failures, map[string]any{"path": f.Path, "field": "writable", "expected": "a writable folder", "actual": err.Error()})
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

// Abort drops the staged files: the project was never touched.
func (r *record) Abort() {
	r.State = stateAborted
	_ = os.RemoveAll(filepath.Join(r.dir, "new"))
	_ = r.saveState()
}

// Commit moves the staged files into the project (each by a rename in its folder,
// so no reader sees half a file) and deletes removed ones; it is idempotent, so a
// transaction interrupted here is finished by running it again.
func (r *record) Commit() ([]FileChange, error) {
	if r.State == stateCommitted {
		return []FileChange{}, nil
	}
	var changes []FileChange
	var firstErr error
	var batch atomicfile.Batch
	for _, f := range r.Files {
		target := r.abs(f.Path)
		if !f.Dir {
			// The last look: a file saved since the plan is never overwritten. Ours
			// (already written by an earlier try) or the planned one are fine.
			cur, err := fileHash(target)
			if err == nil && cur != f.Expect && cur != f.NewHash && !(f.Delete && cur == "") {
				changes = append(changes, FileChange{Path: f.Path, Action: "kept"})
				continue
			}
		}
		var action string
		var err error
		switch {
		case f.Dir && f.Delete:
			action = "rmdir"
			if err = os.Remove(target); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		case f.Dir:
			action = "mkdir"
			err = os.MkdirAll(target, 0o755)
		case f.Delete:
			action = "delete"
			if err = os.Remove(target); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		default:
			action = "write"
			if f.Pre == "" {
				action = "create"
			}
			err = r.install(&batch, f, target)
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s %s: %w", action, f.Path, err)
		}
		changes = append(changes, FileChange{Path: f.Path, Action: action})
	}
	if err := batch.Sync(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		// Studio is written; the journal stays open so a later start can finish it.
		return nil, errcode.Wrap(errcode.Internal, firstErr, "transaction "+r.TxID+" wrote Studio but could not finish writing disk").
			Reason(errcode.ReasonDiskCommitFailed, errcode.NextFixPermissions, errcode.NextRestartHost).
			With("txId", r.TxID).With("pending", true)
	}
	r.State = stateCommitted
	_ = os.RemoveAll(filepath.Join(r.dir, "new"))
	if err := r.saveState(); err != nil {
		return nil, err
	}
	r.j.prune()
	if changes == nil {
		changes = []FileChange{}
	}
	return changes, nil
}

func (r *record) install(batch *atomicfile.Batch, f journalFile, target string) error {
	data, err := os.ReadFile(filepath.Join(r.dir, f.New))
	if err != nil {
		return err
	}
	return installBytes(batch, target, data)
}

// installBytes replaces target with data in batch, creating its folder and keeping
// its mode; the caller syncs the batch.
func installBytes(batch *atomicfile.Batch, target string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	return batch.Replace(target, data, mode)
}

// Pending is an open transaction.
type Pending struct {
	TxID      string    `json:"txId"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
}

// records lists the transactions from their small state files, oldest first; full
// is true to also read each whole record.
func (j *Journal) records(full bool) ([]*record, error) {
	entries, err := os.ReadDir(j.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "read journal")
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
		r := &record{j: j, dir: dir, TxID: st.TxID, State: st.State, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
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
		if r.State == stateCommitted || r.State == stateAborted || r.State == stateUndone {
			finished = append(finished, r)
		}
	}
	for i := 0; i < len(finished)-keepFinished; i++ {
		os.RemoveAll(finished[i].dir)
	}
}

// Pending lists transactions that are neither committed nor aborted.
func (j *Journal) Pending() ([]Pending, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	out := []Pending{}
	for _, r := range recs {
		if r.State == statePrepared || r.State == stateStaged || r.State == stateStudioSent {
			out = append(out, Pending{TxID: r.TxID, State: r.State, CreatedAt: r.CreatedAt})
		}
	}
	return out, nil
}

// Recover finishes or rolls back every open transaction: one whose Studio patch its
// session reports as applied gets its disk writes; one it reports as not applied, or
// one that never reached Studio, is dropped. A transaction whose session is not
// connected (studioFor returns nil) waits. The caller must hold the lock that
// serializes transactions, so no transaction in progress is touched.
func (j *Journal) Recover(ctx context.Context, studioFor func(sessionID string) Studio) ([]Pending, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	var done []Pending
	applied := map[string]map[string]bool{} // session → applied tx ids
	for _, r := range recs {
		switch r.State {
		case stateCommitted, stateAborted, stateUndone:
			continue
		}
		if err := r.load(); err != nil {
			continue
		}
		switch r.State {
		case stateStudioSent:
			ids, ok := applied[r.SessionID]
			if !ok {
				s := studioFor(r.SessionID)
				if s == nil {
					continue // wait until that Studio can tell
				}
				list, err := s.Transactions(ctx)
				if err != nil {
					return done, err
				}
				ids = map[string]bool{}
				for _, id := range list {
					ids[id] = true
				}
				applied[r.SessionID] = ids
			}
			if ids[r.TxID] {
				if _, err := r.Commit(); err != nil {
					return done, err
				}
			} else {
				r.Abort()
			}
		default:
			r.Abort()
		}
		done = append(done, Pending{TxID: r.TxID, State: r.State, CreatedAt: r.CreatedAt})
	}
	return done, nil
}
