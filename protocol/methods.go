package protocol

import (
	"encoding/json"
	"strconv"

	"github.com/atlas-rbx/atlas/plan"
)

// The methods a plugin answers (PROTOCOL.md §3).
const (
	MethodSnapshot     = "snapshot"
	MethodApply        = "apply"
	MethodStage        = "stage"
	MethodTransactions = "transactions"
	MethodGetScript    = "getScript"
	MethodExec         = "exec"
	MethodReview       = "review"
	MethodPing         = "ping"
	MethodMarkPlace    = "markPlace"
	MethodQuery        = "query"
	MethodLogs         = "logs"
	MethodState        = "state"
)

// The place marker (PROTOCOL.md markPlace): a random id the host asks the plugin
// to keep in the place, as this attribute of the ServerStorage service, so that the
// place of a project's last sync is known even when it is unpublished (PlaceId 0).
// ServerStorage is saved with the place and never replicated to players. The
// marker is not part of the place as sync sees it: snapshots leave it out of
// ServerStorage's Attributes, and writing those Attributes keeps it.
const (
	PlaceMarkerClass     = "ServerStorage"
	PlaceMarkerAttribute = "AtlasPlace"
)

// MarkPlaceParams asks the plugin to mark the place with Marker (32 hex) unless
// it has a marker already.
type MarkPlaceParams struct {
	Marker string `json:"marker"`
}

// MarkPlaceResult is the marker the place holds now: Marker, or the one it had.
type MarkPlaceResult struct {
	Marker string `json:"marker"`
}

// Values are property values by name, each in the tagged encoding
// ({"Vector3":[0,5,0]}), kept as the wire has them: the host encodes them from
// dom values, the plugin reads them as they are.
type Values map[string]json.RawMessage

// SnapshotParams is a snapshot request.
type SnapshotParams struct {
	// Roots are paths (names from game) sent with all their descendants; Nodes
	// without them.
	Roots [][]string `json:"roots"`
	Nodes [][]string `json:"nodes"`
	// Properties are the properties to read by exact class name, each with its type
	// ("Vector3", or "Enum:Material").
	Properties map[string]map[string]string `json:"properties"`
	ChunkSize  int                          `json:"chunkSize,omitempty"`
	// Reuse names the previous snapshot whose sources the host still holds.
	Reuse string `json:"reuse,omitempty"`
	// AllowUnchanged lets the plugin answer Unchanged when nothing it watches
	// changed since the snapshot named by Reuse (asked with the same parameters).
	AllowUnchanged bool `json:"allowUnchanged,omitempty"`
	// Delta lets the plugin answer with the changes since the snapshot named by
	// Reuse (asked with the same parameters) instead of every instance; the plugin
	// sends a whole snapshot whenever it cannot vouch that a delta is complete.
	Delta bool `json:"delta,omitempty"`
	// KnownSources are the git blob ids of script sources the host holds or can read
	// back (from a file, checked against the id): a script
	// whose Source has one of them may be sent with SourceHash instead of its text
	// (the plugin does so when Studio's engine hashes).
	KnownSources []string `json:"knownSources,omitempty"`
}

// SnapshotInstance is one instance of a snapshot.
type SnapshotInstance struct {
	Handle string `json:"handle"`
	// Parent is the parent's handle; nil for game.
	Parent     *string `json:"parent"`
	Name       string  `json:"name"`
	ClassName  string  `json:"className"`
	Properties Values  `json:"properties"`
	// SourceFrom is set, and Source left out, when the script's Source is unchanged
	// since the snapshot named by the request's Reuse: it is the script's handle there.
	SourceFrom string `json:"sourceFrom,omitempty"`
	// SourceHash is set, and Source left out, when the Source's git blob id is one
	// of the request's KnownSources.
	SourceHash string `json:"sourceHash,omitempty"`
	// EditorSha1 is set for a script whose document is open in Studio's Script Editor
	// with text other than its Source (unsaved edits): the git blob id of that text.
	// An apply that writes or removes the script is refused until it is saved or
	// closed. A delta carries the script again whenever its document opens, changes
	// or closes; a record without it means no such text.
	EditorSha1 string `json:"editorSha1,omitempty"`
}

