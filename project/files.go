package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project/format"
)

// snapshotDir turns a folder into a nested project, an init script/table, or a Folder.
func (l *loader) snapshotDir(ctx *context, dir string) (*dom.Instance, error) {
	leave, err := l.enterDir(dir)
	if err != nil {
		return nil, err
	}
	defer leave()
	name := path.Base(dir)
	if dir == "" {
		name = l.opts.DirName
	}
	entries, err := l.readDir(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range DefaultFiles {
		if l.listed(dir, f) {
			p := join(dir, f)
			if st, err := l.stat(p); err != nil {
				return nil, err
			} else if st != nil && !st.IsDir() {
				return l.nestedProject(ctx, p, name)
			}
		}
	}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		present[e.Name()] = true
	}
	var inst *dom.Instance
	for _, f := range initFiles {
		if !present[f.name] {
			continue
		}
		p := join(dir, f.name)
		inst, err = l.fileInstance(ctx, p, f.use, name)
		if err != nil {
			return nil, err
		}
		inst.Kind = dom.KindInit
		// Rojo's quirk: the script's adjacent meta lookup runs inside the folder.
		if err := l.applyMeta(inst, join(dir, name+".meta.json"), false); err != nil {
			return nil, err
		}
		if err := l.applyMeta(inst, join(dir, name+".meta.jsonc"), false); err != nil {
			return nil, err
		}
		// Its properties stick but its ignoreUnknownInstances does not: Rojo gives
		// the init script the folder's metadata afterwards.
		inst.IgnoreUnknown = false
		break
	}
	if inst == nil {
		inst = dom.New(name, "Folder")
		inst.Kind = dom.KindDir
	}
	inst.FsPath = l.rel(dir)
	for _, e := range entries {
		n := e.Name()
		if isInitName(n) || strings.HasSuffix(n, ".meta.json") || strings.HasSuffix(n, ".meta.jsonc") {
			continue
		}
		child, err := l.snapshotEntry(ctx, join(dir, n), e)
		if err != nil {
			return nil, err
		}
		if child != nil {
			inst.AddChild(child)
		}
	}
	if l.files != nil {
		// Rojo lists every init file that exists, in its own order (not the probing
		// order), then the init meta files.
		for _, f := range rojoInitOrder {
			if present[f] {
				l.record(inst, join(dir, f))
			}
		}
		for _, m := range []string{"init.meta.json", "init.meta.jsonc"} {
			if present[m] {
				l.record(inst, join(dir, m))
			}
		}
	}
	isInit := inst.Kind == dom.KindInit
	for _, m := range []string{"init.meta.json", "init.meta.jsonc"} {
		if present[m] {
			if err := l.applyMeta(inst, join(dir, m), !isInit); err != nil {
				return nil, err
			}
			inst.MetaPath = l.rel(join(dir, m))
		}
	}
	if isInit {
		for _, m := range []string{"init.meta.json", "init.meta.jsonc"} {
			if present[m] {
				if err := l.checkInitMetaClass(inst, join(dir, m)); err != nil {
					return nil, err
				}
			}
		}
	}
	return inst, nil
}

// snapshotFile turns one file into an instance by the file rules; nil if no rule
// matches or the rule says to ignore it.
func (l *loader) snapshotFile(ctx *context, p string) (*dom.Instance, error) {
	u, name, ok := classify(ctx, p)
	if !ok || u == useIgnore {
		return nil, nil
	}
	switch u {
	case useProject:
		return l.nestedProject(ctx, p, name)
	case useJSONModel:
		inst, err := l.jsonModel(p, name)
		if inst != nil {
			l.record(inst, p)
		}
		return inst, err
	case useRbxmx:
		inst, err := l.rbxmxModel(p, name)
		if inst != nil {
			l.record(inst, p)
		}
		return inst, err
	case useRbxm:
		return l.rbxmModel(p, name)
	}
	inst, err := l.fileInstance(ctx, p, u, name)
	if err != nil {
		return nil, err
	}
	l.record(inst, p)
	dir := dirOf(p)
	for _, ext := range []string{".meta.json", ".meta.jsonc"} {
		mp := join(dir, name+ext)
		if err := l.applyMeta(inst, mp, false); err != nil {
			return nil, err
		}
		if l.files != nil && l.listed(dir, name+ext) {
			l.record(inst, mp)
		}
	}
	return inst, nil
}

