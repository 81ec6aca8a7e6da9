package project

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// projectFile is a parsed *.project.json.
type projectFile struct {
	file              string
	Name              *string
	Tree              json.RawMessage
	ServePort         *int
	ServePlaceIDs     []uint64
	BlockedPlaceIDs   []uint64
	PlaceID, GameID   *uint64
	EmitLegacyScripts *bool
	syncRules         []syncRule
	ignores           []ignoreRule
}

// topLevelKeys are the keys a project file may have; any other is an error.
var topLevelKeys = map[string]bool{
	"$schema": true, "name": true, "tree": true, "servePort": true, "serveAddress": true,
	"servePlaceIds": true, "blockedPlaceIds": true, "placeId": true, "gameId": true,
	"emitLegacyScripts": true, "globIgnorePaths": true, "syncRules": true,
	"syncbackRules": true, "serveAllowedHosts": true,
}

func (l *loader) readProjectFile(file string) (*projectFile, error) {
	rec, err := l.file(file, recProject, func(rec *record, data []byte) error {
		pf, err := l.parseProjectFile(file, data)
		rec.project = pf
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.project, nil
}

func (l *loader) parseProjectFile(file string, data []byte) (*projectFile, error) {
	raw, err := l.parseJSONC(file, data)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, l.errf(file, "a project file must be a JSON object")
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !topLevelKeys[k] {
			return nil, l.errf(file, "unknown top-level key %q (known keys: name, tree, servePort, servePlaceIds, globIgnorePaths, syncRules, emitLegacyScripts, …)", k)
		}
	}
	pf := &projectFile{file: file}
	field := func(key string, dst any, want string) error {
		v, ok := top[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return l.errf(file, "%q must be %s", key, want)
		}
		return nil
	}
	var ignoreGlobs []string
	var rules []rawSyncRule
	var placeIDs *[]uint64
	for _, f := range []struct {
		key, want string
		dst       any
	}{
		{"name", "a string", &pf.Name},
		{"servePort", "a port number", &pf.ServePort},
		{"servePlaceIds", "an array of place ids or null", &placeIDs},
		{"blockedPlaceIds", "an array of place ids", &pf.BlockedPlaceIDs},
		{"placeId", "a place id", &pf.PlaceID},
		{"gameId", "a game id", &pf.GameID},
		{"emitLegacyScripts", "true or false", &pf.EmitLegacyScripts},
		{"globIgnorePaths", "an array of glob strings", &ignoreGlobs},
		{"syncRules", "an array of {pattern, use, exclude?, suffix?}", &rules},
		{"serveAddress", "an IP address string", new(string)},
		{"serveAllowedHosts", "an array of strings", new([]string)},
		{"$schema", "a string", new(string)},
	} {
		if err := field(f.key, f.dst, f.want); err != nil {
			return nil, err
		}
	}
	if placeIDs != nil {
		pf.ServePlaceIDs = *placeIDs
	}
	if pf.ServePort != nil && (*pf.ServePort < 0 || *pf.ServePort > 65535) {
		return nil, l.errf(file, "\"servePort\" must be a port number (0-65535)")
	}
	tree, ok := top["tree"]
	if !ok {
		return nil, l.errf(file, "the project has no \"tree\"")
	}
	if t := bytes.TrimSpace(tree); len(t) == 0 || t[0] != '{' {
		return nil, l.errf(file, "\"tree\" must be an object (an instance description)")
	}
	pf.Tree = tree
	dir := dirOf(file)
	if pf.ignores, err = compileIgnore(dir, ignoreGlobs); err != nil {
		return nil, l.errf(file, "globIgnorePaths: %v", err)
	}
	for i, r := range rules {
		sr, err := r.compile()
		if err != nil {
			return nil, l.errf(file, "syncRules[%d]: %v", i, err)
		}
		pf.syncRules = append(pf.syncRules, sr)
	}
	return pf, nil
}

func dirOf(file string) string {
	i := strings.LastIndexByte(file, '/')
	if i < 0 {
		return ""
	}
	return file[:i]
}

// node is a parsed instance description.
type node struct {
	className      *string
	path           *string
	pathOptional   bool
	properties     map[string]json.RawMessage
	propertyOrder  []string
	attributes     json.RawMessage
	ignoreUnknown  *bool
	id             *string
	children       map[string]json.RawMessage
	childrenSorted []string
}

func (l *loader) parseNode(file, where string, raw json.RawMessage) (*node, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, l.errf(file, "%s: an instance description must be an object", where)
	}
	n := &node{children: map[string]json.RawMessage{}}
	// In key order, so the warnings below come in the same order every time.
	for _, k := range sortedKeys(m) {
		v := m[k]
		bad := func(want string) error { return l.errf(file, "%s: %q must be %s", where, k, want) }
		switch k {
		case "$className":
			if json.Unmarshal(v, &n.className) != nil || n.className == nil {
				return nil, bad("a string")
			}
		case "$path":
			var s string
			if json.Unmarshal(v, &s) == nil {
				n.path = &s
				continue
			}
			var opt struct {
				Optional *string `json:"optional"`
			}
			if json.Unmarshal(v, &opt) != nil || opt.Optional == nil {
				return nil, bad(`a path string or {"optional": "path"}`)
			}
			n.path, n.pathOptional = opt.Optional, true
		case "$properties":
			if json.Unmarshal(v, &n.properties) != nil {
				return nil, bad("an object of property values")
			}
		case "$attributes":
			if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
				return nil, bad("an object of attribute values")
			}
			n.attributes = v
		case "$ignoreUnknownInstances":
			if json.Unmarshal(v, &n.ignoreUnknown) != nil || n.ignoreUnknown == nil {
				return nil, bad("true or false")
			}
		case "$id":
			if json.Unmarshal(v, &n.id) != nil || n.id == nil {
				return nil, bad("a string")
			}
		default:
			if strings.HasPrefix(k, "$") {
				l.warnf("%s: %s: key %q is reserved; treated as a child", l.rel(file), where, k)
			}
			if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
				return nil, l.errf(file, "%s: child %q must be an object (an instance description)", where, k)
			}
			n.children[k] = v
			n.childrenSorted = append(n.childrenSorted, k)
		}
	}
	sort.Strings(n.childrenSorted)
	for k := range n.properties {
		n.propertyOrder = append(n.propertyOrder, k)
	}
	sort.Strings(n.propertyOrder)
	return n, nil
}