// SnapshotResult is a snapshot's answer (its partial frames joined).
type SnapshotResult struct {
	Instances  []SnapshotInstance `json:"instances"`
	SnapshotID string             `json:"snapshotId"`
	// Unchanged means nothing changed since the snapshot SnapshotID: Instances is
	// empty and that snapshot (and its handles) still stands.
	Unchanged bool `json:"unchanged,omitempty"`
	// Delta means Instances, Removed and Children are the changes since the snapshot
	// named by the request's Reuse; that snapshot's handles of the instances still in
	// scope stay the same. Instances are the added instances and the changed ones
	// (each whole, with its parent: a known handle with another parent was moved),
	// parents before children; Removed are handles no longer in scope (their
	// descendants that are not listed again go with them); Children give, for each
	// parent whose children in scope were added, removed or moved, their handles in
	// GetChildren order.
	Delta    bool                `json:"delta,omitempty"`
	Removed  []string            `json:"removed,omitempty"`
	Children map[string][]string `json:"children,omitempty"`
}

// SnapshotPart is the result of a snapshot's partial frame: instances only.
type SnapshotPart struct {
	Instances []SnapshotInstance `json:"instances"`
}

// ApplyParams is an apply request: every op's preconditions are checked, then all
// ops are applied in one undoable recording, or none. A stage request has the same
// params: the plugin keeps the ops for the apply that names them, and checks and
// writes nothing.
type ApplyParams struct {
	TxID string `json:"txId"`
	Ops  []Op   `json:"ops"`
	// Staged: the ops are the ones a stage request gave under TxID (Ops is empty).
	Staged bool `json:"staged,omitempty"`
	// Append (a stage request): the ops go after those staged under TxID already
	// (CapabilityStageAppend).
	Append bool `json:"append,omitempty"`
	// OpCount (an apply with Staged): how many ops are staged under TxID; a plugin
	// that holds another number applies nothing (CapabilityStageAppend).
	OpCount int `json:"opCount,omitempty"`
	// OpsJSON, when set, is Ops as EncodeOps gave them (the journal's copy): they
	// are sent as they are, not encoded again.
	OpsJSON json.RawMessage `json:"-"`
}

// AppendJSON appends the params' JSON (as json.Marshal reads back), encoding Ops
// with EncodeOps unless OpsJSON holds them.
func (p ApplyParams) AppendJSON(b []byte) ([]byte, error) {
	ops := p.OpsJSON
	if len(ops) == 0 {
		ops = nil
	}
	if ops == nil && p.Ops != nil {
		var err error
		if ops, err = EncodeOps(p.Ops); err != nil {
			return nil, err
		}
	}
	b = append(b, `{"txId":`...)
	b = AppendString(b, p.TxID)
	b = append(b, `,"ops":`...)
	if ops == nil {
		b = append(b, "null"...)
	}
	b = append(b, ops...)
	if p.Staged {
		b = append(b, `,"staged":true`...)
	}
	if p.Append {
		b = append(b, `,"append":true`...)
	}
	if p.OpCount != 0 {
		b = append(b, `,"opCount":`...)
		b = strconv.AppendInt(b, int64(p.OpCount), 10)
	}
	return append(b, '}'), nil
}

// StageResult is the plugin's answer to a stage request: the ops it keeps.
type StageResult struct {
	TxID string `json:"txId"`
	Ops  int    `json:"ops"`
}

// CapabilityStage is the hello capability of a plugin that answers stage requests
// and applies with Staged.
const CapabilityStage = "stage"

// CapabilityStageAppend is the hello capability of a plugin that takes an apply's ops
// in several stage requests (ApplyParams.Append) and checks ApplyParams.OpCount.
const CapabilityStageAppend = "stageAppend"

// OpKind says what an apply op does.
type OpKind string

// The op kinds.
const (
	OpEdit   OpKind = "edit"   // set properties of Handle (Name renames)
	OpAdd    OpKind = "add"    // create Instance under Parent
	OpRemove OpKind = "remove" // remove Handle (Parent = nil, so Ctrl+Z restores it)
)

// Op is one Studio operation.
type Op struct {
	Op       OpKind       `json:"op"`
	Handle   string       `json:"handle,omitempty"`
	Parent   string       `json:"parent,omitempty"`
	Expect   *Expect      `json:"expect,omitempty"`
	Set      Values       `json:"set,omitempty"`
	Instance *NewInstance `json:"instance,omitempty"`
	// ChangeID is the plan change the op comes from; the plugin ignores it, the
	// journal keeps it.
	ChangeID string `json:"changeId,omitempty"`
}

