package rbxmx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
)

// The binary attribute format (Instance.AttributesSerialize): a u32 count, then per
// attribute a string name, a type byte and the value. Integers and floats are
// little-endian; a string is a u32 length and the bytes. A CFrame is its position,
// then a basic rotation id, or 0 and the matrix row by row. The type ids follow
// rbx-dom's rbx_types/src/attributes and docs/attributes.md. Int32 (0x04) is the
// id rbx-dom reads for the Int32 attributes Roblox writes into some places; Studio
// exposes no Int32 attributes to scripts.
const (
	attrString         = 0x02 // String and BinaryString
	attrBool           = 0x03
	attrInt32          = 0x04
	attrFloat32        = 0x05
	attrFloat64        = 0x06
	attrUDim           = 0x09
	attrUDim2          = 0x0A
	attrBrickColor     = 0x0E
	attrColor3         = 0x0F
	attrVector2        = 0x10
	attrVector3        = 0x11
	attrCFrame         = 0x14
	attrEnumItem       = 0x15
	attrNumberSequence = 0x17
	attrColorSequence  = 0x19
	attrNumberRange    = 0x1B
	attrRect           = 0x1C
	attrFont           = 0x21
)

// fontWeights maps Font weight names to their FontWeight enum values.
var fontWeights = map[string]uint16{
	"Thin": 100, "ExtraLight": 200, "Light": 300, "Regular": 400, "Medium": 500,
	"SemiBold": 600, "Bold": 700, "ExtraBold": 800, "Heavy": 900,
}

func fontWeightName(n uint16) (string, bool) {
	for name, v := range fontWeights {
		if v == n {
			return name, true
		}
	}
	return "", false
}

// encodeAttributes writes attrs in the binary format, names sorted. An empty map
// is written as no bytes at all, as Roblox does.
func encodeAttributes(attrs dom.Attributes) ([]byte, error) {
	if len(attrs) == 0 {
		return []byte{}, nil
	}
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	w := &attrWriter{}
	w.u32(uint32(len(names)))
	for _, name := range names {
		w.str(name)
		if err := w.value(attrs[name]); err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
	}
	return w.buf, nil
}

type attrWriter struct{ buf []byte }

func (w *attrWriter) u8(v uint8)    { w.buf = append(w.buf, v) }
func (w *attrWriter) u16(v uint16)  { w.buf = binary.LittleEndian.AppendUint16(w.buf, v) }
func (w *attrWriter) u32(v uint32)  { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }
func (w *attrWriter) f32(v float32) { w.u32(math.Float32bits(v)) }
func (w *attrWriter) f64(v float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
}
func (w *attrWriter) str(s string) { w.u32(uint32(len(s))); w.buf = append(w.buf, s...) }
func (w *attrWriter) udim(u dom.UDim) {
	w.f32(u.Scale)
	w.u32(uint32(u.Offset))
}
func (w *attrWriter) vec(v ...float32) {
	for _, f := range v {
		w.f32(f)
	}
}

func (w *attrWriter) value(v dom.Value) error {
	switch v := v.(type) {
	case dom.String:
		w.u8(attrString)
		w.str(string(v))
	case dom.BinaryString:
		w.u8(attrString)
		w.str(string(v))
	case dom.Bool:
		w.u8(attrBool)
		if v {
			w.u8(1)
		} else {
			w.u8(0)
		}
	case dom.Int32:
		w.u8(attrInt32)
		w.u32(uint32(v))
	case dom.Float32:
		w.u8(attrFloat32)
		w.f32(float32(v))
	case dom.Float64:
		w.u8(attrFloat64)
		w.f64(float64(v))
	case dom.UDim:
		w.u8(attrUDim)
		w.udim(v)
	case dom.UDim2:
		w.u8(attrUDim2)
		w.udim(v[0])
		w.udim(v[1])
	case dom.BrickColor:
		w.u8(attrBrickColor)
		w.u32(uint32(v))
	case dom.Color3:
		w.u8(attrColor3)
		w.vec(v[:]...)
	case dom.Vector2:
		w.u8(attrVector2)
		w.vec(v[:]...)
	case dom.Vector3:
		w.u8(attrVector3)
		w.vec(v[:]...)
	case dom.CFrame:
		w.u8(attrCFrame)
		w.vec(v.Position[:]...)
		if id, ok := basicRotationID(v.Orientation); ok {
			w.u8(id)
		} else {
			w.u8(0)
			for _, row := range v.Orientation {
				w.vec(row[:]...)
			}
		}
	case dom.EnumItem:
		w.u8(attrEnumItem)
		w.str(v.EnumType)
		w.u32(v.Value)
	case dom.NumberSequence:
		w.u8(attrNumberSequence)
		w.u32(uint32(len(v)))
		for _, k := range v {
			w.vec(k.Envelope, k.Time, k.Value)
		}
	case dom.ColorSequence:
		w.u8(attrColorSequence)
		w.u32(uint32(len(v)))
		for _, k := range v {
			w.vec(0, k.Time, k.Color[0], k.Color[1], k.Color[2])
		}
	case dom.NumberRange:
		w.u8(attrNumberRange)
		w.vec(v[:]...)
	case dom.Rect:
		w.u8(attrRect)
		w.vec(v[0][0], v[0][1], v[1][0], v[1][1])
	case dom.Font:
		weight, ok := fontWeights[v.Weight]
		if !ok {
			return fmt.Errorf("font weight %q is unknown", v.Weight)
		}
		style, err := fontStyle(v.Style)
		if err != nil {
			return err
		}
		w.u8(attrFont)
		w.u16(weight)
		w.u8(style)
		w.str(v.Family)
		if v.CachedFaceID != nil {
			w.str(*v.CachedFaceID)
		} else {
			w.str("")
		}
	default:
		return fmt.Errorf("type %s cannot be an attribute", v.Type())
	}
	return nil
}

