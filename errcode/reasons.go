package errcode

// Reason is a stable snake_case code that says why a command refused or failed:
// an error's details.reasonCode. Scripts and agents branch on it; never rename one.
// An error without one gets its code's name in snake case in the envelope
// ("E_BUSY" → "busy").
type Reason string

// Confirm tokens (package token).
const (
	// ReasonMissing: apply was given no confirm token.
	ReasonMissing Reason = "missing"
	// ReasonTokenRequired: apply was given no confirm token (said by the host and
	// the CLI before the token store is asked).
	ReasonTokenRequired Reason = "token_required"
	// ReasonMalformed: the token is not a well-formed confirm token (or a claim is
	// missing); also a spend of claims Verify did not return.
	ReasonMalformed Reason = "malformed"
	// ReasonAlgorithm: the token is signed with another algorithm than HS256.
	ReasonAlgorithm Reason = "algorithm"
	// ReasonSignature: the signature is not this project's key's.
	ReasonSignature Reason = "signature"
	// ReasonIssuer: the token was not issued by Atlas.
	ReasonIssuer Reason = "issuer"
	// ReasonNotYetValid: the token's issue time is in the future.
	ReasonNotYetValid Reason = "not_yet_valid"
	// ReasonExpired: the token's exp has passed.
	ReasonExpired Reason = "expired"
	// ReasonWrongProject: the token was issued for another project.
	ReasonWrongProject Reason = "wrong_project"
	// ReasonWrongSession: the token was issued against another Studio session.
	ReasonWrongSession Reason = "wrong_session"
	// ReasonSpent: the token was already used by a successful apply.
	ReasonSpent Reason = "spent"
	// ReasonMissingPlanHash: a token was asked for without a plan hash.
	ReasonMissingPlanHash Reason = "missing_plan_hash"
	// ReasonMissingSession: a token was asked for without a Studio session.
	ReasonMissingSession Reason = "missing_session"
	// ReasonBadTTL: a token was asked for with a lifetime out of range.
	ReasonBadTTL Reason = "bad_ttl"
	// ReasonRandom: the system's random source failed.
	ReasonRandom Reason = "random"
	// ReasonSign: signing the token failed.
	ReasonSign Reason = "sign"
	// ReasonMissingProject: the token store was opened without a project id.
	ReasonMissingProject Reason = "missing_project"
	// ReasonMissingDir: the token store was opened without a folder.
	ReasonMissingDir Reason = "missing_dir"
	// ReasonStateDir: the state folder cannot be created, or a transaction's
	// journal in it cannot be written (or read): no permission, a read-only mount,
	// a file where a folder goes.
	ReasonStateDir Reason = "state_dir"
	// ReasonKeyWrite: the project's token key cannot be written.
	ReasonKeyWrite Reason = "key_write"
	// ReasonKeyInvalid: the project's token key cannot be read or is not a key.
	ReasonKeyInvalid Reason = "key_invalid"
	// ReasonLedgerIO: the ledger of spent tokens cannot be read or written.
	ReasonLedgerIO Reason = "ledger_io"
)

