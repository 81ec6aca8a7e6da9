package dom

import (
	"sort"
	"strings"
)

// FileKind says how an instance is stored on disk, so a pulled change can be written
// back in the same form.
type FileKind string

// The file kinds.
const (
	KindNone     FileKind = ""         // not stored on disk (e.g. a Studio instance)
	KindProject  FileKind = "project"  // a node of a project file
	KindDir      FileKind = "dir"      // a directory without an init file (Folder)
	KindInit     FileKind = "init"     // a directory with an init script or init.csv
	KindScript   FileKind = "script"   // a .lua/.luau file
	KindText     FileKind = "text"     // a .txt file (StringValue)
	KindCSV      FileKind = "csv"      // a .csv file (LocalizationTable)
	KindJSON     FileKind = "json"     // a .json module
	KindTOML     FileKind = "toml"     // a .toml module
	KindYAML     FileKind = "yaml"     // a .yaml module
	KindModel    FileKind = "model"    // a .model.json file (root)
	KindModelSub FileKind = "modelsub" // a child inside a .model.json file
	KindRbxmx    FileKind = "rbxmx"    // a .rbxmx file (root)
	KindRbxm     FileKind = "rbxm"     // a .rbxm file (root)
	KindInFile   FileKind = "infile"   // a descendant inside an .rbxmx/.rbxm file
)

// Instance is one node of an instance tree (disk, Studio or base).
//
// Invariants: Children's Parent is the instance; after AssignIDs every ID is set and
// unique within the tree; FsPath uses '/' and is relative to the project root.
type Instance struct {
	ID         string
	Name       string
	ClassName  string
	Properties Properties
	Children   []*Instance
	Parent     *Instance

	// FsPath is the file or directory that produced the instance ("" if none).
	FsPath string
	// Kind is how the instance is stored on disk.
	Kind FileKind
	// MetaPath is the .meta.json or init.meta.json applied to it, if any.
	MetaPath string
	// ProjectFile is the project file whose node defines the instance (project nodes only).
	ProjectFile string
	// ProjectKeys is the path of keys from that project's tree to the node.
	ProjectKeys []string
	// IgnoreUnknown is $ignoreUnknownInstances: Studio children Atlas does not know are kept.
	IgnoreUnknown bool
	// RefID is the Rojo ref-link id ($id, meta id), if any.
	RefID string
	// SourceHash is the git blob id of Source, for scripts; set even when Source is not
	// loaded (a base tree reads hashes from the commit without reading blobs).
	SourceHash string
	// RawHash is the git blob id of the file bytes the Source came from, when known.
	RawHash string
	// Handle is the plugin's handle for a Studio instance.
	Handle string
}

// New returns an instance with an empty property map.
func New(name, className string) *Instance {
	return &Instance{Name: name, ClassName: className, Properties: Properties{}}
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
	names := make([]string, 0, len(i.Properties))
	for k := range i.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Clone deep-copies the subtree (values are immutable and shared); the copy has no parent.
func (i *Instance) Clone() *Instance {
	c := *i
	c.Parent = nil
	c.Properties = make(Properties, len(i.Properties))
	for k, v := range i.Properties {
		c.Properties[k] = v
	}
	c.ProjectKeys = append([]string(nil), i.ProjectKeys...)
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

// Source returns the script's Source property and whether it is loaded.
func (i *Instance) Source() (string, bool) {
	s, ok := i.Properties["Source"].(String)
	return string(s), ok
}
