package rbxbin

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/bits"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
)

// refValue is a referent read from a Ref property, resolved once every instance
// of the file is known.
type refValue int32

func (refValue) Type() string { return "Ref" }

// contentObject is a Content that holds an object referent, resolved likewise.
type contentObject int32

func (contentObject) Type() string { return "Content" }

var axisNames = []string{"X", "Y", "Z"}
var faceNames = []string{"Right", "Top", "Back", "Left", "Bottom", "Front"}

// faceBits are the bit of each face in a Faces byte: Front, Bottom, Left, Back, Top, Right.
var faceBits = map[string]byte{"Front": 1, "Bottom": 2, "Left": 4, "Back": 8, "Top": 16, "Right": 32}

// decodeValues reads the n values of one PROP chunk of type t.
func (d *decoder) decodeValues(r *reader, t byte, n int) ([]dom.Value, error) {
	out := make([]dom.Value, n)
	set := func(f func(i int) dom.Value) {
		if r.err == nil {
			for i := range out {
				out[i] = f(i)
			}
		}
	}
	switch t {
	case typeString:
		for i := range out {
			b := r.bytes()
			if r.err != nil {
				break
			}
			out[i] = rawString(b)
		}
	case typeBytecode:
		for i := range out {
			out[i] = dom.BinaryString(r.bytes())
		}
	case typeBool:
		b := r.take(n)
		set(func(i int) dom.Value { return dom.Bool(b[i] != 0) })
	case typeInt32:
		v := r.i32s(n)
		set(func(i int) dom.Value { return dom.Int32(v[i]) })
	case typeFloat32:
		v := r.f32s(n)
		set(func(i int) dom.Value { return dom.Float32(v[i]) })
	case typeFloat64:
		for i := range out {
			out[i] = dom.Float64(r.f64())
		}
	case typeUDim:
		s, o := r.f32s(n), r.i32s(n)
		set(func(i int) dom.Value { return dom.UDim{Scale: s[i], Offset: o[i]} })
	case typeUDim2:
		xs, ys, xo, yo := r.f32s(n), r.f32s(n), r.i32s(n), r.i32s(n)
		set(func(i int) dom.Value {
			return dom.UDim2{{Scale: xs[i], Offset: xo[i]}, {Scale: ys[i], Offset: yo[i]}}
		})
	case typeRay:
		for i := range out {
			var f [6]float32
			for j := range f {
				f[j] = r.f32()
			}
			out[i] = dom.Ray{Origin: dom.Vector3{f[0], f[1], f[2]}, Direction: dom.Vector3{f[3], f[4], f[5]}}
		}
	case typeFaces:
		b := r.take(n)
		set(func(i int) dom.Value { return dom.Faces(faceList(b[i])) })
	case typeAxes:
		b := r.take(n)
		set(func(i int) dom.Value { return dom.Axes(axisList(b[i])) })
	case typeBrickColor:
		v := r.u32s(n)
		for i := range v {
			if v[i] > 0xffff || !dom.ValidBrickColor(uint16(v[i])) {
				return nil, fmt.Errorf("%d is not a BrickColor number", v[i])
			}
		}
		set(func(i int) dom.Value { return dom.BrickColor(v[i]) })
	case typeColor3:
		cr, cg, cb := r.f32s(n), r.f32s(n), r.f32s(n)
		set(func(i int) dom.Value { return dom.Color3{cr[i], cg[i], cb[i]} })
	case typeVector2:
		x, y := r.f32s(n), r.f32s(n)
		set(func(i int) dom.Value { return dom.Vector2{x[i], y[i]} })
	case typeVector3:
		x, y, z := r.f32s(n), r.f32s(n), r.f32s(n)
		set(func(i int) dom.Value { return dom.Vector3{x[i], y[i], z[i]} })
	case typeCFrame:
		cfs, err := readCFrames(r, n)
		if err != nil {
			return nil, err
		}
		set(func(i int) dom.Value { return cfs[i] })
	case typeOptionalCFrame:
		if inner := r.u8(); r.err == nil && inner != typeCFrame {
			return nil, fmt.Errorf("OptionalCFrame holds %s, want CFrame", typeName(inner))
		}
		cfs, err := readCFrames(r, n)
		if err != nil {
			return nil, err
		}
		if inner := r.u8(); r.err == nil && inner != typeBool {
			return nil, fmt.Errorf("OptionalCFrame flags are %s, want Bool", typeName(inner))
		}
		has := r.take(n)
		set(func(i int) dom.Value {
			if has[i] == 0 {
				return dom.OptionalCFrame{}
			}
			cf := cfs[i]
			return dom.OptionalCFrame{CFrame: &cf}
		})
	case typeEnum:
		v := r.u32s(n)
		set(func(i int) dom.Value { return dom.Enum(v[i]) })
	case typeRef:
		v := r.refs(n)
		set(func(i int) dom.Value { return refValue(v[i]) })
	case typeVector3int16:
		for i := range out {
			b := r.take(6)
			if b == nil {
				break
			}
			out[i] = dom.Vector3int16{int16(le.Uint16(b)), int16(le.Uint16(b[2:])), int16(le.Uint16(b[4:]))}
		}
	case typeNumberSequence:
		for i := range out {
			k := r.count(12)
			seq := make(dom.NumberSequence, k)
			for j := range seq {
				seq[j] = dom.NumberKeypoint{Time: r.f32(), Value: r.f32(), Envelope: r.f32()}
			}
			out[i] = seq
		}
	case typeColorSequence:
		for i := range out {
			k := r.count(20)
			seq := make(dom.ColorSequence, k)
			for j := range seq {
				seq[j] = dom.ColorKeypoint{Time: r.f32(), Color: dom.Color3{r.f32(), r.f32(), r.f32()}}
				r.f32() // the envelope, unused by Roblox
			}
			out[i] = seq
		}
	case typeNumberRange:
		for i := range out {
			out[i] = dom.NumberRange{r.f32(), r.f32()}
		}
	case typeRect:
		x0, y0, x1, y1 := r.f32s(n), r.f32s(n), r.f32s(n), r.f32s(n)
		set(func(i int) dom.Value { return dom.Rect{{x0[i], y0[i]}, {x1[i], y1[i]}} })
	case typePhysicalProperties:
		for i := range out {
			flags := r.u8()
			if flags&1 == 0 {
				out[i] = dom.PhysicalProperties{Default: true}
				continue
			}
			p := dom.PhysicalProperties{Density: r.f32(), Friction: r.f32(), Elasticity: r.f32(),
				FrictionWeight: r.f32(), ElasticityWeight: r.f32(), AcousticAbsorption: 1}
			if flags&2 != 0 {
				p.AcousticAbsorption = r.f32()
			}
			out[i] = p
		}
	case typeColor3uint8:
		b := r.take(3 * n)
		set(func(i int) dom.Value { return dom.Color3uint8{b[i], b[n+i], b[2*n+i]} })
	case typeInt64:
		v := r.i64s(n)
		set(func(i int) dom.Value { return dom.Int64(v[i]) })
	case typeSharedString:
		v := r.u32s(n)
		for _, k := range v {
			if int(k) >= len(d.shared) {
				return nil, fmt.Errorf("shared string %d is not in the SSTR chunk (%d strings)", k, len(d.shared))
			}
		}
		set(func(i int) dom.Value { return dom.SharedString(d.shared[v[i]]) })
	case typeUniqueID:
		b := r.columns(n, 16)
		set(func(i int) dom.Value { return uniqueIDFromBinary(b[16*i : 16*i+16]) })
	case typeFont:
		for i := range out {
			f := dom.Font{Family: r.str()}
			w, s := r.u16(), r.u8()
			cached := r.str()
			if r.err != nil {
				break
			}
			var ok bool
			if f.Weight, ok = rbxmx.FontWeightName(w); !ok {
				return nil, fmt.Errorf("font weight %d is not a FontWeight", w)
			}
			switch s {
			case 0:
				f.Style = "Normal"
			case 1:
				f.Style = "Italic"
			default:
				return nil, fmt.Errorf("font style %d is not Normal (0) or Italic (1)", s)
			}
			if cached != "" {
				f.CachedFaceID = &cached
			}
			out[i] = f
		}
	case typeSecurityCaps:
		b := r.columns(n, 8)
		set(func(i int) dom.Value { return dom.SecurityCapabilities(be.Uint64(b[8*i:])) })
	case typeContent:
		kinds := r.u32s(n)
		uris := make([]string, r.count(4))
		for i := range uris {
			uris[i] = r.str()
		}
		objs := r.refs(r.count(4))
		r.refs(r.count(4)) // external objects: referents outside the file mean nothing here
		if r.err != nil {
			break
		}
		var ui, oi int
		for i, k := range kinds {
			switch k {
			case 0:
				out[i] = dom.Content{Kind: "None"}
			case 1:
				if ui >= len(uris) {
					return nil, fmt.Errorf("Content %d is a Uri but there are only %d", i, len(uris))
				}
				out[i] = dom.Content{Kind: "Uri", Value: uris[ui]}
				ui++
			case 2:
				if oi >= len(objs) {
					return nil, fmt.Errorf("Content %d is an Object but there are only %d", i, len(objs))
				}
				out[i] = contentObject(objs[oi])
				oi++
			default:
				return nil, fmt.Errorf("Content source type %d is not None, Uri or Object", k)
			}
		}
	default:
		return nil, fmt.Errorf("unknown property type %#02x", t)
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// rawString is a String value as read, before the property's type says whether it
// is text or a blob.
type rawString []byte

func (rawString) Type() string { return "String" }

func faceList(b byte) []string {
	out := []string{}
	for _, n := range faceNames {
		if b&faceBits[n] != 0 {
			out = append(out, n)
		}
	}
	return out
}

func axisList(b byte) []string {
	out := []string{}
	for i, n := range axisNames {
		if b&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func readCFrames(r *reader, n int) ([]dom.CFrame, error) {
	cfs := make([]dom.CFrame, 0, min(n, r.left()))
	for range n {
		id := r.u8()
		if r.err != nil {
			return nil, r.err
		}
		var cf dom.CFrame
		if id == 0 {
			for row := range 3 {
				for c := range 3 {
					cf.Orientation[row][c] = r.f32()
				}
			}
		} else {
			m, ok := rotationFromID(id)
			if !ok {
				return nil, fmt.Errorf("CFrame rotation id %#02x is not one of the 24 axis-aligned rotations", id)
			}
			cf.Orientation = m
		}
		cfs = append(cfs, cf)
	}
	x, y, z := r.f32s(n), r.f32s(n), r.f32s(n)
	if r.err != nil {
		return nil, r.err
	}
	for i := range cfs {
		cfs[i].Position = [3]float32{x[i], y[i], z[i]}
	}
	return cfs, nil
}

// A UniqueId is stored in binary as index u32, time u32 and random i64; dom keeps
// the XML form, 32 hex digits of random (rotated left one bit), time and index.
func uniqueIDFromBinary(b []byte) dom.UniqueId {
	index, time, random := be.Uint32(b), be.Uint32(b[4:]), be.Uint64(b[8:])
	var x [16]byte
	be.PutUint64(x[:], bits.RotateLeft64(random, 1))
	be.PutUint32(x[8:], time)
	be.PutUint32(x[12:], index)
	return dom.UniqueId(hex.EncodeToString(x[:]))
}

func uniqueIDToBinary(u dom.UniqueId) ([16]byte, error) {
	var b [16]byte
	x, err := hex.DecodeString(string(u))
	if err != nil || len(x) != 16 {
		return b, fmt.Errorf("UniqueId %q is not 32 hex digits", string(u))
	}
	be.PutUint32(b[:], be.Uint32(x[12:]))
	be.PutUint32(b[4:], be.Uint32(x[8:]))
	be.PutUint64(b[8:], bits.RotateLeft64(be.Uint64(x), -1))
	return b, nil
}

func md5Of(b []byte) [16]byte { return md5.Sum(b) }
