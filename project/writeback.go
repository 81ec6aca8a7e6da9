package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"reflect"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project/format"
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
)

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
	if disk.ProjectFile != "" {
		return nil, refuse(disk, ReasonProjectNode, "the instance is declared in %s; remove its entry from that project file by hand", disk.ProjectFile)
	}
	switch disk.Kind {
	case dom.KindDir, dom.KindInit:
		return removeFolder(fsys, disk)
	case dom.KindScript, dom.KindText, dom.KindCSV, dom.KindJSON, dom.KindTOML, dom.KindYAML:
		ops, err := deleteOps(fsys, disk.FsPath)
		if err != nil {
			return nil, err
		}
		if sharesMeta(disk) {
			return ops, nil
		}
		dir, name := dirOf(disk.FsPath), metaName(disk)
		for _, ext := range []string{".meta.json", ".meta.jsonc"} {
			mp := join(dir, name+ext)
			data, err := fs.ReadFile(fsys, mp)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return nil, fmt.Errorf("read %s: %w", mp, err)
			}
			ops = append(ops, FileOp{Path: mp, Delete: true, Expect: gitblob.Hash(data)})
		}
		return ops, nil
	case dom.KindModel, dom.KindRbxmx, dom.KindRbxm:
		return deleteOps(fsys, disk.FsPath)
	case dom.KindModelSub, dom.KindInFile:
		return nil, refuse(disk, ReasonInModelFile, "the instance is stored inside the model file %s; edit that file to remove it", disk.FsPath)
	}
	return nil, refuse(disk, ReasonNotOnDisk, "the instance is not stored in a file of the project")
}

func deleteOps(fsys fs.FS, p string) ([]FileOp, error) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return []FileOp{{Path: p, Delete: true, Expect: gitblob.Hash(data)}}, nil
}

// sharesMeta reports whether a same-named sibling stored in another file picks up
// the same adjacent meta file, which must then stay.
func sharesMeta(disk *dom.Instance) bool {
	if disk.Parent == nil {
		return false
	}
	for _, c := range disk.Parent.Children {
		if c != disk && c.Name == disk.Name && c.FsPath != disk.FsPath && dirOf(c.FsPath) == dirOf(disk.FsPath) {
			return true
		}
	}
	return false
}

// removeFolder deletes every file under the instance's folder, then the folders,
// deepest first.
func removeFolder(fsys fs.FS, disk *dom.Instance) ([]FileOp, error) {
	root := disk.FsPath
	if root == "" || root == "." || strings.HasPrefix(root, "../") {
		return nil, refuse(disk, ReasonProjectNode, "the instance is the project's own folder; change the project file by hand")
	}
	if st, err := fs.Lstat(fsys, root); err != nil {
		return nil, fmt.Errorf("stat %s: %w", root, err)
	} else if st.Mode()&fs.ModeSymlink != 0 {
		return nil, refuse(disk, ReasonSymlink, "%s is a symbolic link; remove it by hand", root)
	}
	var files []FileOp
	var dirs []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return refuse(disk, ReasonSymlink, "%s is a symbolic link; remove the folder %s by hand", p, root)
		case d.IsDir():
			dirs = append(dirs, p)
		default:
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			files = append(files, FileOp{Path: p, Delete: true, Expect: gitblob.Hash(data)})
		}
		return nil
	})
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, fmt.Errorf("read folder %s: %w", root, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		files = append(files, FileOp{Path: dirs[i], Delete: true, Dir: true})
	}
	return files, nil
}

