package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// FileOp is one write to the project folder. Paths are relative to the project
// folder and use '/'.
type FileOp struct {
	Path string
	// Data is the new content of a file; nil with Delete and for folders.
	Data []byte
	// Delete removes the file, or with Dir the folder and whatever is left in it.
	Delete bool
	// Dir says Path is a folder: created when Delete is false (Data nil), removed
	// when it is true.
	Dir bool
	// Expect guards the write: the git blob id of the file's current bytes, or ""
	// when the file must not exist yet. It is always "" for folders: a folder to
	// delete has each file in it listed before it as a Delete with its Expect.
	Expect string
}

// Refusal is a pulled change that the project's files cannot hold, or that a
// person should make by hand. Reason is a stable snake_case code; Msg says why and
// what to do.
type Refusal struct {
	Path   string // the instance's path in the tree, names joined with '/'
	Reason string
	Msg    string
}

func (r *Refusal) Error() string {
	if r.Path == "" {
		return r.Msg
	}
	return r.Path + ": " + r.Msg
}

// The reasons of a Refusal.
const (
	ReasonClassChanged     = "class_changed"       // ClassName differs
	ReasonNameChanged      = "name_changed"        // Name differs (a rename is a remove and an add)
	ReasonGeneratedSource  = "generated_source"    // Source generated from a .json/.toml/.yaml file
	ReasonSourceNotLoaded  = "source_not_loaded"   // the Studio side carries no Source text
	ReasonInModelFile      = "in_model_file"       // stored inside a .model.json/.rbxmx file
	ReasonNotOnDisk        = "not_on_disk"         // the instance has no file
	ReasonPropertyRemoved  = "property_removed"    // Studio has no value and the file cannot drop it
	ReasonUnwritableValue  = "unwritable_value"    // the value has no form in a file
	ReasonParentNotAFolder = "parent_not_a_folder" // the new instance's parent is not a folder
	ReasonUnsafeName       = "unsafe_name"         // the name cannot be a file name everywhere
	ReasonPathExists       = "path_exists"         // a file or folder is already where the new one goes
	ReasonDuplicateName    = "duplicate_name"      // a sibling already has that name
	ReasonNoFileForm       = "no_file_form"        // the project's settings give no file for the class
	ReasonProjectNode      = "project_node"        // the instance is declared in a project file
	ReasonSymlink          = "symlink"             // the folder to delete is or holds a symbolic link
	ReasonUnmanagedFiles   = "unmanaged_files"     // the folder to delete holds files no instance comes from
	ReasonIgnoredPath      = "ignored_path"        // the new file would match the project's globIgnorePaths
)

// notUTF8 refuses to write a script's Source or a StringValue's Value that is not
// valid UTF-8: the project reads those files as UTF-8 (as Rojo does), so the file
// would make every later load fail.
func notUTF8(instPath, field string) *Refusal {
	return &Refusal{Path: instPath, Reason: ReasonUnwritableValue,
		Msg: fmt.Sprintf("the %s is not valid UTF-8, and a file holding it could not be loaded back (scripts and text files are read as UTF-8): fix the text in Studio, or push the disk's", field)}
}

