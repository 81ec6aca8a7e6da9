package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/atlas-rbx/atlas/dom"
)

// Input is what a plan is computed from. Trees have their ids assigned.
type Input struct {
	Disk   *dom.Instance
	Studio *dom.Instance
	// Base is the project built at the base commit; nil when there is no base
	// (no repository, or an unborn HEAD): every difference is then unresolved.
	Base       *dom.Instance
	BaseCommit string
	BaseRef    string
	SessionID  string
	// Place is whether Studio holds the place of the project's last successful
	// sync, as the place's identity tells ("" is PlaceUnknown). Compute finds an
	// empty place itself, from the trees.
	Place PlaceState
	// OtherPlace says Place is PlaceDifferent for proof: the place has another
	// marker or another published id than the last sync's (not only no marker).
	// Then every change to disk is held (PlaceChanged), edits pulled too; else only
	// deletions on disk are.
	OtherPlace bool
	// FoldCase says the project's file system compares names ignoring case, so
	// that siblings whose names differ only in case would share a file.
	FoldCase bool
	// DiskIndex and BaseIndex, when set, are Disk's and Base's instances by id (as
	// dom.Instance.Index gives them), which a caller that keeps them passes so that
	// Compute need not build them again. Compute does not modify them.
	DiskIndex, BaseIndex map[string]*dom.Instance
	// Memo, when set, carries results from one Compute to the next, so that a
	// plan after a small change compares only the changed subtrees (see Compute).
	Memo *Memo
	// InStep, when set, is what Studio was last known to hold in step with disk
	// (a plan that found nothing to sync, or what an apply left in Studio), where
	// HEAD moved since (a commit, a checkout, a reset). Compute asks for it only
	// when the table gives a change to Studio (Reason.StudioMoved), and decides
	// such a change again against it: where Studio still holds that version and
	// disk does not, what moved is disk (and the base with it), not Studio, and
	// the change is pushed; where both moved since, it is unresolved. It never
	// turns a change toward Studio's side.
	InStep func() *InStep
	// Unmerged are the project's files (FsPaths) the git index holds in conflict:
	// a merge, rebase, cherry-pick or stash apply stopped on them, and they may
	// hold conflict markers. A change of one is held back either way
	// (MergeConflict).
	Unmerged map[string]bool
	// Writable, when set, tells which of the pulls the table and the other guards
	// leave are refused by the writes they would make to the project's files (the
	// apply's own check, run on the files as they are): it returns those by change
	// id, and Compute holds them back (Guards.Unwritable), so that a plan offers
	// only what an apply can do. It is given the pulls in ID order and must not
	// modify them.
	Writable func(pulls []*Change) map[string]Refusal
}

// InStep is what Studio was last known to hold in step with disk (Input.InStep).
type InStep struct {
	// Commit is the base commit then.
	Commit string
	// Find returns the instance of an id then, nil where there was none.
	Find func(id string) *dom.Instance
}

// Refusal is why a pull cannot be written to the project's files: a stable
// snake_case reason (package project's) and a message that says what to do.
type Refusal struct {
	Reason  Reason `json:"reason"`
	Message string `json:"message"`
}

// Plan is the list of changes between disk and Studio and its canonical hash.
type Plan struct {
	BaseCommit string
	BaseRef    string
	SessionID  string
	// Changes are sorted by ID.
	Changes []*Change
	// Hash is "sha256:" + hex of the canonical JSON of base commit, session and changes.
	Hash string
	// Warnings name what Atlas leaves alone and why: properties the project sets that
	// Studio's scripts cannot write, scripts whose bytes are not UTF-8, changes a
	// guard left unresolved. Not hashed (the guarded changes' reasons are).
	Warnings []string
	// Place is the place check the guards went by: Input.Place, or PlaceEmpty when
	// Studio holds none of the project's instances.
	Place PlaceState
	// Guards describes what each guard held back; nil when none did.
	Guards *Guards
}

