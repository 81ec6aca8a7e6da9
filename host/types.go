package host

import (
	"context"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
)

// The command names: what each engine call is called in the JSON envelope
// ("command"), the same whether the CLI, the MCP server or the local API answers.
const (
	CommandStatus  = "status"
	CommandPlan    = "sync.plan"
	CommandApply   = "sync.apply"
	CommandUndo    = "sync.undo"
	CommandRecover = "sync.recover"
	CommandScript  = "script.get"
	CommandExec    = "studio.exec"
	CommandDrift   = "drift"
	CommandReview  = "review"
)

// Engine is what the CLI and the MCP server call: the host itself in-process, or a
// client of a running host over the local API. Both behave the same.
type Engine interface {
	Status(ctx context.Context) (*StatusData, error)
	Plan(ctx context.Context, req PlanRequest) (*PlanData, error)
	Apply(ctx context.Context, req ApplyRequest) (*ApplyData, error)
	Script(ctx context.Context, req ScriptRequest) (*ScriptData, error)
	Exec(ctx context.Context, req ExecRequest) (*ExecData, error)
	Drift(ctx context.Context, req DriftRequest) (*DriftData, error)
	Review(ctx context.Context, req ReviewRequest) (*ReviewData, error)
	Undo(ctx context.Context, req UndoRequest) (*apply.UndoResult, error)
	Recover(ctx context.Context, req RecoverRequest) (*apply.RecoverResult, error)
	Query(ctx context.Context, req QueryRequest) (*QueryData, error)
	Logs(ctx context.Context, req LogsRequest) (*LogsData, error)
	State(ctx context.Context, req StateRequest) (*StateData, error)
	Transactions(ctx context.Context) (*TransactionsData, error)
	Transaction(ctx context.Context, txID string) (*TransactionData, error)
}

// RecoverRequest shows the open transactions and, with Action finish or abort,
// resolves one (TxID, or the only one open).
type RecoverRequest struct {
	TxID   string `json:"txId,omitempty"`
	Action string `json:"action,omitempty"`
}

// UndoRequest asks to undo a committed transaction (the newest when TxID is "").
type UndoRequest struct {
	SessionID string `json:"sessionId,omitempty"`
	TxID      string `json:"txId,omitempty"`
}

// SessionData describes a connected Studio session.
type SessionData struct {
	ID string `json:"id"`
	// Context is edit, or a playtest's server or client (read-only: query, logs
	// and run_code only).
	Context       string    `json:"context"`
	ReadOnly      bool      `json:"readOnly,omitempty"`
	PlaceID       int64     `json:"placeId"`
	PlaceName     string    `json:"placeName"`
	PluginVersion string    `json:"pluginVersion,omitempty"`
	ConnectedAt   time.Time `json:"connectedAt,omitzero"`
	// PlaceCheck says whether the session holds the place of the project's last
	// successful sync (absent where not known, e.g. drift without Studio).
	PlaceCheck *PlaceCheck `json:"placeCheck,omitempty"`
}

// ProjectData describes the project a host serves.
type ProjectData struct {
	Name string `json:"name"`
	File string `json:"file"`
	Dir  string `json:"dir"`
}

