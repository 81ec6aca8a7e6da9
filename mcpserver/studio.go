package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// The Studio inspection tools (studio_query, studio_logs, studio_state) and
// sync_undo: thin adapters over the engine calls `atlas studio query|logs|state`
// and `atlas sync undo` make.

const descQuery = `Read one instance in Roblox Studio, by path (names from game joined with "/", e.g.
"Workspace/Baseplate"; "" is game) or id (an instance id from a plan or an earlier query). Read-only.
Returns instances[]: the instance first, then its descendants down to depth (default 0), each with
id, path, className, childCount, properties as tagged values ({"Vector3":[0,5,0]}; default every
property a script can read; properties: ["Size","Anchored"] for some, [] for none), attributes, tags,
children (id, name, className, childCount) and duplicates (names siblings share, with each one's id:
a path through them is refused with E_BAD_REQUEST duplicate_path, never guessed: query by id).
A missing path is E_NOT_FOUND with details.nearest (the deepest part of it that exists) and
nearestId. listServices: true also lists game's services. Targets the edit session unless sessionId
or context (server, client: a running playtest) names another.`

const descLogs = `Read Studio's Output log (LogService.MessageOut) as the Atlas plugin kept it since it
started, in a ring buffer of capacity entries. Read-only. entries[] (oldest first): seq, time,
level (output, info, warning, error), text. count (default 50) newest entries, or the oldest with
direction: "oldest"; levels filters; since: a seq (the lastSeq of an earlier call) reads only newer
entries. totalSeen counts every message seen, so totalSeen - capacity were dropped when positive.
Targets the edit session unless sessionId or context (server, client: a running playtest) names one.`

const descState = `What Studio is doing: runMode (Edit, Play, Run, Paused: a running playtest's when
one of the place is connected), placeId, placeName, gameId, and every Atlas session (id, context
edit|server|client, readOnly, runMode). Read-only. A playtest's server and client connect as
read-only sessions: studio_query, studio_logs and run_code can target them with context or
sessionId; sync_plan, sync_apply and sync_undo never do.`

const descUndo = `Undo a committed sync transaction (txId; default the newest not yet undone): put
back, on disk and in Studio, what it overwrote, and only while what it wrote is still there
(E_PRECONDITION_FAILED changed_since otherwise: nothing is changed), and in Studio only in the
place it was applied to (other_place otherwise). Needs yes: true. The journal keeps the last 50
transactions; read atlas://transactions for their ids.`

// QueryIn is studio_query's input.
type QueryIn struct {
	Path         *string  `json:"path,omitempty" jsonschema:"names from game joined with /, e.g. Workspace/Baseplate; empty string: game itself"`
	ID           string   `json:"id,omitempty" jsonschema:"an instance id (changes[].id of a plan, or id from an earlier query)"`
	Depth        int      `json:"depth,omitempty" jsonschema:"levels of descendants to return in full (0: the instance alone)"`
	Properties   []string `json:"properties,omitempty" jsonschema:"property names to read; [\"*\"] (the default) reads every property a script can read; [] none"`
	Attributes   bool     `json:"attributes,omitempty" jsonschema:"return attributes as tagged values"`
	Tags         bool     `json:"tags,omitempty" jsonschema:"return CollectionService tags"`
	Children     bool     `json:"children,omitempty" jsonschema:"list each returned instance's children (id, name, className, childCount)"`
	ListServices bool     `json:"listServices,omitempty" jsonschema:"also list game's services"`
	SessionID    string   `json:"sessionId,omitempty" jsonschema:"Studio session id from studio_state; omit for the edit session"`
	Context      string   `json:"context,omitempty" jsonschema:"edit, server or client: the session of that context (a playtest's server or client)"`
}

func (t *tools) studioQuery(ctx context.Context, in QueryIn) result[host.QueryData] {
	if (in.Path == nil) == (in.ID == "") {
		err := errcode.New(errcode.BadRequest, "give exactly one of path or id").Reason(errcode.ReasonInvalidArguments, errcode.NextFixRequest)
		return result[host.QueryData]{err: err}
	}
	req := host.QueryRequest{SessionID: in.SessionID, Context: in.Context, ID: in.ID, Depth: in.Depth,
		Properties: in.Properties, Attributes: in.Attributes, Tags: in.Tags, Children: in.Children, ListServices: in.ListServices}
	if in.Path != nil {
		req.Path = *in.Path
	}
	d, err := t.eng.Query(ctx, req)
	if err != nil {
		return result[host.QueryData]{err: err}
	}
	summary := ""
	if len(d.Instances) > 0 {
		i := d.Instances[0]
		summary = fmt.Sprintf("%s (%s): %d propert(ies), %d child(ren).", orGame(i.Path), i.ClassName, len(i.Properties), i.ChildCount)
	}
	return result[host.QueryData]{data: d, summary: summary}
}

func orGame(path string) string {
	if path == "" {
		return "game"
	}
	return path
}

