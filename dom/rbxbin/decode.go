package rbxbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/dom/reflection"
)

// Error is a malformed or truncated file: it names the chunk (or "header") where
// reading stopped, its position in the file, and what was being read.
type Error struct {
	Chunk  string // "header", "META", "SSTR", "INST", "PROP", "PRNT", "END" or the unknown name
	Index  int    // the chunk's number in the file, from 0 (-1 for the header)
	Offset int64  // byte offset of the chunk's header in the file
	What   string // e.g. "Part.Size", "" if nothing more specific
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("rbxbin: ")
	if e.Index < 0 {
		b.WriteString("header")
	} else {
		fmt.Fprintf(&b, "chunk %s (#%d at byte %d)", e.Chunk, e.Index, e.Offset)
	}
	if e.What != "" {
		b.WriteString(" " + e.What)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxChunk bounds one chunk's decompressed size, so a corrupt length cannot make
// the reader allocate without limit.
const maxChunk = 1 << 30

// Decode reads a binary model or place into its top-level instances (children
// attached, Parent set), like rbxmx.Decode: property names are mapped to their
// canonical names through the reflection database, values stored as another type
// are converted (Color3uint8 → Color3, strings → Tags, Attributes, MaterialColors,
// ContentId or BinaryString), every instance gets a provisional ID unique within
// the result, and a Ref holds its target's provisional ID (the nil ref for -1 or
// a referent not in the file). An attributes or terrain-colors blob that cannot
// be read is kept as a BinaryString under its file name.
//
// A malformed file gives an *Error naming the chunk.
func Decode(r io.Reader) ([]*dom.Instance, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("rbxbin: read: %w", err)
	}
	d := &decoder{classes: map[uint32]*class{}, byRef: map[int32]*dom.Instance{}, meta: map[string]string{}}
	return d.file(data)
}

// DecodeMeta is Decode that also returns the META chunk's entries.
func DecodeMeta(r io.Reader) ([]*dom.Instance, map[string]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("rbxbin: read: %w", err)
	}
	d := &decoder{classes: map[uint32]*class{}, byRef: map[int32]*dom.Instance{}, meta: map[string]string{}}
	roots, err := d.file(data)
	return roots, d.meta, err
}

type class struct {
	name  string
	insts []*dom.Instance
	props []dom.PropsBuilder // of insts, made Props by finish
}

type decoder struct {
	meta    map[string]string
	shared  [][]byte
	classes map[uint32]*class
	byRef   map[int32]*dom.Instance
	order   []*dom.Instance // in INST order, for provisional IDs
	refs    []pendingRef
	parents []int32 // PRNT pairs: child, parent, child, parent…
	gotPRNT bool
	prnt    Error // where the PRNT chunk is, for errors found after reading it
}

type pendingRef struct {
	inst    *dom.Instance
	prop    string
	ref     int32
	content bool
}

func (d *decoder) file(data []byte) ([]*dom.Instance, error) {
	headerErr := func(format string, args ...any) error {
		return &Error{Chunk: "header", Index: -1, Err: fmt.Errorf(format, args...)}
	}
	if len(data) < 32 {
		return nil, headerErr("the file is %d bytes, shorter than the 32-byte header", len(data))
	}
	if !IsBinary(data) || string(data[8:14]) != signature {
		return nil, headerErr("not a binary Roblox file (no \"<roblox!\" signature)")
	}
	if v := le.Uint16(data[14:]); v != 0 {
		return nil, headerErr("format version %d, want 0", v)
	}
	pos := 32
	ended := false
	for index := 0; !ended; index++ {
		if pos == len(data) {
			return nil, &Error{Chunk: "END", Index: index, Offset: int64(pos), Err: errors.New("the file ends without an END chunk")}
		}
		name, body, next, err := readChunk(data, pos)
		if err != nil {
			return nil, &Error{Chunk: name, Index: index, Offset: int64(pos), Err: err}
		}
		if name == "PRNT" {
			d.prnt = Error{Chunk: name, Index: index, Offset: int64(pos)}
		}
		r := &reader{buf: body}
		what, err := d.chunk(name, r)
		if err == nil && r.err != nil {
			err = r.err
		}
		if err != nil {
			return nil, &Error{Chunk: name, Index: index, Offset: int64(pos), What: what, Err: err}
		}
		ended = name == "END"
		pos = next
	}
	return d.finish()
}