// metaName is the instance name Rojo uses to find a file's adjacent meta file: the
// name its file rule gives, which a project key may have replaced since.
func metaName(disk *dom.Instance) string {
	if disk.MetaPath != "" && dirOf(disk.MetaPath) == dirOf(disk.FsPath) {
		base := path.Base(disk.MetaPath)
		for _, ext := range []string{".meta.json", ".meta.jsonc"} {
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

// editor collects the edits of PullEdit, one pending content per file.
type editor struct {
	fsys  fs.FS
	files map[string]*pendingFile
	order []string
}

type pendingFile struct {
	path   string
	orig   []byte // current bytes on disk
	exists bool
	data   []byte // content to write; nil while a new file is untouched
	// parsed is data parsed as JSONC, kept until data changes.
	parsed json.RawMessage
}

func (f *pendingFile) set(data []byte) { f.data, f.parsed = data, nil }

func newEditor(fsys fs.FS) *editor {
	return &editor{fsys: fsys, files: map[string]*pendingFile{}}
}

func (w *editor) file(p string) (*pendingFile, error) {
	if f, ok := w.files[p]; ok {
		return f, nil
	}
	f := &pendingFile{path: p}
	data, err := fs.ReadFile(w.fsys, p)
	switch {
	case err == nil:
		f.orig, f.exists, f.data = data, true, data
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	w.files[p] = f
	w.order = append(w.order, p)
	return f, nil
}

func (w *editor) ops() []FileOp {
	var ops []FileOp
	for _, p := range w.order {
		f := w.files[p]
		switch {
		case f.exists && bytes.Equal(f.data, f.orig):
		case f.exists:
			ops = append(ops, FileOp{Path: p, Data: f.data, Expect: gitblob.Hash(f.orig)})
		case f.data != nil:
			ops = append(ops, FileOp{Path: p, Data: f.data})
		}
	}
	return ops
}

// propLayer is a JSON object that sets the instance's properties: a meta file, a model
// file, or a project file's node. Layers are applied in order, so a later one wins.
type propLayer struct {
	file string
	// keys lead from the document's root to the object that holds the keys below.
	keys []string
	// propsKeys are the spellings of the properties key; the first present is used,
	// the first one is written when none is.
	propsKeys []string
	attrsKey  string
}

// layers lists the JSON objects that set disk's properties, in the order they are
// applied, and the one a property nobody sets yet should go to (natural, which
// may not exist yet), or -1 when the instance has none.
func (w *editor) layers(disk *dom.Instance) (ls []propLayer, natural int, err error) {
	meta := func(p string) propLayer {
		return propLayer{file: p, propsKeys: []string{"properties"}, attrsKey: "attributes"}
	}
	natural = -1
	// choose picks the first existing of candidates, else the first.
	choose := func(candidates ...int) error {
		for _, i := range candidates {
			f, err := w.file(ls[i].file)
			if err != nil {
				return err
			}
			if f.data != nil {
				natural = i
				return nil
			}
		}
		natural = candidates[0]
		return nil
	}
	switch disk.Kind {
	case dom.KindScript, dom.KindText, dom.KindCSV, dom.KindJSON, dom.KindTOML, dom.KindYAML:
		dir, name := dirOf(disk.FsPath), metaName(disk)
		ls = append(ls, meta(join(dir, name+".meta.json")), meta(join(dir, name+".meta.jsonc")))
		err = choose(0, 1)
	case dom.KindInit, dom.KindDir:
		dir := disk.FsPath
		if disk.Kind == dom.KindInit {
			name := path.Base(dir)
			ls = append(ls, meta(join(dir, name+".meta.json")), meta(join(dir, name+".meta.jsonc")))
		}
		n := len(ls)
		ls = append(ls, meta(join(dir, "init.meta.json")), meta(join(dir, "init.meta.jsonc")))
		err = choose(n, n+1)
	case dom.KindModel:
		ls = append(ls, propLayer{file: disk.FsPath, propsKeys: []string{"properties", "Properties"}, attrsKey: "attributes"})
		natural = 0
	}
	if err != nil {
		return nil, -1, err
	}
	if disk.ProjectFile != "" {
		keys := append([]string{"tree"}, disk.ProjectKeys...)
		ls = append(ls, propLayer{file: disk.ProjectFile, keys: keys, propsKeys: []string{"$properties"}, attrsKey: "$attributes"})
		// A project node without a file of its own keeps its properties in the
		// project file; so does a $path target whose node already lists some, unless
		// a meta file is there to take them.
		if natural < 0 {
			natural = len(ls) - 1
		} else if f, err := w.file(ls[natural].file); err != nil {
			return nil, -1, err
		} else if f.data == nil {
			obj, err := w.jsonObject(ls[len(ls)-1])
			if err != nil {
				return nil, -1, err
			}
			if _, ok := obj["$properties"]; ok {
				natural = len(ls) - 1
			}
		}
	}
	return ls, natural, nil
}

// jsonObject returns the layer's object, or nil when its file does not exist.
func (w *editor) jsonObject(l propLayer) (map[string]json.RawMessage, error) {
	f, err := w.file(l.file)
	if err != nil || f.data == nil {
		return nil, err
	}
	if f.parsed == nil {
		if f.parsed, err = format.ParseJSONC(f.data); err != nil {
			return nil, fmt.Errorf("parse %s: %w", l.file, err)
		}
	}
	obj, err := objectAt(f.parsed, l.keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.file, err)
	}
	return obj, nil
}

func objectAt(raw json.RawMessage, keys []string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, errors.New("not a JSON object")
	}
	for i, k := range keys {
		v, ok := obj[k]
		if !ok {
			return nil, fmt.Errorf("no key %s", strings.Join(keys[:i+1], "."))
		}
		obj = nil
		if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("%s is not an object", strings.Join(keys[:i+1], "."))
		}
	}
	return obj, nil
}

// props returns the properties key the layer's object uses and its entries.
func (l propLayer) props(obj map[string]json.RawMessage) (string, map[string]json.RawMessage) {
	for _, k := range l.propsKeys {
		if raw, ok := obj[k]; ok {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) == nil && m != nil {
				return k, m
			}
			return k, nil
		}
	}
	return l.propsKeys[0], nil
}

// defines reports whether the layer sets prop.
func (w *editor) defines(l propLayer, prop string) (bool, error) {
	obj, err := w.jsonObject(l)
	if err != nil || obj == nil {
		return false, err
	}
	if _, m := l.props(obj); m != nil {
		if _, ok := m[prop]; ok {
			return true, nil
		}
	}
	if prop == "Attributes" {
		_, ok := obj[l.attrsKey]
		return ok, nil
	}
	return false, nil
}

func (w *editor) edit(disk, studio *dom.Instance, field string) error {
	switch field {
	case "ClassName":
		return refuse(disk, ReasonClassChanged, "the class changed from %s to %s in Studio; a file cannot change class in place: delete the instance and add it again, or change the class back in Studio", disk.ClassName, studio.ClassName)
	case "Name":
		return refuse(disk, ReasonNameChanged, "the name changed in Studio; rename the file by hand or rename it back in Studio")
	}
	switch disk.Kind {
	case dom.KindModelSub, dom.KindInFile, dom.KindRbxm:
		return refuse(disk, ReasonInModelFile, "the instance is stored inside the model file %s; edit that file in Studio and save it again, or edit it by hand", disk.FsPath)
	case dom.KindNone:
		return refuse(disk, ReasonNotOnDisk, "the instance is not stored in a file of the project")
	}
	v := studio.Properties[field]
	ls, natural, err := w.layers(disk)
	if err != nil {
		return err
	}
	var defining []int
	for i, l := range ls {
		ok, err := w.defines(l, field)
		if err != nil {
			return err
		}
		if ok {
			defining = append(defining, i)
		}
	}
	if v == nil {
		return w.removeProp(disk, field, ls, defining)
	}
	if len(defining) > 0 {
		return w.setProp(ls[defining[len(defining)-1]], disk.ClassName, field, v)
	}
	if a, ok := v.(dom.Attributes); ok && len(a) == 0 {
		return nil // no attributes and none set on disk: nothing to write
	}
	if done, err := w.editContent(disk, field, v); done || err != nil {
		return err
	}
	if natural < 0 {
		if disk.Kind == dom.KindRbxmx {
			return refuse(disk, ReasonInModelFile, "the instance is stored inside the model file %s; save it from Studio again, or give its project node a $properties entry", disk.FsPath)
		}
		return refuse(disk, ReasonNotOnDisk, "no file of the project can hold property %s of this instance", field)
	}
	return w.setProp(ls[natural], disk.ClassName, field, v)
}

