package apply

import (
	"slices"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
)

// The journal read back for people and agents (atlas://transactions): what each
// kept transaction did and how it ended. Reading never changes a record.

// TxCounts counts what a transaction touches.
type TxCounts struct {
	Changes   int `json:"changes"`
	Files     int `json:"files"`
	StudioOps int `json:"studioOps"`
}

// TxSummary is one transaction of the journal.
type TxSummary struct {
	TxID      string    `json:"txId"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// State is prepared, staged, studio-sent, committing (open), committed,
	// aborted or undone.
	State     string   `json:"state"`
	PlaceID   int64    `json:"placeId"`
	PlaceName string   `json:"placeName"`
	Counts    TxCounts `json:"counts"`
}

// TxChange is a plan change a transaction carried out, with the instance path
// its Studio op touched (absent for a change that only wrote files).
type TxChange struct {
	ID   string `json:"id"`
	Path string `json:"path,omitempty"`
}

// TxFile is a file a transaction wrote (or deleted).
type TxFile struct {
	Path   string `json:"path"`
	Delete bool   `json:"delete,omitempty"`
	Dir    bool   `json:"dir,omitempty"`
}

// TxStudioOp is one op of the Studio patch.
type TxStudioOp struct {
	Op        string   `json:"op"`
	ChangeID  string   `json:"changeId,omitempty"`
	ClassName string   `json:"className,omitempty"` // of an added instance
	Name      string   `json:"name,omitempty"`      // of an added instance
	Set       []string `json:"set,omitempty"`       // the properties an edit sets
}

// TxOutcome is how a transaction ended, or what an open one waits for.
type TxOutcome struct {
	State   string `json:"state"`
	Open    bool   `json:"open"`
	Waiting string `json:"waiting,omitempty"`
	Error   string `json:"error,omitempty"`
}

// TxDetail is one transaction in full.
type TxDetail struct {
	TxSummary
	SessionID string       `json:"sessionId"`
	PlanHash  string       `json:"planHash"`
	Changes   []TxChange   `json:"changes"`
	Files     []TxFile     `json:"files"`
	StudioOps []TxStudioOp `json:"studioOps"`
	Outcome   TxOutcome    `json:"outcome"`
}

// History lists the transactions the journal keeps (the open ones and the last
// finished ones), newest first.
func (j *Journal) History() ([]TxSummary, error) {
	recs, err := j.records(true)
	if err != nil {
		return nil, err
	}
	out := []TxSummary{}
	for _, r := range slices.Backward(recs) {
		out = append(out, r.summary())
	}
	return out, nil
}

// Detail is the transaction txID in full; E_NOT_FOUND when the journal does not
// keep it.
func (j *Journal) Detail(txID string) (*TxDetail, error) {
	recs, err := j.records(true)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.TxID == txID {
			return r.detail(), nil
		}
	}
	return nil, errcode.New(errcode.NotFound, "the journal keeps no transaction %s", txID).
		Reason(errcode.ReasonNotFound, errcode.NextShowStatus).With("txId", txID)
}

func (r *record) summary() TxSummary {
	return TxSummary{TxID: r.TxID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, State: r.State,
		PlaceID: r.Place.ID, PlaceName: r.Place.Name, Counts: TxCounts{Changes: len(r.changes()), Files: len(r.Files), StudioOps: len(r.Ops)}}
}

// changes are the change ids of the ops and the Studio pre-images, in order, then
// those of the files written for pulls.
func (r *record) changes() []TxChange {
	out := []TxChange{}
	at := map[string]int{}
	add := func(id, path string) {
		if id == "" {
			return
		}
		if i, ok := at[id]; ok {
			if out[i].Path == "" {
				out[i].Path = path
			}
			return
		}
		at[id] = len(out)
		out = append(out, TxChange{ID: id, Path: path})
	}
	for _, p := range r.StudioPre {
		add(p.ChangeID, p.Path)
	}
	for _, op := range r.Ops {
		add(op.ChangeID, "")
	}
	for _, f := range r.Files {
		add(f.ChangeID, f.ChangePath)
	}
	return out
}

func (r *record) detail() *TxDetail {
	d := &TxDetail{TxSummary: r.summary(), SessionID: r.SessionID, PlanHash: r.PlanHash, Changes: r.changes(),
		Files: []TxFile{}, StudioOps: []TxStudioOp{},
		Outcome: TxOutcome{State: r.State, Open: r.open(), Waiting: r.Waiting, Error: r.Error}}
	for _, f := range r.Files {
		d.Files = append(d.Files, TxFile{Path: f.Path, Delete: f.Delete, Dir: f.Dir})
	}
	for _, op := range r.Ops {
		o := TxStudioOp{Op: string(op.Op), ChangeID: op.ChangeID}
		if op.Instance != nil {
			o.ClassName, o.Name = op.Instance.ClassName, op.Instance.Name
		}
		for name := range op.Set {
			o.Set = append(o.Set, name)
		}
		slices.Sort(o.Set)
		d.StudioOps = append(d.StudioOps, o)
	}
	return d
}