// Expect is what an op expects to overwrite.
type Expect struct {
	// SourceSha1 is the git blob SHA-1 of the Source the host expects.
	SourceSha1 string `json:"sourceSha1,omitempty"`
	// Properties are compared as the host compares them (dom.EqualJSON).
	Properties Values `json:"properties,omitempty"`
}

// NewInstance is an instance subtree to create.
type NewInstance struct {
	Name       string         `json:"name"`
	ClassName  string         `json:"className"`
	Properties Values         `json:"properties"`
	Children   []*NewInstance `json:"children"`
}

// ApplyResult is a successful apply.
type ApplyResult struct {
	TxID    string     `json:"txId"`
	Results []OpResult `json:"results"`
}

// OpResult is one op's outcome; Handle names a newly added instance root.
type OpResult struct {
	Op     int    `json:"op"`
	OK     bool   `json:"ok"`
	Handle string `json:"handle,omitempty"`
}

// Failure is one failed precondition, as E_PRECONDITION_FAILED's details.failures
// lists them. Expected and Actual are a Source hash or a tagged value (Actual null
// when the property is absent).
type Failure struct {
	Op       int    `json:"op"`
	Handle   string `json:"handle"`
	Field    string `json:"field"`
	Expected any    `json:"expected"`
	Actual   any    `json:"actual"`
	// Unknown names (up to 5, by full name) the descendants a remove would take that
	// the latest snapshot did not send (field "Descendants").
	Unknown []string `json:"unknown,omitempty"`
	// Editor marks a script whose text in the Script Editor (unsaved, or a
	// collaborative draft) differs from its Source, which the op would lose (field
	// "Source"; Actual is the editor text's blob id). Descendant names the script
	// under the op's instance, relative to it with "/", when a remove would take it.
	Editor     bool   `json:"editor,omitempty"`
	Descendant string `json:"descendant,omitempty"`
}

// StaleHandle is an op whose handle (or parent handle) no longer names a live
// instance, as E_NOT_FOUND's details.failures lists them.
type StaleHandle struct {
	Op     int    `json:"op"`
	Handle string `json:"handle"`
}

// TransactionsResult lists the transactions the plugin applied, newest last.
type TransactionsResult struct {
	TxIDs []string `json:"txIds"`
}

// GetScriptParams names a script by Handle or by Path; Draft reads the unsaved
// editor text when the script is open.
type GetScriptParams struct {
	Handle string   `json:"handle,omitempty"`
	Path   []string `json:"path,omitempty"`
	// Ordinals, with Path, picks among same-named siblings: for each name, the
	// index (from 0, in GetChildren order) among the children of that name. Absent,
	// the first of each name.
	Ordinals []int `json:"ordinals,omitempty"`
	Draft    bool  `json:"draft"`
}

// GetScriptResult is a script's text as Studio has it.
type GetScriptResult struct {
	Source     string   `json:"source"`
	SourceSha1 string   `json:"sourceSha1"`
	ClassName  string   `json:"className"`
	IsDraft    bool     `json:"isDraft"`
	Path       []string `json:"path"`
}

// ExecParams runs Luau code in Studio.
type ExecParams struct {
	Code string `json:"code"`
}