// content returns the file whose bytes are the instance's field (a script's
// Source, a StringValue's Value, a LocalizationTable's Contents) and its format
// (useModuleScript for any script), or "" when field is not such a content.
func (w *editor) content(disk *dom.Instance, field string) (string, use, error) {
	file, u := disk.FsPath, use("")
	switch disk.Kind {
	case dom.KindScript:
		u = useModuleScript
	case dom.KindText:
		u = useText
	case dom.KindCSV:
		u = useCSV
	case dom.KindJSON, dom.KindTOML, dom.KindYAML:
		if field == "Source" {
			return "", "", refuse(disk, ReasonGeneratedSource, "the Source is generated from the data file %s; edit the data in that file instead of the script", disk.FsPath)
		}
	case dom.KindInit:
		var err error
		if file, u, err = w.initFile(disk.FsPath); err != nil {
			return "", "", err
		}
	}
	if _, _, isScript := scriptClass(u, false); isScript {
		u = useModuleScript
	}
	if want := map[use]string{useModuleScript: "Source", useText: "Value", useCSV: "Contents"}[u]; want == "" || field != want {
		return "", "", nil
	}
	return file, u, nil
}

// editContent writes the instance's own file when field is its content.
func (w *editor) editContent(disk *dom.Instance, field string, v dom.Value) (bool, error) {
	file, u, err := w.content(disk, field)
	if err != nil || file == "" {
		return err != nil, err
	}
	s, ok := v.(dom.String)
	if !ok {
		return true, refuse(disk, ReasonUnwritableValue, "%s is a %s, but the file %s holds a string", field, v.Type(), file)
	}
	f, err := w.file(file)
	if err != nil {
		return true, err
	}
	if !f.exists {
		return true, fmt.Errorf("edit %s: the file does not exist", file)
	}
	switch u {
	case useModuleScript:
		text := string(s)
		if usesCRLF(f.orig) {
			text = strings.ReplaceAll(NormalizeSource(text), "\n", "\r\n")
		}
		f.set([]byte(text))
	case useText:
		f.set([]byte(s))
	case useCSV:
		data, err := format.CSVFromLocalization(string(s))
		if err != nil {
			return true, refuse(disk, ReasonUnwritableValue, "the Contents cannot be written as CSV: %v", err)
		}
		f.set(data)
	}
	return true, nil
}

// initFile returns the init file of a folder the way the loader picks it.
func (w *editor) initFile(dir string) (string, use, error) {
	entries, err := fs.ReadDir(w.fsys, fsName(dir))
	if err != nil {
		return "", "", fmt.Errorf("read folder %s: %w", dir, err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		present[e.Name()] = true
	}
	for _, f := range initFiles {
		if present[f.name] {
			return join(dir, f.name), f.use, nil
		}
	}
	return "", "", nil
}

// usesCRLF reports whether most line endings of data are CRLF.
func usesCRLF(data []byte) bool {
	crlf := bytes.Count(data, []byte("\r\n"))
	return crlf > 0 && crlf >= bytes.Count(data, []byte("\n"))-crlf
}

// setProp writes prop into the layer, creating the meta file if needed.
func (w *editor) setProp(l propLayer, class, prop string, v dom.Value) error {
	f, err := w.file(l.file)
	if err != nil {
		return err
	}
	if f.data == nil {
		doc := jsonObject{}
		if a, ok := v.(dom.Attributes); ok && prop == "Attributes" {
			enc, err := encodeAttributes(a, nil)
			if err != nil {
				return err
			}
			doc = append(doc, jsonMember{l.attrsKey, enc})
		} else {
			enc, err := encodeValue(class, prop, v, nil)
			if err != nil {
				return err
			}
			doc = append(doc, jsonMember{l.propsKeys[0], jsonObject{{prop, enc}}})
		}
		f.set(doc.render())
		return nil
	}
	obj, err := w.jsonObject(l)
	if err != nil {
		return err
	}
	pk, props := l.props(obj)
	keys := append([]string(nil), l.keys...)
	if a, ok := v.(dom.Attributes); ok && prop == "Attributes" {
		if _, inProps := props[prop]; !inProps {
			var existing map[string]json.RawMessage
			if raw, ok := obj[l.attrsKey]; ok {
				if old, err := dom.ResolveAttributes(raw); err == nil && dom.Equal(old, a) {
					return nil
				}
				_ = json.Unmarshal(raw, &existing)
			}
			enc, err := encodeAttributes(a, existing)
			if err != nil {
				return err
			}
			return w.patch(f, append(keys, l.attrsKey), compactObject(enc))
		}
	}
	if props == nil {
		enc, err := encodeValue(class, prop, v, nil)
		if err != nil {
			return err
		}
		return w.patch(f, append(keys, pk), compactObject(jsonObject{{prop, enc}}))
	}
	if raw, ok := props[prop]; ok {
		// An equal value stays as it is written.
		if old, err := dom.ResolveValue(class, prop, raw); err == nil && dom.Equal(old, v) {
			return nil
		}
	}
	enc, err := encodeValue(class, prop, v, props[prop])
	if err != nil {
		return err
	}
	return w.patch(f, append(keys, pk, prop), enc)
}

func (w *editor) patch(f *pendingFile, keys []string, val json.RawMessage) error {
	out, err := format.PatchJSONCValue(f.data, keys, val)
	if err != nil {
		return fmt.Errorf("edit %s at %s: %w", f.path, strings.Join(keys, "."), err)
	}
	parsed, err := format.ParseJSONC(out)
	if err != nil {
		return fmt.Errorf("edit %s at %s: the result does not parse: %w", f.path, strings.Join(keys, "."), err)
	}
	f.data, f.parsed = out, parsed
	return nil
}

// removeProp drops a property Studio no longer has from every layer that sets it.
func (w *editor) removeProp(disk *dom.Instance, prop string, ls []propLayer, defining []int) error {
	if len(defining) == 0 {
		file, _, err := w.content(disk, prop)
		switch {
		case err != nil:
			return err
		case file != "" && prop == "Source":
			return refuse(disk, ReasonSourceNotLoaded, "Studio sent no Source for the script; read it again and retry")
		case file != "":
			return refuse(disk, ReasonPropertyRemoved, "%s has no value in Studio, but the file %s holds it", prop, file)
		}
		return nil
	}
	for _, i := range defining {
		l := ls[i]
		f, err := w.file(l.file)
		if err != nil {
			return err
		}
		obj, err := w.jsonObject(l)
		if err != nil {
			return err
		}
		pk, props := l.props(obj)
		var paths [][]string
		if _, ok := props[prop]; ok {
			paths = append(paths, append(append([]string(nil), l.keys...), pk, prop))
		}
		if _, ok := obj[l.attrsKey]; ok && prop == "Attributes" {
			paths = append(paths, append(append([]string(nil), l.keys...), l.attrsKey))
		}
		for _, keys := range paths {
			out, err := deleteJSONCMember(f.data, keys)
			if err != nil {
				return refuse(disk, ReasonPropertyRemoved, "%s has no value in Studio; remove %s from %s by hand (%v)", prop, strings.Join(keys, "."), l.file, err)
			}
			f.set(out)
		}
	}
	return nil
}

// encodeValue writes v for className.prop: in the implicit form when the value it
// replaces was written that way and v has one, else in the tagged form.
func encodeValue(className, prop string, v dom.Value, existing json.RawMessage) (json.RawMessage, error) {
	if existing != nil && !dom.IsTagged(existing) {
		if imp, ok := implicitForm(className, prop, v); ok {
			return imp, nil
		}
	}
	if dom.NonFinite(v) {
		return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("property %s is infinite or NaN, which a project file cannot hold (Rojo reads no such number)", prop)}
	}
	b, err := dom.Marshal(v)
	if err == nil {
		// What the loader cannot read back would break the whole project.
		var back dom.Value
		if back, err = dom.ResolveValue(className, prop, b); err == nil && !dom.Equal(back, v) {
			err = fmt.Errorf("%s does not read back as the same value", b)
		}
	}
	if err != nil {
		return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("property %s cannot be written to a file: %v", prop, err)}
	}
	return spaced(b), nil
}