// Apply and undo (package apply).
const (
	// ReasonPlanChanged: the plan of now is not the plan the token confirms;
	// details.appeared, vanished and changed name what moved.
	ReasonPlanChanged Reason = "plan_changed"
	// ReasonBadOverride: an override has no id, a direction other than push, pull
	// or skip, names a change twice, or expects a property value that is no value
	// of that property (details.invalid: id, property, error).
	ReasonBadOverride Reason = "bad_override"
	// ReasonBadOverrides: an overrides file is not one JSON array of override
	// objects with nothing after it (null, an object, trailing text), or cannot be read.
	ReasonBadOverrides Reason = "bad_overrides"
	// ReasonUnknownID: an override names a change that is not in the plan.
	ReasonUnknownID Reason = "unknown_id"
	// ReasonOverridePrecondition: an override's studioHash, diskHash or
	// expectedProperties does not hold; details.failures lists them.
	ReasonOverridePrecondition Reason = "override_precondition"
	// ReasonUnresolved: changes have no direction; details.ids lists them.
	ReasonUnresolved Reason = "unresolved"
	// ReasonClassChangeLosesChildren: pushing a class change would delete Studio
	// children the project does not have.
	ReasonClassChangeLosesChildren Reason = "class_change_loses_children"
	// ReasonRemoveLosesChildren: Studio refused to remove an instance that holds
	// descendants no plan showed (unmanaged ones, or ones added since the snapshot);
	// details.failures lists them (field "Descendants").
	ReasonRemoveLosesChildren Reason = "remove_loses_children"
	// ReasonClassChangeLosesState: Studio refused to replace an instance for a class
	// change because it has attributes or tags no plan compared, which the new
	// instance would not have; details.failures lists them.
	ReasonClassChangeLosesState Reason = "class_change_loses_state"
	// ReasonParentNotOnDisk: a pulled instance's parent is not on disk.
	ReasonParentNotOnDisk Reason = "parent_not_on_disk"
	// ReasonDiskMoved: a file changed after the plan was recomputed.
	ReasonDiskMoved Reason = "disk_moved"
	// ReasonDiskNotWritable: a folder the apply writes in cannot be written.
	ReasonDiskNotWritable Reason = "disk_not_writable"
	// ReasonDiskCommitFailed: Studio was written but disk could not be finished;
	// the transaction stays open and the host finishes it when it starts.
	ReasonDiskCommitFailed Reason = "disk_commit_failed"
	// ReasonStudioLostDuringApply: Studio stopped answering after the patch was
	// sent; the transaction stays open until Studio says what it applied.
	ReasonStudioLostDuringApply Reason = "studio_lost_during_apply"
	// ReasonStudioMoved: Studio refused the patch because something changed there
	// (a precondition failed, or an instance left).
	ReasonStudioMoved Reason = "studio_moved"
	// ReasonStudioUnsavedEdit: Studio refused the patch because a script it writes
	// or removes has text in the Script Editor that differs from its saved Source
	// (an open editor's unsaved text, or a collaborative draft), which the write
	// would lose. Planning again does not help until the person saves it.
	ReasonStudioUnsavedEdit Reason = "studio_unsaved_edit"
	// ReasonStudioApplyFailed: an op failed in Studio, which rolled the patch back.
	ReasonStudioApplyFailed Reason = "studio_apply_failed"
	// ReasonNothingToUndo: no committed, not yet undone transaction matches.
	ReasonNothingToUndo Reason = "nothing_to_undo"
	// ReasonChangedSince: what a transaction wrote changed since, so undo would
	// overwrite newer work.
	ReasonChangedSince Reason = "changed_since"
	// ReasonOtherPlace: an undo named (or found) a Studio session that does not hold
	// the place the transaction was applied to.
	ReasonOtherPlace Reason = "other_place"
	// ReasonNoOpenTransaction: sync recover found no open transaction (or none
	// with the id it was given).
	ReasonNoOpenTransaction Reason = "no_open_transaction"
	// ReasonSeveralTransactions: several transactions are open and none was
	// named; details.txIds lists them.
	ReasonSeveralTransactions Reason = "several_transactions"
	// ReasonPlaceChanged: the unresolved changes are deletions on disk held back
	// because Studio holds another place than the last sync, or an empty one.
	ReasonPlaceChanged Reason = "place_changed"
	// ReasonMassDelete: the unresolved changes are deletions on disk held back
	// because together they would remove too much (a whole mapped folder, or more
	// files than the thresholds allow).
	ReasonMassDelete Reason = "mass_delete"
	// ReasonProjectNodeRemoved: the unresolved changes are deletions in Studio of
	// instances the base's project file declared and the project file no longer
	// declares (plan's data.guards.projectNodeRemoved).
	ReasonProjectNodeRemoved Reason = "project_node_removed"
	// ReasonStudioMassDelete: the unresolved changes are deletions in Studio of files
	// deleted on disk, held back because there are too many (plan's
	// data.guards.studioMassDelete).
	ReasonStudioMassDelete Reason = "studio_mass_delete"
	// ReasonMergeConflict: changes held back because git holds their files in
	// conflict (a merge, rebase, cherry-pick or stash apply stopped on them).
	ReasonMergeConflict Reason = "merge_conflict"
	// ReasonNameTooLong: pushes held back because they would give an instance in
	// Studio a name longer than it takes (100 bytes).
	ReasonNameTooLong Reason = "name_too_long"
	// ReasonInt64NotWritable: pushes held back because they would write an Int64
	// value no Studio script can write as it is (past 2^53).
	ReasonInt64NotWritable Reason = "int64_not_writable"
	// ReasonServiceNotRemovable: a pushed deletion of a service, which Studio
	// cannot delete (its Parent is locked).
	ReasonServiceNotRemovable Reason = "service_not_removable"
)

