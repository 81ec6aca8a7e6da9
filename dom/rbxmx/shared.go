package rbxmx

import (
	"sort"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
)

// The binary format (package rbxbin) stores properties under the same file names
// and the same blobs as XML; these export the mapping and the blob codecs so the
// two formats cannot drift apart.

// FileName returns the name under which className's property prop is written, the
// type the file stores it as when that differs from the property's own ("" if
// not), and a rank that orders a property (0) before its alias (1) before names
// the database does not know (2).
func FileName(className, prop string) (name, fileType string, rank int) {
	return fileName(className, prop)
}

// FileProp is a property as a file stores it.
type FileProp struct {
	// File is the name the file stores it under; FileType the type the file stores
	// it as when that differs from the value's ("" if not); Rank orders a property
	// before its alias (see FileName).
	File, FileType string
	Rank           int
	// Name is the property's own name.
	Name  string
	Value dom.Value
}

// FileProps returns i's properties in writing order, Name aside. When several
// share a file name (a property and its alias), the best ranked is kept and the
// others are dropped: they hold the same property.
func FileProps(i *dom.Instance) []FileProp {
	props := make([]FileProp, 0, len(i.Properties))
	for name, v := range i.Properties.All() {
		if v == nil {
			continue
		}
		if name == "Enabled" && reflection.IsA(i.ClassName, "BaseScript") {
			// BaseScript.Enabled does not serialize (the database): a file holds
			// its negation, Disabled, as Studio saves it. Enabled, the newer
			// name, is the one kept when an instance has both.
			if b, ok := v.(dom.Bool); ok {
				props = append(props, FileProp{File: "Disabled", Rank: -1, Name: "Disabled", Value: !b})
				continue
			}
		}
		file, fileType, rank := fileName(i.ClassName, name)
		if file == "Name" {
			continue
		}
		props = append(props, FileProp{file, fileType, rank, name, v})
	}
	sort.Slice(props, func(a, b int) bool {
		pa, pb := props[a], props[b]
		if pa.File != pb.File {
			return pa.File < pb.File
		}
		if pa.Rank != pb.Rank {
			return pa.Rank < pb.Rank
		}
		return pa.Name < pb.Name
	})
	out := props[:0]
	for _, p := range props {
		if len(out) > 0 && out[len(out)-1].File == p.File {
			continue
		}
		out = append(out, p)
	}
	return out
}

// CanonicalName maps a property name found in a file to the property it stores,
// with its database entry (nil when the database does not know it).
func CanonicalName(className, name string) (string, *reflection.Property) {
	return canonicalName(className, name)
}

// EncodeAttributes writes attributes in Roblox's binary attribute format
// (AttributesSerialize).
func EncodeAttributes(attrs dom.Attributes) ([]byte, error) { return encodeAttributes(attrs) }

// DecodeAttributes reads Roblox's binary attribute format.
func DecodeAttributes(data []byte) (dom.Attributes, error) { return decodeAttributes(data) }

// EncodeMaterialColors writes Terrain.MaterialColors as its 69-byte blob.
func EncodeMaterialColors(mc dom.MaterialColors) ([]byte, error) { return encodeMaterialColors(mc) }

// DecodeMaterialColors reads Terrain.MaterialColors from its 69-byte blob.
func DecodeMaterialColors(data []byte) (dom.MaterialColors, error) {
	return decodeMaterialColors(data)
}

// FontWeight returns the FontWeight enum value of a weight name.
func FontWeight(name string) (uint16, bool) {
	w, ok := fontWeights[name]
	return w, ok
}

// FontWeightName returns the name of a FontWeight enum value.
func FontWeightName(n uint16) (string, bool) { return fontWeightName(n) }
