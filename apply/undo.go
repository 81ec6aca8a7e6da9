package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/casfile"
	"github.com/atlas-rbx/atlas/internal/diskfull"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// Locator finds Studio instances by path, all in one look so their handles are valid
// together; a path not found has a nil instance. With whole[i], the instance at
// paths[i] comes with its whole subtree (every descendant, with its handle).
type Locator interface {
	Locate(ctx context.Context, paths [][]string, whole []bool) ([]*dom.Instance, error)
}

// UndoResult is what an undo restored.
type UndoResult struct {
	TxID      string `json:"txId"`
	StudioOps int    `json:"studioOps"`
	// Studio lists each Studio op of the undo, as Files lists the files: StudioOps
	// counts them.
	Studio []StudioChange `json:"studio"`
	Files  []FileChange   `json:"files"`
	// Manual lists what Atlas cannot put back itself (Studio subtrees it removed):
	// use Ctrl+Z in Studio, where every sync is one undoable recording.
	Manual []string `json:"manual"`
	// Warnings name the files left as they are because they changed while the
	// undo ran (files[].action "kept").
	Warnings []string `json:"warnings,omitempty"`
}

// StudioChange is one instance an undo changed in Studio.
type StudioChange struct {
	// Path is the instance's path in Studio (names from game joined with /).
	Path string `json:"path" jsonschema:"the instance's path in Studio (names from game joined with /)"`
	// Action is restore (its Source and properties are back to what they were
	// before the transaction set them) or delete (the transaction added it: it is
	// removed, with its subtree).
	Action string `json:"action" jsonschema:"restore (the Source and properties the sync set are back) or delete (an instance the sync added is removed)"`
	// Properties names what a restore put back (Source, property names), sorted.
	Properties []string `json:"properties,omitempty" jsonschema:"what a restore put back: Source and property names"`
}

// changedSince returns a descendant of inst, a Studio instance a transaction added as
// added, that is not as the transaction added it, and how: "added since" (by name and
// class, level by level, same-named siblings in order) or "Source changed since". nil
// when every descendant is the transaction's own. (inst's own Source is the remove's
// precondition.)
func changedSince(inst *dom.Instance, added *protocol.NewInstance) (*dom.Instance, string) {
	if inst == nil || added == nil {
		return nil, ""
	}
	byKey := map[[2]string][]*protocol.NewInstance{}
	for _, c := range added.Children {
		k := [2]string{c.Name, c.ClassName}
		byKey[k] = append(byKey[k], c)
	}
	for _, c := range inst.Children {
		k := [2]string{c.Name, c.ClassName}
		if len(byKey[k]) == 0 {
			return c, "added since"
		}
		a := byKey[k][0]
		byKey[k] = byKey[k][1:]
		if src, ok := sourceOf(a.Properties["Source"]); ok && c.IsScript() && c.SourceHash != "" && c.SourceHash != gitblob.HashString(src) {
			return c, "Source changed since"
		}
		if x, why := changedSince(c, a); x != nil {
			return x, why
		}
	}
	return nil, ""
}

// PlaceChecker is a Studio that can tell whether it holds the place transaction txID
// was applied to (its session and place as the journal recorded them): an undo
// refuses to write a transaction's pre-images into another place.
type PlaceChecker interface {
	SamePlace(txID, sessionID string, place Place) error
}

// Newest returns the id of the newest committed transaction, "" when there is none.
func (j *Journal) Newest() (string, error) {
	recs, err := j.records(false)
	if err != nil {
		return "", err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].State == stateCommitted {
			return recs[i].TxID, nil
		}
	}
	return "", nil
}