// Pulled changes the project's files cannot hold (package project's Refusal).
const (
	// ReasonClassChanged: a pull would change an instance's class.
	ReasonClassChanged Reason = "class_changed"
	// ReasonNameChanged: a pull would rename an instance (a remove and an add).
	ReasonNameChanged Reason = "name_changed"
	// ReasonGeneratedSource: the Source is generated from a .json, .toml or .yaml
	// file.
	ReasonGeneratedSource Reason = "generated_source"
	// ReasonSourceNotLoaded: Studio sent no Source for the script.
	ReasonSourceNotLoaded Reason = "source_not_loaded"
	// ReasonInModelFile: the instance is stored inside a model file.
	ReasonInModelFile Reason = "in_model_file"
	// ReasonNotOnDisk: the instance has no file.
	ReasonNotOnDisk Reason = "not_on_disk"
	// ReasonPropertyRemoved: Studio has no value and the file cannot drop it.
	ReasonPropertyRemoved Reason = "property_removed"
	// ReasonUnwritableValue: the value has no form in a file.
	ReasonUnwritableValue Reason = "unwritable_value"
	// ReasonParentNotAFolder: the new instance's parent is not a folder.
	ReasonParentNotAFolder Reason = "parent_not_a_folder"
	// ReasonUnsafeName: the name cannot be a file name on every system.
	ReasonUnsafeName Reason = "unsafe_name"
	// ReasonPathExists: a file or folder is already where the new one goes.
	ReasonPathExists Reason = "path_exists"
	// ReasonDuplicateName: a sibling has the same name (ignoring case on a file
	// system that does): which file is whose is a guess; details.duplicates names
	// the changes and their siblings.
	ReasonDuplicateName Reason = "duplicate_name"
	// ReasonNoFileForm: the project's settings give no file for the class.
	ReasonNoFileForm Reason = "no_file_form"
	// ReasonProjectNode: the instance is declared in a project file.
	ReasonProjectNode Reason = "project_node"
	// ReasonSymlink: the file or folder to write or delete is, or holds, a symbolic
	// link inside the project; Atlas never replaces a link with a file.
	ReasonSymlink Reason = "symlink"
	// ReasonUnmanagedFiles: the folder a pull would delete holds files no instance
	// comes from (notes, images, a file saved there since the plan).
	ReasonUnmanagedFiles Reason = "unmanaged_files"
	// ReasonIgnoredPath: the file a pull would create matches the project's
	// globIgnorePaths, so it would not load back.
	ReasonIgnoredPath Reason = "ignored_path"
)