// inferClass is service inference (ROJO_FORMAT §1.6).
func inferClass(parentClass, name string) string {
	switch parentClass {
	case "DataModel":
		if isService(name) {
			return name
		}
	case "StarterPlayer":
		if name == "StarterPlayerScripts" || name == "StarterCharacterScripts" {
			return name
		}
	case "Workspace":
		if name == "Terrain" {
			return name
		}
	}
	return ""
}

// buildNode turns an instance description into an instance. keys is the path of keys
// from the project's tree to this node; parentClass is "" for a root.
func (l *loader) buildNode(ctx *context, pf *projectFile, name string, raw json.RawMessage, parentClass string, keys []string) (*dom.Instance, error) {
	file := ctx.projectFile
	where := "tree"
	if len(keys) > 0 {
		where = "tree." + strings.Join(keys, ".")
	}
	n, err := l.parseNode(file, where, raw)
	if err != nil {
		return nil, err
	}
	var fromPath *dom.Instance
	if n.path != nil {
		p, err := l.resolvePath(ctx, file, *n.path)
		if err != nil {
			return nil, err
		}
		fromPath, err = l.snapshotTarget(ctx, p)
		if err != nil {
			return nil, err
		}
	}
	inferred := ""
	if parentClass != "" {
		inferred = inferClass(parentClass, name)
	}
	className := ""
	switch {
	case n.className != nil && fromPath == nil:
		className = *n.className
	case n.className == nil && fromPath != nil:
		className = fromPath.ClassName
		if inferred != "" && className == "Folder" {
			className = inferred
		}
	case n.className != nil && fromPath != nil:
		if fromPath.ClassName != "Folder" {
			return nil, l.errf(file, "%s: $className is set, so $path must refer to a Folder, but %q is a %s", where, *n.path, fromPath.ClassName)
		}
		className = *n.className
	case inferred != "":
		className = inferred
	case n.path != nil && n.pathOptional:
		return nil, nil // an optional path that is missing omits the node
	case n.path != nil:
		return nil, l.errf(file, "%s: $path %q does not exist or cannot become an instance", where, *n.path)
	default:
		return nil, l.errf(file, "%s: %q needs $className, $path or a known service name", where, name)
	}
	if className == "" {
		return nil, l.errf(file, "%s: $className must not be empty", where)
	}
	inst := fromPath
	if inst == nil {
		inst = dom.New(name, className)
	}
	inst.Name = name
	inst.ClassName = className
	if len(keys) == 0 {
		// Rojo marks only the root of a project's tree with its project file.
		l.record(inst, file)
	}
	inst.SetProjectNode(l.rel(file), append([]string(nil), keys...))
	if fromPath == nil {
		inst.Kind = dom.KindProject
	}
	switch {
	case n.ignoreUnknown != nil:
		inst.IgnoreUnknown = *n.ignoreUnknown
	case n.path == nil:
		inst.IgnoreUnknown = true
	}
	for _, childName := range n.childrenSorted {
		child, err := l.buildNode(ctx, pf, childName, n.children[childName], className, append(keys, childName))
		if err != nil {
			return nil, err
		}
		if child != nil {
			inst.AddChild(child)
		}
	}
	for _, prop := range n.propertyOrder {
		v, err := dom.ResolveValue(className, prop, n.properties[prop])
		if err != nil {
			return nil, l.errf(file, "%s: $properties.%s: %v", where, prop, err)
		}
		if prop == "Name" || prop == "Parent" {
			l.warnf("%s: %s: $properties.%s is ignored", l.rel(file), where, prop)
			continue
		}
		inst.Properties.Set(prop, v)
	}
	for _, prop := range n.propertyOrder {
		if into, ok := dom.Superseded(className, prop, func(name string) bool { return inst.Properties.Get(name) != nil }); ok && inst.Properties.Get(prop) != nil {
			dom.DropProperty(inst, prop)
			l.warnSuperseded(file, where+": ", className, prop, into)
		}
	}
	if n.attributes != nil {
		attrs, err := dom.ResolveAttributes(n.attributes)
		if err != nil {
			return nil, l.errf(file, "%s: $attributes: %v", where, err)
		}
		if len(attrs) > 0 {
			inst.Properties.Set("Attributes", attrs)
		}
	}
	if n.id != nil {
		inst.SetRefID(*n.id)
	}
	return inst, nil
}

