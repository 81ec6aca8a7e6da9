package main

import (
	"fmt"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
)

// cliHints are the CLI's words for each next action of a refusal: the commands and
// flags that do it. failWith prints them as "next:" lines.
var cliHints = map[errcode.NextAction]string{
	errcode.NextReplan:             "run 'atlas sync plan' again, review the changes, and apply with its new token",
	errcode.NextPassToken:          "run 'atlas sync plan' and pass its confirmToken with --token",
	errcode.NextConfirm:            "review the plan, then run 'atlas sync --yes' or 'atlas sync apply --token …'",
	errcode.NextReadStudioScript:   "read Studio's version with 'atlas script get --id ID', merge it, and pass the studioHash you saw in --overrides",
	errcode.NextPassOverride:       "pass --override ID=push|pull|skip for each listed change",
	errcode.NextSkipUnresolved:     "or pass --skip-unresolved to leave the changes without a direction as they are",
	errcode.NextSelectSession:      "pass --session ID, or --context edit|server|client where the command takes it (see 'atlas studio state')",
	errcode.NextShowStatus:         "run 'atlas status' to see the Studio sessions and open transactions",
	errcode.NextStartHost:          "start one with 'atlas serve' (or 'atlas serve --emulate' without Roblox Studio)",
	errcode.NextRestartHost:        "restart 'atlas serve': it finishes open transactions when it starts",
	errcode.NextUseRunningHost:     "use the running host, or stop it first",
	errcode.NextPickPort:           "pass --port 0 to pick a free port, or stop what uses the port",
	errcode.NextConnectStudio:      "open the place in Roblox Studio with the Atlas plugin, or run 'atlas serve --emulate'",
	errcode.NextResolveTransaction: "run 'atlas sync recover' to see the open transaction, then 'atlas sync recover --finish' or '--abort' (or reconnect Studio with the same place: Atlas then finishes or rolls it back)",
	errcode.NextWait:               "wait for the running command to finish, then try again",
	errcode.NextRetry:              "run the command again",
	errcode.NextFixProject:         "fix the project file and run the command again",
	errcode.NextPassProject:        "run the command inside a Rojo project (a folder with default.project.json), or pass --project",
	errcode.NextPassBase:           "pass --base with a branch, tag or commit whose project loads",
	errcode.NextPassScript:         "pass --id ID (from 'atlas sync plan' or 'atlas tree --json') or --fs-path PATH of a script file in the project",
	errcode.NextFixPermissions:     "make the folder writable (permissions, free space, read-only mount), then try again",
	errcode.NextResetTokenKey:      "delete the project's token.key in the state folder to make a new key; tokens issued with the old key stop working",
	errcode.NextFixRequest:         "check the flags with 'atlas --help'",
	errcode.NextSendLess:           "send less at once: split the work into several commands",
	errcode.NextInstallEmulator:    "run 'npm ci' in the plugin folder of the Atlas source, or set ATLAS_PLUGIN_DIR",
	errcode.NextInstallNode:        "install Node.js 20 or later",
	errcode.NextBuildPlugin:        "run 'atlas plugin build -o Atlas.rbxmx' and copy the file to Studio's plugins folder: %LOCALAPPDATA%\\Roblox\\Plugins on Windows, ~/Documents/Roblox/Plugins on macOS",
	errcode.NextEditHook:           "add 'atlas drift --staged' to your hook yourself, or move it away and run this again",
	errcode.NextUseGitRepo:         "run this inside the project's git repository",
	errcode.NextStopHost:           "stop the other Atlas host of this project first",
	errcode.NextFreeDisk:           "free space on the disk (or raise the quota), then run the command again",
	errcode.NextCloseFile:          "close the file in the program that holds it open, then run the command again",
	errcode.NextFixSymlink:         "replace the symbolic link with a real file or folder, or move the files into the project folder",
	errcode.NextSetStateDir:        "set ATLAS_STATE_DIR (or HOME) to a folder you can write",
	errcode.NextSetCacheDir:        "set ATLAS_CACHE_DIR to a folder you can write, and run the command again",
	errcode.NextResaveFile:         "open the file in Roblox Studio and save it again, or pass another file",
	errcode.NextPassForce:          "pass --force to overwrite them (their old bytes are kept in the journal), or use an empty folder",
	errcode.NextPassTx:             "pass --tx ID with one of the open transactions ('atlas sync recover' lists them)",
	errcode.NextRenameInStudio:     "give each of the same-named instances its own name in Studio, then run 'atlas sync plan' again",
	errcode.NextSaveInStudio:       "save or close the listed scripts in Studio's Script Editor (or commit their drafts), then run 'atlas sync plan' again; 'atlas script get --draft' shows the unsaved text; or skip those changes",
}

