package syncback

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/project/format"
)

// DefaultServices are the services extracted when Options.Services is empty: the
// ones a game's own content lives in. Others (Players, CoreGui, the engine's
// internal services) are not synced.
var DefaultServices = []string{
	"Workspace", "Lighting", "MaterialService", "ReplicatedFirst", "ReplicatedStorage",
	"ServerScriptService", "ServerStorage", "StarterGui", "StarterPack", "StarterPlayer",
	"Teams", "SoundService", "TextChatService", "Chat", "LocalizationService",
}

// Options tune Extract.
type Options struct {
	// Name is the project's name ("name" in default.project.json).
	Name string
	// Services are the names of the top-level instances to extract; empty means
	// DefaultServices.
	Services []string
	// SrcDir is the folder the instances' files go under ("src" if empty).
	SrcDir string
}

// File is one file of the project, its path relative to the project folder.
type File struct {
	Path string
	Data []byte
}

// Fallback is an instance written as a model file because its children cannot
// all be files of their own.
type Fallback struct {
	Instance string `json:"instance"` // the instance's path, e.g. "Workspace/Map"
	File     string `json:"file"`     // the model file written
	Reason   string `json:"reason"`
}

// Result is what Extract produces.
type Result struct {
	Files     []File // sorted by path; default.project.json among them
	Fallbacks []Fallback
	Skipped   []string // top-level instances not extracted, with why
	// DroppedRefs lists Ref properties that point outside the model file they are
	// in: project files cannot hold them (instance path and property).
	DroppedRefs []string
	Instances   int // instances extracted, the DataModel excluded
}

// NotSynced ends the Skipped entry of a top-level instance that is not among the
// services extracted.
const NotSynced = " (not a synced service)"

// ProjectFile is the name of the project file Extract writes.
const ProjectFile = "default.project.json"

// jsonModelClasses are the classes Rojo's syncback writes as .model.json files.
var jsonModelClasses = map[string]bool{
	"Actor": true, "Sound": true, "SoundGroup": true, "Sky": true, "Atmosphere": true,
	"BloomEffect": true, "BlurEffect": true, "ColorCorrectionEffect": true,
	"DepthOfFieldEffect": true, "SunRaysEffect": true, "ParticleEmitter": true,
	"TextChannel": true, "TextChatCommand": true, "ChatWindowConfiguration": true,
	"ChatInputBarConfiguration": true, "BubbleChatConfiguration": true,
	"ChannelTabsConfiguration": true, "RemoteEvent": true, "UnreliableRemoteEvent": true,
	"RemoteFunction": true, "BindableEvent": true, "BindableFunction": true,
}

// folderClasses are written as folders (with an init.meta.json for the class).
var folderClasses = map[string]bool{"Folder": true, "Configuration": true, "Tool": true}

// containerClasses are not services but sit in a project file as nodes of their
// own, as Rojo projects write them.
var containerClasses = map[string]bool{"StarterPlayerScripts": true, "StarterCharacterScripts": true}

type extractor struct {
	camera   *dom.Instance // Workspace.CurrentCamera, left to Studio
	res      *Result
	src      string
	inModels map[*dom.Instance]bool // instances written inside a model file
}

// Extract turns the DataModel root into project files. root is not modified.
func Extract(root *dom.Instance, opt Options) (*Result, error) {
	if opt.SrcDir == "" {
		opt.SrcDir = "src"
	}
	if opt.Name == "" {
		opt.Name = "Place"
	}
	want := opt.Services
	if len(want) == 0 {
		want = DefaultServices
	}
	e := &extractor{res: &Result{}, src: opt.SrcDir, inModels: map[*dom.Instance]bool{}}
	tree := format.Object{kv("$className", "DataModel")}
	seen := map[string]int{}
	for _, c := range root.Children {
		seen[c.Name]++
	}
	for _, c := range root.Children {
		switch {
		case !slices.Contains(want, c.Name):
			e.res.Skipped = append(e.res.Skipped, c.Name+NotSynced)
		case seen[c.Name] > 1:
			e.res.Skipped = append(e.res.Skipped, c.Name+" (several top-level instances have this name)")
		case strings.HasPrefix(c.Name, "$"):
			e.res.Skipped = append(e.res.Skipped, c.Name+" (a name starting with $ is reserved in project files)")
		default:
			n, err := e.node(c, path.Join(e.src, c.Name))
			if err != nil {
				return nil, err
			}
			tree = append(tree, kv(c.Name, n))
		}
	}
	for _, s := range want {
		if root.FindChild(s) == nil && len(opt.Services) > 0 {
			e.res.Skipped = append(e.res.Skipped, s+" (not in the place)")
		}
	}
	pf := format.Object{kv("name", opt.Name), kv("tree", tree)}
	e.add(ProjectFile, pf.Indented())
	e.collectDroppedRefs(root, want)
	sort.Slice(e.res.Files, func(a, b int) bool { return e.res.Files[a].Path < e.res.Files[b].Path })
	return e.res, nil
}

