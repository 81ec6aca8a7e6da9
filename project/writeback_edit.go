package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project/format"
)

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
		ls = appendMetas(ls, dirOf(disk.FsPath), metaName(disk))
		err = choose(0, 1)
	case dom.KindInit, dom.KindDir:
		dir := disk.FsPath
		if disk.Kind == dom.KindInit {
			ls = appendMetas(ls, dir, path.Base(dir))
		}
		n := len(ls)
		ls = appendMetas(ls, dir, "init")
		err = choose(n, n+1)
	case dom.KindModel:
		ls = append(ls, propLayer{file: disk.FsPath, propsKeys: []string{"properties", "Properties"}, attrsKey: "attributes"})
		natural = 0
	}
	if err != nil {
		return nil, -1, err
	}
	if disk.ProjectFile() != "" {
		keys := append([]string{"tree"}, disk.ProjectKeys()...)
		ls = append(ls, propLayer{file: disk.ProjectFile(), keys: keys, propsKeys: []string{"$properties"}, attrsKey: "$attributes"})
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

// appendMetas appends the layers of the meta files of name in dir, both spellings.
func appendMetas(ls []propLayer, dir, name string) []propLayer {
	ls = slices.Grow(ls, len(metaExts))
	for _, ext := range metaExts {
		ls = append(ls, propLayer{file: join(dir, name+ext), propsKeys: []string{"properties"}, attrsKey: "attributes"})
	}
	return ls
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
	v := studio.Properties.Get(field)
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
	if (u == useModuleScript || u == useText) && !utf8.ValidString(string(s)) {
		return true, notUTF8(disk.Path(), field)
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
		doc := format.Object{}
		if a, ok := v.(dom.Attributes); ok && prop == "Attributes" {
			enc, err := encodeAttributes(a, nil)
			if err != nil {
				return err
			}
			doc = append(doc, format.Member{Key: l.attrsKey, Value: enc})
		} else {
			enc, err := encodeValue(class, prop, v, nil)
			if err != nil {
				return err
			}
			doc = append(doc, format.Member{Key: l.propsKeys[0], Value: format.Object{{Key: prop, Value: enc}}})
		}
		f.set(doc.Indented())
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
			return w.patch(f, append(keys, l.attrsKey), enc.Compact())
		}
	}
	if props == nil {
		enc, err := encodeValue(class, prop, v, nil)
		if err != nil {
			return err
		}
		return w.patch(f, append(keys, pk), format.Object{{Key: prop, Value: enc}}.Compact())
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
			out, err := format.DeleteJSONCMember(f.data, keys)
			if err != nil {
				return refuse(disk, ReasonPropertyRemoved, "%s has no value in Studio; remove %s from %s by hand (%v)", prop, strings.Join(keys, "."), l.file, err)
			}
			f.set(out)
		}
	}
	return nil
}