// The project and its base (packages project and host).
const (
	// ReasonNoProject: no project file was found.
	ReasonNoProject Reason = "no_project"
	// ReasonProjectInvalid: the project file or a file it maps is invalid;
	// details.file (and line, column) say where.
	ReasonProjectInvalid Reason = "project_invalid"
	// ReasonNotAPlace: the project's root is not a DataModel.
	ReasonNotAPlace Reason = "not_a_place"
	// ReasonBadRevision: the base revision asked for names no commit, or none that
	// holds the project (no repository, no commit yet, the project file not in it).
	ReasonBadRevision Reason = "bad_revision"
	// ReasonBaseInvalid: the project does not load at the base commit.
	ReasonBaseInvalid Reason = "base_invalid"
	// ReasonOutsideProject: a path leaves the project folder.
	ReasonOutsideProject Reason = "outside_project"
	// ReasonNotFound: no instance or file matches what was named.
	ReasonNotFound Reason = "not_found"
	// ReasonNotAScript: the instance named is not a script.
	ReasonNotAScript Reason = "not_a_script"
)

// Hosts, Studio sessions and the emulator (packages host and bridge).
const (
	// ReasonNoHost: no host is running for the project, or it does not answer.
	ReasonNoHost Reason = "no_host"
	// ReasonOutcomeUnknown: the host went away (killed, crashed) after an apply,
	// undo or recover reached it, before it answered (details.call): whether it was
	// done is unknown; the next host finishes or rolls back what it left open.
	ReasonOutcomeUnknown Reason = "outcome_unknown"
	// ReasonHostRunning: another host already serves the project.
	ReasonHostRunning Reason = "host_running"
	// ReasonPortInUse: the port cannot be listened on.
	ReasonPortInUse Reason = "port_in_use"
	// ReasonBusy: another mutating command is running for the project.
	ReasonBusy Reason = "busy"
	// ReasonTransactionPending: an earlier transaction is still open
	// (details.txId, details.waiting): Studio's place has not reconnected to show
	// whether it holds the patch, Studio holds part of it, or its files are not all
	// written yet.
	ReasonTransactionPending Reason = "transaction_pending"
	// ReasonNoStudio: no Studio session is connected.
	ReasonNoStudio Reason = "no_studio"
	// ReasonSeveralStudios: several Studio sessions are connected and none was
	// named; details.sessions lists them.
	ReasonSeveralStudios Reason = "several_studios"
	// ReasonStudioNotConnected: no Studio session is connected (said by the bridge).
	ReasonStudioNotConnected Reason = "studio_not_connected"
	// ReasonSessionNotConnected: the named Studio session is not connected;
	// details.sessions lists those that are.
	ReasonSessionNotConnected Reason = "session_not_connected"
	// ReasonSeveralSessions: several sessions are connected (said by the bridge).
	ReasonSeveralSessions Reason = "several_sessions"
	// ReasonNoSessionInContext: no session of the context asked (edit by default;
	// server or client when named) is connected; details.sessions lists those that are.
	ReasonNoSessionInContext Reason = "no_session_in_context"
	// ReasonSessionContextMismatch: the session named by id is not in the context
	// named with it.
	ReasonSessionContextMismatch Reason = "session_context_mismatch"
	// ReasonReadOnlySession: a sync, apply or undo named a playtest's session.
	ReasonReadOnlySession Reason = "read_only_session"
	// ReasonDuplicatePath: a path names an instance through same-named siblings;
	// details.duplicates lists them with their ids.
	ReasonDuplicatePath Reason = "duplicate_path"
	// ReasonStudioDisconnected: the Studio session ended during the request.
	ReasonStudioDisconnected Reason = "studio_disconnected"
	// ReasonPayloadTooLarge: a request or a plugin frame is over its size limit.
	ReasonPayloadTooLarge Reason = "payload_too_large"
	// ReasonStudioTimeout: Studio did not answer within the request timeout
	// (details.timeoutSeconds); nothing waits longer.
	ReasonStudioTimeout Reason = "studio_timeout"
	// ReasonNoEmulator: the Studio emulator (with its node modules) was not found.
	ReasonNoEmulator Reason = "no_emulator"
	// ReasonNoNode: Node.js, which runs the emulator, is not installed.
	ReasonNoNode Reason = "no_node"
)