// ExtractModel turns a model's top-level instances into project files, as Rojo
// syncs a model back into a project whose tree is {"$path": "src"}: the project's
// root is the model's one top-level instance (or a Folder holding several), and
// the root's children are files and folders under SrcDir.
func ExtractModel(roots []*dom.Instance, opt Options) (*Result, error) {
	if opt.SrcDir == "" {
		opt.SrcDir = "src"
	}
	if opt.Name == "" {
		opt.Name = "Model"
		if len(roots) == 1 {
			opt.Name = roots[0].Name
		}
	}
	e := &extractor{res: &Result{}, src: opt.SrcDir, inModels: map[*dom.Instance]bool{}}
	tree := format.Object{}
	if len(roots) == 1 {
		// One top-level instance is the project's root itself.
		root := roots[0]
		roots = root.Children
		e.res.Instances++
		if root.ClassName != "Folder" {
			tree = append(tree, kv("$className", root.ClassName))
		}
		form, err := project.FormOf(root)
		if err != nil {
			return nil, err
		}
		props, err := propsMembers(root.ClassName, form.Props, "$properties", "$attributes")
		if err != nil {
			return nil, err
		}
		tree = append(tree, props...)
	}
	if reason := badChildren(roots); reason != "" {
		return nil, fmt.Errorf("the model's top-level instances cannot be files (%s): keep it as a model file", reason)
	}
	for _, c := range roots {
		if err := e.write(e.src, c); err != nil {
			return nil, err
		}
	}
	if len(roots) > 0 {
		tree = append(tree, kv("$path", e.src))
	} else if len(tree) == 0 {
		tree = append(tree, kv("$className", "Folder"))
	}
	pf := format.Object{kv("name", opt.Name), kv("tree", tree)}
	e.add(ProjectFile, pf.Indented())
	for _, r := range roots {
		e.collectDroppedRefs(r, nil)
	}
	sort.Slice(e.res.Files, func(a, b int) bool { return e.res.Files[a].Path < e.res.Files[b].Path })
	return e.res, nil
}

func (e *extractor) add(p string, data []byte) {
	e.res.Files = append(e.res.Files, File{Path: p, Data: data})
}

// node is the project node of a service or container, its files under dir.
func (e *extractor) node(inst *dom.Instance, dir string) (format.Object, error) {
	e.res.Instances++
	n := format.Object{kv("$className", inst.ClassName)}
	form, err := project.FormOf(inst)
	if err != nil {
		return nil, err
	}
	props, err := propsMembers(inst.ClassName, form.Props, "$properties", "$attributes")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inst.Path(), err)
	}
	var files, nodes []*dom.Instance
	names := map[string]int{}
	for _, c := range inst.Children {
		names[c.Name]++
	}
	camera := currentCamera(inst)
	for _, c := range inst.Children {
		if c == camera {
			continue
		}
		if inst.ClassName == "Workspace" && c.ClassName == "Terrain" && len(c.Children) == 0 && len(propsFor(project.WritableProps(c))) == 0 {
			// Studio makes the Workspace's Terrain in every place: an empty one is
			// no content (and plans leave an undeclared one alone).
			continue
		}
		if (reflection.IsService(c.ClassName) || containerClasses[c.ClassName]) && names[c.Name] == 1 && !strings.HasPrefix(c.Name, "$") {
			nodes = append(nodes, c)
		} else {
			files = append(files, c)
		}
	}
	if reason := badChildren(files); reason != "" {
		// The service cannot be a folder: it becomes one model file.
		file := dir + ".rbxm"
		if err := e.model(inst, file); err != nil {
			return nil, err
		}
		e.res.Fallbacks = append(e.res.Fallbacks, Fallback{Instance: inst.Path(), File: file, Reason: reason})
		e.res.Instances-- // counted again by model
		return format.Object{kv("$path", file)}, nil
	}
	for _, c := range files {
		if err := e.write(dir, c); err != nil {
			return nil, err
		}
	}
	if camera != nil {
		// Studio makes the current camera itself, so Rojo's syncback leaves it
		// out, and plans leave an undeclared one alone.
		e.camera = camera
	}
	for _, c := range nodes {
		sub := dir + "." + c.Name // beside dir, so the loader does not also read it as a child folder
		if len(files) == 0 {
			sub = path.Join(dir, c.Name)
		}
		cn, err := e.node(c, sub)
		if err != nil {
			return nil, err
		}
		n = append(n, kv(c.Name, cn))
	}
	n = append(n, props...)
	if len(files) > 0 {
		n = append(n, kv("$path", dir))
	}
	return n, nil
}