// Undo puts back what a committed transaction (the newest when txID is "") overwrote:
// every file it wrote or deleted, and every Studio Source and property it set, each
// only while it still holds exactly what the transaction wrote. Instances it added in
// Studio are removed; instances it removed cannot be rebuilt and are listed in Manual.
func (j *Journal) Undo(ctx context.Context, txID string, studio Studio, loc Locator) (*UndoResult, error) {
	recs, err := j.records(false)
	if err != nil {
		return nil, err
	}
	var r *record
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].State == stateCommitted && (txID == "" || recs[i].TxID == txID) {
			r = recs[i]
			break
		}
	}
	if r != nil {
		if err := r.load(); err != nil {
			return nil, errcode.Wrap(errcode.Internal, err, "read journal of "+r.TxID)
		}
	}
	if r == nil {
		return nil, errcode.New(errcode.NotFound, "no committed transaction %sto undo", map[bool]string{true: "", false: txID + " "}[txID == ""]).
			Reason(errcode.ReasonNothingToUndo, errcode.NextShowStatus)
	}
	if pc, ok := studio.(PlaceChecker); ok && len(r.Ops) > 0 {
		// Another place's Studio may hold the same paths: its instances are not the
		// ones the transaction wrote.
		if err := pc.SamePlace(r.TxID, r.SessionID, r.Place); err != nil {
			return nil, err
		}
	}
	res := &UndoResult{TxID: r.TxID, Studio: []StudioChange{}, Files: []FileChange{}, Manual: []string{}}
	// Disk preconditions first: every file must still be what the transaction left.
	failures := r.diskFailures(func(f journalFile) string {
		if f.Delete {
			return ""
		}
		return f.NewHash
	})
	// Studio: revert edits (expecting what we set), remove what we added. All the
	// instances are looked up in one snapshot, so their handles hold together.
	// An added instance is looked up with its subtree: removing it removes its
	// descendants too, and each must be one the transaction added.
	var paths [][]string
	var whole []bool
	for _, op := range r.Ops {
		switch op.Op {
		case protocol.OpEdit:
			if pre := r.preImage(op); pre != nil {
				paths = append(paths, splitPath(pre.Path))
				whole = append(whole, false)
			}
		case protocol.OpAdd:
			paths = append(paths, append(splitPath(r.parentPath(op)), op.Instance.Name))
			whole = append(whole, true)
		}
	}
	found := map[string]*dom.Instance{}
	if len(paths) > 0 {
		insts, err := loc.Locate(ctx, paths, whole)
		if err != nil {
			return nil, err
		}
		for i, p := range paths {
			found[joinPath(p)] = insts[i]
		}
	}
	handleOf := func(path []string) (string, *dom.Instance, error) {
		if x := found[joinPath(path)]; x != nil {
			return x.Handle, x, nil
		}
		return "", nil, errcode.New(errcode.NotFound, "not in Studio")
	}
	var ops []protocol.Op
	var unwritable []string       // pre-images no script can write back
	var changes []StudioChange    // one per op, what it does
	pathOf := map[string]string{} // by change id, for the plugin's refusals
	for _, op := range r.Ops {
		switch op.Op {
		case protocol.OpEdit:
			pre := r.preImage(op)
			if pre == nil {
				continue
			}
			h, _, err := handleOf(splitPath(pre.Path))
			if err != nil {
				failures = append(failures, map[string]any{"path": pre.Path, "field": "instance", "expected": "present", "actual": err.Error()})
				continue
			}
			expect := &protocol.Expect{}
			set := protocol.Values{}
			for k, v := range op.Set {
				if k == "Source" {
					if s, ok := sourceOf(v); ok {
						expect.SourceSha1 = gitblob.HashString(s)
					}
					if pre.Source != nil {
						set["Source"] = dom.MustMarshal(dom.String(*pre.Source))
					}
					continue
				}
				if expect.Properties == nil {
					expect.Properties = protocol.Values{}
				}
				expect.Properties[k] = v
				if old, ok := pre.Properties[k]; ok {
					if v, ok := old.(dom.Int64); ok && !plan.WritableInt64(int64(v)) {
						// No Studio script can write it back (a Luau number is a
						// double): the undo leaves it, and says so.
						unwritable = append(unwritable, fmt.Sprintf("%s.%s = %d", pre.Path, k, int64(v)))
						continue
					}
					b, err := dom.Marshal(old)
					if err != nil {
						return nil, errcode.Wrap(errcode.Internal, err, "encode the pre-image of "+pre.Path+"."+k)
					}
					set[k] = b
				}
			}
			if len(set) == 0 {
				continue // nothing it can put back (an Int64 no script writes)
			}
			ops = append(ops, protocol.Op{Op: protocol.OpEdit, Handle: h, Expect: expect, Set: set, ChangeID: op.ChangeID})
			changes = append(changes, StudioChange{Path: pre.Path, Action: "restore", Properties: slices.Sorted(maps.Keys(set))})
			pathOf[op.ChangeID] = pre.Path
		case protocol.OpAdd:
			path := append(splitPath(r.parentPath(op)), op.Instance.Name)
			h, inst, err := handleOf(path)
			if err != nil {
				failures = append(failures, map[string]any{"path": joinPath(path), "field": "instance", "expected": "present", "actual": err.Error()})
				continue
			}
			if x, why := changedSince(inst, op.Instance); x != nil {
				// Studio holds under it something the transaction did not add, or
				// a script edited since: someone's work, which removing it would
				// delete.
				failures = append(failures, map[string]any{"path": x.Path(), "field": "instance", "expected": "as added", "actual": why})
				continue
			}
			e := &protocol.Expect{}
			if inst != nil && inst.IsScript() {
				if s, ok := sourceOf(op.Instance.Properties["Source"]); ok {
					e.SourceSha1 = gitblob.HashString(s)
				}
			}
			ops = append(ops, protocol.Op{Op: protocol.OpRemove, Handle: h, Expect: e, ChangeID: op.ChangeID})
			changes = append(changes, StudioChange{Path: joinPath(path), Action: "delete"})
			pathOf[op.ChangeID] = joinPath(path)
		case protocol.OpRemove:
			if pre := r.preImage(op); pre != nil {
				res.Manual = append(res.Manual, pre.Path)
			}
		}
	}
	if len(failures) > 0 {
		return nil, errcode.New(errcode.PreconditionFailed, "cannot undo %s: %s changed since it was applied (nothing was undone)", r.TxID, failedPaths(failures)).
			Reason(errcode.ReasonChangedSince, errcode.NextReplan).With("failures", failures)
	}
	if len(ops) > 0 {
		if studio == nil {
			return nil, errcode.New(errcode.StudioNotConnected, "undoing %s needs Studio: it changed Studio", r.TxID).
				Reason(errcode.ReasonNoStudio, errcode.NextConnectStudio, errcode.NextRetry)
		}
		if err := studio.Apply(ctx, "undo-"+r.TxID, ops, nil); err != nil {
			ce := errcode.As(withChanges(err, ops, func(id string) string { return pathOf[id] }))
			if names, _ := editorFailures(ce); len(names) > 0 {
				// Unsaved Script Editor text where the undo would write: Studio's
				// saved Source is as the transaction left it, so no plan shows it.
				ce = errcode.New(errcode.PreconditionFailed, "cannot undo %s: %s: the text in Studio's Script Editor (unsaved, or a collaborative draft) differs from the saved Source, and the undo would lose it; nothing was undone: save or close it in Studio (or commit the draft), then undo again",
					r.TxID, strings.Join(names, ", ")).
					Reason(errcode.ReasonStudioUnsavedEdit, errcode.NextSaveInStudio).With("failures", ce.Details["failures"])
			} else if ce.Code == errcode.PreconditionFailed || ce.Code == errcode.NotFound {
				// Studio holds something else than the transaction left: the same
				// refusal as a file changed since, named by the transaction.
				list, _ := ce.Details["failures"].([]any)
				var named []map[string]any
				for _, f := range list {
					if m, ok := f.(map[string]any); ok {
						named = append(named, m)
					}
				}
				what := failedPaths(named)
				if len(named) == 0 {
					what = fmt.Sprintf("%d thing(s)", max(len(list), 1))
				}
				ce = errcode.New(errcode.PreconditionFailed, "cannot undo %s: %s changed in Studio since it was applied (nothing was undone)", r.TxID, what).
					Reason(errcode.ReasonChangedSince, errcode.NextReplan).With("failures", ce.Details["failures"])
			}
			return nil, ce.With("txId", r.TxID)
		}
	}
	res.StudioOps = len(ops)
	if changes != nil {
		res.Studio = changes
	}
	// Disk: each file back by compare-and-swap, expecting what the transaction
	// wrote; a file edited since the check above (while Studio was written) is
	// kept and reported, never overwritten.
	files, err := r.undoFiles()
	res.Files = files
	if err != nil {
		if diskfull.Is(err) {
			return nil, diskfull.Wrap(err, "undo "+r.TxID)
		}
		return nil, errcode.Wrap(errcode.Internal, err, "undo "+r.TxID)
	}
	for _, f := range files {
		switch {
		case f.Action != "kept":
		case f.Reason == KeptNotWritten:
			res.Warnings = append(res.Warnings, f.Path+" was left as the user had it by the transaction itself (it wrote nothing there), so the undo leaves it too")
		default:
			res.Warnings = append(res.Warnings, f.Path+" changed while the undo ran and was left as it is")
		}
	}
	if n := len(res.Manual); n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d instance(s) the transaction removed from Studio are not rebuilt by an undo (data.manual lists them): Ctrl+Z in Studio restores them", n))
	}
	for _, u := range unwritable {
		res.Warnings = append(res.Warnings, u+" in Studio before the sync is not put back: no Studio script can write that Int64 (a Luau number is a double); set it in Studio's Properties window, or Ctrl+Z there")
	}
	r.State = stateUndone
	if err := r.saveState(); err != nil {
		return nil, err
	}
	return res, nil
}