// fileInstance builds the instance for a script, module, text or csv file.
func (l *loader) fileInstance(ctx *context, p string, u use, name string) (*dom.Instance, error) {
	if class, rc, ok := scriptClass(u, ctx.emitLegacy); ok {
		inst := dom.New(name, class)
		inst.FsPath = l.rel(p)
		inst.Kind = dom.KindScript
		if rc >= 0 {
			inst.Properties["RunContext"] = dom.Enum(rc)
		}
		if err := l.loadScriptSource(inst, p); err != nil {
			return nil, err
		}
		return inst, nil
	}
	inst := dom.New(name, "ModuleScript")
	inst.FsPath = l.rel(p)
	var src string
	switch u {
	case useJSON, useTOML, useYAML:
		data, err := l.readFile(p)
		if err != nil {
			return nil, err
		}
		switch u {
		case useJSON:
			inst.Kind = dom.KindJSON
			if _, err := l.parseJSONC(p, data); err != nil {
				return nil, err
			}
			src, err = format.LuaFromJSON(data)
		case useTOML:
			inst.Kind = dom.KindTOML
			src, err = format.LuaFromTOML(data)
		default:
			inst.Kind = dom.KindYAML
			src, err = format.LuaFromYAML(data)
		}
		if err != nil {
			return nil, l.errf(p, "%v", err)
		}
		inst.Properties["Source"] = dom.String(src)
		inst.SourceHash = gitblob.Hash([]byte(src))
		inst.RawHash = gitblob.Hash(data)
	case useCSV:
		data, err := l.readFile(p)
		if err != nil {
			return nil, err
		}
		contents, err := format.LocalizationFromCSV(data)
		if err != nil {
			return nil, l.errf(p, "%v", err)
		}
		inst.ClassName = "LocalizationTable"
		inst.Kind = dom.KindCSV
		inst.Properties["Contents"] = dom.String(contents)
	case useText:
		text, err := l.readText(p)
		if err != nil {
			return nil, err
		}
		inst.ClassName = "StringValue"
		inst.Kind = dom.KindText
		inst.Properties["Value"] = dom.String(text)
	default:
		return nil, l.errf(p, "sync rule use %q cannot be used here", u)
	}
	return inst, nil
}

// loadScriptSource sets Source and its hashes. On a commit with HashOnly, only the
// blob id of the file is taken, without reading it.
func (l *loader) loadScriptSource(inst *dom.Instance, p string) error {
	if l.hashOnly {
		if h, err := l.fsys.(gitblob.BlobHasher).BlobHash(p); err == nil {
			inst.RawHash = h
			return nil
		}
	}
	text, err := l.readText(p)
	if err != nil {
		return err
	}
	inst.RawHash = gitblob.Hash([]byte(text))
	src := NormalizeSource(text)
	inst.Properties["Source"] = dom.String(src)
	if len(src) == len(text) {
		inst.SourceHash = inst.RawHash
	} else {
		inst.SourceHash = gitblob.Hash([]byte(src))
	}
	return nil
}

// NormalizeSource is what Rojo does to a script file's text: every CRLF becomes LF; a
// lone CR, a BOM and trailing newlines are kept.
func NormalizeSource(text string) string {
	if !strings.Contains(text, "\r\n") {
		return text
	}
	return strings.ReplaceAll(text, "\r\n", "\n")
}

// metaFile is a parsed .meta.json.
type metaFile struct {
	ClassName              *string                    `json:"className"`
	Properties             map[string]json.RawMessage `json:"properties"`
	Attributes             json.RawMessage            `json:"attributes"`
	IgnoreUnknownInstances *bool                      `json:"ignoreUnknownInstances"`
	ID                     *string                    `json:"id"`
}

func (l *loader) readMeta(p string) (*metaFile, bool, error) {
	if !l.listed(dirOf(p), path.Base(p)) {
		return nil, false, nil
	}
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	raw, err := l.parseJSONC(p, data)
	if err != nil {
		return nil, false, err
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, false, l.errf(p, "a meta file must be a JSON object")
	}
	var m metaFile
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, l.errf(p, "%v", err)
	}
	return &m, true, nil
}

// applyMeta applies a meta file if it exists. classAllowed is true only for the
// init.meta.json of a folder that would otherwise be a Folder.
func (l *loader) applyMeta(inst *dom.Instance, p string, classAllowed bool) error {
	m, ok, err := l.readMeta(p)
	if err != nil || !ok {
		return err
	}
	if m.IgnoreUnknownInstances != nil {
		inst.IgnoreUnknown = *m.IgnoreUnknownInstances
	}
	if m.ClassName != nil && classAllowed {
		if *m.ClassName == "" {
			return l.errf(p, "className must not be empty")
		}
		inst.ClassName = *m.ClassName
	}
	for _, prop := range sortedKeys(m.Properties) {
		v, err := dom.ResolveValue(inst.ClassName, prop, m.Properties[prop])
		if err != nil {
			return l.errf(p, "properties.%s: %v", prop, err)
		}
		inst.Properties[prop] = v
	}
	if m.Attributes != nil {
		attrs, err := dom.ResolveAttributes(m.Attributes)
		if err != nil {
			return l.errf(p, "attributes: %v", err)
		}
		if len(attrs) > 0 {
			inst.Properties["Attributes"] = attrs
		}
	}
	if m.ID != nil {
		if inst.RefID != "" {
			return l.errf(p, "id %q: the instance already has id %q", *m.ID, inst.RefID)
		}
		inst.RefID = *m.ID
	}
	if inst.MetaPath == "" {
		inst.MetaPath = l.rel(p)
	}
	return nil
}