// readChunk reads the chunk whose header starts at pos and returns its name, its
// decompressed data and where the next chunk starts.
func readChunk(data []byte, pos int) (name string, body []byte, next int, err error) {
	if len(data)-pos < 16 {
		return "?", nil, 0, fmt.Errorf("chunk header is cut short (%d of 16 bytes)", len(data)-pos)
	}
	h := data[pos : pos+16]
	name = strings.TrimRight(string(h[:4]), "\x00")
	if !printable(name) {
		name = fmt.Sprintf("%q", name)
	}
	clen, ulen := le.Uint32(h[4:]), le.Uint32(h[8:])
	pos += 16
	if ulen > maxChunk {
		return name, nil, 0, fmt.Errorf("uncompressed length %d is over the %d-byte limit", ulen, maxChunk)
	}
	if clen == 0 {
		if uint64(len(data)-pos) < uint64(ulen) {
			return name, nil, 0, fmt.Errorf("the file ends inside the chunk (%d of %d bytes)", len(data)-pos, ulen)
		}
		return name, data[pos : pos+int(ulen)], pos + int(ulen), nil
	}
	if uint64(len(data)-pos) < uint64(clen) {
		return name, nil, 0, fmt.Errorf("the file ends inside the chunk (%d of %d compressed bytes)", len(data)-pos, clen)
	}
	src := data[pos : pos+int(clen)]
	next = pos + int(clen)
	if len(src) >= 4 && string(src[:4]) == string(zstdMagic) {
		out, err := zstdDecoder().DecodeAll(src, make([]byte, 0, ulen))
		if err != nil {
			return name, nil, 0, fmt.Errorf("zstd: %w", err)
		}
		if len(out) != int(ulen) {
			return name, nil, 0, fmt.Errorf("zstd data expands to %d bytes, the header says %d", len(out), ulen)
		}
		return name, out, next, nil
	}
	// An LZ4 block expands at most 255 times; a larger claim is corrupt.
	if uint64(ulen) > 255*uint64(clen)+16 {
		return name, nil, 0, fmt.Errorf("uncompressed length %d is impossible for %d LZ4 bytes", ulen, clen)
	}
	out := make([]byte, ulen)
	n, err := lz4.UncompressBlock(src, out)
	if err != nil {
		return name, nil, 0, fmt.Errorf("lz4: %w", err)
	}
	if n != int(ulen) {
		return name, nil, 0, fmt.Errorf("LZ4 data expands to %d bytes, the header says %d", n, ulen)
	}
	return name, out, next, nil
}

var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxChunk))
	if err != nil {
		panic("rbxbin: zstd decoder: " + err.Error()) // only on invalid options
	}
	return dec
})

