package bridgetest

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strconv"
)

// Place is a Studio place in the emulator's JSON format:
// {"placeId":0,"placeName":"Place1","root":{"name":"Game","className":"DataModel",…},
// "drafts":{"ServerScriptService/Main":"…"}}.
type Place struct {
	PlaceID   int64  `json:"placeId"`
	PlaceName string `json:"placeName"`
	Root      *Node  `json:"root"`
	// Drafts is the unsaved editor text of open scripts, by path from game joined
	// with "/".
	Drafts map[string]string `json:"drafts,omitempty"`
	// Enums is the emulator's extra enum table, kept as it is.
	Enums json.RawMessage `json:"enums,omitempty"`
}

// Node is one instance. Properties hold tagged values ({"Bool":true}); a loaded or
// copied Node has a non-nil Properties map.
type Node struct {
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Properties map[string]json.RawMessage `json:"properties"`
	Children   []*Node                    `json:"children,omitempty"`
}

// LoadPlace reads a place in the emulator's JSON format.
func LoadPlace(r io.Reader) (*Place, error) {
	var p Place
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("load place: %w", err)
	}
	if p.Root == nil {
		return nil, fmt.Errorf("load place: no root")
	}
	if err := p.Root.normalize(); err != nil {
		return nil, fmt.Errorf("load place: %w", err)
	}
	return &p, nil
}

// normalize gives every node a Properties map and a name (its class, as Studio
// names a new instance) and checks it has a class.
func (n *Node) normalize() error {
	if n.ClassName == "" {
		return fmt.Errorf("instance %q has no className", n.Name)
	}
	if n.Name == "" {
		n.Name = n.ClassName
	}
	if n.Properties == nil {
		n.Properties = map[string]json.RawMessage{}
	}
	for _, c := range n.Children {
		if err := c.normalize(); err != nil {
			return err
		}
	}
	return nil
}

// Find returns the first instance reached by following names from the root (game),
// or nil. No names returns the root.
func (p *Place) Find(path ...string) *Node {
	n := p.Root
	for _, name := range path {
		n = n.Child(name)
		if n == nil {
			return nil
		}
	}
	return n
}

// Child returns the first child named name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *Place) Clone() *Place {
	c := *p
	if p.Root != nil {
		c.Root = p.Root.Clone()
	}
	c.Drafts = maps.Clone(p.Drafts)
	c.Enums = bytes.Clone(p.Enums)
	return &c
}

// Clone returns a deep copy of n and its descendants.
func (n *Node) Clone() *Node {
	c := &Node{Name: n.Name, ClassName: n.ClassName, Properties: make(map[string]json.RawMessage, len(n.Properties))}
	for k, v := range n.Properties {
		c.Properties[k] = bytes.Clone(v)
	}
	if len(n.Children) > 0 {
		c.Children = make([]*Node, len(n.Children))
		for i, ch := range n.Children {
			c.Children[i] = ch.Clone()
		}
	}
	return c
}

// Source returns the Source property of a script as text ("" when absent).
func (n *Node) Source() string {
	var v struct{ String string }
	_ = json.Unmarshal(n.Properties["Source"], &v)
	return v.String
}

// SetSource sets the Source property.
func (n *Node) SetSource(src string) {
	n.Properties["Source"] = tagged("String", src)
}

// IsScript reports whether n is a LuaSourceContainer.
func (n *Node) IsScript() bool {
	switch n.ClassName {
	case "Script", "LocalScript", "ModuleScript":
		return true
	}
	return false
}

// tagged encodes a value in the tagged form {"Type":value}.
func tagged(typ string, v any) json.RawMessage {
	b, err := json.Marshal(map[string]any{typ: v})
	if err != nil {
		panic(fmt.Sprintf("encode %s value: %v", typ, err))
	}
	return b
}

// BlobSHA1 is the git blob SHA-1 of text, as the protocol's sourceSha1.
func BlobSHA1(text string) string {
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.Itoa(len(text))+"\x00")
	io.WriteString(h, text)
	return hex.EncodeToString(h.Sum(nil))
}