func (l *loader) checkInitMetaClass(inst *dom.Instance, p string) error {
	m, ok, err := l.readMeta(p)
	if err != nil || !ok {
		return err
	}
	if m.ClassName != nil {
		return l.errf(p, "className cannot be used with an init script (%s)", inst.FsPath)
	}
	return nil
}

// modelNode is an instance in a .model.json file; the PascalCase keys are legacy aliases.
type modelNode struct {
	Name        *string                    `json:"name"`
	NameOld     *string                    `json:"Name"`
	ClassName   *string                    `json:"className"`
	ClassOld    *string                    `json:"ClassName"`
	Properties  map[string]json.RawMessage `json:"properties"`
	PropsOld    map[string]json.RawMessage `json:"Properties"`
	Attributes  json.RawMessage            `json:"attributes"`
	Children    []json.RawMessage          `json:"children"`
	ChildrenOld []json.RawMessage          `json:"Children"`
	ID          *string                    `json:"id"`
}

func (l *loader) jsonModel(p, name string) (*dom.Instance, error) {
	data, err := l.readFile(p)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil // an empty model file is no instance and no error
	}
	raw, err := l.parseJSONC(p, data)
	if err != nil {
		return nil, err
	}
	inst, err := l.modelInstance(p, raw, name, "", true)
	if err != nil {
		return nil, err
	}
	inst.Kind = dom.KindModel
	return inst, nil
}

func (l *loader) modelInstance(p string, raw json.RawMessage, name, where string, root bool) (*dom.Instance, error) {
	var m modelNode
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, l.errf(p, "%sa model instance must be an object", where)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, l.errf(p, "%s%v", where, err)
	}
	class := first(m.ClassName, m.ClassOld)
	if class == nil || *class == "" {
		return nil, l.errf(p, "%s\"className\" is required", where)
	}
	if !root {
		name = *class
		if n := first(m.Name, m.NameOld); n != nil {
			name = *n
		}
	} else if first(m.Name, m.NameOld) != nil {
		l.warnf("%s: the root's \"name\" is ignored; a model is named after its file", l.rel(p))
	}
	inst := dom.New(name, *class)
	inst.FsPath = l.rel(p)
	if !root {
		inst.Kind = dom.KindModelSub
	}
	props := m.Properties
	if props == nil {
		props = m.PropsOld
	}
	for _, prop := range sortedKeys(props) {
		v, err := dom.ResolveValue(*class, prop, props[prop])
		if err != nil {
			return nil, l.errf(p, "%sproperties.%s: %v", where, prop, err)
		}
		inst.Properties[prop] = v
	}
	if m.Attributes != nil {
		attrs, err := dom.ResolveAttributes(m.Attributes)
		if err != nil {
			return nil, l.errf(p, "%sattributes: %v", where, err)
		}
		if len(attrs) > 0 {
			inst.Properties["Attributes"] = attrs
		}
	}
	if root && m.ID != nil {
		inst.RefID = *m.ID
	}
	children := m.Children
	if children == nil {
		children = m.ChildrenOld
	}
	for i, c := range children {
		child, err := l.modelInstance(p, c, "", where+"children["+itoa(i)+"].", false)
		if err != nil {
			return nil, err
		}
		inst.AddChild(child)
	}
	return inst, nil
}

func (l *loader) rbxmxModel(p, name string) (*dom.Instance, error) {
	data, err := l.readFile(p)
	if err != nil {
		return nil, err
	}
	roots, err := rbxmx.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, l.errf(p, "%v", err)
	}
	if len(roots) != 1 {
		return nil, l.errf(p, "a model file must hold exactly one top-level instance, found %d", len(roots))
	}
	inst := roots[0]
	// Load reassigns every id; the refs inside the model are rebound after.
	l.modelRefs = append(l.modelRefs, rbxmx.CaptureRefs(roots))
	inst.Name = name
	inst.Walk(func(x *dom.Instance) bool {
		x.FsPath = l.rel(p)
		x.Kind = dom.KindInFile
		return true
	})
	inst.Kind = dom.KindRbxmx
	return inst, nil
}

// rbxmModel reads a binary .rbxm model; like an .rbxmx it must hold one instance.
func (l *loader) rbxmModel(p, name string) (*dom.Instance, error) {
	data, err := l.readFile(p)
	if err != nil {
		return nil, err
	}
	if !rbxbin.IsBinary(data) && bytes.Contains(data[:min(len(data), 256)], []byte("<roblox")) {
		return nil, l.errf(p, "the file holds an XML model: name it .rbxmx")
	}
	roots, err := rbxbin.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, l.errf(p, "%v", err)
	}
	if len(roots) != 1 {
		return nil, l.errf(p, "a model file must hold exactly one top-level instance, found %d", len(roots))
	}
	inst := roots[0]
	l.modelRefs = append(l.modelRefs, rbxmx.CaptureRefs(roots))
	inst.Name = name
	inst.Walk(func(x *dom.Instance) bool {
		x.FsPath = l.rel(p)
		x.Kind = dom.KindInFile
		return true
	})
	inst.Kind = dom.KindRbxm
	return inst, nil
}

func first[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
