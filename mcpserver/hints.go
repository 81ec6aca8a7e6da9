package mcpserver

import (
	"fmt"
	"strings"

	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/errcode"
)

// mcpHints are an agent's words for each next action of a refusal: the tools and
// arguments that do it.
var mcpHints = map[errcode.NextAction]string{
	errcode.NextReplan:             "call sync_plan again, review the changes, and pass its new confirmToken to sync_apply",
	errcode.NextPassToken:          "call sync_plan and pass its confirmToken to sync_apply",
	errcode.NextConfirm:            "inspect the plan from sync_plan, then call sync_apply with yes: true and its confirmToken",
	errcode.NextReadStudioScript:   "call get_script {id} to read Studio's version, merge it, and pass the studioHash you saw in overrides",
	errcode.NextPassOverride:       "pass overrides: [{id, direction: push|pull|skip}] for each listed change",
	errcode.NextSkipUnresolved:     "or pass skipUnresolved: true to leave the changes without a direction as they are",
	errcode.NextSelectSession:      "pass sessionId, or context (edit, server, client) where the tool takes one; studio_state lists the sessions",
	errcode.NextShowStatus:         "call studio_status to see the Studio sessions and open transactions",
	errcode.NextStartHost:          "start 'atlas serve' in the project, or restart 'atlas mcp' so that it becomes the host",
	errcode.NextRestartHost:        "restart the Atlas host ('atlas serve' or 'atlas mcp'): it finishes open transactions when it starts",
	errcode.NextUseRunningHost:     "another Atlas host serves this project: use it, or stop it first",
	errcode.NextPickPort:           "stop what uses the port, or start the host with --port 0",
	errcode.NextConnectStudio:      "ask the person to open the place in Roblox Studio with the Atlas plugin (or to run 'atlas serve --emulate')",
	errcode.NextResolveTransaction: "call sync_recover to see the open transaction, then sync_recover {action: finish or abort, yes: true} (or ask the person to reconnect Studio with the same place: Atlas then finishes or rolls it back)",
	errcode.NextWait:               "wait for the running command to finish, then call the tool again",
	errcode.NextRetry:              "call the tool again",
	errcode.NextFixProject:         "fix the project file and call the tool again",
	errcode.NextPassProject:        "start 'atlas mcp' inside a Rojo project (a folder with default.project.json), or with --project",
	errcode.NextPassBase:           "pass base: a branch, tag or commit whose project loads",
	errcode.NextPassScript:         "pass id (changes[].id from sync_plan) or fsPath of a script file in the project",
	errcode.NextFixPermissions:     "make the folder writable (permissions, free space, read-only mount), then call the tool again",
	errcode.NextResetTokenKey:      "delete the project's token.key in the state folder to make a new key; tokens issued with the old key stop working",
	errcode.NextFixRequest:         "check the tool's arguments against its input schema",
	errcode.NextSendLess:           "send less in one call: split the work into several calls",
	errcode.NextInstallEmulator:    "run 'npm ci' in the plugin folder of the Atlas source, or set ATLAS_PLUGIN_DIR",
	errcode.NextInstallNode:        "install Node.js 20 or later",
	errcode.NextBuildPlugin:        "run 'atlas plugin build -o Atlas.rbxmx' and copy the file to Roblox Studio's plugins folder",
	errcode.NextEditHook:           "add 'atlas drift --staged' to the git hook by hand",
	errcode.NextUseGitRepo:         "run inside the project's git repository",
	errcode.NextStopHost:           "ask the person to stop the other Atlas host of this project first",
	errcode.NextFreeDisk:           "ask the person to free space on the disk, then call the tool again",
	errcode.NextCloseFile:          "ask the person to close the file in the program that holds it open, then call the tool again",
	errcode.NextFixSymlink:         "ask the person to replace the symbolic link with a real file or folder, or to move the files into the project folder",
	errcode.NextSetStateDir:        "set ATLAS_STATE_DIR (or HOME) in the MCP server's environment to a writable folder",
	errcode.NextSetCacheDir:        "set ATLAS_CACHE_DIR in the MCP server's environment to a writable folder",
	errcode.NextResaveFile:         "ask the person to open the file in Roblox Studio and save it again, or name another file",
	errcode.NextPassForce:          "ask the person whether the listed files may be overwritten, or use an empty folder",
	errcode.NextPassTx:             "pass txId: one of details.txIds (sync_recover lists the open transactions)",
	errcode.NextRenameInStudio:     "ask the person to give each of the same-named instances its own name in Studio (or rename them with run_code), then call sync_plan again",
	errcode.NextSaveInStudio:       "ask the person to save or close the listed scripts in Studio's Script Editor (or commit their drafts), then call sync_plan again; get_script {id, fromDraft: true} shows the unsaved text; or skip those changes with overrides",
}

// mcpHint renders one next action for an agent, naming what the refusal's details
// name (a file, a transaction).
func mcpHint(next errcode.NextAction, details map[string]any) string {
	h, ok := mcpHints[next]
	if !ok {
		return string(next)
	}
	switch next {
	case errcode.NextSaveInStudio:
		if tx, ok := details["txId"].(string); ok && tx != "" {
			return fmt.Sprintf("ask the person to save or close the listed scripts in Studio's Script Editor (or commit their drafts), then call sync_undo {txId: %q, yes: true} again", tx)
		}
	case errcode.NextReplan:
		if details["reasonCode"] == string(errcode.ReasonChangedSince) {
			return "what the transaction wrote was changed since, and an undo never overwrites that: call sync_plan to see both sides as they are now, and sync them"
		}
	case errcode.NextFixRequest:
		if details["reasonCode"] == string(errcode.ReasonUnknownID) {
			return "drop or correct the overrides whose ids are in details.ids: they are none of this plan's changes (sync_plan lists them)"
		}
	case errcode.NextFixProject:
		if f, ok := details["file"].(string); ok && f != "" {
			return fmt.Sprintf("fix %s and call the tool again", f)
		}
	case errcode.NextConnectStudio:
		switch details["hostKind"] {
		case "mcp":
			return "ask the person to open the place in Roblox Studio with the Atlas plugin, or to restart this MCP server as 'atlas mcp --emulate' to use the Studio emulator"
		case "serve":
			return "ask the person to open the place in Roblox Studio with the Atlas plugin, or to restart the host as 'atlas serve --emulate' to use the Studio emulator"
		}
	case errcode.NextConfirm:
		// The tool that asked for the confirmation (sync_undo, sync_recover), if not
		// sync_apply's.
		switch details["tool"] {
		case "sync_undo":
			return "look at the transaction (atlas://transactions), then call sync_undo again with yes: true"
		case "sync_recover":
			return "look at the transaction (sync_recover without action), then call sync_recover again with the action and yes: true"
		}
	case errcode.NextResolveTransaction:
		if tx, ok := details["txId"].(string); ok && tx != "" {
			return fmt.Sprintf("call sync_recover {txId: %q} to see it, then again with action finish or abort and yes: true (or ask the person to reconnect Studio with the same place: Atlas then finishes or rolls it back)", tx)
		}
	}
	return h
}

// addHints gives each error with next actions a details.hint: the actions in an
// agent's words, one sentence. details.nextActions stays the list of identifiers.
func addHints(problems []envelope.Problem) {
	for i := range problems {
		p := &problems[i]
		ce := &errcode.Error{Code: p.Code, Details: p.Details}
		var hints []string
		for _, n := range ce.NextActions() {
			hints = append(hints, mcpHint(n, p.Details))
		}
		if len(hints) > 0 {
			p.Details["hint"] = strings.Join(hints, "; ")
		}
	}
}