// implicitForm returns v's implicit form for className.prop, if it has one that
// reads back as exactly v.
func implicitForm(className, prop string, v dom.Value) (json.RawMessage, bool) {
	var x any
	switch v := v.(type) {
	case dom.Bool:
		x = bool(v)
	case dom.String:
		x = string(v)
	case dom.ContentId:
		x = string(v)
	case dom.Float32:
		x = float32(v)
	case dom.Float64:
		x = float64(v)
	case dom.Int32:
		x = int32(v)
	case dom.Int64:
		if v > 1<<53 || v < -(1<<53) {
			return nil, false
		}
		x = int64(v)
	case dom.Vector2:
		x = [2]float32(v)
	case dom.Vector3:
		x = [3]float32(v)
	case dom.Color3:
		x = [3]float32(v)
	case dom.Tags:
		x = append([]string{}, v...)
	case dom.CFrame:
		o := v.Orientation
		x = [12]float32{v.Position[0], v.Position[1], v.Position[2],
			o[0][0], o[0][1], o[0][2], o[1][0], o[1][1], o[1][2], o[2][0], o[2][1], o[2][2]}
	case dom.Enum:
		typ, enum, ok := dom.PropertyType(className, prop)
		if !ok || typ != "Enum" {
			return nil, false
		}
		e, ok := reflection.LookupEnum(enum)
		if !ok {
			return nil, false
		}
		name, ok := e.ItemName(uint32(v))
		if !ok {
			return nil, false
		}
		x = name
	default:
		return nil, false
	}
	b, err := encodeJSON(x)
	if err != nil {
		return nil, false
	}
	back, err := dom.ResolveValue(className, prop, b)
	if err != nil || !reflect.DeepEqual(back, v) {
		return nil, false
	}
	return spaced(b), true
}

// encodeAttributes writes an attribute map, keeping the shorthand of attributes
// that were written as one.
func encodeAttributes(a dom.Attributes, existing map[string]json.RawMessage) (jsonObject, error) {
	obj := jsonObject{}
	for _, name := range sortedKeys(a) {
		v := a[name]
		switch {
		case strings.HasPrefix(name, "RBX"):
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: names starting with RBX are reserved by Roblox and cannot be written to a file", name)}
		case v == nil || !dom.AttributeTypes[v.Type()]:
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: its type cannot be written to a file", name)}
		}
		var enc json.RawMessage
		if old, ok := existing[name]; ok && !dom.IsTagged(old) {
			switch v := v.(type) {
			case dom.Bool, dom.String:
				enc, _ = encodeJSON(v)
			case dom.Float64:
				if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
					enc, _ = encodeJSON(v)
				}
			}
		}
		if enc == nil && dom.NonFinite(v) {
			return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s is infinite or NaN, which a project file cannot hold (Rojo reads no such number)", name)}
		}
		if enc == nil {
			b, err := dom.Marshal(v)
			if err != nil {
				return nil, &Refusal{Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("attribute %s: %v", name, err)}
			}
			enc = spaced(b)
		}
		obj = append(obj, jsonMember{name, enc})
	}
	return obj, nil
}

// adder collects the writes of PullAdd.
type adder struct {
	fsys       fs.FS
	emitLegacy bool
	ext        string // ".luau" or ".lua"
	ops        []FileOp
}

// entries returns the names in dir, lower-cased, so a new name that differs only
// in case is caught on every file system.
func (a *adder) entries(dir string) (map[string]bool, error) {
	entries, err := fs.ReadDir(a.fsys, fsName(dir))
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	taken := make(map[string]bool, len(entries))
	for _, e := range entries {
		taken[strings.ToLower(e.Name())] = true
	}
	return taken, nil
}

// claim reserves name in dir, refusing when something is there already.
func (a *adder) claim(instPath, dir, name string, taken map[string]bool) error {
	if taken[strings.ToLower(name)] {
		return &Refusal{Path: instPath, Reason: ReasonPathExists,
			Msg: fmt.Sprintf("%s already exists (names are compared ignoring case, as on Windows and macOS); move it away or rename the instance in Studio", join(dir, name))}
	}
	taken[strings.ToLower(name)] = true
	return nil
}

