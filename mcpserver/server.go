package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// MaxArgumentBytes caps the arguments of one tool call.
const MaxArgumentBytes = 4 << 20

// ProtocolVersions are the MCP revisions Atlas speaks, newest first. They are the
// revisions with the initialize handshake; an initialize asking for any other is
// answered with the first, the newest (as the MCP lifecycle asks).
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// New returns an MCP server whose tools call eng.
func New(eng host.Engine, version string) *mcp.Server {
	s, _ := newServer(eng, version)
	return s
}

func newServer(eng host.Engine, version string) (*mcp.Server, []registered) {
	s := mcp.NewServer(&mcp.Implementation{Name: "atlas", Title: "Atlas: Roblox Studio ⇄ git sync", Version: version}, &mcp.ServerOptions{
		Instructions:              instructions,
		SupportedProtocolVersions: ProtocolVersions,
	})
	t := &tools{eng: eng}
	no, yes := false, true
	reg := []registered{
		addTool(s, &mcp.Tool{Name: "sync_plan", Description: descPlan,
			Annotations: &mcp.ToolAnnotations{Title: "Plan a sync", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
			host.CommandPlan, nil, t.syncPlan),
		addTool(s, &mcp.Tool{Name: "sync_apply", Description: descApply,
			Annotations: &mcp.ToolAnnotations{Title: "Apply a planned sync", DestructiveHint: &yes, OpenWorldHint: &no}},
			host.CommandApply, overrideDirections, t.syncApply),
		addTool(s, &mcp.Tool{Name: "get_script", Description: descGetScript,
			Annotations: &mcp.ToolAnnotations{Title: "Read a script in Studio", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
			host.CommandScript, nil, t.getScript),
		addTool(s, &mcp.Tool{Name: "atlas_sync", Description: descAtlasSync,
			Annotations: &mcp.ToolAnnotations{Title: "Sync in one step", DestructiveHint: &yes, OpenWorldHint: &no}},
			"atlas_sync", syncModes, t.atlasSync),
		addTool(s, &mcp.Tool{Name: "run_code", Description: descRunCode,
			Annotations: &mcp.ToolAnnotations{Title: "Run Luau in Studio", DestructiveHint: &yes, OpenWorldHint: &no}},
			host.CommandExec, contextEnum, t.runCode),
		addTool(s, &mcp.Tool{Name: "studio_status", Description: descStatus,
			Annotations: &mcp.ToolAnnotations{Title: "Studio connection status", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
			host.CommandStatus, nil, t.studioStatus),
		addTool(s, &mcp.Tool{Name: "drift", Description: descDrift,
			Annotations: &mcp.ToolAnnotations{Title: "Studio drift", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
			host.CommandDrift, nil, t.drift),
		addTool(s, &mcp.Tool{Name: "studio_query", Description: descQuery,
			Annotations: &mcp.ToolAnnotations{Title: "Read an instance in Studio", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
			host.CommandQuery, queryInput, t.studioQuery),
		addTool(s, &mcp.Tool{Name: "studio_logs", Description: descLogs,
			Annotations: &mcp.ToolAnnotations{Title: "Studio's Output log", ReadOnlyHint: true, OpenWorldHint: &no}},
			host.CommandLogs, logsInput, t.studioLogs),
		addTool(s, &mcp.Tool{Name: "studio_state", Description: descState,
			Annotations: &mcp.ToolAnnotations{Title: "Studio's run mode and sessions", ReadOnlyHint: true, OpenWorldHint: &no}},
			host.CommandState, contextEnum, t.studioState),
		addTool(s, &mcp.Tool{Name: "sync_undo", Description: descUndo,
			Annotations: &mcp.ToolAnnotations{Title: "Undo a sync", DestructiveHint: &yes, OpenWorldHint: &no}},
			host.CommandUndo, nil, t.syncUndo),
		addTool(s, &mcp.Tool{Name: "sync_recover", Description: descRecover, Annotations: &mcp.ToolAnnotations{Title: "Resolve an open transaction", DestructiveHint: &yes, OpenWorldHint: &no}}, host.CommandRecover, recoverActions, t.syncRecover),
	}
	commands := map[string]string{}
	for _, r := range reg {
		commands[r.name] = r.command
	}
	s.AddReceivingMiddleware(sizeGuard(commands))
	addResources(s, eng)
	return s, reg
}

// overrideDirections lists the directions an override may take, and lets its
// hashes be null (no check, as when left out: what a plan shows where there is no
// script).
func overrideDirections(s *jsonschema.Schema) {
	o := s.Properties["overrides"].Items.Properties
	o["direction"].Enum = []any{plan.Push, plan.Pull, plan.Skip}
	for _, name := range []string{"studioHash", "diskHash"} {
		o[name] = &jsonschema.Schema{Description: o[name].Description + "; null or left out: no check",
			AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}}
	}
}

// sizeGuard refuses oversized tool arguments before they are decoded, answering
// with the envelope of the tool's command (commands maps tool names to them).
func sizeGuard(commands map[string]string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && len(p.Arguments) > MaxArgumentBytes {
					err := errcode.New(errcode.PayloadTooLarge, "tool arguments are %d bytes; the limit is %d", len(p.Arguments), MaxArgumentBytes).
						Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess)
					command, ok := commands[p.Name]
					if !ok {
						command = p.Name
					}
					return reply(command, result[struct{}]{err: err}), nil
				}
			}
			return next(ctx, method, req)
		}
	}
}

type tools struct{ eng host.Engine }

// PlanIn is sync_plan's input.
type PlanIn struct {
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio session id from studio_status; omit when one Studio is connected"`
	Base      string `json:"base,omitempty" jsonschema:"git revision to compare against (default HEAD)"`
}

func (t *tools) syncPlan(ctx context.Context, in PlanIn) result[host.PlanData] {
	d, err := t.eng.Plan(ctx, host.PlanRequest{SessionID: in.SessionID, Base: in.Base, Files: true})
	if err != nil {
		return result[host.PlanData]{err: err}
	}
	return result[host.PlanData]{data: d, warnings: d.Warnings}
}

// ApplyIn is sync_apply's input.
type ApplyIn struct {
	ConfirmToken   string     `json:"confirmToken,omitempty" jsonschema:"the confirmToken returned by sync_plan"`
	Yes            bool       `json:"yes,omitempty" jsonschema:"must be true: you confirm the plan you inspected"`
	Overrides      []Override `json:"overrides,omitempty" jsonschema:"per-change directions; include the studioHash you saw to prove what you overwrite"`
	SkipUnresolved bool       `json:"skipUnresolved,omitempty" jsonschema:"leave changes without a direction as they are instead of refusing"`
	SessionID      string     `json:"sessionId,omitempty" jsonschema:"Studio session id; omit when one Studio is connected"`
}

func (t *tools) syncApply(ctx context.Context, in ApplyIn) result[host.ApplyData] {
	if !in.Yes {
		err := errcode.New(errcode.ConfirmRequired, "sync_apply writes Studio and disk: call it with yes: true after inspecting the plan").
			Reason(errcode.ReasonConfirmRequired, errcode.NextConfirm)
		return result[host.ApplyData]{err: err}
	}
	d, err := t.eng.Apply(ctx, host.ApplyRequest{SessionID: in.SessionID, Token: in.ConfirmToken, Overrides: convert(in.Overrides), SkipUnresolved: in.SkipUnresolved})
	if err != nil {
		return result[host.ApplyData]{err: err}
	}
	return result[host.ApplyData]{data: d, warnings: d.Warnings}
}

// Override is one per-change direction with optional preconditions.
type Override struct {
	ID                 string         `json:"id" jsonschema:"the change id from the plan"`
	Direction          string         `json:"direction" jsonschema:"push (Studio takes disk's version), pull (disk takes Studio's version) or skip"`
	StudioHash         *string        `json:"studioHash,omitempty" jsonschema:"the studioHash you saw (from the plan or get_script); apply refuses if Studio now differs"`
	DiskHash           *string        `json:"diskHash,omitempty" jsonschema:"the diskHash you saw; apply refuses if the file now differs"`
	ExpectedProperties map[string]any `json:"expectedProperties,omitempty" jsonschema:"property values you expect Studio to have now, tagged ({\"Bool\":true}) or plain"`
}

func convert(in []Override) []apply.Override {
	out := make([]apply.Override, 0, len(in))
	for _, o := range in {
		ao := apply.Override{ID: o.ID, Direction: plan.Direction(o.Direction), StudioHash: o.StudioHash, DiskHash: o.DiskHash}
		if o.ExpectedProperties != nil {
			ao.ExpectedProperties = map[string]json.RawMessage{}
			for k, v := range o.ExpectedProperties {
				b, _ := json.Marshal(v)
				ao.ExpectedProperties[k] = b
			}
		}
		out = append(out, ao)
	}
	return out
}

// ScriptIn is get_script's input.
type ScriptIn struct {
	ID        string `json:"id,omitempty" jsonschema:"instance id (changes[].id of a plan)"`
	FsPath    string `json:"fsPath,omitempty" jsonschema:"the script's file, relative to the project folder"`
	FromDraft bool   `json:"fromDraft,omitempty" jsonschema:"read the unsaved editor text if the script is open in Studio"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio session id; omit when one Studio is connected"`
}

func (t *tools) getScript(ctx context.Context, in ScriptIn) result[host.ScriptData] {
	d, err := t.eng.Script(ctx, host.ScriptRequest{SessionID: in.SessionID, ID: in.ID, FsPath: in.FsPath, Draft: in.FromDraft})
	if err != nil {
		return result[host.ScriptData]{err: err}
	}
	return result[host.ScriptData]{data: d}
}

// RunIn is run_code's input.
type RunIn struct {
	Code      string `json:"code" jsonschema:"Luau code to run in Studio; print/warn output and returned values come back"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio session id; omit for the edit session"`
	Context   string `json:"context,omitempty" jsonschema:"edit, server or client: the session of that context (a playtest's server or client)"`
}

func (t *tools) runCode(ctx context.Context, in RunIn) result[host.ExecData] {
	d, err := t.eng.Exec(ctx, host.ExecRequest{SessionID: in.SessionID, Context: in.Context, Code: in.Code})
	if err != nil {
		return result[host.ExecData]{err: err}
	}
	return result[host.ExecData]{data: d}
}

// StatusIn is studio_status's input (none).
type StatusIn struct{}

func (t *tools) studioStatus(ctx context.Context, _ StatusIn) result[host.StatusData] {
	d, err := t.eng.Status(ctx)
	if err != nil {
		return result[host.StatusData]{err: err}
	}
	return result[host.StatusData]{data: d}
}

// DriftIn is drift's input.
type DriftIn struct {
	Staged    bool   `json:"staged,omitempty" jsonschema:"only drift touching files staged for commit blocks"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Studio session id; omit when one Studio is connected"`
}

func (t *tools) drift(ctx context.Context, in DriftIn) result[host.DriftData] {
	d, err := t.eng.Drift(ctx, host.DriftRequest{SessionID: in.SessionID, Staged: in.Staged})
	if err != nil {
		return result[host.DriftData]{err: err}
	}
	summary := "No Studio drift."
	switch {
	case !d.Connected:
		summary = d.Message
	case d.Drift:
		summary = fmt.Sprintf("Studio has %d change(s) that git does not have.", len(d.Changes))
	}
	return result[host.DriftData]{data: d, summary: summary}
}
