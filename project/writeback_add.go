package project

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project/format"
)

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
		if !utf8.ValidString(src) {
			return notUTF8(instPath, "Source")
		}
		delete(props, "Source")
		file, content, fileUse = suffix+a.ext, []byte(src), u
	case inst.ClassName == "Folder":
		asFolder = true
	case inst.ClassName == "LocalizationTable":
		contents := "[]"
		if s, ok := inst.Properties.Get("Contents").(dom.String); ok {
			contents = string(s)
		}
		data, err := format.CSVFromLocalization(contents)
		if err != nil {
			return &Refusal{Path: instPath, Reason: ReasonUnwritableValue, Msg: fmt.Sprintf("the Contents cannot be written as CSV: %v", err)}
		}
		delete(props, "Contents")
		file, content, fileUse = ".csv", data, useCSV
	case inst.ClassName == "StringValue" && !asFolder:
		if s, ok := inst.Properties.Get("Value").(dom.String); ok {
			if !utf8.ValidString(string(s)) {
				return notUTF8(instPath, "Value")
			}
			content = []byte(s)
		} else if inst.Properties.Get("Value") != nil {
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
		for _, ext := range metaExts {
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
	switch e := inst.Properties.Get("RunContext").(type) {
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
		cls, _ := format.EncodeJSON(metaClass)
		obj = append(format.Object{{Key: "className", Value: cls}}, obj...)
	}
	if len(obj) == 0 {
		return nil
	}
	a.ops = append(a.ops, FileOp{Path: p, Data: obj.Indented()})
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
	a.ops = append(a.ops, FileOp{Path: join(dir, name), Data: obj.Indented()})
	return nil
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
		return "a node of the project file " + inst.ProjectFile()
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
		gov = x.ProjectFile()
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

// ignoredPath returns the first of paths (relative to the project folder) that the
// globIgnorePaths of the project file, or of a nested project file diskParent is
// under, ignore, and the project file whose rule decides: a file written there
// would not load back. "" when none is.
func ignoredPath(p *Project, fsys fs.FS, diskParent *dom.Instance, paths []string) (string, string) {
	files := []string{}
	for x := diskParent; x != nil; x = x.Parent {
		if f := x.ProjectFile(); f != "" && !slices.Contains(files, p.pathInFS(f)) {
			files = append(files, p.pathInFS(f))
		}
	}
	if !slices.Contains(files, p.File) {
		files = append(files, p.File)
	}
	slices.Reverse(files) // the root's rules first, as the loader applies them
	var rules []ignoreRule
	var from []string
	for _, f := range files {
		ignores, ok := projectIgnores(fsys, f)
		if !ok {
			continue
		}
		for range ignores {
			from = append(from, f)
		}
		rules = append(rules, ignores...)
	}
	for _, rel := range paths {
		if fp := p.pathInFS(rel); ignored(rules, fp) {
			file := p.File
			for i, r := range rules {
				if in, ok := relTo(r.base, fp); ok && !r.negate && r.g.match(in) {
					file = from[i] // the last rule that matches decides
				}
			}
			return rel, file
		}
	}
	return "", ""
}

// ignoreCache keeps the globIgnorePaths rules of project files by path and bytes:
// a plan checks every pulled addition (PullAdd) against them, and parses each file
// once for it, not once per addition.
var ignoreCache struct {
	sync.Mutex
	m map[string]cachedIgnores
}

type cachedIgnores struct {
	sum   [sha256.Size]byte
	rules []ignoreRule
}

// projectIgnores returns the globIgnorePaths rules of the project file f; false
// when it cannot be read or parsed.
func projectIgnores(fsys fs.FS, f string) ([]ignoreRule, bool) {
	data, err := fs.ReadFile(fsys, f)
	if err != nil {
		return nil, false
	}
	sum := sha256.Sum256(data)
	ignoreCache.Lock()
	c, ok := ignoreCache.m[f]
	ignoreCache.Unlock()
	if ok && c.sum == sum {
		return c.rules, true
	}
	pf, err := (&loader{}).parseProjectFile(f, data)
	if err != nil {
		return nil, false
	}
	ignoreCache.Lock()
	if ignoreCache.m == nil || len(ignoreCache.m) > 64 {
		ignoreCache.m = map[string]cachedIgnores{}
	}
	ignoreCache.m[f] = cachedIgnores{sum: sum, rules: pf.ignores}
	ignoreCache.Unlock()
	return pf.ignores, true
}
