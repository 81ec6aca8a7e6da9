package rbxmx

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// attrBlob is a one-attribute blob named "a" whose value bytes are valueHex.
func attrBlob(t *testing.T, valueHex string) []byte {
	return append(unhex(t, "01000000 01000000 61"), unhex(t, valueHex)...)
}

// The expected bytes are the examples of rbx-dom's docs/attributes.md.
func TestAttributeValueBytes(t *testing.T) {
	tests := []struct {
		name  string
		value dom.Value
		hex   string
	}{
		{"UDim", dom.UDim{Scale: 123, Offset: 456}, "09 0000f642 c8010000"},
		{"UDim2", dom.UDim2{{Scale: 1, Offset: 2}, {Scale: 3, Offset: 4}}, "0a 0000803f 02000000 00004040 04000000"},
		{"Color3", dom.Color3{0, 0.4, 1}, "0f 00000000 cdcccc3e 0000803f"},
		{"Vector2", dom.Vector2{10, 20}, "10 00002041 0000a041"},
		{"Vector3", dom.Vector3{10, 20, 30}, "11 00002041 0000a041 0000f041"},
		{"NumberSequence", dom.NumberSequence{{Time: 0, Value: 0, Envelope: 0}, {Time: 0.5, Value: 1, Envelope: 0}, {Time: 1, Value: 1, Envelope: 0.5}},
			"17 03000000 00000000 00000000 00000000 00000000 0000003f 0000803f 0000003f 0000803f 0000803f"},
		{"ColorSequence", dom.ColorSequence{{Time: 0, Color: dom.Color3{1, 0, 0}}, {Time: 0.5, Color: dom.Color3{0, 1, 0}}, {Time: 1, Color: dom.Color3{0, 0, 1}}},
			"19 03000000 00000000 00000000 0000803f 00000000 00000000 00000000 0000003f 00000000 0000803f 00000000 00000000 0000803f 00000000 00000000 0000803f"},
		{"NumberRange", dom.NumberRange{5, 10}, "1b 0000a040 00002041"},
		{"Rect", dom.Rect{{10, 20}, {30, 40}}, "1c 00002041 0000a041 0000f041 00002042"},
		{"CFrameBasic", dom.CFrame{Position: [3]float32{1, 2, 3}, Orientation: dom.IdentityCFrame.Orientation}, "14 0000803f 00000040 00004040 02"},
		{"CFrame45", dom.CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{0.70710677, 0, 0.70710677}, {0, 1, 0}, {-0.70710677, 0, 0.70710677}}},
			"14 0000803f 00000040 00004040 00 f304353f 00000000 f304353f 00000000 0000803f 00000000 f30435bf 00000000 f304353f"},
		{"Font", dom.Font{Family: "rbxasset://fonts/families/SourceSansPro.json", Weight: "Regular", Style: "Normal", CachedFaceID: ptr("rbxasset://fonts/SourceSansPro-Regular.ttf")},
			"21 9001 00 2c000000" + hex.EncodeToString([]byte("rbxasset://fonts/families/SourceSansPro.json")) +
				"2a000000" + hex.EncodeToString([]byte("rbxasset://fonts/SourceSansPro-Regular.ttf"))},
		{"String", dom.String("hi"), "02 02000000 6869"},
		{"Bool", dom.Bool(true), "03 01"},
		{"Int32", dom.Int32(-2), "04 feffffff"},
		{"Float32", dom.Float32(1), "05 0000803f"},
		{"Float64", dom.Float64(1), "06 000000000000f03f"},
		{"BrickColor", dom.BrickColor(194), "0e c2000000"},
		{"EnumItem", dom.EnumItem{EnumType: "Material", Value: 256}, "15 08000000" + hex.EncodeToString([]byte("Material")) + "00010000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := attrBlob(t, tt.hex)
			got, err := encodeAttributes(dom.Attributes{"a": tt.value})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(hex.EncodeToString(want), hex.EncodeToString(got)); diff != "" {
				t.Errorf("encodeAttributes(%v) bytes (-want +got):\n%s", tt.value, diff)
			}
			back, err := decodeAttributes(want)
			if err != nil {
				t.Fatal(err)
			}
			if !dom.Equal(back["a"], tt.value) {
				t.Errorf("decodeAttributes = %#v, want %#v", back["a"], tt.value)
			}
		})
	}
}

// studioAttributes is AttributesSerialize from rbx-dom's test model
// rbx-test-files/models/attributes (written by Roblox Studio), without its NaN and
// infinity entries.
const studioAttributes = "DQAAAAcAAABCb29sZWFuAwEKAAAAQnJpY2tDb2xvcg7sAwAABgAAAENvbG9yMw+joiI/AAAA" +
	"AAAAgD8NAAAAQ29sb3JTZXF1ZW5jZRkDAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAAAA" +
	"PwAAAAAAAIA/AAAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/BgAAAE51bWJlcgYAAAAAgBzIQAsA" +
	"AABOdW1iZXJSYW5nZRsAAKBAAAAgQQ4AAABOdW1iZXJTZXF1ZW5jZRcDAAAAAAAAAAAAAAAA" +
	"AIA/AAAAAAAAAD8AAAAAAAAAAAAAgD8AAIA/BAAAAFJlY3QcAACAPwAAAEAAAEBAAACAQAYA" +
	"AABTdHJpbmcCDQAAAEhlbGxvLCB3b3JsZCEEAAAAVURpbQkAAAA/ZAAAAAUAAABVRGltMgoA" +
	"AAA/CgAAADMzMz8eAAAABwAAAFZlY3RvcjIQAAAgQQAASEIHAAAAVmVjdG9yMxEAAIA/AAAA" +
	"QAAAQEA="

