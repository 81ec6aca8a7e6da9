package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
)

// robloxExts are the extensions of Roblox's own place and model files.
var robloxExts = map[string]bool{".rbxl": true, ".rbxlx": true, ".rbxm": true, ".rbxmx": true}

// IsRobloxFile reports whether path names a Roblox place or model file (by its
// extension), rather than the emulator's own place JSON.
func IsRobloxFile(path string) bool { return robloxExts[strings.ToLower(filepath.Ext(path))] }

// RobloxFile is a Roblox place or model file opened as a DataModel tree.
type RobloxFile struct {
	Path   string
	Binary bool // the format it is written back in
	// Root is a DataModel whose children are the file's top-level instances, with
	// stable IDs (AssignIDs) and refs bound to them.
	Root *dom.Instance
}

// ReadRobloxFile reads a .rbxl, .rbxlx, .rbxm or .rbxmx file. The format is told
// by content, so a binary file under an XML name still reads. A file that cannot
// be read as either format is E_PROJECT_INVALID naming the file (and, for the
// binary format, the chunk).
func ReadRobloxFile(path string) (*RobloxFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.NotFound, err, "read "+path).
			Reason(errcode.ReasonNotFound, errcode.NextFixRequest)
	}
	binary := rbxbin.IsBinary(data)
	decode := rbxmx.Decode
	if binary {
		decode = rbxbin.Decode
	}
	roots, err := decode(bytes.NewReader(data))
	if err != nil {
		return nil, errcode.Wrap(errcode.ProjectInvalid, err, path).
			With("file", path).Reason(errcode.ReasonBadPlaceFile, errcode.NextResaveFile)
	}
	root := dom.New("Game", "DataModel")
	for _, r := range roots {
		root.AddChild(r)
	}
	refs := rbxmx.CaptureRefs(roots)
	root.AssignIDs()
	refs.Rebind()
	return &RobloxFile{Path: path, Binary: binary, Root: root}, nil
}

// Encode writes the file's top-level instances in its format.
func (f *RobloxFile) Encode(w io.Writer) error {
	if f.Binary {
		return rbxbin.Encode(w, f.Root.Children)
	}
	return rbxmx.Encode(w, f.Root.Children)
}

// Write writes the file atomically (temp file, fsync, rename).
func (f *RobloxFile) Write() error {
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		return err
	}
	return atomicfile.Output(f.Path, b.Bytes())
}

// NewRobloxFile is an empty file at path, in the format its extension names.
func NewRobloxFile(path string, root *dom.Instance) *RobloxFile {
	ext := strings.ToLower(filepath.Ext(path))
	return &RobloxFile{Path: path, Binary: ext == ".rbxl" || ext == ".rbxm", Root: root}
}

// EmulatorPlace is the file as the emulator's place. Roblox's own attributes
// (RBX…, which scripts cannot set) are left out; UpdateFromPlace puts them back.
func (f *RobloxFile) EmulatorPlace() *PlaceFile {
	root := f.Root.Clone()
	root.Walk(func(i *dom.Instance) bool {
		if a, ok := i.Properties.Get("Attributes").(dom.Attributes); ok {
			if kept := withoutRobloxAttrs(a); len(kept) != len(a) {
				i.Properties.Set("Attributes", kept)
			}
		}
		return true
	})
	return PlaceFromTree(root, filepath.Base(f.Path))
}

func withoutRobloxAttrs(a dom.Attributes) dom.Attributes {
	out := make(dom.Attributes, len(a))
	for k, v := range a {
		if !strings.HasPrefix(k, "RBX") {
			out[k] = v
		}
	}
	return out
}

// UpdateFromPlace replaces the tree by the emulator's saved place (a JSON file).
// The emulator does not keep Ref properties, so each ref of the old tree whose
// instance and target are still there (matched by stable ID: path and order among
// same-named siblings) is carried over, and so are Roblox's own attributes.
func (f *RobloxFile) UpdateFromPlace(placeJSON string) error {
	data, err := os.ReadFile(placeJSON)
	if err != nil {
		return err
	}
	var pf PlaceFile
	if err := json.Unmarshal(data, &pf); err != nil {
		return fmt.Errorf("read the emulator's place %s: %w", placeJSON, err)
	}
	if pf.Root == nil {
		return fmt.Errorf("the emulator's place %s has no root", placeJSON)
	}
	root := pf.Tree()
	if f.Root != nil {
		now := root.Index()
		f.Root.Walk(func(old *dom.Instance) bool {
			cur, ok := now[old.ID]
			if !ok {
				return true
			}
			if a, ok := old.Properties.Get("Attributes").(dom.Attributes); ok {
				merged := dom.Attributes{}
				if cur, ok := cur.Properties.Get("Attributes").(dom.Attributes); ok {
					for k, v := range cur {
						merged[k] = v
					}
				}
				n := len(merged)
				for k, v := range a {
					if _, set := merged[k]; strings.HasPrefix(k, "RBX") && !set {
						merged[k] = v
					}
				}
				if len(merged) > n {
					cur.Properties.Set("Attributes", merged)
				}
			}
			for k, v := range old.Properties.All() {
				ref, isRef := v.(dom.Ref)
				if _, set := cur.Properties.Lookup(k); !isRef || set {
					continue
				}
				if _, there := now[string(ref)]; there {
					cur.Properties.Set(k, ref)
				}
			}
			return true
		})
	}
	f.Root = root
	return nil
}