func refuse(inst *dom.Instance, reason, format string, args ...any) *Refusal {
	return &Refusal{Path: inst.Path(), Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// PullEdit returns the writes that make disk hold studio's values for fields, the
// names of the properties that differ ("Source" included). A property goes where
// the project sets it today (the project file, a meta file, a model file); one the
// project does not set yet goes to the instance's own meta or model file. A field
// that no file can hold is refused with a *Refusal.
func PullEdit(p *Project, fsys fs.FS, disk, studio *dom.Instance, fields []string) ([]FileOp, error) {
	w := newEditor(fsys)
	for _, f := range fields {
		if err := w.edit(disk, studio, f); err != nil {
			return nil, withPath(err, disk.Path())
		}
	}
	return w.ops(), nil
}

// PullAdd returns the writes that create studio's instance and its subtree on disk
// as a child of diskParent, which must be stored as a folder. Scripts become
// .luau files (a folder with an init file when they have children), Folders
// folders, StringValues .txt files, LocalizationTables .csv files, and anything
// else a .model.json file, or a folder with an init.meta.json when scripts are
// among its descendants so they stay files. Properties beyond what the file holds
// go to a .meta.json beside it. Ref properties are not written: a file cannot
// point at an instance by its Studio id.
func PullAdd(p *Project, fsys fs.FS, diskParent, studio *dom.Instance) ([]FileOp, error) {
	instPath := joinInstancePath(diskParent, studio.Name)
	dir, ok := folderOf(fsys, diskParent)
	if !ok {
		return nil, &Refusal{Path: instPath, Reason: ReasonParentNotAFolder,
			Msg: fmt.Sprintf("the parent %s is not stored as a folder (it is %s), so the new %s has nowhere to go; give the parent a $path to a folder in the project file, or create the file by hand", describeParent(diskParent), describeKind(diskParent), studio.ClassName)}
	}
	for _, c := range diskParent.Children {
		if c.Name == studio.Name {
			return nil, &Refusal{Path: instPath, Reason: ReasonDuplicateName,
				Msg: fmt.Sprintf("the parent already has a child named %q on disk; rename one of them in Studio so every sibling has its own name", studio.Name)}
		}
	}
	a := &adder{fsys: fsys, emitLegacy: emitLegacyFor(p, fsys, diskParent, dir), ext: scriptExt(diskParent)}
	taken, err := a.entries(dir)
	if err != nil {
		return nil, err
	}
	if err := a.add(dir, instPath, studio, taken); err != nil {
		return nil, err
	}
	paths := make([]string, len(a.ops))
	for i, op := range a.ops {
		paths[i] = op.Path
	}
	if ig, file := ignoredPath(p, fsys, diskParent, paths); ig != "" {
		return nil, &Refusal{Path: instPath, Reason: ReasonIgnoredPath,
			Msg: fmt.Sprintf("%s would match the globIgnorePaths of %s, so it would not load back; rename the instance in Studio, or change globIgnorePaths", ig, file)}
	}
	return a.ops, nil
}

// withPath sets the instance path of a refusal made where it was not known.
func withPath(err error, path string) error {
	var r *Refusal
	if errors.As(err, &r) && r.Path == "" {
		r.Path = path
	}
	return err
}

// PullRemove returns the deletes that remove disk's instance and its subtree from
// the project: its file and meta files, or its folder with everything in it.
func PullRemove(p *Project, fsys fs.FS, disk *dom.Instance) ([]FileOp, error) {
	if disk.ProjectFile() != "" {
		return nil, refuse(disk, ReasonProjectNode, "the instance is declared in %s; remove its entry from that project file by hand", disk.ProjectFile())
	}
	switch disk.Kind {
	case dom.KindDir, dom.KindInit:
		return removeFolder(fsys, disk)
	case dom.KindScript, dom.KindText, dom.KindCSV, dom.KindJSON, dom.KindTOML, dom.KindYAML:
		return removeFile(fsys, disk)
	case dom.KindModel, dom.KindRbxmx, dom.KindRbxm:
		return deleteOps(fsys, disk.FsPath)
	case dom.KindModelSub, dom.KindInFile:
		return nil, refuse(disk, ReasonInModelFile, "the instance is stored inside the model file %s; edit that file to remove it", disk.FsPath)
	}
	return nil, refuse(disk, ReasonNotOnDisk, "the instance is not stored in a file of the project")
}

// metaExts are the two extensions of a meta file.
var metaExts = []string{".meta.json", ".meta.jsonc"}

// metaName is the instance name Rojo uses to find a file's adjacent meta file: the
// name its file rule gives, which a project key may have replaced since.
func metaName(disk *dom.Instance) string {
	if disk.MetaPath() != "" && dirOf(disk.MetaPath()) == dirOf(disk.FsPath) {
		base := path.Base(disk.MetaPath())
		for _, ext := range metaExts {
			if n, ok := strings.CutSuffix(base, ext); ok {
				return n
			}
		}
	}
	if _, name, ok := classify(&context{}, path.Base(disk.FsPath)); ok {
		return name
	}
	return disk.Name
}