// add writes inst into the folder dir, whose entries are taken.
func (a *adder) add(dir, instPath string, inst *dom.Instance, taken map[string]bool) error {
	if err := checkName(inst.Name); err != nil {
		return &Refusal{Path: instPath, Reason: ReasonUnsafeName, Msg: err.Error()}
	}
	props := writableProps(inst)
	var (
		file      string // the instance's own file, in the folder when it is one
		content   []byte
		fileUse   use
		asFolder  = len(inst.Children) > 0
		metaClass string // className for init.meta.json
	)
	switch {
	case dom.IsScriptClass(inst.ClassName):
		suffix, u, err := a.scriptSuffix(instPath, inst, props)
		if err != nil {
			return err
		}
		src, ok := inst.Source()
		if !ok {
			return &Refusal{Path: instPath, Reason: ReasonSourceNotLoaded, Msg: "Studio sent no Source for the script; read it again and retry"}
		}
		delete(props, "Source")
		file, content, fileUse = suffix+a.ext, []byte(src), u
	case inst.ClassName == "Folder":
		asFolder = true
	case inst.ClassName == "LocalizationTable":
		contents := "[]"
		if s, ok := inst.Properties["Contents"].(dom.String); ok {
			contents = string(s)
		}
		data, err := format.CSVFromLocalization(contents)
		if err != nil {
			return &Refusal{Path: instPath, Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("the Contents cannot be written as CSV: %v", err)}
		}
		delete(props, "Contents")
		file, content, fileUse = ".csv", data, useCSV
	case inst.ClassName == "StringValue" && !asFolder:
		if s, ok := inst.Properties["Value"].(dom.String); ok {
			content = []byte(s)
		} else if inst.Properties["Value"] != nil {
			return &Refusal{Path: instPath, Reason: ReasonUnwritableValue, Msg: "Value is not a string"}
		}
		delete(props, "Value")
		file, fileUse = ".txt", useText
	case asFolder && hasScriptDescendant(inst):
		metaClass = inst.ClassName
	default:
		return a.addModel(dir, instPath, inst, taken)
	}

	if !asFolder {
		name := inst.Name + file
		if u, n, ok := classify(&context{}, name); !ok || u != fileUse || n != inst.Name || isInitName(name) {
			return &Refusal{Path: instPath, Reason: ReasonUnsafeName,
				Msg: fmt.Sprintf("a file named %q would not load back as %s %q; rename the instance in Studio", name, inst.ClassName, inst.Name)}
		}
		if err := a.claim(instPath, dir, name, taken); err != nil {
			return err
		}
		for _, ext := range []string{".meta.json", ".meta.jsonc"} {
			if err := a.claim(instPath, dir, inst.Name+ext, taken); err != nil {
				return err
			}
		}
		a.ops = append(a.ops, FileOp{Path: join(dir, name), Data: content})
		return withPath(a.addMeta(join(dir, inst.Name+".meta.json"), inst.ClassName, "", props), instPath)
	}

	if isInitName(inst.Name) || strings.HasSuffix(inst.Name, ".meta.json") || strings.HasSuffix(inst.Name, ".meta.jsonc") {
		return &Refusal{Path: instPath, Reason: ReasonUnsafeName,
			Msg: fmt.Sprintf("a folder named %q is skipped when the project loads; rename the instance in Studio", inst.Name)}
	}
	if err := a.claim(instPath, dir, inst.Name, taken); err != nil {
		return err
	}
	folder := join(dir, inst.Name)
	a.ops = append(a.ops, FileOp{Path: folder, Dir: true})
	inner := map[string]bool{}
	if file != "" {
		inner["init"+file] = true
		a.ops = append(a.ops, FileOp{Path: join(folder, "init"+file), Data: content})
	}
	inner["init.meta.json"], inner["init.meta.jsonc"] = true, true
	if err := a.addMeta(join(folder, "init.meta.json"), inst.ClassName, metaClass, props); err != nil {
		return withPath(err, instPath)
	}
	seen := map[string]bool{}
	for _, c := range inst.Children {
		cp := instPath + "/" + c.Name
		if seen[c.Name] {
			return &Refusal{Path: cp, Reason: ReasonDuplicateName,
				Msg: fmt.Sprintf("%s has two children named %q; give every sibling its own name in Studio", inst.Name, c.Name)}
		}
		seen[c.Name] = true
		if err := a.add(folder, cp, c, inner); err != nil {
			return err
		}
	}
	return nil
}

// scriptSuffix picks the file suffix of a script (".server", …, without the
// extension) and the rule it follows, adding RunContext to props when the file
// alone would load with a different one.
func (a *adder) scriptSuffix(instPath string, inst *dom.Instance, props map[string]dom.Value) (string, use, error) {
	rc := -1
	switch e := inst.Properties["RunContext"].(type) {
	case dom.Enum:
		rc = int(e)
	case dom.EnumItem:
		rc = int(e.Value)
	}
	var suffix string
	var u use
	switch inst.ClassName {
	case "ModuleScript":
		suffix, u = "", useModuleScript
	case "LocalScript":
		if !a.emitLegacy {
			return "", "", &Refusal{Path: instPath, Reason: ReasonNoFileForm,
				Msg: "the project sets emitLegacyScripts to false, so a .client.luau file loads as a Script with RunContext Client, not a LocalScript; use such a Script in Studio, or set emitLegacyScripts to true"}
		}
		suffix, u = ".client", useClientScript
	default:
		switch {
		case rc == 3:
			suffix, u = ".plugin", usePluginScript
		case rc == 2 && !a.emitLegacy:
			suffix, u = ".client", useClientScript
		default:
			suffix, u = ".server", useServerScript
		}
	}
	class, loaded, _ := scriptClass(u, a.emitLegacy)
	if class != inst.ClassName {
		return "", "", &Refusal{Path: instPath, Reason: ReasonNoFileForm, Msg: fmt.Sprintf("no script file loads as a %s in this project", inst.ClassName)}
	}
	if rc >= 0 && rc != loaded {
		props["RunContext"] = dom.Enum(rc)
	} else {
		delete(props, "RunContext")
	}
	return suffix, u, nil
}

