package mcpserver

const instructions = `Atlas keeps a Roblox Studio place and a Rojo project in git in sync, transactionally.
Workflow: sync_plan (read-only: every difference, with a confirmToken) → inspect the changes →
for a conflict, get_script to read Studio's version and merge (then sync_plan again: the file
changed) → sync_apply with yes:true, the latest token, and overrides that carry the studioHash you saw. Nothing is written without proof that it
overwrites exactly what the plan showed; if anything moved, apply refuses and you plan again.
To look into Studio: studio_state (run mode, sessions), studio_query (an instance's properties as
tagged values, attributes, tags, children), studio_logs (the Output log); run_code for the rest.
A running playtest's server and client are read-only sessions: name them with context or sessionId.
sync_undo reverts a transaction; the resource atlas://transactions lists them.`

const descPlan = `Plan a sync between the project on disk and the place in Roblox Studio. Read-only.
Returns every difference (changes[]: id, path, className, patchType Add|Edit|Remove from disk to
Studio, direction push|pull|null, reason from a three-way comparison with the git base, studioHash,
diskHash, baseHash, fsPath, properties {current (Studio), incoming (disk), base}) and a short-lived
confirmToken bound to this exact plan (planHash, expiresAt).
Next: inspect; for direction null (both_changed, delete_edit_conflict, no_base) call get_script to
read Studio's text, merge into the file if needed (then plan again), and decide push/pull/skip;
then sync_apply.
Guards also leave changes null on purpose: place_changed (Studio holds another or an empty place:
deletions of files, and every change to disk in a place with another marker or id; see
session.placeCheck) and mass_delete hold back deletions of files; duplicate_name holds back pulls of
same-named siblings (rename one in Studio); project_node_removed and studio_mass_delete hold back
deletions in Studio (what the project file no longer declares; too many files deleted on disk). Carry those out only when the person asks for it.`

const descApply = `Apply a plan from sync_plan: pass its confirmToken and yes: true. Atlas recomputes
the plan and refuses (E_CONFIRM_TOKEN_MISMATCH) if anything moved since, checks each override's
preconditions (studioHash, diskHash, expectedProperties: E_PRECONDITION_FAILED on mismatch), refuses
unresolved changes (E_UNRESOLVED) unless skipUnresolved, then writes Studio and disk, both or neither.
Overrides: [{id, direction: push|pull|skip, studioHash: the hash you saw}] — include studioHash
whenever you overwrite Studio's version of a script. A token works once and expires in minutes.`

const descGetScript = `Read a script's Source as it is in Roblox Studio now, by id (from a plan) or
fsPath (the script's file in the project). fromDraft: true reads the unsaved editor text if the script
is open. Returns source, studioHash (git blob SHA-1 of the source: pass it as the override's
studioHash when you apply), className, instancePath, id, fsPath, isDraft.
Errors: E_NOT_FOUND, E_NOT_A_SCRIPT; an fsPath outside the project is refused.`

const descAtlasSync = `Sync in one step. mode (default standard): dryrun (plan only, nothing written);
fastfail (apply if every change resolves by default or by your overrides; otherwise nothing is
written and the result is an error, E_UNRESOLVED with reasonCode fastfail_unresolved, whose data
still lists every change, the unresolved ids, each failed override precondition, and in
details.unwritable the changes made in Studio that no file can hold, with why); standard
(apply if every change resolves, otherwise show the plan in Studio's review panel and wait for the
person); manual (always ask the person in Studio). An override whose studioHash, diskHash or
expectedProperties no longer hold leaves its change unresolved. Statuses: success, empty, dryrun,
fastfail_unresolved, rejected, error. For careful work prefer sync_plan + sync_apply.`

const descRunCode = `Run Luau code in Roblox Studio (plugin security) and return what it printed,
output[] with levels as studio_logs names them (output for print, warning for warn, error), and
what it returned: returns[] as tostring text, values[] in the tagged encoding
({"Vector3":[0,5,0]}, {"Float64":2}, null for a table, function or Instance). A script error is
returned as data (success: false), not as a tool failure. Calls on one session take turns. It can
change the place: prefer sync for edits that belong in git. To read properties, prefer
studio_query. Targets the edit session unless sessionId or context (server, client: a running
playtest, read-only for sync) names another.`

const descStatus = `Show the Atlas host, the project, and the connected Studio sessions (id, placeId,
placeName), plus open transactions. Read-only. Use a session id with other tools when several Studio
windows are connected.`

const descDrift = `Report drift: work in Studio that git does not have (studio_changed, both_changed,
new_in_studio, deleted_in_studio, delete_edit_conflict). With staged: true, only drift touching files
staged for commit is listed as blocking. Read-only.`
