package apply

import (
	"context"
	"encoding/json"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
)

// Studio is what a transaction needs from a Studio session.
type Studio interface {
	// Apply sends ops; the plugin checks every precondition, then applies all of them
	// in one undoable recording, or none.
	Apply(ctx context.Context, txID string, ops []Op) error
	// Transactions lists the ids of the transactions the plugin applied recently.
	Transactions(ctx context.Context) ([]string, error)
}

// Op is one Studio operation (docs/PROTOCOL.md "apply").
type Op struct {
	Op       string         `json:"op"` // edit, add or remove
	Handle   string         `json:"handle,omitempty"`
	Parent   string         `json:"parent,omitempty"`
	Expect   *Expect        `json:"expect,omitempty"`
	Set      dom.Properties `json:"set,omitempty"`
	Instance *NewInstance   `json:"instance,omitempty"`
	// ChangeID is the plan change the op comes from.
	ChangeID string `json:"changeId,omitempty"`
}

// Expect is what an op expects to overwrite.
type Expect struct {
	SourceSha1 string         `json:"sourceSha1,omitempty"`
	Properties dom.Properties `json:"properties,omitempty"`
}

// NewInstance is an instance subtree to create.
type NewInstance struct {
	Name       string         `json:"name"`
	ClassName  string         `json:"className"`
	Properties dom.Properties `json:"properties"`
	Children   []*NewInstance `json:"children"`
}

// newInstance copies a disk subtree into the form the plugin builds.
func newInstance(i *dom.Instance) *NewInstance {
	n := &NewInstance{Name: i.Name, ClassName: i.ClassName, Properties: dom.Properties{}, Children: []*NewInstance{}}
	for k, v := range i.Properties {
		n.Properties[k] = v
	}
	for _, c := range i.Children {
		n.Children = append(n.Children, newInstance(c))
	}
	return n
}

// Override changes a change's direction, optionally with preconditions that prove
// the caller saw what is there now.
type Override struct {
	ID                 string                     `json:"id"`
	Direction          plan.Direction             `json:"direction"`
	StudioHash         *string                    `json:"studioHash,omitempty"`
	DiskHash           *string                    `json:"diskHash,omitempty"`
	ExpectedProperties map[string]json.RawMessage `json:"expectedProperties,omitempty"`
}

// Request is an apply request.
type Request struct {
	Token          string     `json:"confirmToken"`
	Overrides      []Override `json:"overrides"`
	SkipUnresolved bool       `json:"skipUnresolved"`
}

// Applied is one change the transaction carried out.
type Applied struct {
	ID        string         `json:"id"`
	Path      string         `json:"path"`
	PatchType plan.PatchType `json:"patchType"`
	Direction plan.Direction `json:"direction"`
	FsPath    string         `json:"fsPath,omitempty"`
}

// FileChange is one file the transaction wrote or deleted.
type FileChange struct {
	Path string `json:"path"`
	// Action is write, create, delete, mkdir, rmdir, or kept: the file changed after
	// the plan, so it was left as it is (and the next plan shows the difference).
	Action string `json:"action"`
}

// Result is what a successful transaction did.
type Result struct {
	TxID      string       `json:"txId"`
	PlanHash  string       `json:"planHash"`
	Applied   []Applied    `json:"applied"`
	Skipped   []string     `json:"skipped"`
	StudioOps int          `json:"studioOps"`
	Files     []FileChange `json:"files"`
	Warnings  []string     `json:"warnings,omitempty"`
}
