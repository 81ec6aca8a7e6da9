package plan

// PatchType says, from the disk→Studio point of view, how an instance differs.
type PatchType string

// The patch types.
const (
	// Add: the instance is on disk, not in Studio.
	Add PatchType = "Add"
	// Edit: the instance is on both sides, with different managed fields.
	Edit PatchType = "Edit"
	// Remove: the instance is in Studio, not on disk.
	Remove PatchType = "Remove"
)

// Direction is which side a change writes. The empty Direction is unresolved (JSON
// null in a plan).
type Direction string

// The directions.
const (
	// Push makes Studio match disk.
	Push Direction = "push"
	// Pull makes disk match Studio.
	Pull Direction = "pull"
	// Skip leaves both sides as they are; only an override or a review gives it
	// (and a plan's defaultSelection for an unresolved change).
	Skip Direction = "skip"
)

// Reason is why a change got its default direction: a row of the decision table
// (ARCHITECTURE §4). Drift reports the reasons that mean Studio moved away from the
// base (StudioMoved).
type Reason string

// The reasons of the decision table.
const (
	// DiskChanged: disk differs from the base, Studio does not: push.
	DiskChanged Reason = "disk_changed"
	// StudioChanged: Studio differs from the base, disk does not: pull.
	StudioChanged Reason = "studio_changed"
	// BothChanged: both sides differ from the base (or their fields disagree):
	// unresolved.
	BothChanged Reason = "both_changed"
	// NewOnDisk: on disk only, and not in the base: push (Add).
	NewOnDisk Reason = "new_on_disk"
	// NewInStudio: in Studio only, and not in the base: pull (Remove).
	NewInStudio Reason = "new_in_studio"
	// DeletedOnDisk: in the base and Studio, gone from disk, Studio same as the
	// base: push (Remove).
	DeletedOnDisk Reason = "deleted_on_disk"
	// DeletedInStudio: in the base and on disk, gone from Studio, disk same as the
	// base: pull (Add).
	DeletedInStudio Reason = "deleted_in_studio"
	// DeleteEditConflict: deleted on one side and edited on the other: unresolved.
	DeleteEditConflict Reason = "delete_edit_conflict"
	// NoBase: there is no base (no repository, no commit, or the path is untracked
	// on both sides): unresolved.
	NoBase Reason = "no_base"
)

// The reasons of the guards that override the table (ARCHITECTURE §4): each leaves
// a change the table would pull unresolved, so that only a person's explicit
// choice (an override, --prefer, the review panel) can carry it out.
const (
	// PlaceChanged: a deletion on disk while Studio holds another place than the
	// last successful sync, or a place without the project's instances.
	PlaceChanged Reason = "place_changed"
	// MassDelete: a deletion on disk among many: together they would remove a
	// whole mapped folder or service, or more files than the thresholds allow
	// (MassDeleteFiles, MassDeleteShare).
	MassDelete Reason = "mass_delete"
	// DuplicateName: a pull of an instance that has a sibling of the same name
	// (ignoring case where the file system does): both would map to one path, and
	// siblings of one name are paired by order, so which file is whose is a guess.
	DuplicateName Reason = "duplicate_name"
	// ProjectNode: a deletion in Studio of an instance a project file declares
	// (a $path folder, a $className node): no file can be removed for it, and the
	// apply would refuse it (project.PullRemove); push restores it in Studio.
	ProjectNode Reason = "project_node"
	// InModelFile: a deletion in Studio of an instance stored inside a model file,
	// with the file's other instances: the same.
	InModelFile Reason = "in_model_file"
	// ProjectNodeRemoved: a deletion in Studio (a push) of an instance the base's
	// project file declared (a service, a $path folder, a $className node) that the
	// project file no longer declares: an edit of the project file, or an empty or
	// truncated one, would delete whole services or folders in Studio, with what
	// Studio holds there that the project never managed.
	ProjectNodeRemoved Reason = "project_node_removed"
	// StudioMassDelete: a deletion in Studio (a push of files deleted on disk) among
	// many: together they would remove a whole mapped folder, or more of the base's
	// files than the thresholds of MassDelete allow.
	StudioMassDelete Reason = "studio_mass_delete"
	// RenameUnwritable: a deletion in Studio (a pull, deleting the file) of an
	// instance beside a Studio-only one of the same class that the files cannot
	// take (Guards.Unwritable): together they may be a rename in Studio, and the
	// pull would delete the file without writing the new one.
	RenameUnwritable Reason = "rename_unwritable"
	// MergeConflict: a push or a pull of an instance whose file git holds in
	// conflict (a merge, rebase, cherry-pick or stash apply stopped on it): the
	// file may hold conflict markers, and Studio would get them, or the pull
	// would write over the resolution under way.
	MergeConflict Reason = "merge_conflict"
	// NameTooLong: a push that would give an instance in Studio a name longer
	// than Studio takes (MaxNameLength bytes: "The name of an instance cannot
	// exceed 100 characters"): Studio refuses the write, and the apply would fail.
	NameTooLong Reason = "name_too_long"
	// Int64NotWritable: a push of an Int64 value no Studio script can write as it
	// is (Luau's numbers are doubles: past 2^53 only some integers are one, and
	// 2^63 - 1 is not): Studio would get the nearest double, and the change would
	// never be in step again, or the apply would fail.
	Int64NotWritable Reason = "int64_not_writable"
)

// MaxNameLength is the longest instance name Studio takes, in bytes.
const MaxNameLength = 100

// StudioMoved reports whether r means Studio moved away from the base: work in
// Studio that git does not have (what drift reports). That is every reason but
// the table's rows where only disk moved (or nothing tells), and the guards that
// hold back pushes: the guards that hold back pulls (PlaceChanged, MassDelete,
// DuplicateName, ProjectNode, InModelFile, and the refusals of Guards.Unwritable)
// hold back work done in Studio.
func (r Reason) StudioMoved() bool {
	switch r {
	case "", DiskChanged, NewOnDisk, DeletedOnDisk, NoBase, ProjectNodeRemoved, StudioMassDelete, MergeConflict, NameTooLong, Int64NotWritable:
		return false
	}
	return true
}

// PlaceState says whether the connected Studio holds the place of the project's
// last successful sync.
type PlaceState string

// The place states.
const (
	// PlaceUnknown: no sync is remembered, or nothing tells the places apart.
	PlaceUnknown PlaceState = "unknown"
	// PlaceSame: the place of the last successful sync (same marker, or same id).
	PlaceSame PlaceState = "same"
	// PlaceDifferent: another place than the last successful sync's.
	PlaceDifferent PlaceState = "different"
	// PlaceEmpty: Studio holds none of the project's scripts (none of its files'
	// instances when it has no scripts): a new place, or the wrong one.
	PlaceEmpty PlaceState = "empty"
)
