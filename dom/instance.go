package dom

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// FileKind says how an instance is stored on disk, so a pulled change can be written
// back in the same form.
type FileKind uint8

// The file kinds.
const (
	KindNone     FileKind = iota // not stored on disk (e.g. a Studio instance)
	KindProject                  // a node of a project file
	KindDir                      // a directory without an init file (Folder)
	KindInit                     // a directory with an init script or init.csv
	KindScript                   // a .lua/.luau file
	KindText                     // a .txt file (StringValue)
	KindCSV                      // a .csv file (LocalizationTable)
	KindJSON                     // a .json module
	KindTOML                     // a .toml module
	KindYAML                     // a .yaml module
	KindModel                    // a .model.json file (root)
	KindModelSub                 // a child inside a .model.json file
	KindRbxmx                    // a .rbxmx file (root)
	KindRbxm                     // a .rbxm file (root)
	KindInFile                   // a descendant inside an .rbxmx/.rbxm file
)

var kindNames = [...]string{"", "project", "dir", "init", "script", "text", "csv", "json", "toml", "yaml",
	"model", "modelsub", "rbxmx", "rbxm", "infile"}

// String returns the kind's name ("" for KindNone).
func (k FileKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Instance is one node of an instance tree (disk, Studio or base).
//
// Invariants: Children's Parent is the instance; after AssignIDs every ID is set and
// unique within the tree; FsPath uses '/' and is relative to the project root.
//
// A tree holds many instances (hundreds of thousands in a big place, in the disk,
// Studio and base trees at once): fields that few instances have live out of line.
type Instance struct {
	ID         string
	Name       string
	ClassName  string
	Properties Props
	Children   []*Instance
	Parent     *Instance

	// FsPath is the file or directory that produced the instance ("" if none).
	FsPath string
	// SourceHash is the git blob id of Source, for scripts; set even when Source is not
	// loaded (a base tree reads hashes from the commit without reading blobs).
	SourceHash string
	// RawHash is the git blob id of the file bytes the Source came from, when known.
	RawHash string
	// Handle is the plugin's handle for a Studio instance.
	Handle string

	// node holds the project-file and meta details of the few instances with any.
	node *nodeInfo

	// Kind is how the instance is stored on disk.
	Kind FileKind
	// IgnoreUnknown is $ignoreUnknownInstances: Studio children Atlas does not know are kept.
	IgnoreUnknown bool
}

type nodeInfo struct {
	metaPath    string
	projectFile string
	projectKeys []string
	refID       string
	editorSha1  string
}

// EditorSha1 is, for a Studio script whose document is open in the Script Editor
// with text other than its Source, the git blob id of that text ("" for none).
func (i *Instance) EditorSha1() string {
	if i.node == nil {
		return ""
	}
	return i.node.editorSha1
}

// SetEditorSha1 sets EditorSha1. Copies of a tree share these details, so it
// changes a copy of them, never the shared ones; most instances have none, and
// clearing it where none is set allocates nothing.
func (i *Instance) SetEditorSha1(sha string) {
	if i.EditorSha1() == sha {
		return
	}
	var n nodeInfo
	if i.node != nil {
		n = *i.node
	}
	n.editorSha1 = sha
	i.node = &n
}

func (i *Instance) info() *nodeInfo {
	if i.node == nil {
		i.node = &nodeInfo{}
	}
	return i.node
}

// MetaPath is the .meta.json or init.meta.json applied to the instance, if any.
func (i *Instance) MetaPath() string {
	if i.node == nil {
		return ""
	}
	return i.node.metaPath
}

// SetMetaPath sets MetaPath.
func (i *Instance) SetMetaPath(p string) {
	if p != "" || i.node != nil {
		i.info().metaPath = p
	}
}

// ProjectFile is the project file whose node defines the instance (project nodes only).
func (i *Instance) ProjectFile() string {
	if i.node == nil {
		return ""
	}
	return i.node.projectFile
}

// ProjectKeys is the path of keys from ProjectFile's tree to the node.
func (i *Instance) ProjectKeys() []string {
	if i.node == nil {
		return nil
	}
	return i.node.projectKeys
}

// SetProjectNode sets ProjectFile and ProjectKeys.
func (i *Instance) SetProjectNode(file string, keys []string) {
	if file != "" || keys != nil || i.node != nil {
		n := i.info()
		n.projectFile, n.projectKeys = file, keys
	}
}

// RefID is the Rojo ref-link id ($id, meta id), if any.
func (i *Instance) RefID() string {
	if i.node == nil {
		return ""
	}
	return i.node.refID
}

// SetRefID sets RefID.
func (i *Instance) SetRefID(id string) {
	if id != "" || i.node != nil {
		i.info().refID = id
	}
}

// New returns an instance with no properties.
func New(name, className string) *Instance {
	return &Instance{Name: name, ClassName: Intern(className)}
}

// internLen and internCount bound the strings Intern keeps, in length and number: class and
// property names, not data.
const (
	internLen   = 64
	internCount = 1 << 16
)

var (
	interned      sync.Map // string → string
	internedCount atomic.Int64
)

// Intern returns a string equal to s, the same one for every equal s: the names
// a tree repeats on every instance (classes, properties, attributes) are then held
// once, however many times a decoder allocated them.
func Intern(s string) string {
	if len(s) > internLen {
		return s
	}
	if v, ok := interned.Load(s); ok {
		return v.(string)
	}
	if internedCount.Load() >= internCount {
		return s
	}
	// A copy, so that the string kept does not hold on to a bigger buffer s may
	// point into.
	v, loaded := interned.LoadOrStore(s, strings.Clone(s))
	if !loaded {
		internedCount.Add(1)
	}
	return v.(string)
}

// AddChild appends c to i's children and sets its parent.
func (i *Instance) AddChild(c *Instance) {
	c.Parent = i
	i.Children = append(i.Children, c)
}

// Path returns the names from the root (excluded) to i, joined with "/".
func (i *Instance) Path() string {
	return strings.Join(i.PathNames(), "/")
}

// PathNames returns the names from the root (excluded) to i.
func (i *Instance) PathNames() []string {
	var names []string
	for p := i; p != nil && p.Parent != nil; p = p.Parent {
		names = append(names, p.Name)
	}
	for l, r := 0, len(names)-1; l < r; l, r = l+1, r-1 {
		names[l], names[r] = names[r], names[l]
	}
	return names
}

// Walk calls fn for i and its descendants, parents first; fn returning false skips
// the instance's descendants.
func (i *Instance) Walk(fn func(*Instance) bool) {
	if !fn(i) {
		return
	}
	for _, c := range i.Children {
		c.Walk(fn)
	}
}

// AssignIDs sets the stable ids of i (as the root) and all its descendants, and
// returns the paths of instances that have same-named siblings (matched by order).
func (i *Instance) AssignIDs() (duplicates []string) {
	i.ID = RootID
	i.assignChildIDs(&duplicates)
	return duplicates
}

func (i *Instance) assignChildIDs(dups *[]string) {
	seen := make(map[string]int, len(i.Children))
	for _, c := range i.Children {
		n := seen[c.Name]
		seen[c.Name] = n + 1
		c.ID = ChildID(i.ID, c.Name, n)
		if n == 1 {
			*dups = append(*dups, c.Path())
		}
		c.assignChildIDs(dups)
	}
}

// Index returns every instance of the tree by id.
func (i *Instance) Index() map[string]*Instance {
	m := map[string]*Instance{}
	i.Walk(func(x *Instance) bool { m[x.ID] = x; return true })
	return m
}

// FindChild returns the first child with the given name, or nil.
func (i *Instance) FindChild(name string) *Instance {
	for _, c := range i.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Find follows names from i, taking the first match at each step.
func (i *Instance) Find(names ...string) *Instance {
	cur := i
	for _, n := range names {
		if cur = cur.FindChild(n); cur == nil {
			return nil
		}
	}
	return cur
}

// Count returns the number of instances in the subtree.
func (i *Instance) Count() int {
	n := 0
	i.Walk(func(*Instance) bool { n++; return true })
	return n
}

// PropertyNames returns the property names, sorted.
func (i *Instance) PropertyNames() []string {
	return i.Properties.Names()
}

// Clone deep-copies the subtree (values are immutable and shared); the copy has no parent.
func (i *Instance) Clone() *Instance {
	c := *i
	c.Parent = nil
	c.Properties = i.Properties.Clone()
	if i.node != nil {
		n := *i.node
		n.projectKeys = append([]string(nil), n.projectKeys...)
		c.node = &n
	}
	c.Children = make([]*Instance, 0, len(i.Children))
	for _, ch := range i.Children {
		cc := ch.Clone()
		cc.Parent = &c
		c.Children = append(c.Children, cc)
	}
	return &c
}

// scriptClasses are the LuaSourceContainer classes that carry a Source.
var scriptClasses = map[string]bool{"Script": true, "LocalScript": true, "ModuleScript": true}

// IsScriptClass reports whether className is a script class with a Source.
func IsScriptClass(className string) bool { return scriptClasses[className] }

// IsScript reports whether i is a script.
func (i *Instance) IsScript() bool { return scriptClasses[i.ClassName] }

// DropProperty removes property name from x.
func DropProperty(x *Instance, name string) { x.Properties.Delete(name) }

// Source returns the script's Source property and whether it is loaded.
func (i *Instance) Source() (string, bool) {
	s, ok := i.Properties.Get("Source").(String)
	return string(s), ok
}