// ExecResult is what running code gave; a script error is data (Success false).
// Values has one entry per returned value: its tagged encoding
// ({"Vector3":[0,5,0]}), or null for a value that has none (a table, a function,
// nil); Returns keeps each value's tostring. A plugin older than Values sends none.
type ExecResult struct {
	Success bool              `json:"success"`
	Output  []OutputLine      `json:"output"`
	Returns []string          `json:"returns"`
	Values  []json.RawMessage `json:"values,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// OutputLine is one line a script printed; Level is print, warn or error.
type OutputLine struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// ReviewMode is how the review panel asks the person.
type ReviewMode string

// The review modes.
const (
	ReviewStandard ReviewMode = "standard"
	ReviewManual   ReviewMode = "manual"
)

// ReviewParams shows a plan's changes in the plugin's review panel.
type ReviewParams struct {
	PlanHash string         `json:"planHash"`
	Changes  []*plan.Change `json:"changes"`
	Mode     ReviewMode     `json:"mode"`
}

// Decision is the person's answer to a review.
type Decision string

// The decisions.
const (
	Accept Decision = "accept"
	Abort  Decision = "abort"
)

// ReviewResult is the person's decision, with a direction (push, pull or skip)
// per change id.
type ReviewResult struct {
	Decision   Decision                  `json:"decision"`
	Selections map[string]plan.Direction `json:"selections"`
}

// PingResult answers a ping: the plugin's os.clock().
type PingResult struct {
	Time float64 `json:"time"`
}

// QueryParams names one instance, by Path (names from game) with Ordinals picking
// among same-named siblings (as GetScriptParams), and says what to read of it and
// of its descendants down to Depth levels (0: the instance alone).
type QueryParams struct {
	Path     []string `json:"path"`
	Ordinals []int    `json:"ordinals,omitempty"`
	Depth    int      `json:"depth"`
	// Children lists the children (name, class, child count) of the deepest
	// instances returned.
	Children   bool `json:"children"`
	Attributes bool `json:"attributes"`
	Tags       bool `json:"tags"`
	// Properties are the properties to read by exact class name, each with its
	// type, as SnapshotParams.Properties.
	Properties   map[string]map[string]string `json:"properties"`
	ListServices bool                         `json:"listServices"`
	// MaxNodes bounds the instances returned (the rest is cut: Truncated).
	MaxNodes int `json:"maxNodes,omitempty"`
}

// QueryNode is one instance a query returns. Ordinal is its index among its
// same-named siblings (0 for the first, in GetChildren order). Properties holds
// tagged values; Unreadable names the asked properties Studio would not read.
// Duplicates names the children that share their name with a sibling, and how many. Children is
// absent below the depth asked unless Children listed them (without properties).
type QueryNode struct {
	Name        string       `json:"name"`
	ClassName   string       `json:"className"`
	Ordinal     int          `json:"ordinal"`
	ChildCount  int          `json:"childCount"`
	Properties  Values       `json:"properties,omitempty"`
	Unreadable  []string     `json:"unreadable,omitempty"`
	Attributes  Values       `json:"attributes,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
	Duplicates  []Duplicate  `json:"duplicates,omitempty"`
	Children    []*QueryNode `json:"children,omitempty"`
	ChildrenCut bool         `json:"childrenCut,omitempty"`
}

// Duplicate is a name Count children share.
type Duplicate struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// QueryService is one of game's services, for ListServices.
type QueryService struct {
	Name      string `json:"name"`
	ClassName string `json:"className"`
}

// QueryResult is the instance a query named, with what was asked of it.
// Truncated says MaxNodes cut the tree.
type QueryResult struct {
	Instance  *QueryNode     `json:"instance"`
	Services  []QueryService `json:"services,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
}

// LogsParams reads the plugin's ring buffer of Output messages
// (LogService.MessageOut): the Count newest (Direction "newest") or oldest
// ("oldest") entries whose Seq is above Since and whose level is in Levels (all
// when empty).
type LogsParams struct {
	Count     int      `json:"count"`
	Direction string   `json:"direction"`
	Levels    []string `json:"levels,omitempty"`
	Since     int64    `json:"since,omitempty"`
}

// LogEntry is one Output message: Seq counts every message the plugin saw since it
// started (from 1), Time is Unix seconds, Level is output, info, warning or error
// (Enum.MessageType).
type LogEntry struct {
	Seq   int64   `json:"seq"`
	Time  float64 `json:"time"`
	Level string  `json:"level"`
	Text  string  `json:"text"`
}

// LogsResult are the entries asked for, oldest first, with the number of messages
// seen since the plugin started (TotalSeen) and the ring buffer's capacity.
type LogsResult struct {
	Entries   []LogEntry `json:"entries"`
	TotalSeen int64      `json:"totalSeen"`
	Capacity  int        `json:"capacity"`
}

// StateResult is what Studio is doing: RunMode is Edit, Play, Run or Paused
// (from RunService), Context the DataModel the plugin runs in.
type StateResult struct {
	RunMode   string `json:"runMode"`
	Context   string `json:"context"`
	PlaceID   int64  `json:"placeId"`
	PlaceName string `json:"placeName"`
	GameID    int64  `json:"gameId"`
}