var studioAttributesValues = dom.Attributes{
	"Boolean":        dom.Bool(true),
	"BrickColor":     dom.BrickColor(1004),
	"Color3":         dom.Color3{0.6352941, 0, 1},
	"ColorSequence":  dom.ColorSequence{{Time: 0, Color: dom.Color3{1, 0, 0}}, {Time: 0.5, Color: dom.Color3{0, 1, 0}}, {Time: 1, Color: dom.Color3{0, 0, 1}}},
	"Number":         dom.Float64(12345),
	"NumberRange":    dom.NumberRange{5, 10},
	"NumberSequence": dom.NumberSequence{{Time: 0, Value: 1, Envelope: 0}, {Time: 0.5, Value: 0, Envelope: 0}, {Time: 1, Value: 1, Envelope: 0}},
	"Rect":           dom.Rect{{1, 2}, {3, 4}},
	"String":         dom.String("Hello, world!"),
	"UDim":           dom.UDim{Scale: 0.5, Offset: 100},
	"UDim2":          dom.UDim2{{Scale: 0.5, Offset: 10}, {Scale: 0.7, Offset: 30}},
	"Vector2":        dom.Vector2{10, 50},
	"Vector3":        dom.Vector3{1, 2, 3},
}

func TestDecodeStudioAttributes(t *testing.T) {
	data, err := base64.StdEncoding.DecodeString(studioAttributes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAttributes(data)
	if err != nil {
		t.Fatalf("decodeAttributes: %v", err)
	}
	if diff := cmp.Diff(studioAttributesValues, got, equalValues); diff != "" {
		t.Errorf("decodeAttributes (-want +got):\n%s", diff)
	}
	// Names sorted and every type known: writing them back gives the same bytes.
	again, err := encodeAttributes(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hex.EncodeToString(data), hex.EncodeToString(again)); diff != "" {
		t.Errorf("encodeAttributes(decoded) bytes (-want +got):\n%s", diff)
	}
}

func TestDecodeAttributesErrors(t *testing.T) {
	tests := []struct {
		name, hex, want string
	}{
		{"ShortCount", "0100", "ends early"},
		{"ShortName", "01000000 05000000 6162", "ends early"},
		{"HugeName", "01000000 ffffffff 61", "ends early"},
		{"NoType", "01000000 01000000 61", "ends early"},
		{"UnknownType", "01000000 01000000 61 01", "unsupported attribute type 0x1"},
		{"ShortValue", "01000000 01000000 61 11 0000", "ends early"},
		{"HugeSequence", "01000000 01000000 61 17 ffffffff", "ends early"},
		{"BadBrickColor", "01000000 01000000 61 0e 04000000", "not a BrickColor"},
		{"BadRotation", "01000000 01000000 61 14 00000000 00000000 00000000 01", "rotation id"},
		{"ParallelRotation", "01000000 01000000 61 14 00000000 00000000 00000000 04", "rotation id"},
		{"BadFontWeight", "01000000 01000000 61 21 c201 00 00000000 00000000", "weight 450"},
		{"TrailingBytes", "00000000 ff", "after the last attribute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAttributes(unhex(t, tt.hex))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decodeAttributes(%s) error = %v, want one containing %q", tt.hex, err, tt.want)
			}
		})
	}
}

func TestDecodeAttributesEdges(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want dom.Attributes
	}{
		{"Empty", "", dom.Attributes{}},
		{"Zero", "00000000", dom.Attributes{}},
		{"BoolNonZero", "01000000 01000000 61 03 07", dom.Attributes{"a": dom.Bool(true)}},
		{"DuplicateKeepsFirst", "02000000 01000000 61 03 01 01000000 61 03 00", dom.Attributes{"a": dom.Bool(true)}},
		{"NotUTF8IsBinary", "01000000 01000000 61 02 01000000 ff", dom.Attributes{"a": dom.BinaryString("\xff")}},
		{"NoCachedFace", "01000000 01000000 61 21 bc02 01 01000000 66 00000000", dom.Attributes{"a": dom.Font{Family: "f", Weight: "Bold", Style: "Italic"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAttributes(unhex(t, tt.hex))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, equalValues); diff != "" {
				t.Errorf("decodeAttributes(%s) (-want +got):\n%s", tt.hex, diff)
			}
		})
	}
}

// The rotations named in rbx-dom's docs/attributes.md, as Euler angles in degrees.
func TestBasicRotationIDs(t *testing.T) {
	tests := []struct {
		id   uint8
		want [3][3]float32
	}{
		{0x02, [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},   // (0, 0, 0)
		{0x03, [3][3]float32{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}},  // (90, 0, 0)
		{0x06, [3][3]float32{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}}},  // (-90, 0, 0)
		{0x14, [3][3]float32{{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}}, // (0, 180, 0)
		{0x0a, [3][3]float32{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}},  // (0, 0, 90)
		{0x20, [3][3]float32{{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}}},  // (0, 90, 0)
	}
	for _, tt := range tests {
		got, ok := fromBasicRotationID(tt.id)
		if !ok || got != tt.want {
			t.Errorf("fromBasicRotationID(%#x) = %v, %v, want %v", tt.id, got, ok, tt.want)
		}
	}
	valid := 0
	for id := range 256 {
		m, ok := fromBasicRotationID(uint8(id))
		if !ok {
			continue
		}
		valid++
		if back, ok := basicRotationID(m); !ok || back != uint8(id) {
			t.Errorf("basicRotationID(fromBasicRotationID(%#x)) = %#x, %v", id, back, ok)
		}
	}
	if valid != 24 {
		t.Errorf("%d valid rotation ids, want 24", valid)
	}
	if _, ok := basicRotationID(rotated.Orientation); ok {
		t.Error("a 45° rotation has a basic rotation id")
	}
}