func printable(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// chunk decodes one chunk; what names the part being read, for errors.
func (d *decoder) chunk(name string, r *reader) (what string, err error) {
	switch name {
	case "META":
		for n := r.count(8); n > 0 && r.err == nil; n-- {
			k, v := r.str(), r.str()
			d.meta[k] = v
		}
	case "SSTR":
		if v := r.u32(); r.err == nil && v != 0 {
			return "", fmt.Errorf("SSTR version %d, want 0", v)
		}
		n := r.count(20)
		d.shared = make([][]byte, 0, n)
		for range n {
			r.take(16) // the MD5 of the string, unused when reading
			d.shared = append(d.shared, r.bytes())
		}
	case "INST":
		return d.inst(r)
	case "PROP":
		return d.prop(r)
	case "PRNT":
		if d.gotPRNT {
			return "", errors.New("a second PRNT chunk")
		}
		d.gotPRNT = true
		if v := r.u8(); r.err == nil && v != 0 {
			return "", fmt.Errorf("PRNT version %d, want 0", v)
		}
		n := r.count(8)
		children, parents := r.refs(n), r.refs(n)
		if r.err != nil {
			return "", r.err
		}
		d.parents = make([]int32, 0, 2*n)
		for i := range n {
			d.parents = append(d.parents, children[i], parents[i])
		}
	case "END":
		if string(r.buf) != endMagic {
			return "", fmt.Errorf("END holds %q, want %q", truncate(r.buf), endMagic)
		}
	}
	// Other chunks (SIGN and whatever future versions add) carry no instances.
	return "", nil
}

func (d *decoder) inst(r *reader) (string, error) {
	id := r.u32()
	name := r.str()
	format := r.u8()
	n := r.count(4)
	refs := r.refs(n)
	if r.err != nil {
		return name, r.err
	}
	if format == 1 {
		r.take(n) // service markers
	}
	if _, dup := d.classes[id]; dup {
		return name, fmt.Errorf("class id %d is used twice", id)
	}
	c := &class{name: name, insts: make([]*dom.Instance, n)}
	d.classes[id] = c
	for i, ref := range refs {
		if _, dup := d.byRef[ref]; dup {
			return name, fmt.Errorf("referent %d is used twice", ref)
		}
		inst := dom.New(name, name)
		inst.ID = provisionalID(len(d.order))
		d.order = append(d.order, inst)
		d.byRef[ref] = inst
		c.insts[i] = inst
	}
	return name, r.err
}

func (d *decoder) prop(r *reader) (string, error) {
	id := r.u32()
	file := r.str()
	t := r.u8()
	if r.err != nil {
		return file, r.err
	}
	c, ok := d.classes[id]
	if !ok {
		return file, fmt.Errorf("class id %d has no INST chunk before it", id)
	}
	what := c.name + "." + file
	vals, err := d.decodeValues(r, t, len(c.insts))
	if err != nil {
		return what, fmt.Errorf("%s values: %w", typeName(t), err)
	}
	canon, p := rbxmx.CanonicalName(c.name, file)
	typ := ""
	if p != nil {
		typ = p.Type.Name
		if p.Type.Kind == reflection.EnumKind {
			typ = "Enum"
		}
	}
	if c.props == nil {
		c.props = make([]dom.PropsBuilder, len(c.insts))
	}
	for i, inst := range c.insts {
		v := vals[i]
		props := &c.props[i]
		switch v := v.(type) {
		case refValue:
			if props.Add(canon, dom.Ref(nilRef)) {
				d.refs = append(d.refs, pendingRef{inst: inst, prop: canon, ref: int32(v)})
			}
			continue
		case contentObject:
			if props.Add(canon, dom.Content{Kind: "None"}) {
				d.refs = append(d.refs, pendingRef{inst: inst, prop: canon, ref: int32(v), content: true})
			}
			continue
		}
		if canon == "Name" {
			s, ok := v.(rawString)
			if !ok {
				return what, fmt.Errorf("Name is a %s, want a String", typeName(t))
			}
			inst.Name = string(s)
			continue
		}
		name := canon
		v, keep := convert(v, typ)
		if !keep {
			name = file
		}
		props.Add(name, v)
	}
	return what, nil
}

var nilRef = strings.Repeat("0", 32)

// convert turns a value as read into the property's type typ (a database type
// name, "" when unknown). keep is false when a blob did not decode and the raw
// bytes should stay under the file's property name.
func convert(v dom.Value, typ string) (dom.Value, bool) {
	switch v := v.(type) {
	case rawString:
		switch typ {
		case "BinaryString":
			return dom.BinaryString(v), true
		case "ContentId":
			return dom.ContentId(v), true
		case "Content":
			return dom.Content{Kind: "Uri", Value: string(v)}, true
		case "SharedString":
			return dom.SharedString(v), true
		case "Tags":
			tags := dom.Tags{}
			for _, t := range strings.Split(string(v), "\x00") {
				if t != "" {
					tags = append(tags, t)
				}
			}
			return tags, true
		case "Attributes":
			attrs, err := rbxmx.DecodeAttributes(v)
			if err != nil {
				return dom.BinaryString(v), false
			}
			return attrs, true
		case "MaterialColors":
			mc, err := rbxmx.DecodeMaterialColors(v)
			if err != nil {
				return dom.BinaryString(v), false
			}
			return mc, true
		}
		if typ == "" && !validUTF8(v) {
			return dom.BinaryString(v), true
		}
		return dom.String(v), true
	case dom.SharedString:
		if typ == "NetAssetRef" {
			return dom.NetAssetRef(v), true
		}
	case dom.Color3uint8:
		if typ == "Color3" {
			return dom.Color3{float32(v[0]) / 255, float32(v[1]) / 255, float32(v[2]) / 255}, true
		}
	case dom.Int32:
		if typ == "BrickColor" && v >= 0 && v <= 0xffff && dom.ValidBrickColor(uint16(v)) {
			return dom.BrickColor(v), true
		}
	case dom.BrickColor:
		if typ == "Int32" {
			return dom.Int32(v), true
		}
	}
	return v, true
}

// finish parents the instances as PRNT says, resolves refs and returns the roots.
func (d *decoder) finish() ([]*dom.Instance, error) {
	prntErr := func(format string, args ...any) error {
		e := d.prnt
		if e.Chunk == "" {
			e = Error{Chunk: "PRNT", Index: -1}
		}
		e.Err = fmt.Errorf(format, args...)
		return &e
	}
	parented := make(map[*dom.Instance]bool, len(d.order))
	var roots []*dom.Instance
	for i := 0; i < len(d.parents); i += 2 {
		child, ok := d.byRef[d.parents[i]]
		if !ok {
			return nil, prntErr("child referent %d is not an instance of the file", d.parents[i])
		}
		if parented[child] {
			return nil, prntErr("referent %d is parented twice", d.parents[i])
		}
		parented[child] = true
		pref := d.parents[i+1]
		if pref == -1 {
			roots = append(roots, child)
			continue
		}
		parent, ok := d.byRef[pref]
		if !ok {
			return nil, prntErr("parent referent %d is not an instance of the file", pref)
		}
		for a := parent; a != nil; a = a.Parent {
			if a == child {
				return nil, prntErr("referent %d would be its own ancestor", d.parents[i])
			}
		}
		parent.AddChild(child)
	}
	// An instance PRNT does not mention has no parent: keep it as a root.
	for _, inst := range d.order {
		if !parented[inst] {
			roots = append(roots, inst)
		}
	}
	for _, c := range d.classes {
		for i := range c.props {
			c.insts[i].Properties = c.props[i].Props()
		}
		c.props = nil
	}
	for _, p := range d.refs {
		t, ok := d.byRef[p.ref]
		switch {
		case p.content && ok:
			p.inst.Properties.Set(p.prop, dom.Content{Kind: "Object", Value: t.ID})
		case ok:
			p.inst.Properties.Set(p.prop, dom.Ref(t.ID))
		}
	}
	return roots, nil
}

// provisionalID is the ID Decode gives the n-th instance of a file.
func provisionalID(n int) string {
	sum := sha256.Sum256([]byte("rbxbin:provisional\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

func truncate(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}