// Change is one instance that differs between disk and Studio. For Add and Remove it
// stands for the whole subtree rooted at the instance.
type Change struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"`
	ClassName string    `json:"className"`
	PatchType PatchType `json:"patchType"`
	// Direction is push, pull, or "" (unresolved, JSON null).
	Direction Direction `json:"-"`
	// DefaultSelection is the three-way table's result: push, pull, or "" (JSON
	// null), never another word.
	DefaultSelection Direction `json:"-"`
	Reason           Reason    `json:"reason"`
	// Hashes are git blob ids of Source (scripts only; "" when absent on that side,
	// JSON null).
	StudioHash string `json:"-"`
	DiskHash   string `json:"-"`
	BaseHash   string `json:"-"`
	// FsPath is the file the instance comes from ("" for none, JSON null).
	FsPath string `json:"-"`
	// Fields lists what differs: "Source", "ClassName", property names, or "Instance"
	// for an instance present on one side only.
	Fields      []string                `json:"fields"`
	Properties  map[string]PropertyDiff `json:"properties"`
	Descendants int                     `json:"descendants"`
	// SubtreeHash digests the whole subtree of an Add or Remove (what the change
	// carries), so the plan hash moves when anything in it does.
	SubtreeHash string `json:"subtreeHash,omitempty"`

	// The instance on each side (nil where absent); not part of the hash.
	Disk, Studio, Base *dom.Instance `json:"-"`
}

// PropertyDiff shows one property: Current is Studio's value, Incoming the disk's,
// Base the base commit's (JSON null where absent).
type PropertyDiff struct {
	Current  dom.Tagged `json:"current"`
	Incoming dom.Tagged `json:"incoming"`
	Base     dom.Tagged `json:"base"`
}

// nullable is the JSON form of the string fields that may not apply: a string, or
// null for "" (a field that does not apply is never "").
type nullable struct {
	Direction        *string `json:"direction"`
	DefaultSelection *string `json:"defaultSelection"`
	StudioHash       *string `json:"studioHash"`
	DiskHash         *string `json:"diskHash"`
	BaseHash         *string `json:"baseHash"`
	FsPath           *string `json:"fsPath"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// MarshalJSON adds the fields that may not apply, as strings or null.
func (c *Change) MarshalJSON() ([]byte, error) {
	type plain Change
	return json.Marshal(struct {
		*plain
		nullable
	}{(*plain)(c), nullable{
		Direction: orNull(string(c.Direction)), DefaultSelection: orNull(string(c.DefaultSelection)),
		StudioHash: orNull(c.StudioHash), DiskHash: orNull(c.DiskHash), BaseHash: orNull(c.BaseHash),
		FsPath: orNull(c.FsPath),
	}})
}

// UnmarshalJSON reads the fields that may not apply as strings or null.
func (c *Change) UnmarshalJSON(b []byte) error {
	type plain Change
	aux := struct {
		*plain
		nullable
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	n := aux.nullable
	c.Direction, c.DefaultSelection = Direction(orEmpty(n.Direction)), Direction(orEmpty(n.DefaultSelection))
	c.StudioHash, c.DiskHash, c.BaseHash = orEmpty(n.StudioHash), orEmpty(n.DiskHash), orEmpty(n.BaseHash)
	c.FsPath = orEmpty(n.FsPath)
	return nil
}

// Resolved reports whether the change has a direction.
func (c *Change) Resolved() bool { return c.Direction != "" }

// Summary counts changes by direction.
type Summary struct {
	Total      int `json:"total"`
	Push       int `json:"push"`
	Pull       int `json:"pull"`
	Unresolved int `json:"unresolved"`
}

// Summary counts the plan's changes.
func (p *Plan) Summary() Summary {
	s := Summary{Total: len(p.Changes)}
	for _, c := range p.Changes {
		switch c.Direction {
		case Push:
			s.Push++
		case Pull:
			s.Pull++
		default:
			s.Unresolved++
		}
	}
	return s
}

// Find returns the change with id, or nil.
func (p *Plan) Find(id string) *Change {
	i := sort.Search(len(p.Changes), func(i int) bool { return p.Changes[i].ID >= id })
	if i < len(p.Changes) && p.Changes[i].ID == id {
		return p.Changes[i]
	}
	return nil
}

// hashOf computes the canonical hash: sorted keys, no spaces.
func hashOf(baseCommit, sessionID string, changes []*Change) string {
	doc := struct {
		BaseCommit string    `json:"baseCommit"`
		SessionID  string    `json:"sessionId"`
		Changes    []*Change `json:"changes"`
	}{baseCommit, sessionID, changes}
	if doc.Changes == nil {
		doc.Changes = []*Change{}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		panic("plan: encode for hash: " + err.Error())
	}
	canon, err := Canonical(raw)
	if err != nil {
		panic("plan: canonical JSON: " + err.Error())
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Canonical re-encodes JSON with object keys sorted and no insignificant spaces,
// numbers kept exactly as written.
func Canonical(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