// FilesUndone counts the files the undo put back or removed: not those it left as
// they were (kept).
func (r *UndoResult) FilesUndone() int {
	n := 0
	for _, f := range r.Files {
		if f.Action != "kept" {
			n++
		}
	}
	return n
}

// KeptNotWritten is the reason an undo gives a file the transaction's commit (or its
// recovery) left as the user had changed it (FileChange.Reason).
const KeptNotWritten = "not_written"

// undoFiles puts back every file the transaction wrote, newest first, each by
// compare-and-swap (tagged "<txId>-u") from the journal's pre-image, only while it
// holds exactly what the transaction wrote.
func (r *record) undoFiles() ([]FileChange, error) {
	root, dirs, closeRoots, err := r.openRoots()
	if err != nil {
		return nil, err
	}
	defer closeRoots()
	tag := r.tag() + "-u"
	o := casfile.Options{Tag: tag}
	out := []FileChange{}
	for i := len(r.Files) - 1; i >= 0; i-- {
		f := r.Files[i]
		var res casfile.Result
		var err error
		action := "restore"
		switch {
		case f.Kept:
			// The commit (or the recovery of a host killed while it ran) left the
			// user's version there: nothing to put back, and the undo says so.
			out = append(out, FileChange{Path: f.Path, Action: "kept", Reason: KeptNotWritten})
			continue
		case f.Dir && f.Delete:
			if err := dirs.MkdirAll(filepath.FromSlash(f.Path), 0o755); err != nil {
				return out, err
			}
			out = append(out, FileChange{Path: f.Path, Action: "mkdir"})
			continue
		case f.Dir:
			if dirs.Remove(filepath.FromSlash(f.Path)) == nil {
				out = append(out, FileChange{Path: f.Path, Action: "rmdir"})
			}
			continue
		case f.Expect == "": // the transaction created it
			action = "delete"
			res, err = root.Delete(f.Path, f.NewHash, o)
		default: // it wrote or deleted it: the pre-image goes back
			old, rerr := os.ReadFile(filepath.Join(r.dir, f.Pre))
			if rerr != nil || f.Pre == "" {
				return out, errors.Join(errors.New("read the pre-image of "+f.Path), rerr)
			}
			po := o
			if f.Mode != 0 {
				po.Mode = fs.FileMode(f.Mode) // made again, as it was: a deleted file's mode
			}
			res, err = root.Replace(f.Path, f.NewHash, old, po)
		}
		if err != nil {
			return out, err
		}
		fc := FileChange{Path: f.Path, Action: action}
		if res.Outcome == casfile.Kept {
			fc.Action, fc.Reason, fc.KeptAt = "kept", string(res.Reason), res.Aside
		}
		out = append(out, fc)
		// The aside copy holds what the transaction wrote: nobody's edit.
		_, _ = root.Discard(f.Path, tag, f.NewHash)
	}
	return out, nil
}