// LogsIn is studio_logs' input.
type LogsIn struct {
	Count     int      `json:"count,omitempty" jsonschema:"how many entries (default 50, at most 1000)"`
	Direction string   `json:"direction,omitempty" jsonschema:"newest (default): the last count entries; oldest: the first"`
	Levels    []string `json:"levels,omitempty" jsonschema:"only these levels: output, info, warning, error"`
	Since     int64    `json:"since,omitempty" jsonschema:"only entries whose seq is above this (the lastSeq of an earlier call)"`
	SessionID string   `json:"sessionId,omitempty" jsonschema:"Studio session id from studio_state; omit for the edit session"`
	Context   string   `json:"context,omitempty" jsonschema:"edit, server or client: the session of that context (a playtest's server or client)"`
}

func (t *tools) studioLogs(ctx context.Context, in LogsIn) result[host.LogsData] {
	d, err := t.eng.Logs(ctx, host.LogsRequest{SessionID: in.SessionID, Context: in.Context, Count: in.Count,
		Direction: in.Direction, Levels: in.Levels, Since: in.Since})
	if err != nil {
		return result[host.LogsData]{err: err}
	}
	return result[host.LogsData]{data: d, summary: fmt.Sprintf("%d entr(ies); %d message(s) seen, buffer of %d.", len(d.Entries), d.TotalSeen, d.Capacity)}
}

// StateIn is studio_state's input.
type StateIn struct {
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio session id; omit for the edit session"`
	Context   string `json:"context,omitempty" jsonschema:"edit, server or client: the session of that context"`
}

func (t *tools) studioState(ctx context.Context, in StateIn) result[host.StateData] {
	d, err := t.eng.State(ctx, host.StateRequest{SessionID: in.SessionID, Context: in.Context})
	if err != nil {
		return result[host.StateData]{err: err}
	}
	return result[host.StateData]{data: d, summary: fmt.Sprintf("Studio is in %s mode; %d Atlas session(s).", d.RunMode, len(d.Sessions))}
}

// UndoIn is sync_undo's input.
type UndoIn struct {
	TxID      string `json:"txId,omitempty" jsonschema:"the committed transaction to undo; omit for the newest not yet undone"`
	Yes       bool   `json:"yes,omitempty" jsonschema:"must be true: you confirm the undo"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio (edit) session id; omit when one Studio is connected"`
}

func (t *tools) syncUndo(ctx context.Context, in UndoIn) result[apply.UndoResult] {
	if !in.Yes {
		err := errcode.New(errcode.ConfirmRequired, "sync_undo writes Studio and disk: call it with yes: true").
			Reason(errcode.ReasonConfirmRequired, errcode.NextConfirm).With("tool", "sync_undo")
		return result[apply.UndoResult]{err: err}
	}
	d, err := t.eng.Undo(ctx, host.UndoRequest{SessionID: in.SessionID, TxID: in.TxID})
	if err != nil {
		return result[apply.UndoResult]{err: err}
	}
	return result[apply.UndoResult]{data: d, summary: undoText(d), warnings: d.Warnings}
}

// undoText is sync_undo's summary: what it did in Studio and on disk, one line each.
func undoText(d *apply.UndoResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Undid %s: %d file(s), %d Studio op(s).", d.TxID, d.FilesUndone(), d.StudioOps)
	for _, c := range d.Studio {
		fmt.Fprintf(&b, "\n- Studio: %s %s", c.Action, c.Path)
		if len(c.Properties) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(c.Properties, ", "))
		}
	}
	for _, f := range d.Files {
		fmt.Fprintf(&b, "\n- disk: %s %s", f.Action, f.Path)
	}
	for _, m := range d.Manual {
		fmt.Fprintf(&b, "\n- Studio: %s was removed by the sync; an undo cannot rebuild it (Ctrl+Z in Studio restores it)", m)
	}
	return b.String()
}

// contextEnum lists the contexts a session may be named by.
func contextEnum(s *jsonschema.Schema) {
	if p, ok := s.Properties["context"]; ok {
		p.Enum = []any{"edit", "server", "client"}
	}
}

// queryInput bounds depth and names the properties' wildcard.
func queryInput(s *jsonschema.Schema) {
	contextEnum(s)
	s.Properties["depth"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["depth"].Maximum = jsonschema.Ptr(float64(host.MaxQueryDepth))
}

// logsInput bounds count and lists the directions and levels.
func logsInput(s *jsonschema.Schema) {
	contextEnum(s)
	s.Properties["count"].Minimum = jsonschema.Ptr(1.0)
	s.Properties["count"].Maximum = jsonschema.Ptr(float64(host.MaxLogCount))
	s.Properties["direction"].Enum = []any{"newest", "oldest"}
	levels := make([]any, len(host.LogLevels))
	for i, l := range host.LogLevels {
		levels[i] = l
	}
	s.Properties["levels"].Items.Enum = levels
	s.Properties["since"].Minimum = jsonschema.Ptr(0.0)
}
