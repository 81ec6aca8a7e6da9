package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// Studio is what a transaction needs from a Studio session.
type Studio interface {
	// Apply sends ops; the plugin checks every precondition, then applies all of them
	// in one undoable recording, or none.
	// encoded, when not nil, is ops as protocol.EncodeOps gave them (the journal's
	// copy), to send as it is.
	Apply(ctx context.Context, txID string, ops []protocol.Op, encoded []byte) error
	// Transactions lists the ids of the transactions the plugin applied recently.
	Transactions(ctx context.Context) ([]string, error)
}

// Stager is a Studio that takes a patch's ops ahead of its apply (the protocol's
// stage). Txn stages them while it writes the journal, then applies them by txId:
// their transfer and decoding overlap the journal's write, and nothing is written
// before the journal is durable, as without staging.
type Stager interface {
	// Stage hands over ops under txID; Studio keeps them, and checks and writes
	// nothing. pieces gives the ops encoded (EncodeOps) in consecutive runs
	// (protocol.SplitOps), as the transaction encodes them for its journal, and is
	// closed after the last; it never blocks its sender. ErrCannotStage: this
	// Studio does not stage.
	Stage(ctx context.Context, txID string, ops []protocol.Op, pieces <-chan []byte) error
	// ApplyStaged is Apply of the ops staged under txID. ErrNotStaged: Studio
	// holds no ops under txID, and applied nothing.
	ApplyStaged(ctx context.Context, txID string) error
}

// The Stager's refusals that make Txn send the ops in the apply instead.
var (
	ErrCannotStage = errors.New("this Studio does not stage ops")
	ErrNotStaged   = errors.New("Studio holds no staged ops for the transaction")
)

// newInstance copies a disk subtree into the form the plugin builds.
func newInstance(i *dom.Instance) (*protocol.NewInstance, error) {
	if err := sourceLoaded(i); err != nil {
		return nil, err
	}
	writable := make(dom.Properties, len(i.Properties))
	for k, v := range i.Properties.All() {
		if dom.StudioSyncable(i.ClassName, k) { // the plugin could not write the others
			writable[k] = v
		}
	}
	props, err := encode(writable)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", i.Path(), err)
	}
	n := &protocol.NewInstance{Name: i.Name, ClassName: i.ClassName, Properties: props, Children: []*protocol.NewInstance{}}
	for _, c := range i.Children {
		cn, err := newInstance(c)
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, cn)
	}
	return n, nil
}

// encode puts values in the tagged encoding the protocol carries.
func encode(props dom.Properties) (protocol.Values, error) {
	out := make(protocol.Values, len(props))
	for k, v := range props {
		b, err := dom.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		out[k] = b
	}
	return out, nil
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
	// Undo and sync recover --abort also say restore (the old bytes are back).
	Action string `json:"action"`
	// Reason says why a file was kept: changed (edited since), missing (deleted
	// since), exists (created since), or displaced (edited, and created again
	// while Atlas held it aside: both are kept, the edit at keptAt); in an undo,
	// also not_written (the transaction's commit, or its recovery, found it changed
	// and left it as it was: there is nothing of the transaction's to take back).
	Reason string `json:"reason,omitempty"`
	// KeptAt is where a displaced edit is kept, relative to the project folder.
	KeptAt string `json:"keptAt,omitempty"`
}

// Result is what a successful transaction did.
type Result struct {
	// TxID names the journaled transaction; "" (absent in JSON) when the apply had
	// nothing to write (every change skipped, or none): nothing was journaled, so
	// there is nothing to undo or look up.
	TxID      string       `json:"txId,omitempty" jsonschema:"the journaled transaction (for sync_undo and atlas://transactions/{id}); absent when the apply had nothing to write, so journaled none"`
	PlanHash  string       `json:"planHash"`
	Applied   []Applied    `json:"applied"`
	Skipped   []string     `json:"skipped"`
	StudioOps int          `json:"studioOps"`
	Files     []FileChange `json:"files"`
	Warnings  []string     `json:"warnings,omitempty"`
}

// sourceLoaded refuses a script whose Source the caller did not read back (a tree
// lets texts go, and whoever writes or journals one reads it first): written or
// journaled without it, the script would lose its text.
func sourceLoaded(i *dom.Instance) error {
	if !i.IsScript() || i.SourceHash == "" && i.RawHash == "" {
		return nil
	}
	if _, ok := i.Source(); !ok {
		return errcode.New(errcode.Internal, "the Source of %s was not read before the apply", i.Path())
	}
	return nil
}

// Gist is what a caller needs of r when the whole does not fit where it goes (a
// client's message size): the transaction and how much it carried out.
func (r *Result) Gist() map[string]any {
	g := map[string]any{"planHash": r.PlanHash, "applied": len(r.Applied),
		"skipped": len(r.Skipped), "studioOps": r.StudioOps, "files": len(r.Files)}
	if r.TxID != "" {
		g["txId"] = r.TxID
	}
	return g
}