// failedPaths names the paths of an undo's failures for its message: the first three,
// and how many more.
func failedPaths(failures []map[string]any) string {
	var names []string
	for _, f := range failures {
		if p, ok := f["path"].(string); ok && p != "" && !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("%d thing(s)", len(failures))
	}
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// sourceOf decodes a Source value as the journal keeps it.
func sourceOf(raw json.RawMessage) (string, bool) {
	if raw == nil {
		return "", false
	}
	v, err := dom.Unmarshal(raw)
	if err != nil {
		return "", false
	}
	s, ok := v.(dom.String)
	return string(s), ok
}

func (r *record) preImage(op protocol.Op) *studioPreImage {
	for i := range r.StudioPre {
		if r.StudioPre[i].Handle == op.Handle && r.StudioPre[i].ChangeID == op.ChangeID {
			return &r.StudioPre[i]
		}
	}
	return nil
}

// parentPath is the instance path of an add op's parent, recorded at prepare time.
func (r *record) parentPath(op protocol.Op) string {
	for _, p := range r.Parents {
		if p.Handle == op.Parent {
			return p.Path
		}
	}
	return ""
}

func splitPath(p string) []string {
	if p == "" {
		return []string{}
	}
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

func joinPath(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "/"
		}
		s += x
	}
	return s
}
