package rbxbin

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// magic and signature open every binary file; version is the only one defined.
const (
	magic     = "<roblox!"
	signature = "\x89\xff\x0d\x0a\x1a\x0a"
	endMagic  = "</roblox>"
)

// zstdMagic starts a zstd-compressed chunk body; any other compressed body is a
// raw LZ4 block.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// IsBinary reports whether data starts like a binary model or place file, so a
// caller can tell the formats apart by content rather than by file name.
func IsBinary(data []byte) bool {
	return len(data) >= len(magic) && string(data[:len(magic)]) == magic
}

// Type ids of property values in PROP chunks.
const (
	typeString             = 0x01
	typeBool               = 0x02
	typeInt32              = 0x03
	typeFloat32            = 0x04
	typeFloat64            = 0x05
	typeUDim               = 0x06
	typeUDim2              = 0x07
	typeRay                = 0x08
	typeFaces              = 0x09
	typeAxes               = 0x0a
	typeBrickColor         = 0x0b
	typeColor3             = 0x0c
	typeVector2            = 0x0d
	typeVector3            = 0x0e
	typeCFrame             = 0x10
	typeEnum               = 0x12
	typeRef                = 0x13
	typeVector3int16       = 0x14
	typeNumberSequence     = 0x15
	typeColorSequence      = 0x16
	typeNumberRange        = 0x17
	typeRect               = 0x18
	typePhysicalProperties = 0x19
	typeColor3uint8        = 0x1a
	typeInt64              = 0x1b
	typeSharedString       = 0x1c
	typeBytecode           = 0x1d
	typeOptionalCFrame     = 0x1e
	typeUniqueID           = 0x1f
	typeFont               = 0x20
	typeSecurityCaps       = 0x21
	typeContent            = 0x22
)

var typeNames = map[byte]string{
	typeString: "String", typeBool: "Bool", typeInt32: "Int32", typeFloat32: "Float32",
	typeFloat64: "Float64", typeUDim: "UDim", typeUDim2: "UDim2", typeRay: "Ray",
	typeFaces: "Faces", typeAxes: "Axes", typeBrickColor: "BrickColor", typeColor3: "Color3",
	typeVector2: "Vector2", typeVector3: "Vector3", typeCFrame: "CFrame", typeEnum: "Enum",
	typeRef: "Ref", typeVector3int16: "Vector3int16", typeNumberSequence: "NumberSequence",
	typeColorSequence: "ColorSequence", typeNumberRange: "NumberRange", typeRect: "Rect",
	typePhysicalProperties: "PhysicalProperties", typeColor3uint8: "Color3uint8",
	typeInt64: "Int64", typeSharedString: "SharedString", typeBytecode: "Bytecode",
	typeOptionalCFrame: "OptionalCFrame", typeUniqueID: "UniqueId", typeFont: "Font",
	typeSecurityCaps: "SecurityCapabilities", typeContent: "Content",
}

func typeName(t byte) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %#02x", t)
}

// Integers in interleaved arrays are "transformed" so that small negative numbers
// have mostly zero bytes: 2x for x ≥ 0, 2|x|-1 otherwise.
func encodeZigzag32(x int32) uint32 { return uint32(x<<1) ^ uint32(x>>31) }
func decodeZigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
func encodeZigzag64(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }
func decodeZigzag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// Roblox floats move the sign bit from the top to the bottom (a left rotation),
// so that the exponent leads and arrays of similar numbers compress well.
func encodeRobloxFloat(f float32) uint32 { return bits.RotateLeft32(math.Float32bits(f), 1) }
func decodeRobloxFloat(u uint32) float32 { return math.Float32frombits(bits.RotateLeft32(u, -1)) }

// interleave turns n values of width bytes each (row by row) into columns: all
// first bytes, then all second bytes, and so on.
func interleave(dst, src []byte, width int) {
	n := len(src) / width
	for i := range n {
		for j := range width {
			dst[j*n+i] = src[i*width+j]
		}
	}
}

func deinterleave(dst, src []byte, width int) {
	n := len(src) / width
	for i := range n {
		for j := range width {
			dst[i*width+j] = src[j*n+i]
		}
	}
}

// normals are the NormalId axis vectors: Right, Top, Back, Left, Bottom, Front.
var normals = [6][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}

// rotationFromID returns the axis-aligned rotation a CFrame's rotation id stands
// for: the right vector is normal (id-1)/6, the up vector normal (id-1)%6, and the
// back vector their cross product. The 24 ids whose two vectors are perpendicular
// are the format's special cases (0x02 identity … 0x23).
func rotationFromID(id byte) ([3][3]float32, bool) {
	if id < 1 || id > 36 {
		return [3][3]float32{}, false
	}
	ri, ui := int(id-1)/6, int(id-1)%6
	if ri%3 == ui%3 {
		return [3][3]float32{}, false
	}
	right, up := normals[ri], normals[ui]
	back := [3]float32{
		right[1]*up[2] - right[2]*up[1] + 0, // + 0 turns -0 into 0
		right[2]*up[0] - right[0]*up[2] + 0,
		right[0]*up[1] - right[1]*up[0] + 0,
	}
	var m [3][3]float32
	for row := range 3 {
		m[row] = [3]float32{right[row], up[row], back[row]}
	}
	return m, true
}

// rotationID returns the id of an exactly axis-aligned rotation, or 0.
func rotationID(m [3][3]float32) byte {
	col := func(c int) [3]float32 { return [3]float32{m[0][c], m[1][c], m[2][c]} }
	ri, ui := -1, -1
	for i, n := range normals {
		if col(0) == n {
			ri = i
		}
		if col(1) == n {
			ui = i
		}
	}
	if ri < 0 || ui < 0 {
		return 0
	}
	id := byte(6*ri + ui + 1)
	want, ok := rotationFromID(id)
	if !ok || want != m {
		return 0
	}
	return id
}

var le = binary.LittleEndian
var be = binary.BigEndian
