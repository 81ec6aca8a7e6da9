package rbxbin

import (
	"fmt"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
)

// stringBytes is the String form of the values stored as strings.
func stringBytes(v dom.Value) ([]byte, error) {
	switch v := v.(type) {
	case dom.String:
		return []byte(v), nil
	case dom.BinaryString:
		return v, nil
	case dom.ContentId:
		return []byte(v), nil
	case dom.Tags:
		return []byte(strings.Join(v, "\x00")), nil
	case dom.Attributes:
		return rbxmx.EncodeAttributes(v)
	case dom.MaterialColors:
		return rbxmx.EncodeMaterialColors(v)
	}
	return nil, fmt.Errorf("a %s is not stored as a String", v.Type())
}

// encodeValues writes the values of one PROP chunk; every value has type t
// (settle made sure).
func (e *encoder) encodeValues(w *writer, t byte, vals []dom.Value) error {
	n := len(vals)
	f32 := func(get func(dom.Value) float32) {
		a := make([]float32, n)
		for i, v := range vals {
			a[i] = get(v)
		}
		w.f32s(a)
	}
	i32 := func(get func(dom.Value) int32) {
		a := make([]int32, n)
		for i, v := range vals {
			a[i] = get(v)
		}
		w.i32s(a)
	}
	u32 := func(get func(dom.Value) uint32) {
		a := make([]uint32, n)
		for i, v := range vals {
			a[i] = get(v)
		}
		w.u32s(a)
	}
	switch t {
	case typeString:
		for _, v := range vals {
			b, err := stringBytes(v)
			if err != nil {
				return err
			}
			w.raw(b)
		}
	case typeBool:
		for _, v := range vals {
			if v.(dom.Bool) {
				w.u8(1)
			} else {
				w.u8(0)
			}
		}
	case typeInt32:
		i32(func(v dom.Value) int32 { return int32(v.(dom.Int32)) })
	case typeFloat32:
		f32(func(v dom.Value) float32 { return float32(v.(dom.Float32)) })
	case typeFloat64:
		for _, v := range vals {
			w.f64(float64(v.(dom.Float64)))
		}
	case typeUDim:
		f32(func(v dom.Value) float32 { return v.(dom.UDim).Scale })
		i32(func(v dom.Value) int32 { return v.(dom.UDim).Offset })
	case typeUDim2:
		f32(func(v dom.Value) float32 { return v.(dom.UDim2)[0].Scale })
		f32(func(v dom.Value) float32 { return v.(dom.UDim2)[1].Scale })
		i32(func(v dom.Value) int32 { return v.(dom.UDim2)[0].Offset })
		i32(func(v dom.Value) int32 { return v.(dom.UDim2)[1].Offset })
	case typeRay:
		for _, v := range vals {
			r := v.(dom.Ray)
			for _, f := range append(r.Origin[:], r.Direction[:]...) {
				w.f32(f)
			}
		}
	case typeFaces:
		for _, v := range vals {
			var b byte
			for _, f := range v.(dom.Faces) {
				bit, ok := faceBits[f]
				if !ok {
					return fmt.Errorf("%q is not a face", f)
				}
				b |= bit
			}
			w.u8(b)
		}
	case typeAxes:
		for _, v := range vals {
			var b byte
			for _, a := range v.(dom.Axes) {
				i := indexOf(axisNames, a)
				if i < 0 {
					return fmt.Errorf("%q is not an axis", a)
				}
				b |= 1 << i
			}
			w.u8(b)
		}
	case typeBrickColor:
		u32(func(v dom.Value) uint32 { return uint32(v.(dom.BrickColor)) })
	case typeColor3:
		for c := range 3 {
			f32(func(v dom.Value) float32 { return v.(dom.Color3)[c] })
		}
	case typeColor3uint8:
		for c := range 3 {
			for _, v := range vals {
				w.u8(v.(dom.Color3uint8)[c])
			}
		}
	case typeVector2:
		for c := range 2 {
			f32(func(v dom.Value) float32 { return v.(dom.Vector2)[c] })
		}
	case typeVector3:
		for c := range 3 {
			f32(func(v dom.Value) float32 { return v.(dom.Vector3)[c] })
		}
	case typeCFrame:
		cfs := make([]dom.CFrame, n)
		for i, v := range vals {
			cfs[i] = v.(dom.CFrame)
		}
		writeCFrames(w, cfs)
	case typeOptionalCFrame:
		cfs := make([]dom.CFrame, n)
		has := make([]byte, n)
		for i, v := range vals {
			cfs[i] = dom.IdentityCFrame
			if o := v.(dom.OptionalCFrame); o.CFrame != nil {
				cfs[i], has[i] = *o.CFrame, 1
			}
		}
		w.u8(typeCFrame)
		writeCFrames(w, cfs)
		w.u8(typeBool)
		w.buf = append(w.buf, has...)
	case typeEnum:
		u32(func(v dom.Value) uint32 { return uint32(v.(dom.Enum)) })
	case typeRef:
		refs := make([]int32, n)
		for i, v := range vals {
			refs[i] = e.refOf(string(v.(dom.Ref)))
		}
		w.refs(refs)
	case typeVector3int16:
		for _, v := range vals {
			for _, c := range v.(dom.Vector3int16) {
				w.u16(uint16(c))
			}
		}
	case typeNumberSequence:
		for _, v := range vals {
			seq := v.(dom.NumberSequence)
			w.u32(uint32(len(seq)))
			for _, k := range seq {
				w.f32(k.Time)
				w.f32(k.Value)
				w.f32(k.Envelope)
			}
		}
	case typeColorSequence:
		for _, v := range vals {
			seq := v.(dom.ColorSequence)
			w.u32(uint32(len(seq)))
			for _, k := range seq {
				w.f32(k.Time)
				w.f32(k.Color[0])
				w.f32(k.Color[1])
				w.f32(k.Color[2])
				w.f32(0)
			}
		}
	case typeNumberRange:
		for _, v := range vals {
			r := v.(dom.NumberRange)
			w.f32(r[0])
			w.f32(r[1])
		}
	case typeRect:
		for c := range 4 {
			f32(func(v dom.Value) float32 { r := v.(dom.Rect); return r[c/2][c%2] })
		}
	case typePhysicalProperties:
		for _, v := range vals {
			p := v.(dom.PhysicalProperties)
			if p.Default {
				w.u8(0)
				continue
			}
			w.u8(3)
			for _, f := range []float32{p.Density, p.Friction, p.Elasticity, p.FrictionWeight, p.ElasticityWeight, p.AcousticAbsorption} {
				w.f32(f)
			}
		}
	case typeInt64:
		a := make([]int64, n)
		for i, v := range vals {
			a[i] = int64(v.(dom.Int64))
		}
		w.i64s(a)
	case typeSharedString:
		u32(func(v dom.Value) uint32 {
			if nr, ok := v.(dom.NetAssetRef); ok {
				return e.share(nr)
			}
			return e.share(v.(dom.SharedString))
		})
	case typeUniqueID:
		rows := make([]byte, 0, 16*n)
		for _, v := range vals {
			b, err := uniqueIDToBinary(v.(dom.UniqueId))
			if err != nil {
				return err
			}
			rows = append(rows, b[:]...)
		}
		w.columns(rows, 16)
	case typeFont:
		for _, v := range vals {
			f := v.(dom.Font)
			weight, ok := rbxmx.FontWeight(f.Weight)
			if !ok {
				return fmt.Errorf("font weight %q is not a FontWeight", f.Weight)
			}
			var style byte
			switch f.Style {
			case "Normal":
			case "Italic":
				style = 1
			default:
				return fmt.Errorf("font style %q is not Normal or Italic", f.Style)
			}
			w.str(f.Family)
			w.u16(weight)
			w.u8(style)
			if f.CachedFaceID != nil {
				w.str(*f.CachedFaceID)
			} else {
				w.str("")
			}
		}
	case typeSecurityCaps:
		rows := make([]byte, 8*n)
		for i, v := range vals {
			be.PutUint64(rows[8*i:], uint64(v.(dom.SecurityCapabilities)))
		}
		w.columns(rows, 8)
	case typeContent:
		var uris []string
		var objs []int32
		u32(func(v dom.Value) uint32 {
			switch c := v.(dom.Content); c.Kind {
			case "Uri":
				uris = append(uris, c.Value)
				return 1
			case "Object":
				objs = append(objs, e.refOf(c.Value))
				return 2
			}
			return 0
		})
		w.u32(uint32(len(uris)))
		for _, u := range uris {
			w.str(u)
		}
		w.u32(uint32(len(objs)))
		w.refs(objs)
		w.u32(0)
	default:
		return fmt.Errorf("no encoder for %s", typeName(t))
	}
	return nil
}

func writeCFrames(w *writer, cfs []dom.CFrame) {
	for _, cf := range cfs {
		id := rotationID(cf.Orientation)
		w.u8(id)
		if id == 0 {
			for _, row := range cf.Orientation {
				for _, f := range row {
					w.f32(f)
				}
			}
		}
	}
	for c := range 3 {
		a := make([]float32, len(cfs))
		for i, cf := range cfs {
			a[i] = cf.Position[c]
		}
		w.f32s(a)
	}
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}