// HostData describes the running host.
type HostData struct {
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
	URL     string `json:"url"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// StatusData is `atlas status`.
type StatusData struct {
	Project  ProjectData     `json:"project"`
	Host     HostData        `json:"host"`
	Sessions []SessionData   `json:"sessions"`
	Pending  []apply.Pending `json:"pendingTransactions"`
	// PlaceCheck is the only connected session's place check; null when none or
	// several are connected (each session has its own).
	PlaceCheck *PlaceCheck `json:"placeCheck"`
}

// PlanRequest asks for a plan.
type PlanRequest struct {
	SessionID string `json:"sessionId,omitempty"`
	Base      string `json:"base,omitempty"`
	// TTL of the confirm token; 0 = default (5 min), at most 10 min.
	TTL time.Duration `json:"ttl,omitempty"`
	// Sources adds each script change's disk, Studio and base text (for --diff).
	Sources bool `json:"sources,omitempty"`
	// Files adds the file a pull writes where a change's fsPath names none, or
	// another (for people: the plan's fsPath names only the file an instance comes
	// from).
	Files bool `json:"files,omitempty"`
}

// BaseData is the base commit of a plan.
type BaseData struct {
	Commit string `json:"commit,omitempty"` // absent without a base commit
	Ref    string `json:"ref,omitempty"`
}

// ChangeSources are the texts of a script change, for diffs.
type ChangeSources struct {
	Disk   *string `json:"disk"`
	Studio *string `json:"studio"`
	Base   *string `json:"base"`
}

// PlanData is the plan envelope's data (ARCHITECTURE §6).
type PlanData struct {
	PlanHash     string                   `json:"planHash"`
	ConfirmToken string                   `json:"confirmToken"`
	ExpiresAt    time.Time                `json:"expiresAt"`
	Base         BaseData                 `json:"base"`
	Session      SessionData              `json:"session"`
	Summary      plan.Summary             `json:"summary"`
	Changes      []*plan.Change           `json:"changes"`
	Sources      map[string]ChangeSources `json:"sources,omitempty"`
	// Files maps change ids to the file a pull writes where their fsPath names
	// none, or another: the file it creates for an instance only Studio has, the
	// project file of an instance one declares, the meta file that keeps a script's
	// properties (PlanRequest.Files).
	Files map[string]string `json:"files,omitempty"`
	// Guards is what the guards over the decision table held back (place_changed,
	// mass_delete, duplicate_name); absent when none did.
	Guards   *plan.Guards `json:"guards,omitempty"`
	Warnings []string     `json:"-"`
}

// ApplyRequest asks for an apply.
type ApplyRequest struct {
	SessionID      string           `json:"sessionId,omitempty"`
	Token          string           `json:"confirmToken"`
	Overrides      []apply.Override `json:"overrides,omitempty"`
	SkipUnresolved bool             `json:"skipUnresolved,omitempty"`
}

// Validate checks the request's form before anything runs: well-formed overrides
// (refused first, so that a bad override is named even without a token), then a
// confirm token.
func (r ApplyRequest) Validate() error {
	if err := apply.ValidateOverrides(r.Overrides); err != nil {
		return err
	}
	if r.Token == "" {
		return errcode.New(errcode.ConfirmTokenRequired, "a confirm token is required").
			Reason(errcode.ReasonTokenRequired, errcode.NextPassToken)
	}
	return nil
}

// ApplyData is the apply envelope's data.
type ApplyData struct {
	apply.Result
	Session SessionData `json:"session"`
}

// ScriptRequest asks for a script's text in Studio.
type ScriptRequest struct {
	SessionID string `json:"sessionId,omitempty"`
	ID        string `json:"id,omitempty"`
	FsPath    string `json:"fsPath,omitempty"`
	Draft     bool   `json:"draft,omitempty"`
}

// Validate checks that the request names the script one way: by id or by file.
func (r ScriptRequest) Validate() error {
	if (r.ID == "") == (r.FsPath == "") {
		return errcode.New(errcode.BadRequest, "give exactly one of id or fsPath").Reason(errcode.ReasonBadRequest, errcode.NextPassScript)
	}
	return nil
}

// ScriptData is a script as Studio has it.
type ScriptData struct {
	ID           string `json:"id"`
	FsPath       string `json:"fsPath,omitempty"` // absent for a script no file makes
	InstancePath string `json:"instancePath"`
	ClassName    string `json:"className"`
	Source       string `json:"source"`
	StudioHash   string `json:"studioHash"`
	IsDraft      bool   `json:"isDraft"`
}

// ExecRequest runs Luau in Studio: the edit session's by default, or a
// playtest's named by SessionID or Context.
type ExecRequest struct {
	SessionID string `json:"sessionId,omitempty"`
	Context   string `json:"context,omitempty"`
	Code      string `json:"code"`
}

// Validate checks that there is code to run.
func (r ExecRequest) Validate() error {
	if strings.TrimSpace(r.Code) == "" {
		return errcode.New(errcode.BadRequest, "code is empty").Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	return nil
}

// OutputLine is one line a script printed: its level is named as Studio's log
// names it (output for print, warning for warn, error for the error that stopped it).
type OutputLine struct {
	Level LogLevel `json:"level"`
	Text  string   `json:"text"`
}

// ExecData is what running code gave: Returns each returned value's tostring,
// Values its tagged encoding ({"Vector3":[0,5,0]}), or null where it has none (a
// table, a function, an Instance, nil).
type ExecData struct {
	Success bool         `json:"success"`
	Output  []OutputLine `json:"output"`
	Returns []string     `json:"returns"`
	Values  []dom.Tagged `json:"values"`
	Error   string       `json:"error,omitempty"`
	Session SessionData  `json:"session"`
}

// Gist is what a caller needs of d when the whole does not fit where it goes (a
// client's message size): that the code ran, whether it failed, and how much it
// printed and returned.
func (d *ExecData) Gist() map[string]any {
	errText := d.Error
	if len(errText) > 1024 {
		errText = errText[:1024] + "…"
	}
	return map[string]any{"success": d.Success, "error": errText, "outputLines": len(d.Output),
		"returns": len(d.Returns), "sessionId": d.Session.ID}
}

// DriftRequest asks for Studio drift.
type DriftRequest struct {
	SessionID string   `json:"sessionId,omitempty"`
	Staged    bool     `json:"staged,omitempty"`
	Files     []string `json:"files,omitempty"`
	// IndexFile is the index the staged files are read from (Staged, without
	// Files), an absolute path inside the repository's git folder: the one a
	// git hook is given in GIT_INDEX_FILE ("git commit -a" and "git commit
	// <paths>" stage into an index of their own). Empty: the repository's own.
	IndexFile string `json:"indexFile,omitempty"`
}

// DriftData is work in Studio that git does not have.
type DriftData struct {
	Connected bool           `json:"connected"`
	Drift     bool           `json:"drift"`
	Changes   []*plan.Change `json:"changes"`
	// Blocking are the drifted changes touching files being committed (--staged).
	Blocking []string    `json:"blocking"`
	Session  SessionData `json:"session,omitzero"` // absent when no Studio is connected
	Message  string      `json:"message,omitempty"`
}

// ReviewRequest sends a plan to the plugin's review panel and waits for the person.
type ReviewRequest struct {
	SessionID string         `json:"sessionId,omitempty"`
	PlanHash  string         `json:"planHash"`
	Changes   []*plan.Change `json:"changes"`
	Mode      string         `json:"mode"`
}

// ReviewData is the person's decision.
type ReviewData struct {
	Decision   string                    `json:"decision"`
	Selections map[string]plan.Direction `json:"selections"`
}