// addMeta writes a meta file for the properties the instance's file does not hold.
func (a *adder) addMeta(p, class, metaClass string, props map[string]dom.Value) error {
	obj, err := propsObject(class, props)
	if err != nil {
		return err
	}
	if metaClass != "" {
		cls, _ := encodeJSON(metaClass)
		obj = append(jsonObject{{"className", cls}}, obj...)
	}
	if len(obj) == 0 {
		return nil
	}
	a.ops = append(a.ops, FileOp{Path: p, Data: obj.render()})
	return nil
}

// addModel writes inst and its subtree as one .model.json file.
func (a *adder) addModel(dir, instPath string, inst *dom.Instance, taken map[string]bool) error {
	name := inst.Name + ".model.json"
	if u, n, ok := classify(&context{}, name); !ok || u != useJSONModel || n != inst.Name {
		return &Refusal{Path: instPath, Reason: ReasonUnsafeName,
			Msg: fmt.Sprintf("a file named %q would not load back as %q; rename the instance in Studio", name, inst.Name)}
	}
	if err := a.claim(instPath, dir, name, taken); err != nil {
		return err
	}
	obj, err := modelObject(inst, true)
	if err != nil {
		return withPath(err, instPath)
	}
	a.ops = append(a.ops, FileOp{Path: join(dir, name), Data: obj.render()})
	return nil
}

func modelObject(inst *dom.Instance, root bool) (jsonObject, error) {
	obj := jsonObject{}
	if !root {
		n, _ := encodeJSON(inst.Name)
		obj = append(obj, jsonMember{"name", n})
	}
	cls, _ := encodeJSON(inst.ClassName)
	obj = append(obj, jsonMember{"className", cls})
	props, err := propsObject(inst.ClassName, writableProps(inst))
	if err != nil {
		return nil, err
	}
	obj = append(obj, props...)
	if len(inst.Children) > 0 {
		var children []jsonObject
		for _, c := range inst.Children {
			co, err := modelObject(c, false)
			if err != nil {
				return nil, err
			}
			children = append(children, co)
		}
		obj = append(obj, jsonMember{"children", children})
	}
	return obj, nil
}

// propsObject returns the "properties" and "attributes" members for props.
func propsObject(class string, props map[string]dom.Value) (jsonObject, error) {
	var obj, ps jsonObject
	for _, k := range sortedKeys(props) {
		v := props[k]
		if a, ok := v.(dom.Attributes); ok && k == "Attributes" {
			if len(a) == 0 {
				continue
			}
			enc, err := encodeAttributes(a, nil)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonMember{"attributes", enc})
			continue
		}
		enc, err := encodeValue(class, k, v, nil)
		if err != nil {
			return nil, err
		}
		ps = append(ps, jsonMember{k, enc})
	}
	if len(ps) > 0 {
		obj = append(jsonObject{{"properties", ps}}, obj...)
	}
	return obj, nil
}

// writableProps returns the properties of a new instance worth writing: not Name,
// ClassName or Parent; not nil; not Refs (a file cannot point at an instance by its
// id); not those Roblox itself does not save (Position, BrickColor: CFrame and
// Color carry them); and not those equal to the class's default.
func writableProps(inst *dom.Instance) map[string]dom.Value {
	props := make(map[string]dom.Value, len(inst.Properties))
	for k, v := range inst.Properties {
		switch k {
		case "Name", "ClassName", "Parent":
			continue
		}
		if v == nil {
			continue
		}
		if _, ok := v.(dom.Ref); ok {
			continue
		}
		if p, ok := reflection.LookupProperty(inst.ClassName, k); ok {
			if !p.Serializes {
				continue
			}
			if raw, ok := reflection.Default(inst.ClassName, k); ok {
				if d, err := dom.Unmarshal(raw); err == nil && dom.Equal(d, v) {
					continue
				}
			}
		}
		props[k] = v
	}
	return props
}

func hasScriptDescendant(inst *dom.Instance) bool {
	found := false
	for _, c := range inst.Children {
		c.Walk(func(x *dom.Instance) bool {
			if x.IsScript() {
				found = true
			}
			return !found
		})
	}
	return found
}

// reservedNames are the device names Windows refuses as a file name, with or
// without an extension.
var reservedNames = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
}

// checkName refuses instance names that cannot be a file name on Windows, macOS
// and Linux alike.
func checkName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("the name %q cannot be a file name on every system (%s); rename the instance in Studio", name, why)
	}
	switch {
	case name == "":
		return bad("it is empty")
	case name == "." || name == "..":
		return bad("it is a folder reference")
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return bad("it ends with a dot or a space")
	case len(name) > 200:
		return bad("it is too long")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return bad(fmt.Sprintf("it holds %q", r))
		}
	}
	head, _, _ := strings.Cut(name, ".")
	if reservedNames[strings.ToUpper(strings.TrimRight(head, " "))] {
		return bad("it is a reserved device name on Windows")
	}
	return nil
}

// folderOf returns the folder that stores inst, if it is stored as one.
func folderOf(fsys fs.FS, inst *dom.Instance) (string, bool) {
	if inst.Kind != dom.KindDir && inst.Kind != dom.KindInit {
		return "", false
	}
	if strings.HasPrefix(inst.FsPath, "../") {
		return "", false
	}
	st, err := fs.Stat(fsys, fsName(inst.FsPath))
	if err != nil || !st.IsDir() {
		return "", false
	}
	return inst.FsPath, true
}

func describeParent(inst *dom.Instance) string {
	if inst.Parent == nil {
		return "(the root)"
	}
	return inst.Path()
}

func describeKind(inst *dom.Instance) string {
	switch inst.Kind {
	case dom.KindProject:
		return "a node of the project file " + inst.ProjectFile
	case dom.KindNone:
		return "not stored on disk"
	case dom.KindModelSub, dom.KindInFile:
		return "inside the model file " + inst.FsPath
	}
	return "the file " + inst.FsPath
}

func joinInstancePath(parent *dom.Instance, name string) string {
	if p := parent.Path(); p != "" {
		return p + "/" + name
	}
	return name
}