// snapshotTarget snapshots the target of a $path: a project file is a nested project
// (named by the key, set by the caller), anything else follows the file rules.
func (l *loader) snapshotTarget(ctx *context, p string) (*dom.Instance, error) {
	st, err := l.stat(p)
	if err != nil || st == nil {
		return nil, err
	}
	if !st.IsDir() && IsProjectFile(p) {
		return l.nestedProject(ctx, p, "")
	}
	return l.snapshotPath(ctx, p, false)
}

// nestedProject loads a project file reached from another project. name is the
// fallback name (used when scanning); the caller may rename the result.
func (l *loader) nestedProject(parent *context, file, name string) (*dom.Instance, error) {
	for _, f := range l.dirStackFiles() {
		if f == file {
			return nil, l.errf(file, "project includes itself")
		}
	}
	pf, err := l.readProjectFile(file)
	if err != nil {
		return nil, err
	}
	if pf.Name != nil {
		name = *pf.Name
	}
	ctx := l.contextFor(pf, file, parent)
	l.dirStack = append(l.dirStack, "project:"+file)
	defer func() { l.dirStack = l.dirStack[:len(l.dirStack)-1] }()
	inst, err := l.buildNode(ctx, pf, name, pf.Tree, "", nil)
	if err != nil {
		return nil, err
	}
	if inst != nil && inst.FsPath == "" {
		inst.FsPath = l.rel(file)
	}
	return inst, nil
}

func (l *loader) dirStackFiles() []string {
	var files []string
	for _, d := range l.dirStack {
		if f, ok := strings.CutPrefix(d, "project:"); ok {
			files = append(files, f)
		}
	}
	return files
}