// cliHint renders one next action for a person at a terminal, naming what the
// refusal's details name (a file, a transaction, changes).
func cliHint(next errcode.NextAction, details map[string]any) string {
	h, ok := cliHints[next]
	if !ok {
		return string(next) // an action newer than this CLI: its identifier still says it
	}
	switch next {
	case errcode.NextSaveInStudio:
		if tx, ok := details["txId"].(string); ok && tx != "" {
			return fmt.Sprintf("save or close the listed scripts in Studio's Script Editor (or commit their drafts), then run 'atlas sync undo --tx %s' again", tx)
		}
	case errcode.NextReplan:
		if details["reasonCode"] == string(errcode.ReasonChangedSince) {
			return "what the transaction wrote was changed since, and an undo never overwrites that: run 'atlas sync plan' to see both sides as they are now, and sync them"
		}
	case errcode.NextFixRequest:
		if details["reasonCode"] == string(errcode.ReasonUnknownID) {
			return "drop or correct the --override ids listed: they are none of this plan's changes ('atlas sync plan' lists them)"
		}
	case errcode.NextFixProject:
		if f, ok := details["file"].(string); ok && f != "" {
			return fmt.Sprintf("fix %s and run the command again", f)
		}
	case errcode.NextResolveTransaction:
		if tx, ok := details["txId"].(string); ok && tx != "" {
			return fmt.Sprintf("run 'atlas sync recover --tx %[1]s' to see transaction %[1]s, then add --finish or --abort (or reconnect Studio with the same place: Atlas then finishes or rolls it back)", tx)
		}
	case errcode.NextStopHost:
		if pid, ok := details["pid"].(float64); ok && pid > 0 {
			return fmt.Sprintf("stop the other Atlas host of this project (pid %d) first", int(pid))
		}
		if pid, ok := details["pid"].(int); ok && pid > 0 {
			return fmt.Sprintf("stop the other Atlas host of this project (pid %d) first", pid)
		}
	case errcode.NextCloseFile:
		if f, ok := details["file"].(string); ok && f != "" {
			return fmt.Sprintf("close %s in the program that holds it open, then run the command again", f)
		}
	case errcode.NextFixSymlink:
		if l, ok := details["link"].(string); ok && l != "" {
			return fmt.Sprintf("replace the symbolic link %s with a real file or folder, or move the files into the project folder", l)
		}
	case errcode.NextConnectStudio:
		switch details["hostKind"] {
		case "mcp":
			return "open the place in Roblox Studio with the Atlas plugin, or restart the MCP server as 'atlas mcp --emulate' to use the Studio emulator"
		case "serve":
			return "open the place in Roblox Studio with the Atlas plugin, or stop 'atlas serve' and run 'atlas serve --emulate' to use the Studio emulator"
		}
	case errcode.NextPassOverride:
		if ids := stringList(details["ids"]); len(ids) > 0 && len(ids) <= 3 {
			return fmt.Sprintf("pass --override ID=push|pull|skip for each of %s", strings.Join(ids, ", "))
		}
	}
	return h
}

// stringList reads a details list of strings, as set or as decoded from JSON.
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
