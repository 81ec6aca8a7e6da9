package errcode

// NextAction is a stable identifier of something to do after a refusal: an
// element of details.nextActions. Engine packages give identifiers only; each
// surface renders its own hint from them (the CLI names commands and flags, MCP
// names tools and arguments). This is the one list of them; docs/ERRORS.md shows
// how each surface renders them.
type NextAction string

// The next actions.
const (
	// NextReplan: plan again, review the changes, and apply with the new plan's
	// confirm token.
	NextReplan NextAction = "replan"
	// NextPassToken: give apply the confirm token of a plan.
	NextPassToken NextAction = "pass_token"
	// NextConfirm: confirm explicitly, after inspecting the plan.
	NextConfirm NextAction = "confirm"
	// NextReadStudioScript: read Studio's current version of the script, merge it,
	// and apply with the studioHash seen.
	NextReadStudioScript NextAction = "read_studio_script"
	// NextPassOverride: choose a direction (push, pull or skip) for each change
	// listed in details.ids, with overrides.
	NextPassOverride NextAction = "pass_override"
	// NextSkipUnresolved: leave the changes without a direction as they are.
	NextSkipUnresolved NextAction = "skip_unresolved"
	// NextSelectSession: name the Studio session to use (details.sessions lists
	// the connected ones).
	NextSelectSession NextAction = "select_session"
	// NextShowStatus: look at the host's status: its Studio sessions and open
	// transactions.
	NextShowStatus NextAction = "show_status"
	// NextStartHost: start a host for the project.
	NextStartHost NextAction = "start_host"
	// NextRestartHost: restart the host; it finishes open transactions on start.
	NextRestartHost NextAction = "restart_host"
	// NextUseRunningHost: another host serves the project: use it, or stop it.
	NextUseRunningHost NextAction = "use_running_host"
	// NextPickPort: listen on another port (0 picks a free one).
	NextPickPort NextAction = "pick_port"
	// NextConnectStudio: open the place in Roblox Studio with the Atlas plugin (or
	// start the emulator).
	NextConnectStudio NextAction = "connect_studio"
	// NextResolveTransaction: resolve an open transaction (details.txId): look at
	// it and finish or abort it (sync recover), or reconnect Studio with the same
	// place so Atlas finishes or rolls it back by what Studio holds.
	NextResolveTransaction NextAction = "resolve_transaction"
	// NextWait: another command is running: wait for it, then try again.
	NextWait NextAction = "wait"
	// NextRetry: try again.
	NextRetry NextAction = "retry"
	// NextFixProject: fix the project file (details.file, line and column).
	NextFixProject NextAction = "fix_project"
	// NextPassProject: run inside a Rojo project, or name its project file.
	NextPassProject NextAction = "pass_project"
	// NextPassBase: name a base revision that exists and whose project loads.
	NextPassBase NextAction = "pass_base"
	// NextPassScript: name a script by its instance id or by its file.
	NextPassScript NextAction = "pass_script"
	// NextFixPermissions: make the folder writable (permissions, free space).
	NextFixPermissions NextAction = "fix_permissions"
	// NextResetTokenKey: delete the project's token key to make a new one; tokens
	// issued with the old key stop working.
	NextResetTokenKey NextAction = "reset_token_key"
	// NextFixRequest: correct the request's flags or arguments, as the message says.
	NextFixRequest NextAction = "fix_request"
	// NextSendLess: send less in one request; split the work.
	NextSendLess NextAction = "send_less"
	// NextInstallEmulator: install the Studio emulator's node modules, or say
	// where it is.
	NextInstallEmulator NextAction = "install_emulator"
	// NextInstallNode: install Node.js, which runs the emulator.
	NextInstallNode NextAction = "install_node"
	// NextBuildPlugin: build the plugin file and copy it into Studio's plugins
	// folder by hand.
	NextBuildPlugin NextAction = "build_plugin"
	// NextEditHook: add the drift check to the existing git hook by hand.
	NextEditHook NextAction = "edit_hook"
	// NextUseGitRepo: run inside the project's git repository.
	NextUseGitRepo NextAction = "use_git_repo"
	// NextStopHost: stop the other host of the project (details.pid) first.
	NextStopHost NextAction = "stop_host"
	// NextFreeDisk: free space on the disk (or raise the quota).
	NextFreeDisk NextAction = "free_disk"
	// NextCloseFile: close the file (details.file) in the program that holds it
	// open.
	NextCloseFile NextAction = "close_file"
	// NextFixSymlink: replace the symbolic link (details.link) with a real file or
	// folder, or move the files into the project folder.
	NextFixSymlink NextAction = "fix_symlink"
	// NextSetStateDir: set ATLAS_STATE_DIR (or HOME) to a writable folder.
	NextSetStateDir NextAction = "set_state_dir"
	// NextSetCacheDir: set ATLAS_CACHE_DIR to a writable folder.
	NextSetCacheDir NextAction = "set_cache_dir"
	// NextResaveFile: open the file in Roblox Studio and save it again, or name
	// another file.
	NextResaveFile NextAction = "resave_file"
	// NextPassForce: allow overwriting the listed files (their old bytes are kept),
	// or write into an empty folder.
	NextPassForce NextAction = "pass_force"
	// NextPassTx: name the transaction to resolve (details.txIds lists the open
	// ones).
	NextPassTx NextAction = "pass_tx"
	// NextRenameInStudio: give each of the same-named siblings (details.duplicates)
	// its own name in Studio, then plan again.
	NextRenameInStudio NextAction = "rename_in_studio"
	// NextSaveInStudio: save or close the scripts (details.failures[] with editor:
	// true) in Studio's Script Editor, or commit their collaborative drafts, then
	// plan again; or leave those changes out.
	NextSaveInStudio NextAction = "save_in_studio"
)

// AllNextActions lists every next action, in the order declared above.
var AllNextActions = []NextAction{
	NextReplan, NextPassToken, NextConfirm, NextReadStudioScript, NextPassOverride,
	NextSkipUnresolved, NextSelectSession, NextShowStatus, NextStartHost, NextRestartHost,
	NextUseRunningHost, NextPickPort, NextConnectStudio, NextResolveTransaction, NextWait,
	NextRetry, NextFixProject, NextPassProject, NextPassBase, NextPassScript,
	NextFixPermissions, NextResetTokenKey, NextFixRequest, NextSendLess, NextInstallEmulator,
	NextInstallNode, NextBuildPlugin, NextEditHook, NextUseGitRepo, NextStopHost,
	NextFreeDisk, NextCloseFile, NextFixSymlink, NextSetStateDir, NextSetCacheDir,
	NextResaveFile, NextPassForce, NextPassTx, NextRenameInStudio, NextSaveInStudio,
}