func fontStyle(s string) (uint8, error) {
	switch s {
	case "Normal":
		return 0, nil
	case "Italic":
		return 1, nil
	}
	return 0, fmt.Errorf("font style %q is not Normal or Italic", s)
}

var errShortAttributes = errors.New("attribute data ends early")

// decodeAttributes reads the binary format. A String (type 0x02) becomes a String
// when it is valid UTF-8 and a BinaryString otherwise. When a name repeats, the
// first value is kept.
func decodeAttributes(data []byte) (dom.Attributes, error) {
	attrs := dom.Attributes{}
	if len(data) == 0 {
		return attrs, nil
	}
	r := &attrReader{buf: data}
	count := r.u32()
	for i := uint32(0); i < count && r.err == nil; i++ {
		name := r.str()
		typ := r.u8()
		if r.err != nil {
			break
		}
		v, err := r.value(typ)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		if r.err != nil {
			break
		}
		if !utf8.ValidString(name) {
			return nil, fmt.Errorf("attribute name %q is not UTF-8", name)
		}
		if _, dup := attrs[name]; !dup {
			attrs[name] = v
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the last attribute", len(data)-r.pos)
	}
	return attrs, nil
}

// attrReader reads little-endian values; after the first short read every read
// returns zero and err is set.
type attrReader struct {
	buf []byte
	pos int
	err error
}

func (r *attrReader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.buf)-r.pos < n {
		r.err = errShortAttributes
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *attrReader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *attrReader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *attrReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *attrReader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *attrReader) f64() float64 {
	if b := r.take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *attrReader) str() string {
	n := r.u32()
	if uint64(n) > uint64(len(r.buf)-r.pos) {
		r.err = errShortAttributes
		return ""
	}
	return string(r.take(int(n)))
}

func (r *attrReader) udim() dom.UDim {
	return dom.UDim{Scale: r.f32(), Offset: int32(r.u32())}
}

// count reads a keypoint count and checks that size bytes per keypoint remain, so
// a corrupt count cannot make the decoder allocate without bound.
func (r *attrReader) count(size int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(size) > uint64(len(r.buf)-r.pos) {
		r.err = errShortAttributes
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *attrReader) value(typ uint8) (dom.Value, error) {
	switch typ {
	case attrString:
		s := r.str()
		if utf8.ValidString(s) {
			return dom.String(s), nil
		}
		return dom.BinaryString(s), nil
	case attrBool:
		return dom.Bool(r.u8() != 0), nil
	case attrInt32:
		return dom.Int32(r.u32()), nil
	case attrFloat32:
		return dom.Float32(r.f32()), nil
	case attrFloat64:
		return dom.Float64(r.f64()), nil
	case attrUDim:
		return r.udim(), nil
	case attrUDim2:
		return dom.UDim2{r.udim(), r.udim()}, nil
	case attrBrickColor:
		n := r.u32()
		if r.err == nil && (n > math.MaxUint16 || !dom.ValidBrickColor(uint16(n))) {
			return nil, fmt.Errorf("%d is not a BrickColor number", n)
		}
		return dom.BrickColor(n), nil
	case attrColor3:
		return dom.Color3{r.f32(), r.f32(), r.f32()}, nil
	case attrVector2:
		return dom.Vector2{r.f32(), r.f32()}, nil
	case attrVector3:
		return dom.Vector3{r.f32(), r.f32(), r.f32()}, nil
	case attrCFrame:
		cf := dom.CFrame{Position: [3]float32{r.f32(), r.f32(), r.f32()}}
		id := r.u8()
		if r.err != nil {
			return nil, r.err
		}
		if id == 0 {
			for row := range 3 {
				cf.Orientation[row] = [3]float32{r.f32(), r.f32(), r.f32()}
			}
			return cf, nil
		}
		m, ok := fromBasicRotationID(id)
		if !ok {
			return nil, fmt.Errorf("CFrame rotation id %#x is not valid", id)
		}
		cf.Orientation = m
		return cf, nil
	case attrEnumItem:
		name := r.str()
		return dom.EnumItem{EnumType: name, Value: r.u32()}, nil
	case attrNumberSequence:
		n := r.count(12)
		seq := make(dom.NumberSequence, n)
		for i := range seq {
			seq[i].Envelope, seq[i].Time, seq[i].Value = r.f32(), r.f32(), r.f32()
		}
		return seq, nil
	case attrColorSequence:
		n := r.count(20)
		seq := make(dom.ColorSequence, n)
		for i := range seq {
			_ = r.f32() // envelope, unused by ColorSequence
			seq[i].Time = r.f32()
			seq[i].Color = dom.Color3{r.f32(), r.f32(), r.f32()}
		}
		return seq, nil
	case attrNumberRange:
		return dom.NumberRange{r.f32(), r.f32()}, nil
	case attrRect:
		return dom.Rect{{r.f32(), r.f32()}, {r.f32(), r.f32()}}, nil
	case attrFont:
		weight := r.u16()
		style := r.u8()
		family := r.str()
		cached := r.str()
		if r.err != nil {
			return nil, r.err
		}
		f := dom.Font{Family: family, Style: "Normal"}
		var ok bool
		if f.Weight, ok = fontWeightName(weight); !ok {
			return nil, fmt.Errorf("font weight %d is unknown", weight)
		}
		switch style {
		case 0:
		case 1:
			f.Style = "Italic"
		default:
			return nil, fmt.Errorf("font style %d is unknown", style)
		}
		if cached != "" {
			f.CachedFaceID = &cached
		}
		return f, nil
	}
	return nil, fmt.Errorf("unsupported attribute type %#x", typ)
}

// normals are the NormalId axis vectors: Right, Top, Back, Left, Bottom, Front.
var normals = [6][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}

func normalID(v [3]float32) (int, bool) {
	for i, n := range normals {
		if v == n {
			return i, true
		}
	}
	return 0, false
}

// fromBasicRotationID returns the axis-aligned rotation with the given id: the right
// vector is normal (id-1)/6, the up vector normal (id-1)%6, the back vector their
// cross product. Ids whose right and up vectors are parallel are invalid.
func fromBasicRotationID(id uint8) ([3][3]float32, bool) {
	if id < 1 || id > 36 {
		return [3][3]float32{}, false
	}
	right, up := normals[(id-1)/6], normals[(id-1)%6]
	if (id-1)/6%3 == (id-1)%6%3 {
		return [3][3]float32{}, false
	}
	// Adding zero turns the -0 the products may give into 0.
	back := [3]float32{
		right[1]*up[2] - right[2]*up[1] + 0,
		right[2]*up[0] - right[0]*up[2] + 0,
		right[0]*up[1] - right[1]*up[0] + 0,
	}
	var m [3][3]float32
	for row := range 3 {
		m[row] = [3]float32{right[row], up[row], back[row]}
	}
	return m, true
}

// basicRotationID returns the id of an exactly axis-aligned rotation.
func basicRotationID(m [3][3]float32) (uint8, bool) {
	col := func(c int) [3]float32 { return [3]float32{m[0][c], m[1][c], m[2][c]} }
	right, ok1 := normalID(col(0))
	up, ok2 := normalID(col(1))
	if !ok1 || !ok2 {
		return 0, false
	}
	id := uint8(6*right + up + 1)
	want, ok := fromBasicRotationID(id)
	if !ok || want != m {
		return 0, false
	}
	return id, true
}