// emitLegacyFor returns emitLegacyScripts of the project file that governs the
// folder dir, which nested projects do not inherit. The loader does not record
// that file for each instance, so it is found as the nearest project file of an
// ancestor, unless a folder between that file's and dir holds a
// default.project.json, the usual way a nested project is reached.
func emitLegacyFor(p *Project, fsys fs.FS, inst *dom.Instance, dir string) bool {
	gov := ""
	for x := inst; x != nil && gov == ""; x = x.Parent {
		gov = x.ProjectFile
	}
	govDir := dirOf(gov)
	for d := dir; d != govDir && !strings.HasPrefix(d, "..") && d != "."; d = dirOf(d) {
		for _, name := range DefaultFiles {
			if st, err := fs.Stat(fsys, join(d, name)); err == nil && !st.IsDir() {
				return readEmitLegacy(fsys, join(d, name), p.EmitLegacyScripts)
			}
		}
		if d == "" {
			break
		}
	}
	if gov == "" {
		return p.EmitLegacyScripts
	}
	return readEmitLegacy(fsys, gov, p.EmitLegacyScripts)
}

func readEmitLegacy(fsys fs.FS, file string, fallback bool) bool {
	pf, err := (&loader{fsys: fsys}).readProjectFile(file)
	if err != nil {
		return fallback
	}
	if pf.EmitLegacyScripts == nil {
		return true // the default, not inherited from an outer project
	}
	return *pf.EmitLegacyScripts
}

// scriptExt follows the habit of the folder the script goes into, or of the
// nearest one above that holds scripts: ".lua" when most of its scripts use it.
func scriptExt(parent *dom.Instance) string {
	for x := parent; x != nil; x = x.Parent {
		lua, luau := 0, 0
		for _, c := range x.Children {
			if c.Kind != dom.KindScript {
				continue
			}
			switch {
			case strings.HasSuffix(c.FsPath, ".luau"):
				luau++
			case strings.HasSuffix(c.FsPath, ".lua"):
				lua++
			}
		}
		if lua > luau {
			return ".lua"
		}
		if luau > 0 {
			return ".luau"
		}
	}
	return ".luau"
}

// jsonObject is a JSON object written with one member per line and two-space indents;
// a member's value is a json.RawMessage (written as is), an object, or []object.
type jsonObject []jsonMember

type jsonMember struct {
	key string
	val any
}