// currentCamera is the Workspace's CurrentCamera when it is a uniquely named child
// of inst (a Workspace); without a CurrentCamera to go by, its Camera named Camera.
func currentCamera(inst *dom.Instance) *dom.Instance {
	if inst.ClassName != "Workspace" {
		return nil
	}
	var cam *dom.Instance
	n := 0
	if ref, ok := inst.Properties.Get("CurrentCamera").(dom.Ref); ok {
		for _, c := range inst.Children {
			if c.ID == string(ref) && c.ClassName == "Camera" {
				cam = c
			}
		}
	} else {
		// A live Studio's snapshot names no references: its camera is the one
		// Studio makes, a Camera called Camera.
		for _, c := range inst.Children {
			if c.Name == "Camera" && c.ClassName == "Camera" {
				cam = c
			}
		}
	}
	if cam == nil {
		return nil
	}
	for _, c := range inst.Children {
		if c.Name == cam.Name {
			n++
		}
	}
	if n != 1 || strings.HasPrefix(cam.Name, "$") {
		return nil
	}
	return cam
}

// badChildren says why children cannot each be a file of their own in one folder
// ("" if they can): a name that is no file name, or names equal ignoring case.
func badChildren(children []*dom.Instance) string {
	seen := map[string]string{}
	for _, c := range children {
		if err := project.CheckFileName(c.Name); err != nil {
			return err.Error()
		}
		low := strings.ToLower(c.Name)
		if other, dup := seen[low]; dup {
			if other == c.Name {
				return fmt.Sprintf("two children are named %q", c.Name)
			}
			return fmt.Sprintf("the children %q and %q differ only in case", other, c.Name)
		}
		seen[low] = c.Name
	}
	return ""
}

// write stores inst and its subtree in the folder dir.
func (e *extractor) write(dir string, inst *dom.Instance) error {
	form, err := project.FormOf(inst)
	if err != nil {
		return e.model(inst, path.Join(dir, inst.Name+".rbxm"))
	}
	hasKids := len(inst.Children) > 0
	class := inst.ClassName
	switch {
	case form.Ext != "" && !hasKids:
		name := inst.Name + form.Ext
		if !project.LoadsBackAs(name, inst.Name) {
			return e.modelOrParent(dir, inst, fmt.Sprintf("a file named %q would load as another name", name))
		}
		e.res.Instances++
		e.add(path.Join(dir, name), form.Data)
		return e.meta(path.Join(dir, inst.Name+".meta.json"), class, "", form.Props)
	case form.Ext != "":
		// A script, text or table with children: a folder with an init file.
		init := "init" + form.Ext
		metaClass := ""
		if form.Ext == ".txt" {
			// There is no init.txt: the folder's meta gives the class and the Value.
			init, metaClass = "", class
			form.Props["Value"] = dom.String(form.Data)
		}
		return e.folder(dir, inst, init, form.Data, metaClass, form.Props)
	case folderClasses[class]:
		metaClass := ""
		if class != "Folder" {
			metaClass = class
		}
		return e.folder(dir, inst, "", nil, metaClass, form.Props)
	case (jsonModelClasses[class] || strings.HasSuffix(class, "Value")) && !hasKids:
		name := inst.Name + ".model.json"
		if !project.LoadsBackAs(name, inst.Name) {
			return e.modelOrParent(dir, inst, fmt.Sprintf("a file named %q would load as another name", name))
		}
		data, err := modelJSON(inst)
		if err != nil {
			return e.model(inst, path.Join(dir, inst.Name+".rbxm"))
		}
		e.res.Instances++
		e.add(path.Join(dir, name), data)
		return nil
	case jsonModelClasses[class] || strings.HasSuffix(class, "Value") || hasScript(inst):
		// Rojo writes other classes to .rbxm; one with scripts inside becomes a
		// folder with its class in init.meta.json, so the scripts stay files.
		return e.folder(dir, inst, "", nil, class, form.Props)
	}
	return e.model(inst, path.Join(dir, inst.Name+".rbxm"))
}

