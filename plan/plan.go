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
}

// Change is one instance that differs between disk and Studio. For Add and Remove it
// stands for the whole subtree rooted at the instance.
type Change struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"`
	ClassName string    `json:"className"`
	PatchType PatchType `json:"patchType"`
	// Direction is push, pull, or "" (unresolved, JSON null).
	Direction        Direction `json:"-"`
	DefaultSelection Direction `json:"defaultSelection"`
	Reason           Reason    `json:"reason"`
	// Hashes are git blob ids of Source (scripts only; "" when absent on that side).
	StudioHash string `json:"studioHash"`
	DiskHash   string `json:"diskHash"`
	BaseHash   string `json:"baseHash"`
	FsPath     string `json:"fsPath"`
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

// MarshalJSON adds direction as a string or null.
func (c *Change) MarshalJSON() ([]byte, error) {
	type plain Change
	var dir *Direction
	if c.Direction != "" {
		d := c.Direction
		dir = &d
	}
	return json.Marshal(struct {
		*plain
		Direction *Direction `json:"direction"`
	}{(*plain)(c), dir})
}

// UnmarshalJSON reads direction as a string or null.
func (c *Change) UnmarshalJSON(b []byte) error {
	type plain Change
	aux := struct {
		*plain
		Direction *Direction `json:"direction"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	c.Direction = ""
	if aux.Direction != nil {
		c.Direction = *aux.Direction
	}
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