func (o jsonObject) render() []byte {
	var b bytes.Buffer
	o.write(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func (o jsonObject) write(b *bytes.Buffer, indent string) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, m := range o {
		b.WriteString(indent + "  ")
		key, _ := encodeJSON(m.key)
		b.Write(key)
		b.WriteString(": ")
		switch v := m.val.(type) {
		case json.RawMessage:
			b.Write(v)
		case jsonObject:
			v.write(b, indent+"  ")
		case []jsonObject:
			b.WriteString("[\n")
			for j, e := range v {
				b.WriteString(indent + "    ")
				e.write(b, indent+"    ")
				if j < len(v)-1 {
					b.WriteByte(',')
				}
				b.WriteByte('\n')
			}
			b.WriteString(indent + "  ]")
		}
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

// compactObject writes o on one line, for a value patched into an existing file.
func compactObject(o jsonObject) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		key, _ := encodeJSON(m.key)
		b.Write(key)
		b.WriteString(": ")
		if v, ok := m.val.(json.RawMessage); ok {
			b.Write(v)
		} else if v, ok := m.val.(jsonObject); ok {
			b.Write(compactObject(v))
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encodeJSON is json.Marshal without escaping <, > and &, which are common in code.
func encodeJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// spaced reformats compact JSON with a space after each ',' and ':' and without
// the \u escapes encoding/json uses for <, > and &.
func spaced(compact []byte) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(compact) + len(compact)/4)
	inString := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			switch {
			case c == '\\' && i+1 < len(compact):
				if compact[i+1] == 'u' && i+5 < len(compact) {
					switch string(compact[i+2 : i+6]) {
					case "003c":
						b.WriteByte('<')
						i += 5
						continue
					case "003e":
						b.WriteByte('>')
						i += 5
						continue
					case "0026":
						b.WriteByte('&')
						i += 5
						continue
					}
				}
				b.WriteByte(c)
				b.WriteByte(compact[i+1])
				i++
			case c == '"':
				inString = false
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
			continue
		}
		b.WriteByte(c)
		switch c {
		case '"':
			inString = true
		case ',', ':':
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

// deleteJSONCMember removes the member at keys from a JSONC document, keeping
// every other byte. The result is checked: it must parse to the document without
// that member.
func deleteJSONCMember(data []byte, keys []string) ([]byte, error) {
	if len(keys) == 0 {
		return nil, errors.New("no key to remove")
	}
	out := data
	// A key written twice is removed twice: the earlier value would take over.
	for n := 0; ; n++ {
		m, err := findPath(out, keys)
		if errors.Is(err, errNoKey) && n > 0 {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(append([]byte(nil), out[:m.cutStart]...), out[m.cutEnd:]...)
	}
	if err := checkDeleted(data, out, keys); err != nil {
		return nil, err
	}
	return out, nil
}

var errNoKey = errors.New("no such key")

// findPath finds the member at keys.
func findPath(data []byte, keys []string) (memberSpan, error) {
	s := &jsoncCursor{data: data}
	for depth, k := range keys {
		m, err := s.findMember(k)
		if err != nil || depth == len(keys)-1 {
			return m, err
		}
		s.pos = m.valueStart
	}
	panic("unreachable")
}

func checkDeleted(before, after []byte, keys []string) error {
	var want, got any
	raw, err := format.ParseJSONC(before)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		return err
	}
	parent, ok := want.(map[string]any)
	for _, k := range keys[:len(keys)-1] {
		if ok {
			parent, ok = parent[k].(map[string]any)
		}
	}
	if !ok {
		return errors.New("the file's layout is too unusual to edit safely")
	}
	delete(parent, keys[len(keys)-1])
	raw, err = format.ParseJSONC(after)
	if err != nil {
		return fmt.Errorf("the edited file does not parse: %w", err)
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		return err
	}
	if !reflect.DeepEqual(want, got) {
		return errors.New("the file's layout is too unusual to edit safely")
	}
	return nil
}

// jsoncCursor walks JSONC text just enough to find an object member's bytes.
type jsoncCursor struct {
	data []byte
	pos  int
}

type memberSpan struct {
	valueStart int
	cutStart   int // bytes [cutStart, cutEnd) go when the member is removed
	cutEnd     int
}

func (s *jsoncCursor) skipTrivia() {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '/':
			for s.pos < len(s.data) && s.data[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '*':
			end := bytes.Index(s.data[s.pos+2:], []byte("*/"))
			if end < 0 {
				s.pos = len(s.data)
				return
			}
			s.pos += end + 4
		default:
			return
		}
	}
}

// scanString reads a quoted string at pos and returns its raw inner text.
func (s *jsoncCursor) scanString() (string, error) {
	q := s.data[s.pos]
	start := s.pos
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case q:
			s.pos++
			inner := string(s.data[start+1 : s.pos-1])
			if q == '"' {
				var out string
				if json.Unmarshal(s.data[start:s.pos], &out) == nil {
					return out, nil
				}
			}
			return strings.ReplaceAll(inner, `\'`, `'`), nil
		}
	}
	return "", errors.New("unterminated string")
}

// skipValue moves past one value.
func (s *jsoncCursor) skipValue() error {
	if s.pos >= len(s.data) {
		return errors.New("unexpected end of file")
	}
	switch c := s.data[s.pos]; c {
	case '"', '\'':
		_, err := s.scanString()
		return err
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			s.skipTrivia()
			if s.pos >= len(s.data) {
				break
			}
			switch s.data[s.pos] {
			case '"', '\'':
				if _, err := s.scanString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.pos++
			if depth == 0 {
				return nil
			}
		}
		return errors.New("unterminated object or array")
	}
	start := s.pos
	for s.pos < len(s.data) && !strings.ContainsRune(" \t\r\n,:}]/", rune(s.data[s.pos])) {
		s.pos++
	}
	if s.pos == start {
		return fmt.Errorf("unexpected %q", s.data[s.pos])
	}
	return nil
}

// findMember finds key in the object at pos (its last occurrence, which is the one
// that counts) and returns where its value starts and which bytes to cut to remove
// it. It leaves pos at the value.
func (s *jsoncCursor) findMember(key string) (memberSpan, error) {
	s.skipTrivia()
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return memberSpan{}, fmt.Errorf("%s: not inside an object", key)
	}
	s.pos++
	// prevEnd is where the previous member ends: after its comma, or after its value
	// when the comma is missing (or after the '{' for the first member).
	prevEnd, prevComma := s.pos, -1
	var found *memberSpan
	for {
		s.skipTrivia()
		if s.pos >= len(s.data) {
			return memberSpan{}, errors.New("unterminated object")
		}
		if s.data[s.pos] == '}' {
			break
		}
		keyStart := s.pos
		var k string
		if c := s.data[s.pos]; c == '"' || c == '\'' {
			var err error
			if k, err = s.scanString(); err != nil {
				return memberSpan{}, err
			}
		} else {
			if err := s.skipValue(); err != nil {
				return memberSpan{}, err
			}
			k = string(s.data[keyStart:s.pos])
		}
		s.skipTrivia()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return memberSpan{}, fmt.Errorf("expected ':' after key %q", k)
		}
		s.pos++
		s.skipTrivia()
		valueStart := s.pos
		if err := s.skipValue(); err != nil {
			return memberSpan{}, err
		}
		valueEnd := s.pos
		s.skipTrivia()
		comma := -1
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			comma = s.pos
			s.pos++
		}
		if k == key {
			m := s.cut(keyStart, valueEnd, comma, prevEnd, prevComma)
			m.valueStart = valueStart
			found = &m
		}
		if comma >= 0 {
			prevEnd, prevComma = comma+1, comma
		} else {
			prevEnd, prevComma = valueEnd, -1
		}
	}
	if found == nil {
		return memberSpan{}, fmt.Errorf("%w: %q", errNoKey, key)
	}
	s.pos = found.valueStart
	return *found, nil
}

// cut returns the bytes to remove for a member. With a comma after it: the member
// through that comma, and its whole line when nothing else is on it. Without one
// (the last member): from the previous member's comma, or the previous member's
// end, through the value, so no comma is left dangling.
func (s *jsoncCursor) cut(keyStart, valueEnd, comma, prevEnd, prevComma int) memberSpan {
	if comma >= 0 {
		// A comment on the rest of the line is the member's and goes with it.
		end := comma + 1
		for end < len(s.data) {
			switch c := s.data[end]; {
			case c == ' ' || c == '\t':
				end++
				continue
			case bytes.HasPrefix(s.data[end:], []byte("//")):
				if i := bytes.IndexByte(s.data[end:], '\n'); i >= 0 {
					end += i
				} else {
					end = len(s.data)
				}
				if end > comma && s.data[end-1] == '\r' {
					end--
				}
				continue
			case bytes.HasPrefix(s.data[end:], []byte("/*")):
				i := bytes.Index(s.data[end:], []byte("*/"))
				if i >= 0 && !bytes.ContainsRune(s.data[end:end+i], '\n') {
					end += i + 2
					continue
				}
			}
			break
		}
		lineStart := keyStart
		for lineStart > 0 && (s.data[lineStart-1] == ' ' || s.data[lineStart-1] == '\t') {
			lineStart--
		}
		start := keyStart
		if lineStart == 0 || s.data[lineStart-1] == '\n' {
			switch {
			case end+1 < len(s.data) && s.data[end] == '\r' && s.data[end+1] == '\n':
				start, end = lineStart, end+2
			case end < len(s.data) && s.data[end] == '\n':
				start, end = lineStart, end+1
			}
		}
		return memberSpan{cutStart: start, cutEnd: end}
	}
	if prevComma >= 0 {
		return memberSpan{cutStart: prevComma, cutEnd: valueEnd}
	}
	return memberSpan{cutStart: prevEnd, cutEnd: valueEnd}
}