// Requests and the CLI's own refusals (packages host, mcpserver and cmd/atlas).
const (
	// ReasonBadRequest: a request's fields are missing, extra or malformed.
	ReasonBadRequest Reason = "bad_request"
	// ReasonUsage: a command's flags or arguments are wrong.
	ReasonUsage Reason = "usage"
	// ReasonBadMode: atlas_sync was given an unknown mode.
	ReasonBadMode Reason = "bad_mode"
	// ReasonBadOutput: the output file's extension names no known format.
	ReasonBadOutput Reason = "bad_output"
	// ReasonConfirmRequired: a command that writes was not confirmed.
	ReasonConfirmRequired Reason = "confirm_required"
	// ReasonNotConfirmed: the person answered no when asked to confirm.
	ReasonNotConfirmed Reason = "not_confirmed"
	// ReasonForeignHook: a git hook Atlas did not write is in the way.
	ReasonForeignHook Reason = "foreign_hook"
	// ReasonBadIndexFile: the git index file a drift request names (indexFile; the
	// hook's GIT_INDEX_FILE) is not a file inside the repository's git folder, or
	// the project is in no repository; details.indexFile.
	ReasonBadIndexFile Reason = "bad_index_file"
	// ReasonNoRepo: the command needs a git repository and there is none.
	ReasonNoRepo Reason = "no_repo"
	// ReasonNoStudioHere: Roblox Studio's plugins folder was not found on this
	// machine.
	ReasonNoStudioHere Reason = "no_studio_here"
	// ReasonBadInput: a file named on the command line has the wrong kind (its
	// extension names no format the command reads).
	ReasonBadInput Reason = "bad_input"
	// ReasonBadArgs: a command was given more or other positional arguments than
	// it takes.
	ReasonBadArgs Reason = "bad_args"
	// ReasonFilesExist: the command would overwrite existing files (details.files)
	// and was not told to.
	ReasonFilesExist Reason = "files_exist"
	// ReasonNoStateDir: no per-user state folder could be found (no
	// ATLAS_STATE_DIR, no home folder).
	ReasonNoStateDir Reason = "no_state_dir"
	// ReasonInvalidArguments: an MCP tool's arguments do not match its
	// inputSchema.
	ReasonInvalidArguments Reason = "invalid_arguments"
	// ReasonFastfailUnresolved: atlas_sync in fastfail mode found changes without
	// a direction (details.ids) or overrides whose preconditions fail
	// (details.failures), and applied nothing.
	ReasonFastfailUnresolved Reason = "fastfail_unresolved"
	// ReasonBadPlaceFile: a place or model file cannot be read (details.file).
	ReasonBadPlaceFile Reason = "bad_place_file"
)

// The emulator's runtime and the user's machine (packages plugin, internal/…).
const (
	// ReasonNoCache: no writable per-user cache folder for the emulator's files.
	ReasonNoCache Reason = "no_cache"
	// ReasonNodeBroken: node is on PATH but does not run (details.path).
	ReasonNodeBroken Reason = "node_broken"
	// ReasonNodeTooOld: node is older than the emulator needs (details.version).
	ReasonNodeTooOld Reason = "node_too_old"
	// ReasonBadPath: a file path is not a clean path relative to the project
	// folder.
	ReasonBadPath Reason = "bad_path"
	// ReasonSymlinkOutsideProject: a symbolic link on the way to a file leads
	// outside the project folder (details.link, details.target).
	ReasonSymlinkOutsideProject Reason = "symlink_outside_project"
	// ReasonProjectFolder: the project folder cannot be opened.
	ReasonProjectFolder Reason = "project_folder"
	// ReasonBadTag: a file operation was given no transaction tag (a bug).
	ReasonBadTag Reason = "bad_tag"
	// ReasonFileInUse: another program holds the file open and it cannot be
	// renamed (Windows; details.file).
	ReasonFileInUse Reason = "file_in_use"
	// ReasonDiskFull: the disk (or the user's quota) is full.
	ReasonDiskFull Reason = "disk_full"
)