// modelOrParent writes inst as a model file when its name allows one.
func (e *extractor) modelOrParent(dir string, inst *dom.Instance, reason string) error {
	file := path.Join(dir, inst.Name+".rbxm")
	if !project.LoadsBackAs(inst.Name+".rbxm", inst.Name) {
		return fmt.Errorf("%s: %s, and no model file name loads back as it", inst.Path(), reason)
	}
	e.res.Fallbacks = append(e.res.Fallbacks, Fallback{Instance: inst.Path(), File: file, Reason: reason})
	return e.model(inst, file)
}

// folder writes inst as a folder: an optional init file, an init.meta.json, the
// children. Children that cannot all be files make it a model file instead.
func (e *extractor) folder(dir string, inst *dom.Instance, init string, initData []byte, metaClass string, props map[string]dom.Value) error {
	folder := path.Join(dir, inst.Name)
	if reason := badChildren(inst.Children); reason != "" {
		return e.modelOrParent(dir, inst, reason)
	}
	e.res.Instances++
	wrote := false
	if init != "" {
		e.add(path.Join(folder, init), initData)
		wrote = true
	}
	meta, err := metaJSON(inst.ClassName, metaClass, props)
	if err != nil {
		return fmt.Errorf("%s: %w", inst.Path(), err)
	}
	if meta != nil {
		e.add(path.Join(folder, "init.meta.json"), meta)
		wrote = true
	}
	if !wrote && len(inst.Children) == 0 {
		e.add(path.Join(folder, ".gitkeep"), []byte{})
	}
	for _, c := range inst.Children {
		if err := e.write(folder, c); err != nil {
			return err
		}
	}
	return nil
}

func (e *extractor) meta(p, class, metaClass string, props map[string]dom.Value) error {
	data, err := metaJSON(class, metaClass, props)
	if err != nil {
		return err
	}
	if data != nil {
		e.add(p, data)
	}
	return nil
}

// model writes inst's subtree as one binary model file. Like the other files it
// holds only what a project keeps: no defaults, no UniqueIds; refs inside the
// model stay.
func (e *extractor) model(inst *dom.Instance, file string) error {
	var b bytes.Buffer
	if err := rbxbin.Encode(&b, []*dom.Instance{pruned(inst)}); err != nil {
		return fmt.Errorf("%s: %w", inst.Path(), err)
	}
	inst.Walk(func(x *dom.Instance) bool {
		e.inModels[x] = true
		e.res.Instances++
		return true
	})
	e.add(file, b.Bytes())
	return nil
}

// pruned copies inst's subtree with the properties a project keeps, and the refs
// (Encode keeps those whose target is in the copy).
func pruned(inst *dom.Instance) *dom.Instance {
	c := inst.Clone()
	orig := []*dom.Instance{}
	inst.Walk(func(x *dom.Instance) bool { orig = append(orig, x); return true })
	i := 0
	c.Walk(func(x *dom.Instance) bool {
		keep := propsFor(project.WritableProps(orig[i]))
		if _, ok := orig[i].Properties.Lookup("Source"); ok {
			keep["Source"] = orig[i].Properties.Get("Source") // a script's Source even when empty
		}
		for k, v := range orig[i].Properties.All() {
			if _, ok := v.(dom.Ref); ok {
				keep[k] = v
			}
		}
		x.Properties = dom.PropsOf(keep)
		i++
		return true
	})
	return c
}

func hasScript(inst *dom.Instance) bool {
	found := false
	for _, c := range inst.Children {
		c.Walk(func(x *dom.Instance) bool {
			found = found || x.IsScript()
			return !found
		})
	}
	return found
}

// collectDroppedRefs lists the refs no file keeps: those outside model files,
// and those in a model file that point out of it.
func (e *extractor) collectDroppedRefs(root *dom.Instance, want []string) {
	byID := root.Index()
	modelRoot := func(i *dom.Instance) *dom.Instance {
		var top *dom.Instance
		for x := i; x != nil && e.inModels[x]; x = x.Parent {
			top = x
		}
		return top
	}
	for _, c := range root.Children {
		if want != nil && !slices.Contains(want, c.Name) {
			continue
		}
		c.Walk(func(i *dom.Instance) bool {
			for _, k := range i.PropertyNames() {
				r, ok := i.Properties.Get(k).(dom.Ref)
				if !ok {
					continue
				}
				t, ok := byID[string(r)]
				if !ok {
					continue // a nil ref
				}
				if mr := modelRoot(i); mr != nil && modelRoot(t) == mr {
					continue
				}
				if t == e.camera && k == "CurrentCamera" {
					continue // Studio sets it
				}
				e.res.DroppedRefs = append(e.res.DroppedRefs, i.Path()+"."+k)
			}
			return true
		})
	}
}
