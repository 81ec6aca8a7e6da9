package rbxbin

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pierrec/lz4/v4"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/dom/reflection"
)

// Options tune Encode.
type Options struct {
	// Uncompressed stores every chunk raw instead of LZ4-compressed.
	Uncompressed bool
}

// Encode writes roots as a binary model or place, LZ4-compressing each chunk as
// Roblox Studio does. For a .rbxm model pass the root instance itself; for a .rbxl
// place pass the DataModel's children.
//
// The output is deterministic. Referents count the instances in document order;
// classes are numbered in name order; each class's properties are written sorted
// by file name, under the same names and types as rbxmx writes them. The format
// stores a property for every instance of a class or for none, so an instance
// that lacks a property its class-mates have gets the database default (or the
// type's zero value), as Roblox does. Values with no binary form (EnumItem
// outside attributes, Vector2int16, Region3, Region3int16) fail the encode.
// Nothing is written to w when an error is returned.
func Encode(w io.Writer, roots []*dom.Instance) error { return EncodeWith(w, roots, Options{}) }

// EncodeWith is Encode with options.
func EncodeWith(w io.Writer, roots []*dom.Instance, opt Options) error {
	data, err := encodeFile(roots, opt)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

type encClass struct {
	name  string
	insts []*dom.Instance
}

type encoder struct {
	refs    map[*dom.Instance]int32
	byID    map[string]int32
	shared  [][]byte
	sharedN map[[16]byte]uint32
	out     []byte
	classes int
	opt     Options
	lz      lz4.Compressor
}

func encodeFile(roots []*dom.Instance, opt Options) ([]byte, error) {
	e := &encoder{refs: map[*dom.Instance]int32{}, byID: map[string]int32{}, sharedN: map[[16]byte]uint32{}, opt: opt}
	var all []*dom.Instance
	byClass := map[string]*encClass{}
	for _, r := range roots {
		if r == nil {
			return nil, errors.New("rbxbin: encode: nil root")
		}
		r.Walk(func(i *dom.Instance) bool {
			ref := int32(len(all))
			all = append(all, i)
			e.refs[i] = ref
			if _, dup := e.byID[i.ID]; i.ID != "" && !dup {
				e.byID[i.ID] = ref
			}
			c := byClass[i.ClassName]
			if c == nil {
				c = &encClass{name: i.ClassName}
				byClass[i.ClassName] = c
			}
			c.insts = append(c.insts, i)
			return true
		})
	}
	classes := make([]*encClass, 0, len(byClass))
	for _, c := range byClass {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(a, b int) bool { return classes[a].name < classes[b].name })

	// PROP chunks are built first: they collect the shared strings SSTR lists.
	var props [][]byte
	for id, c := range classes {
		chunks, err := e.classProps(uint32(id), c)
		if err != nil {
			return nil, fmt.Errorf("rbxbin: encode: %w", err)
		}
		props = append(props, chunks...)
	}

	e.out = make([]byte, 0, 32)
	e.out = append(e.out, magic...)
	e.out = append(e.out, signature...)
	e.out = le.AppendUint16(e.out, 0)
	e.out = le.AppendUint32(e.out, uint32(len(classes)))
	e.out = le.AppendUint32(e.out, uint32(len(all)))
	e.out = append(e.out, make([]byte, 8)...)

	meta := &writer{}
	meta.u32(1)
	meta.str("ExplicitAutoJoints")
	meta.str("true")
	e.chunk("META", meta.buf)
	if len(e.shared) > 0 {
		s := &writer{}
		s.u32(0)
		s.u32(uint32(len(e.shared)))
		for _, b := range e.shared {
			sum := md5Of(b)
			s.buf = append(s.buf, sum[:]...)
			s.raw(b)
		}
		e.chunk("SSTR", s.buf)
	}
	for id, c := range classes {
		w := &writer{}
		w.u32(uint32(id))
		w.str(c.name)
		service := reflection.IsService(c.name)
		if service {
			w.u8(1)
		} else {
			w.u8(0)
		}
		w.u32(uint32(len(c.insts)))
		refs := make([]int32, len(c.insts))
		for i, inst := range c.insts {
			refs[i] = e.refs[inst]
		}
		w.refs(refs)
		if service {
			for range c.insts {
				w.u8(1)
			}
		}
		e.chunk("INST", w.buf)
	}
	for _, p := range props {
		e.chunk("PROP", p)
	}
	// PRNT lists children before their parents (post-order), as Studio writes it.
	var children, parents []int32
	var post func(i *dom.Instance, parent int32)
	post = func(i *dom.Instance, parent int32) {
		for _, c := range i.Children {
			post(c, e.refs[i])
		}
		children = append(children, e.refs[i])
		parents = append(parents, parent)
	}
	for _, r := range roots {
		post(r, -1)
	}
	pw := &writer{}
	pw.u8(0)
	pw.u32(uint32(len(children)))
	pw.refs(children)
	pw.refs(parents)
	e.chunk("PRNT", pw.buf)
	e.rawChunk("END", []byte(endMagic))
	return e.out, nil
}

// chunk appends a chunk, LZ4-compressed unless that does not make it smaller.
func (e *encoder) chunk(name string, data []byte) {
	if e.opt.Uncompressed || len(data) == 0 {
		e.rawChunk(name, data)
		return
	}
	dst := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := e.lz.CompressBlock(data, dst)
	if err != nil || n == 0 || n >= len(data) {
		e.rawChunk(name, data)
		return
	}
	e.header(name, uint32(n), uint32(len(data)))
	e.out = append(e.out, dst[:n]...)
}

func (e *encoder) rawChunk(name string, data []byte) {
	e.header(name, 0, uint32(len(data)))
	e.out = append(e.out, data...)
}

func (e *encoder) header(name string, clen, ulen uint32) {
	var n [4]byte
	copy(n[:], name)
	e.out = append(e.out, n[:]...)
	e.out = le.AppendUint32(e.out, clen)
	e.out = le.AppendUint32(e.out, ulen)
	e.out = append(e.out, 0, 0, 0, 0)
}

// column is one property of a class: its file name, and per instance the
// canonical name and value (nil when the instance does not have it).
type column struct {
	file   string
	ftype  string // the type the file stores it as, if not the value's own
	canon  string // canonical name, for defaults
	vals   []dom.Value
	t      byte
	source []string // the property name each value came from, for errors
}

func (e *encoder) classProps(id uint32, c *encClass) ([][]byte, error) {
	cols := map[string]*column{}
	for i, inst := range c.insts {
		for _, p := range rbxmx.FileProps(inst) {
			col := cols[p.File]
			if col == nil {
				col = &column{file: p.File, ftype: p.FileType, canon: p.Name, vals: make([]dom.Value, len(c.insts)), source: make([]string, len(c.insts))}
				cols[p.File] = col
			}
			col.vals[i], col.source[i] = p.Value, p.Name
		}
	}
	names := make([]string, 0, len(cols)+1)
	for n := range cols {
		names = append(names, n)
	}
	sort.Strings(names)

	nameCol := &column{file: "Name", t: typeString, vals: make([]dom.Value, len(c.insts))}
	for i, inst := range c.insts {
		nameCol.vals[i] = dom.String(inst.Name)
	}
	out := make([][]byte, 0, len(cols)+1)
	chunk, err := e.propChunk(id, c, nameCol)
	if err != nil {
		return nil, err
	}
	out = append(out, chunk)
	for _, n := range names {
		col := cols[n]
		if err := e.settle(c, col); err != nil {
			return nil, err
		}
		chunk, err := e.propChunk(id, c, col)
		if err != nil {
			return nil, err
		}
		out = append(out, chunk)
	}
	return out, nil
}

// settle picks the column's binary type from its first value and makes every
// value that type, filling instances that lack the property with the default.
func (e *encoder) settle(c *encClass, col *column) error {
	first := -1
	for i, v := range col.vals {
		if v != nil {
			first = i
			break
		}
	}
	t, err := binaryType(col.vals[first], col.ftype)
	if err != nil {
		return fmt.Errorf("%s.%s: %w", pathOf(c.insts[first]), col.source[first], err)
	}
	col.t = t
	var def dom.Value
	for i, v := range col.vals {
		if v == nil {
			if def == nil {
				def = defaultValue(c.name, col.canon, t)
			}
			col.vals[i] = def
			continue
		}
		cv, ok := toType(v, t)
		if !ok {
			return fmt.Errorf("%s.%s is a %s but other %s instances store %s as %s", pathOf(c.insts[i]), col.source[i], v.Type(), c.name, col.file, typeName(t))
		}
		col.vals[i] = cv
	}
	return nil
}

func pathOf(i *dom.Instance) string {
	if p := i.Path(); p != "" {
		return p
	}
	return i.Name
}

// binaryType is the PROP type a value is written as; ftype is the type the
// database says the file stores the property as ("Color3uint8" for BasePart.Color).
func binaryType(v dom.Value, ftype string) (byte, error) {
	switch v.(type) {
	case dom.String, dom.BinaryString, dom.Tags, dom.Attributes, dom.MaterialColors, dom.ContentId:
		return typeString, nil
	case dom.Bool:
		return typeBool, nil
	case dom.Int32:
		return typeInt32, nil
	case dom.Float32:
		return typeFloat32, nil
	case dom.Float64:
		return typeFloat64, nil
	case dom.UDim:
		return typeUDim, nil
	case dom.UDim2:
		return typeUDim2, nil
	case dom.Ray:
		return typeRay, nil
	case dom.Faces:
		return typeFaces, nil
	case dom.Axes:
		return typeAxes, nil
	case dom.BrickColor:
		return typeBrickColor, nil
	case dom.Color3:
		if ftype == "Color3uint8" {
			return typeColor3uint8, nil
		}
		return typeColor3, nil
	case dom.Color3uint8:
		return typeColor3uint8, nil
	case dom.Vector2:
		return typeVector2, nil
	case dom.Vector3:
		return typeVector3, nil
	case dom.CFrame:
		return typeCFrame, nil
	case dom.OptionalCFrame:
		return typeOptionalCFrame, nil
	case dom.Enum:
		return typeEnum, nil
	case dom.Ref:
		return typeRef, nil
	case dom.Vector3int16:
		return typeVector3int16, nil
	case dom.NumberSequence:
		return typeNumberSequence, nil
	case dom.ColorSequence:
		return typeColorSequence, nil
	case dom.NumberRange:
		return typeNumberRange, nil
	case dom.Rect:
		return typeRect, nil
	case dom.PhysicalProperties:
		return typePhysicalProperties, nil
	case dom.Int64:
		return typeInt64, nil
	case dom.SharedString, dom.NetAssetRef:
		return typeSharedString, nil
	case dom.UniqueId:
		return typeUniqueID, nil
	case dom.Font:
		return typeFont, nil
	case dom.SecurityCapabilities:
		return typeSecurityCaps, nil
	case dom.Content:
		return typeContent, nil
	}
	return 0, fmt.Errorf("a %s value has no binary form", v.Type())
}

// toType converts v to the column type t, or reports that it cannot.
func toType(v dom.Value, t byte) (dom.Value, bool) {
	switch v := v.(type) {
	case dom.Color3:
		if t == typeColor3uint8 {
			return dom.Color3uint8{toUint8(v[0]), toUint8(v[1]), toUint8(v[2])}, true
		}
	case dom.Color3uint8:
		if t == typeColor3 {
			return dom.Color3{float32(v[0]) / 255, float32(v[1]) / 255, float32(v[2]) / 255}, true
		}
	case dom.Int32:
		if t == typeBrickColor && v >= 0 && v <= 0xffff && dom.ValidBrickColor(uint16(v)) {
			return dom.BrickColor(v), true
		}
	case dom.BrickColor:
		if t == typeInt32 {
			return dom.Int32(v), true
		}
	}
	got, err := binaryType(v, "")
	if err != nil {
		return nil, false
	}
	if got != t {
		return nil, false
	}
	return v, true
}

func toUint8(c float32) uint8 {
	switch {
	case c <= 0 || c != c:
		return 0
	case c >= 1:
		return 255
	}
	return uint8(c*255 + 0.5)
}

// defaultValue is the database default of class.prop as type t, or t's zero value.
func defaultValue(class, prop string, t byte) dom.Value {
	if raw, ok := reflection.Default(class, prop); ok {
		if v, err := dom.Unmarshal(raw); err == nil {
			if cv, ok := toType(v, t); ok {
				return cv
			}
		}
	}
	return zeroValue(t)
}

func zeroValue(t byte) dom.Value {
	switch t {
	case typeString:
		return dom.String("")
	case typeBool:
		return dom.Bool(false)
	case typeInt32:
		return dom.Int32(0)
	case typeFloat32:
		return dom.Float32(0)
	case typeFloat64:
		return dom.Float64(0)
	case typeUDim:
		return dom.UDim{}
	case typeUDim2:
		return dom.UDim2{}
	case typeRay:
		return dom.Ray{}
	case typeFaces:
		return dom.Faces{}
	case typeAxes:
		return dom.Axes{}
	case typeBrickColor:
		return dom.BrickColor(194)
	case typeColor3:
		return dom.Color3{}
	case typeColor3uint8:
		return dom.Color3uint8{}
	case typeVector2:
		return dom.Vector2{}
	case typeVector3:
		return dom.Vector3{}
	case typeCFrame:
		return dom.IdentityCFrame
	case typeOptionalCFrame:
		return dom.OptionalCFrame{}
	case typeEnum:
		return dom.Enum(0)
	case typeRef:
		return dom.Ref(nilRef)
	case typeVector3int16:
		return dom.Vector3int16{}
	case typeNumberSequence:
		return dom.NumberSequence{}
	case typeColorSequence:
		return dom.ColorSequence{}
	case typeNumberRange:
		return dom.NumberRange{}
	case typeRect:
		return dom.Rect{}
	case typePhysicalProperties:
		return dom.PhysicalProperties{Default: true}
	case typeInt64:
		return dom.Int64(0)
	case typeSharedString:
		return dom.SharedString(nil)
	case typeUniqueID:
		return dom.UniqueId(strings.Repeat("0", 32))
	case typeFont:
		return dom.Font{Weight: "Regular", Style: "Normal"}
	case typeSecurityCaps:
		return dom.SecurityCapabilities(0)
	case typeContent:
		return dom.Content{Kind: "None"}
	}
	return nil
}

// propChunk encodes one PROP chunk.
func (e *encoder) propChunk(id uint32, c *encClass, col *column) ([]byte, error) {
	w := &writer{}
	w.u32(id)
	w.str(col.file)
	w.u8(col.t)
	if err := e.encodeValues(w, col.t, col.vals); err != nil {
		return nil, fmt.Errorf("%s.%s: %w", c.name, col.file, err)
	}
	return w.buf, nil
}

func (e *encoder) share(b []byte) uint32 {
	sum := md5Of(b)
	if i, ok := e.sharedN[sum]; ok {
		return i
	}
	i := uint32(len(e.shared))
	e.shared = append(e.shared, b)
	e.sharedN[sum] = i
	return i
}

// refOf is the referent of the instance whose ID r holds, or -1.
func (e *encoder) refOf(id string) int32 {
	if ref, ok := e.byID[id]; ok && id != nilRef {
		return ref
	}
	return -1
}
