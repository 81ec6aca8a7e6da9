package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

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
	if l.mem != nil && l.mem.ahead != nil {
		l.mem.ahead.enter(dir)
	}
	name := path.Base(dir)
	if dir == "" {
		name = l.opts.DirName
	}
	entries, err := l.readDir(dir)
	if err != nil {
		return nil, err
	}
	l.noteDir(ctx, dir, entries)
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
			inst.SetMetaPath(l.rel(join(dir, m)))
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
			inst.Properties.Set("RunContext", dom.Enum(rc))
		}
		if err := l.loadScriptSource(inst, p); err != nil {
			return nil, err
		}
		return inst, nil
	}
	inst := dom.New(name, "ModuleScript")
	inst.FsPath = l.rel(p)
	switch u {
	case useJSON, useTOML, useYAML:
		kind, rk := dom.KindJSON, recJSON
		switch u {
		case useTOML:
			kind, rk = dom.KindTOML, recTOML
		case useYAML:
			kind, rk = dom.KindYAML, recYAML
		}
		rec, err := l.file(p, rk, func(rec *record, data []byte) error {
			var src string
			var err error
			switch u {
			case useJSON:
				if _, err := l.parseJSONC(p, data); err != nil {
					return err
				}
				src, err = format.LuaFromJSON(data)
			case useTOML:
				src, err = format.LuaFromTOML(data)
			default:
				src, err = format.LuaFromYAML(data)
			}
			if err != nil {
				return l.errf(p, "%v", err)
			}
			rec.text, rec.hasText, rec.textHash = src, true, gitblob.HashString(src)
			return nil
		})
		if err != nil {
			return nil, err
		}
		inst.Kind = kind
		inst.Properties.Set("Source", dom.String(rec.text))
		inst.SourceHash = rec.textHash
		inst.RawHash = rec.hash
	case useCSV:
		rec, err := l.file(p, recCSV, func(rec *record, data []byte) error {
			contents, err := format.LocalizationFromCSV(data)
			if err != nil {
				return l.errf(p, "%v", err)
			}
			rec.text, rec.hasText = contents, true
			return nil
		})
		if err != nil {
			return nil, err
		}
		inst.ClassName = "LocalizationTable"
		inst.Kind = dom.KindCSV
		inst.Properties.Set("Contents", dom.String(rec.text))
	case useText:
		rec, err := l.file(p, recText, func(rec *record, data []byte) error {
			if !setText(rec, data) {
				return l.errf(p, "the file is not valid UTF-8")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		inst.ClassName = "StringValue"
		inst.Kind = dom.KindText
		inst.Properties.Set("Value", dom.String(rec.text))
	default:
		return nil, l.errf(p, "sync rule use %q cannot be used here", u)
	}
	return inst, nil
}

// loadScriptSource sets Source and its hashes. On a commit with HashOnly, only the
// blob id of the file is taken, without reading it.
func (l *loader) loadScriptSource(inst *dom.Instance, p string) error {
	if err := l.guard(p); err != nil {
		return err
	}
	if l.hashOnly {
		if h, err := l.fsys.(gitblob.BlobHasher).BlobHash(p); err == nil {
			inst.RawHash = h
			return nil
		}
	}
	rec := l.cached(p, recScript)
	if rec == nil {
		rec = l.ahead(p, recScript) // nil unless read ahead, with its text
	}
	if rec == nil || !rec.hasText && !textDroppable(p) {
		var data []byte
		var err error
		if rec == nil {
			rec, data, err = l.readRecord(p, recScript)
		} else {
			// An init script's record restored from an index: its text is
			// read, but its stat data proved the hash.
			data, err = fs.ReadFile(l.fsys, p)
			l.mem.made++
		}
		if err != nil {
			return l.errf(p, "cannot read: %v", unwrapPathError(err))
		}
		if !utf8.Valid(data) {
			return l.errf(p, "the file is not valid UTF-8")
		}
		setScriptText(rec, data)
		l.keep(p, rec)
	}
	inst.RawHash = rec.hash
	// A record whose stat data proved it unchanged may hold no text (one restored
	// from an index, or one whose text was let go, see Cache.DropTexts): the
	// instance then has its hashes only, and the text is read when it is needed
	// (Project.ReadText).
	if rec.hasText {
		inst.Properties.Set("Source", dom.String(rec.text))
	}
	inst.SourceHash = rec.hash
	if rec.textHash != "" {
		inst.SourceHash = rec.textHash
	}
	return nil
}

// setText fills a text file's record from its bytes; false when they are not
// UTF-8.
func setText(rec *record, data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	rec.text, rec.hasText = string(data), true
	return true
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

// meta returns the meta file at p (nil when there is none).
func (l *loader) meta(p string) (*metaRecord, error) {
	if !l.listed(dirOf(p), path.Base(p)) {
		return nil, nil
	}
	if err := l.guard(p); err != nil {
		return nil, err
	}
	if rec := l.cached(p, recMeta); rec != nil {
		return rec.meta, nil
	}
	if rec := l.ahead(p, recMeta); rec != nil {
		return rec.meta, nil
	}
	rec, data, err := l.readRecord(p, recMeta)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.noteProbe(p, false, nil)
			return nil, nil
		}
		return nil, l.errf(p, "cannot read: %v", unwrapPathError(err))
	}
	if err := l.parseMeta(p, rec, data); err != nil {
		return nil, err
	}
	l.keep(p, rec)
	return rec.meta, nil
}

// parseMeta fills rec from a meta file's bytes.
func (l *loader) parseMeta(p string, rec *record, data []byte) error {
	raw, err := l.parseUnordered(p, data)
	if err != nil {
		return err
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return l.errf(p, "a meta file must be a JSON object")
	}
	var m metaFile
	if err := json.Unmarshal(raw, &m); err != nil {
		return l.errf(p, "%v", err)
	}
	rec.meta = &metaRecord{className: m.ClassName, ignoreUnknown: m.IgnoreUnknownInstances, id: m.ID,
		rawProps: m.Properties, rawAttrs: m.Attributes}
	return nil
}

// metaProps resolves a meta file's properties for class, once per class.
func (l *loader) metaProps(p string, m *metaRecord, class string) ([]propValue, error) {
	if props, ok := m.resolved[class]; ok {
		return props, nil
	}
	props := make([]propValue, 0, len(m.rawProps))
	for _, prop := range sortedKeys(m.rawProps) {
		v, err := dom.ResolveValue(class, prop, m.rawProps[prop])
		if err != nil {
			return nil, l.errf(p, "properties.%s: %v", prop, err)
		}
		props = append(props, propValue{name: dom.Intern(prop), value: v})
	}
	props = slices.DeleteFunc(props, func(x propValue) bool {
		into, ok := dom.Superseded(class, x.name, func(name string) bool {
			return slices.ContainsFunc(props, func(y propValue) bool { return y.name == name })
		})
		if ok {
			l.warnSuperseded(p, "", class, x.name, into)
		}
		return ok
	})
	if m.resolved == nil {
		m.resolved = map[string][]propValue{}
	}
	m.resolved[class] = props
	return props, nil
}

func (l *loader) metaAttrs(p string, m *metaRecord) (dom.Attributes, error) {
	if !m.attrsDone {
		attrs, err := dom.ResolveAttributes(m.rawAttrs)
		if err != nil {
			return nil, l.errf(p, "attributes: %v", err)
		}
		m.attrs, m.attrsDone = attrs, true
	}
	return m.attrs, nil
}

// applyMeta applies a meta file if it exists. classAllowed is true only for the
// init.meta.json of a folder that would otherwise be a Folder.
func (l *loader) applyMeta(inst *dom.Instance, p string, classAllowed bool) error {
	m, err := l.meta(p)
	if err != nil || m == nil {
		return err
	}
	if m.ignoreUnknown != nil {
		inst.IgnoreUnknown = *m.ignoreUnknown
	}
	if m.className != nil && classAllowed {
		if *m.className == "" {
			return l.errf(p, "className must not be empty")
		}
		inst.ClassName = *m.className
	}
	props, err := l.metaProps(p, m, inst.ClassName)
	if err != nil {
		return err
	}
	for _, pv := range props {
		inst.Properties.Set(pv.name, pv.value)
	}
	if m.rawAttrs != nil {
		attrs, err := l.metaAttrs(p, m)
		if err != nil {
			return err
		}
		if len(attrs) > 0 {
			inst.Properties.Set("Attributes", attrs)
		}
	}
	if m.id != nil {
		if inst.RefID() != "" {
			return l.errf(p, "id %q: the instance already has id %q", *m.id, inst.RefID())
		}
		inst.SetRefID(*m.id)
	}
	if inst.MetaPath() == "" {
		inst.SetMetaPath(l.rel(p))
	}
	return nil
}

func (l *loader) checkInitMetaClass(inst *dom.Instance, p string) error {
	m, err := l.meta(p)
	if err != nil || m == nil {
		return err
	}
	if m.className != nil {
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

// decodeModelNode decodes raw, a model instance (valid JSON: ParseJSONC's output or
// a part of it), as json.Unmarshal into a modelNode does, by a scan of its members:
// a model file's every instance goes through it, and the decoder's reflection cost
// most of a cold load's parsing. ok is false where it cannot vouch for giving the
// decoder's result (a key only case-folding matches, a key twice, a value of another
// type than the field's, a string key of the properties given twice): the caller
// then decodes it with json.Unmarshal, which also words the error.
func decodeModelNode(raw json.RawMessage) (m modelNode, ok bool) {
	var seen uint16
	str := func(v json.RawMessage, dst **string) bool {
		switch v[0] {
		case 'n':
			return true // null leaves the pointer nil
		case '"':
			s, err := format.JSONString(v)
			*dst = &s
			return err == nil
		}
		return false
	}
	props := func(v json.RawMessage, dst *map[string]json.RawMessage) bool {
		switch v[0] {
		case 'n':
			return true
		case '{':
			out := map[string]json.RawMessage{}
			dup := false
			if format.ValidMembers(v, func(k string, pv json.RawMessage) error {
				if _, ok := out[k]; ok {
					dup = true
				}
				out[k] = pv
				return nil
			}) != nil || dup {
				return false
			}
			*dst = out
			return true
		}
		return false
	}
	list := func(v json.RawMessage, dst *[]json.RawMessage) bool {
		switch v[0] {
		case 'n':
			return true
		case '[':
			out := []json.RawMessage{}
			format.ValidElements(v, func(e json.RawMessage) { out = append(out, e) })
			*dst = out
			return true
		}
		return false
	}
	errNo := errors.New("not for the scan")
	err := format.ValidMembers(raw, func(key string, v json.RawMessage) error {
		field := slices.Index(modelNodeKeys, key)
		if field < 0 {
			for _, k := range modelNodeKeys {
				if strings.EqualFold(k, key) {
					return errNo // the decoder would take it for a field
				}
			}
			return nil // ignored, as the decoder ignores it
		}
		if seen&(1<<field) != 0 {
			return errNo
		}
		seen |= 1 << field
		var ok bool
		switch key {
		case "name":
			ok = str(v, &m.Name)
		case "Name":
			ok = str(v, &m.NameOld)
		case "className":
			ok = str(v, &m.ClassName)
		case "ClassName":
			ok = str(v, &m.ClassOld)
		case "id":
			ok = str(v, &m.ID)
		case "properties":
			ok = props(v, &m.Properties)
		case "Properties":
			ok = props(v, &m.PropsOld)
		case "attributes":
			m.Attributes, ok = v, true
		case "children":
			ok = list(v, &m.Children)
		case "Children":
			ok = list(v, &m.ChildrenOld)
		}
		if !ok {
			return errNo
		}
		return nil
	})
	if err != nil {
		return modelNode{}, false
	}
	return m, true
}

// modelNodeKeys are the JSON keys of modelNode's fields.
var modelNodeKeys = []string{"name", "Name", "className", "ClassName", "properties", "Properties", "attributes", "children", "Children", "id"}

// modelFields are the fields of a model instance (modelNode), and $schema.
var modelFields = map[string]bool{"name": true, "Name": true, "className": true, "ClassName": true,
	"properties": true, "Properties": true, "attributes": true, "children": true, "Children": true, "id": true, "$schema": true}

// unknownModelFields warns of the fields of a model instance Rojo ignores without
// a word, as it loads them: a "tags" or "Attributes" there was meant to do
// something.
func (l *loader) unknownModelFields(p string, raw json.RawMessage, where string) {
	keys, err := format.ValidObjectKeys(raw) // valid: modelInstance unmarshalled it
	if err != nil {
		return
	}
	for _, k := range keys {
		if modelFields[k] {
			continue
		}
		hint := ""
		switch strings.ToLower(k) {
		case "tags":
			hint = "; tags go in \"properties\": { \"Tags\": [...] }"
		case "attributes":
			hint = "; the field is \"attributes\""
		}
		l.warnf("%s: %s%q is not a field of a model instance and is ignored (as Rojo ignores it)%s", l.rel(p), where, k, hint)
	}
}

func (l *loader) jsonModel(p, name string) (*dom.Instance, error) {
	var inst *dom.Instance
	rec, err := l.file(p, recModel, func(rec *record, data []byte) (err error) {
		inst, err = l.parseModel(p, name, rec, data, l.mem != nil && l.mem.records != nil)
		return err
	})
	if err != nil || inst != nil || rec.model.empty {
		return inst, err
	}
	l.warnings = append(l.warnings, rec.model.warnings...)
	if inst = rec.model.fresh; inst != nil {
		// Parsed ahead of the load (ahead.go): its first use takes the tree itself.
		rec.model.fresh = nil
		inst.Name = name
		return inst, nil
	}
	d := dom.NewDecoder(rec.model.tree)
	inst = d.Instance()
	if d.Err() != nil {
		return nil, l.errf(p, "cached model: %v", d.Err())
	}
	inst.Name = name
	return inst, nil
}

// parseModel fills rec from a .model.json file's bytes and returns its instance
// (nil for an empty file). With keep, the record holds the tree in binary form for
// later loads.
func (l *loader) parseModel(p, name string, rec *record, data []byte, keep bool) (*dom.Instance, error) {
	rec.model = &modelRecord{}
	if len(bytes.TrimSpace(data)) == 0 {
		rec.model.empty = true // an empty model file is no instance and no error
		return nil, nil
	}
	raw, err := l.parseUnordered(p, data)
	if err != nil {
		return nil, err
	}
	start := len(l.warnings)
	inst, err := l.modelInstance(p, raw, name, "", true)
	if err != nil {
		return nil, err
	}
	inst.Kind = dom.KindModel
	rec.model.warnings = append([]string(nil), l.warnings[start:]...)
	if keep {
		// Kept in binary form: a parsed tree is many times larger, and decoding it
		// is far cheaper than parsing the JSON again.
		var e dom.Encoder
		if err := e.Instance(inst); err != nil {
			return nil, l.errf(p, "%v", err)
		}
		rec.model.tree = bytes.Clone(e.Bytes())
	}
	return inst, nil
}

func (l *loader) modelInstance(p string, raw json.RawMessage, name, where string, root bool) (*dom.Instance, error) {
	var m modelNode
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, l.errf(p, "%sa model instance must be an object", where)
	}
	if fast, ok := decodeModelNode(raw); ok {
		m = fast
	} else if err := json.Unmarshal(raw, &m); err != nil {
		return nil, l.errf(p, "%s%v", where, err)
	}
	l.unknownModelFields(p, raw, where)
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
	list := make([]dom.Property, 0, len(props)+1)
	for _, prop := range sortedKeys(props) {
		v, err := dom.ResolveValue(*class, prop, props[prop])
		if err != nil {
			return nil, l.errf(p, "%sproperties.%s: %v", where, prop, err)
		}
		list = append(list, dom.Property{Name: dom.Intern(prop), Value: v})
	}
	list = l.dropSuperseded(p, where, *class, list)
	inst.Properties = dom.MakeProps(list)
	if m.Attributes != nil {
		attrs, err := dom.ResolveAttributes(m.Attributes)
		if err != nil {
			return nil, l.errf(p, "%sattributes: %v", where, err)
		}
		if len(attrs) > 0 {
			inst.Properties.Set("Attributes", attrs)
		}
	}
	if root && m.ID != nil {
		inst.SetRefID(*m.ID)
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
	data, err := l.readOpaque(p)
	if err != nil {
		return nil, err
	}
	roots, err := rbxmx.Decode(bytes.NewReader(data))
	return l.modelRoot(p, name, roots, err, dom.KindRbxmx)
}

// modelRoot is the instance a decoded model file (roots, or the decoder's err) loads
// as: its one top-level instance, named name, its descendants stored in the file.
func (l *loader) modelRoot(p, name string, roots []*dom.Instance, err error, kind dom.FileKind) (*dom.Instance, error) {
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
	inst.Kind = kind
	return inst, nil
}

// rbxmModel reads a binary .rbxm model; like an .rbxmx it must hold one instance.
func (l *loader) rbxmModel(p, name string) (*dom.Instance, error) {
	data, err := l.readOpaque(p)
	if err != nil {
		return nil, err
	}
	if !rbxbin.IsBinary(data) && bytes.Contains(data[:min(len(data), 256)], []byte("<roblox")) {
		return nil, l.errf(p, "the file holds an XML model: name it .rbxmx")
	}
	roots, err := rbxbin.Decode(bytes.NewReader(data))
	return l.modelRoot(p, name, roots, err, dom.KindRbxm)
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

// dropSuperseded leaves out of list the legacy properties that migrate into others
// list also sets (BrickColor beside Color: Studio holds one value), with a warning.
func (l *loader) dropSuperseded(p, where, class string, list []dom.Property) []dom.Property {
	return slices.DeleteFunc(list, func(x dom.Property) bool {
		into, ok := dom.Superseded(class, x.Name, func(name string) bool {
			return slices.ContainsFunc(list, func(y dom.Property) bool { return y.Name == name })
		})
		if ok {
			l.warnSuperseded(p, where, class, x.Name, into)
		}
		return ok
	})
}

// warnSuperseded says that prop was left out for into.
func (l *loader) warnSuperseded(p, where, class, prop, into string) {
	l.warnf("%s: %s%s sets both %s and %s, which Studio holds as one value: %s is used, %s is left out", l.rel(p), where, class, prop, into, into, prop)
}
