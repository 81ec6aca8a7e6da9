package dom

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// roundTrips holds, for every value type, the example of ROJO_FORMAT §4.1 (in), the
// value it decodes to (want), and the canonical encoding Marshal gives (out).
var roundTrips = []struct {
	name string
	in   string
	want Value
	out  string
}{
	{"Bool", `{"Bool": true}`, Bool(true), `{"Bool":true}`},
	{"Bool false", `{"Bool": false}`, Bool(false), `{"Bool":false}`},
	{"String", `{"String": "hi"}`, String("hi"), `{"String":"hi"}`},
	{"String escapes", `{"String": "a\"b\\c\n<é>"}`, String("a\"b\\c\n<é>"), `{"String":"a\"b\\c\n\u003cé\u003e"}`},
	{"Float32", `{"Float32": 0.25}`, Float32(0.25), `{"Float32":0.25}`},
	{"Float32 integer", `{"Float32": 3}`, Float32(3), `{"Float32":3}`},
	{"Float32 rounds to f32", `{"Float32": 0.1}`, Float32(0.1), `{"Float32":0.1}`},
	{"Float32 max", `{"Float32": 3.4028234663852886e38}`, Float32(3.4028234663852886e38), `{"Float32":3.4028235e+38}`},
	{"Float64", `{"Float64": 1e-3}`, Float64(0.001), `{"Float64":0.001}`},
	{"Int32", `{"Int32": -42}`, Int32(-42), `{"Int32":-42}`},
	{"Int32 max", `{"Int32": 2147483647}`, Int32(2147483647), `{"Int32":2147483647}`},
	{"Int64", `{"Int64": 9007199254740993}`, Int64(9007199254740993), `{"Int64":9007199254740993}`},
	{"Int64 min", `{"Int64": -9223372036854775808}`, Int64(-9223372036854775808), `{"Int64":-9223372036854775808}`},
	{"Vector2", `{"Vector2": [1.5, -2]}`, Vector2{1.5, -2}, `{"Vector2":[1.5,-2]}`},
	{"Vector3", `{"Vector3": [0, 10, 0]}`, Vector3{0, 10, 0}, `{"Vector3":[0,10,0]}`},
	{"Vector2int16", `{"Vector2int16": [-32768, 32767]}`, Vector2int16{-32768, 32767}, `{"Vector2int16":[-32768,32767]}`},
	{"Vector3int16", `{"Vector3int16": [1, 2, 3]}`, Vector3int16{1, 2, 3}, `{"Vector3int16":[1,2,3]}`},
	{"Color3", `{"Color3": [1, 0.5, 0]}`, Color3{1, 0.5, 0}, `{"Color3":[1,0.5,0]}`},
	{"Color3 HDR", `{"Color3": [2, 0, 0]}`, Color3{2, 0, 0}, `{"Color3":[2,0,0]}`},
	{"Color3uint8", `{"Color3uint8": [255, 128, 0]}`, Color3uint8{255, 128, 0}, `{"Color3uint8":[255,128,0]}`},
	{"UDim", `{"UDim": [0.5, 8]}`, UDim{Scale: 0.5, Offset: 8}, `{"UDim":[0.5,8]}`},
	{"UDim2", `{"UDim2": [[1, 0], [0, 36]]}`, UDim2{{Scale: 1}, {Offset: 36}}, `{"UDim2":[[1,0],[0,36]]}`},
	{"CFrame", `{"CFrame": {"position": [0,5,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`,
		CFrame{Position: [3]float32{0, 5, 0}, Orientation: IdentityCFrame.Orientation},
		`{"CFrame":{"position":[0,5,0],"orientation":[[1,0,0],[0,1,0],[0,0,1]]}}`},
	{"CFrame rows", `{"CFrame": {"position": [1,2,3], "orientation": [[0,-1,0],[1,0,0],[0,0,1]]}}`,
		CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}},
		`{"CFrame":{"position":[1,2,3],"orientation":[[0,-1,0],[1,0,0],[0,0,1]]}}`},
	{"CFrame positional", `{"CFrame": [[1,2,3], [[0,-1,0],[1,0,0],[0,0,1]]]}`,
		CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}},
		`{"CFrame":{"position":[1,2,3],"orientation":[[0,-1,0],[1,0,0],[0,0,1]]}}`},
	{"OptionalCFrame null", `{"OptionalCFrame": null}`, OptionalCFrame{}, `{"OptionalCFrame":null}`},
	{"OptionalCFrame", `{"OptionalCFrame": {"position": [0,5,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`,
		OptionalCFrame{CFrame: &CFrame{Position: [3]float32{0, 5, 0}, Orientation: IdentityCFrame.Orientation}},
		`{"OptionalCFrame":{"position":[0,5,0],"orientation":[[1,0,0],[0,1,0],[0,0,1]]}}`},
	{"Enum", `{"Enum": 2}`, Enum(2), `{"Enum":2}`},
	{"Enum max", `{"Enum": 4294967295}`, Enum(4294967295), `{"Enum":4294967295}`},
	{"EnumItem", `{"EnumItem": {"type": "Material", "value": 256}}`, EnumItem{EnumType: "Material", Value: 256},
		`{"EnumItem":{"type":"Material","value":256}}`},
	{"BrickColor", `{"BrickColor": 194}`, BrickColor(194), `{"BrickColor":194}`},
	{"BrickColor 1032", `{"BrickColor": 1032}`, BrickColor(1032), `{"BrickColor":1032}`},
	{"NumberRange", `{"NumberRange": [1, 3]}`, NumberRange{1, 3}, `{"NumberRange":[1,3]}`},
	{"NumberSequence", `{"NumberSequence": {"keypoints": [{"time":0,"value":1,"envelope":0},{"time":1,"value":0,"envelope":0}]}}`,
		NumberSequence{{Time: 0, Value: 1}, {Time: 1, Value: 0}},
		`{"NumberSequence":{"keypoints":[{"time":0,"value":1,"envelope":0},{"time":1,"value":0,"envelope":0}]}}`},
	{"ColorSequence", `{"ColorSequence": {"keypoints": [{"time":0,"color":[1,1,1]},{"time":1,"color":[0,0,0]}]}}`,
		ColorSequence{{Time: 0, Color: Color3{1, 1, 1}}, {Time: 1, Color: Color3{0, 0, 0}}},
		`{"ColorSequence":{"keypoints":[{"time":0,"color":[1,1,1]},{"time":1,"color":[0,0,0]}]}}`},
	{"Rect", `{"Rect": [[0,0],[16,16]]}`, Rect{{0, 0}, {16, 16}}, `{"Rect":[[0,0],[16,16]]}`},
	{"Ray", `{"Ray": {"origin":[0,0,0],"direction":[0,-1,0]}}`, Ray{Direction: Vector3{0, -1, 0}},
		`{"Ray":{"direction":[0,-1,0],"origin":[0,0,0]}}`},
	{"Region3", `{"Region3": [[0,0,0],[4.5,4,4]]}`, Region3{{0, 0, 0}, {4.5, 4, 4}}, `{"Region3":[[0,0,0],[4.5,4,4]]}`},
	{"Region3int16", `{"Region3int16": [[0,0,0],[4,4,4]]}`, Region3int16{{0, 0, 0}, {4, 4, 4}}, `{"Region3int16":[[0,0,0],[4,4,4]]}`},
	{"Axes", `{"Axes": ["X", "Z"]}`, Axes{"X", "Z"}, `{"Axes":["X","Z"]}`},
	{"Axes empty", `{"Axes": []}`, Axes{}, `{"Axes":[]}`},
	{"Faces", `{"Faces": ["Top","Front"]}`, Faces{"Top", "Front"}, `{"Faces":["Top","Front"]}`},
	{"ContentId", `{"ContentId": "rbxassetid://123"}`, ContentId("rbxassetid://123"), `{"ContentId":"rbxassetid://123"}`},
	{"Content Uri", `{"Content": {"Uri": "rbxassetid://123"}}`, Content{Kind: "Uri", Value: "rbxassetid://123"},
		`{"Content":{"Uri":"rbxassetid://123"}}`},
	{"Content None", `{"Content": "None"}`, Content{Kind: "None"}, `{"Content":"None"}`},
	{"Content Object", `{"Content": {"Object": "000000000000000000000000000000a1"}}`,
		Content{Kind: "Object", Value: "000000000000000000000000000000a1"},
		`{"Content":{"Object":"000000000000000000000000000000a1"}}`},
	{"Tags", `{"Tags": ["Enemy", "Boss"]}`, Tags{"Enemy", "Boss"}, `{"Tags":["Enemy","Boss"]}`},
	{"Tags duplicates", `{"Tags": ["A", "A"]}`, Tags{"A", "A"}, `{"Tags":["A","A"]}`},
	{"Attributes", `{"Attributes": {"Hp": {"Float64": 100}, "Team": {"String": "Red"}}}`,
		Attributes{"Hp": Float64(100), "Team": String("Red")},
		`{"Attributes":{"Hp":{"Float64":100},"Team":{"String":"Red"}}}`},
	{"Attributes every type", `{"Attributes": {
		"a": {"String": "s"}, "b": {"BinaryString": "AAEC"}, "c": {"Bool": true}, "d": {"Int32": 7},
		"e": {"Float32": 0.5}, "f": {"Float64": 0.25}, "g": {"UDim": [1, 2]}, "h": {"UDim2": [[1, 2], [3, 4]]},
		"i": {"BrickColor": 1}, "j": {"Color3": [1, 0, 0]}, "k": {"Vector2": [1, 2]}, "l": {"Vector3": [1, 2, 3]},
		"m": {"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}},
		"n": {"EnumItem": {"type": "Material", "value": 288}},
		"o": {"NumberSequence": {"keypoints": [{"time":0,"value":1,"envelope":0}]}},
		"p": {"ColorSequence": {"keypoints": [{"time":0,"color":[1,1,1]}]}},
		"q": {"NumberRange": [0, 1]}, "r": {"Rect": [[0,0],[1,1]]},
		"s": {"Font": {"family": "f", "weight": "Bold", "style": "Italic"}}}}`,
		Attributes{
			"a": String("s"), "b": BinaryString{0, 1, 2}, "c": Bool(true), "d": Int32(7), "e": Float32(0.5),
			"f": Float64(0.25), "g": UDim{1, 2}, "h": UDim2{{1, 2}, {3, 4}}, "i": BrickColor(1), "j": Color3{1, 0, 0},
			"k": Vector2{1, 2}, "l": Vector3{1, 2, 3}, "m": IdentityCFrame, "n": EnumItem{"Material", 288},
			"o": NumberSequence{{Time: 0, Value: 1}}, "p": ColorSequence{{Color: Color3{1, 1, 1}}},
			"q": NumberRange{0, 1}, "r": Rect{{0, 0}, {1, 1}}, "s": Font{Family: "f", Weight: "Bold", Style: "Italic"},
		},
		`{"Attributes":{"a":{"String":"s"},"b":{"BinaryString":"AAEC"},"c":{"Bool":true},"d":{"Int32":7},` +
			`"e":{"Float32":0.5},"f":{"Float64":0.25},"g":{"UDim":[1,2]},"h":{"UDim2":[[1,2],[3,4]]},` +
			`"i":{"BrickColor":1},"j":{"Color3":[1,0,0]},"k":{"Vector2":[1,2]},"l":{"Vector3":[1,2,3]},` +
			`"m":{"CFrame":{"position":[0,0,0],"orientation":[[1,0,0],[0,1,0],[0,0,1]]}},` +
			`"n":{"EnumItem":{"type":"Material","value":288}},` +
			`"o":{"NumberSequence":{"keypoints":[{"time":0,"value":1,"envelope":0}]}},` +
			`"p":{"ColorSequence":{"keypoints":[{"time":0,"color":[1,1,1]}]}},` +
			`"q":{"NumberRange":[0,1]},"r":{"Rect":[[0,0],[1,1]]},` +
			`"s":{"Font":{"family":"f","weight":"Bold","style":"Italic"}}}}`},
	{"Attributes empty", `{"Attributes": {}}`, Attributes{}, `{"Attributes":{}}`},
	{"Font", `{"Font": {"family": "rbxasset://fonts/families/GothamSSm.json", "weight": "Bold", "style": "Normal"}}`,
		Font{Family: "rbxasset://fonts/families/GothamSSm.json", Weight: "Bold", Style: "Normal"},
		`{"Font":{"family":"rbxasset://fonts/families/GothamSSm.json","weight":"Bold","style":"Normal"}}`},
	{"Font cachedFaceId null", `{"Font": {"family": "f", "weight": "Thin", "style": "Italic", "cachedFaceId": null}}`,
		Font{Family: "f", Weight: "Thin", Style: "Italic"},
		`{"Font":{"family":"f","weight":"Thin","style":"Italic"}}`},
	{"Font cachedFaceId", `{"Font": {"family": "f", "weight": "Heavy", "style": "Normal", "cachedFaceId": "rbxasset://x.ttf"}}`,
		Font{Family: "f", Weight: "Heavy", Style: "Normal", CachedFaceID: ptr("rbxasset://x.ttf")},
		`{"Font":{"family":"f","weight":"Heavy","style":"Normal","cachedFaceId":"rbxasset://x.ttf"}}`},
	{"Ref", `{"Ref": "000000000000000000000000000000a1"}`, Ref("000000000000000000000000000000a1"),
		`{"Ref":"000000000000000000000000000000a1"}`},
	{"Ref upper case", `{"Ref": "ABCDEF000000000000000000000000A1"}`, Ref("abcdef000000000000000000000000a1"),
		`{"Ref":"abcdef000000000000000000000000a1"}`},
	{"PhysicalProperties Default", `{"PhysicalProperties": "Default"}`, PhysicalProperties{Default: true},
		`{"PhysicalProperties":"Default"}`},
	{"PhysicalProperties", `{"PhysicalProperties": {"density": 0.7, "friction": 0.3, "elasticity": 0.5, "frictionWeight": 1, "elasticityWeight": 1, "acousticAbsorption": 0.25}}`,
		PhysicalProperties{Density: 0.7, Friction: 0.3, Elasticity: 0.5, FrictionWeight: 1, ElasticityWeight: 1, AcousticAbsorption: 0.25},
		`{"PhysicalProperties":{"density":0.7,"friction":0.3,"elasticity":0.5,"frictionWeight":1,"elasticityWeight":1,"acousticAbsorption":0.25}}`},
	{"MaterialColors", `{"MaterialColors": {"Grass": [10,20,30]}}`, MaterialColors{"Grass": {10, 20, 30}},
		`{"MaterialColors":{"Grass":[10,20,30]}}`},
	{"BinaryString", `{"BinaryString": "AAEC"}`, BinaryString{0, 1, 2}, `{"BinaryString":"AAEC"}`},
	{"BinaryString empty", `{"BinaryString": ""}`, BinaryString{}, `{"BinaryString":""}`},
	{"SharedString", `{"SharedString": "aGk="}`, SharedString("hi"), `{"SharedString":"aGk="}`},
	{"NetAssetRef", `{"NetAssetRef": "AAEC"}`, NetAssetRef{0, 1, 2}, `{"NetAssetRef":"AAEC"}`},
	{"UniqueId", `{"UniqueId": "00000000000000000000000000000000"}`, UniqueId("00000000000000000000000000000000"),
		`{"UniqueId":"00000000000000000000000000000000"}`},
	{"SecurityCapabilities", `{"SecurityCapabilities": 0}`, SecurityCapabilities(0), `{"SecurityCapabilities":0}`},
	{"SecurityCapabilities max", `{"SecurityCapabilities": 18446744073709551615}`, SecurityCapabilities(18446744073709551615),
		`{"SecurityCapabilities":18446744073709551615}`},
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range roundTrips {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal([]byte(tt.in))
			if err != nil {
				t.Fatalf("Unmarshal(%s) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
			out, err := Marshal(got)
			if err != nil {
				t.Fatalf("Marshal(%#v) error: %v", got, err)
			}
			if string(out) != tt.out {
				t.Errorf("Marshal(%#v) = %s, want %s", got, out, tt.out)
			}
			again, err := Unmarshal(out)
			if err != nil {
				t.Fatalf("Unmarshal(%s) error: %v", out, err)
			}
			if !Equal(got, again) {
				t.Errorf("Unmarshal(%s) = %#v, not Equal to %#v", out, again, got)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("Unmarshal(%s) after Marshal mismatch (-first +second):\n%s", out, diff)
			}
			if !IsTagged([]byte(tt.in)) {
				t.Errorf("IsTagged(%s) = false, want true", tt.in)
			}
		})
	}
}

// TestRoundTripCoversEveryType keeps the round-trip table complete: every decodable
// type has a case, and every type in the table can be decoded.
func TestRoundTripCoversEveryType(t *testing.T) {
	var inTable []string
	for _, tt := range roundTrips {
		if !slices.Contains(inTable, tt.want.Type()) {
			inTable = append(inTable, tt.want.Type())
		}
	}
	slices.Sort(inTable)
	if diff := cmp.Diff(inTable, TypeNames()); diff != "" {
		t.Errorf("TypeNames() differs from the types of the round-trip table (-table +TypeNames):\n%s", diff)
	}
	for _, name := range TypeNames() {
		if !KnownType(name) {
			t.Errorf("KnownType(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"ProtectedString", "Vector4", "bool", ""} {
		if KnownType(name) {
			t.Errorf("KnownType(%q) = true, want false", name)
		}
	}
}

func TestMarshalZeroValues(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{Axes(nil), `{"Axes":[]}`},
		{Faces(nil), `{"Faces":[]}`},
		{Tags(nil), `{"Tags":[]}`},
		{NumberSequence(nil), `{"NumberSequence":{"keypoints":[]}}`},
		{ColorSequence(nil), `{"ColorSequence":{"keypoints":[]}}`},
		{Content{}, `{"Content":"None"}`},
		{Attributes(nil), `{"Attributes":{}}`},
		{MaterialColors(nil), `{"MaterialColors":{}}`},
		{BinaryString(nil), `{"BinaryString":""}`},
		{OptionalCFrame{}, `{"OptionalCFrame":null}`},
		{CFrame{}, `{"CFrame":{"position":[0,0,0],"orientation":[[0,0,0],[0,0,0],[0,0,0]]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.v.Type(), func(t *testing.T) {
			got, err := Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal(%#v) error: %v", tt.v, err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal(%#v) = %s, want %s", tt.v, got, tt.want)
			}
			if _, err := Unmarshal(got); err != nil {
				t.Errorf("Unmarshal(%s) error: %v", got, err)
			}
		})
	}
}

func TestMarshalRejects(t *testing.T) {
	tests := []struct {
		name string
		v    Value
	}{
		{"nil", nil},
		{"Content kind", Content{Kind: "Blob", Value: "x"}},
		{"attribute Content kind", Attributes{"x": Float64(math.NaN()), "y": Content{Kind: "Blob"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := Marshal(tt.v); err == nil {
				t.Errorf("Marshal(%#v) = %s, want error", tt.v, got)
			}
		})
	}
}

func TestUnmarshalRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // a substring of the error
	}{
		{"Int32 5.0", `{"Int32": 5.0}`, "not an integer"},
		{"Int32 1e3", `{"Int32": 1e3}`, "not an integer"},
		{"Int32 above range", `{"Int32": 2147483648}`, "out of range"},
		{"Int32 below range", `{"Int32": -2147483649}`, "out of range"},
		{"Int32 string", `{"Int32": "5"}`, "not an integer"},
		{"Int32 leading zero", `{"Int32": 05}`, ""},
		{"Int64 5.0", `{"Int64": 5.0}`, "not an integer"},
		{"Int64 above range", `{"Int64": 9223372036854775808}`, "out of range"},
		{"Vector2int16 above range", `{"Vector2int16": [0, 32768]}`, "out of range"},
		{"Vector3int16 fraction", `{"Vector3int16": [1.0, 2, 3]}`, "not an integer"},
		{"Vector3int16 count", `{"Vector3int16": [1, 2]}`, "want 3"},
		{"Color3uint8 256", `{"Color3uint8": [256, 0, 0]}`, "out of range"},
		{"Color3uint8 negative", `{"Color3uint8": [-1, 0, 0]}`, "out of range"},
		{"Color3uint8 fraction", `{"Color3uint8": [0.5, 0, 0]}`, "not an integer"},
		{"UDim offset fraction", `{"UDim": [0.5, 8.0]}`, "not an integer"},
		{"UDim offset range", `{"UDim": [0.5, 2147483648]}`, "out of range"},
		{"UDim2 offset exponent", `{"UDim2": [[1, 0], [0, 1e1]]}`, "not an integer"},
		{"Region3int16 range", `{"Region3int16": [[0,0,0],[4,4,40000]]}`, "out of range"},
		{"Enum negative", `{"Enum": -1}`, "not a non-negative integer"},
		{"Enum 2.0", `{"Enum": 2.0}`, "not a non-negative integer"},
		{"Enum above u32", `{"Enum": 4294967296}`, "out of range"},
		{"EnumItem fraction", `{"EnumItem": {"type": "Material", "value": 1.5}}`, "not a non-negative integer"},
		{"EnumItem no type", `{"EnumItem": {"value": 1}}`, "want type and value"},
		{"SecurityCapabilities negative", `{"SecurityCapabilities": -1}`, "not a non-negative integer"},
		{"SecurityCapabilities above u64", `{"SecurityCapabilities": 18446744073709551616}`, "out of range"},
		{"SecurityCapabilities 1e3", `{"SecurityCapabilities": 1e3}`, "not a non-negative integer"},
		{"BrickColor 4", `{"BrickColor": 4}`, "not a BrickColor number"},
		{"BrickColor 0", `{"BrickColor": 0}`, "not a BrickColor number"},
		{"BrickColor above u16", `{"BrickColor": 65536}`, "out of range"},
		{"BrickColor 194.0", `{"BrickColor": 194.0}`, "not a non-negative integer"},
		{"Font bad weight", `{"Font": {"family": "f", "weight": "Fat", "style": "Normal"}}`, `weight "Fat"`},
		{"Font lower-case weight", `{"Font": {"family": "f", "weight": "bold", "style": "Normal"}}`, `weight "bold"`},
		{"Font bad style", `{"Font": {"family": "f", "weight": "Bold", "style": "Oblique"}}`, `style "Oblique"`},
		{"Font no family", `{"Font": {"weight": "Bold", "style": "Normal"}}`, "want family, weight and style"},
		{"Font unknown field", `{"Font": {"family": "f", "weight": "Bold", "style": "Normal", "size": 3}}`, "unknown field"},
		{"PhysicalProperties no acousticAbsorption",
			`{"PhysicalProperties": {"density": 0.7, "friction": 0.3, "elasticity": 0.5, "frictionWeight": 1, "elasticityWeight": 1}}`,
			`missing field "acousticAbsorption"`},
		{"PhysicalProperties unknown field",
			`{"PhysicalProperties": {"density": 0.7, "friction": 0.3, "elasticity": 0.5, "frictionWeight": 1, "elasticityWeight": 1, "acousticAbsorption": 0, "mass": 1}}`,
			`unknown field "mass"`},
		{"PhysicalProperties null field",
			`{"PhysicalProperties": {"density": null, "friction": 0.3, "elasticity": 0.5, "frictionWeight": 1, "elasticityWeight": 1, "acousticAbsorption": 0}}`,
			"density"},
		{"PhysicalProperties other string", `{"PhysicalProperties": "Custom"}`, "Default"},
		{"Attributes Ref", `{"Attributes": {"Target": {"Ref": "000000000000000000000000000000a1"}}}`, "type Ref cannot be an attribute"},
		{"Attributes Enum", `{"Attributes": {"Kind": {"Enum": 1}}}`, "type Enum cannot be an attribute"},
		{"Attributes Int64", `{"Attributes": {"N": {"Int64": 1}}}`, "type Int64 cannot be an attribute"},
		{"Attributes nested", `{"Attributes": {"A": {"Attributes": {}}}}`, "type Attributes cannot be an attribute"},
		{"Attributes shorthand", `{"Attributes": {"Hp": 100}}`, "attribute Hp"},
		{"Attributes null value", `{"Attributes": {"Hp": null}}`, "attribute Hp"},
		{"Ref 31 digits", `{"Ref": "00000000000000000000000000000a1"}`, "want 32 hex digits"},
		{"Ref 33 digits", `{"Ref": "0000000000000000000000000000000a1"}`, "want 32 hex digits"},
		{"Ref not hex", `{"Ref": "0000000000000000000000000000000g"}`, "want 32 hex digits"},
		{"Ref trailing newline", "{\"Ref\": \"000000000000000000000000000000a1\\n\"}", "want 32 hex digits"},
		{"Ref number", `{"Ref": 161}`, ""},
		{"UniqueId short", `{"UniqueId": "0000"}`, "want 32 hex digits"},
		{"two keys", `{"Bool": true, "String": "x"}`, "exactly one key"},
		{"no key", `{}`, "exactly one key"},
		{"unknown tag", `{"Vector4": [1, 2, 3, 4]}`, `unknown value type "Vector4"`},
		{"ProtectedString", `{"ProtectedString": "x"}`, `unknown value type "ProtectedString"`},
		{"lower-case tag", `{"vector3": [1, 2, 3]}`, `unknown value type "vector3"`},
		{"not an object", `[0, 1, 0]`, "must be an object"},
		{"bare bool", `true`, "must be an object"},
		{"null", `null`, "exactly one key"},
		{"invalid JSON", `{"Bool": tru}`, "must be an object"},
		{"trailing data", `{"Bool": true} {}`, "must be an object"},
		{"Float32 beyond f32", `{"Float32": 1e39}`, "out of the range of a 32-bit float"},
		{"Float32 beyond f32 negative", `{"Float32": -3.5e38}`, "out of the range of a 32-bit float"},
		{"Vector3 beyond f32", `{"Vector3": [1e39, 0, 0]}`, "out of the range of a 32-bit float"},
		{"NumberRange beyond f32", `{"NumberRange": [0, -1e39]}`, "out of the range of a 32-bit float"},
		{"UDim scale beyond f32", `{"UDim": [1e39, 0]}`, "out of the range of a 32-bit float"},
		{"CFrame beyond f32", `{"CFrame": {"position": [1e39,0,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`, ""},
		{"Vector3 null element", `{"Vector3": [null, 0, 0]}`, "null is not a number"},
		{"Color3 null element", `{"Color3": [0, null, 0]}`, "null is not a number"},
		{"CFrame short position", `{"CFrame": {"position": [1, 2], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`, "want 3 numbers, got 2"},
		{"CFrame long position", `{"CFrame": {"position": [1, 2, 3, 4], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`, "want 3 numbers, got 4"},
		{"CFrame null position element", `{"CFrame": {"position": [null, 2, 3], "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`, "null is not a number"},
		{"CFrame null position", `{"CFrame": {"position": null, "orientation": [[1,0,0],[0,1,0],[0,0,1]]}}`, ""},
		{"CFrame two rows", `{"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],[0,1,0]]}}`, "want 3 rows, got 2"},
		{"CFrame four rows", `{"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],[0,1,0],[0,0,1],[0,0,0]]}}`, "want 3 rows, got 4"},
		{"CFrame short row", `{"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],[0,1],[0,0,1]]}}`, "want 3 numbers, got 2"},
		{"CFrame null row", `{"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],null,[0,0,1]]}}`, "null"},
		{"CFrame positional short position", `{"CFrame": [[1, 2], [[1,0,0],[0,1,0],[0,0,1]]]}`, "want 3 numbers, got 2"},
		{"CFrame positional short orientation", `{"CFrame": [[1, 2, 3], [[1,0,0],[0,1,0]]]}`, "want 3 rows, got 2"},
		{"Ray short origin", `{"Ray": {"origin": [0, 0], "direction": [0, -1, 0]}}`, "want 3 numbers, got 2"},
		{"Ray null in direction", `{"Ray": {"origin": [0, 0, 0], "direction": [0, null, 0]}}`, "null is not a number"},
		{"ColorSequence short color", `{"ColorSequence": {"keypoints": [{"time": 0, "color": [1, 1]}]}}`, "want 3 numbers, got 2"},
		{"ColorSequence long color", `{"ColorSequence": {"keypoints": [{"time": 0, "color": [1, 1, 1, 1]}]}}`, "want 3 numbers, got 4"},
		{"Rect null element", `{"Rect": [[null, 0], [1, 1]]}`, "null is not a number"},
		{"Region3 null element", `{"Region3": [[0, 0, 0], [1, 1, null]]}`, "null is not a number"},
		{"Region3 short corner", `{"Region3": [[0, 0, 0], [1, 1]]}`, "want 3 numbers, got 2"},
		{"Tags null element", `{"Tags": ["A", null]}`, "null is not a string"},
		{"Axes null element", `{"Axes": [null]}`, "null is not a string"},
		{"Bool number", `{"Bool": 1}`, ""},
		{"Float32 string", `{"Float32": "0.5"}`, ""},
		{"Vector3 short", `{"Vector3": [1, 2]}`, "want 3 numbers, got 2"},
		{"Vector3 long", `{"Vector3": [1, 2, 3, 4]}`, "want 3 numbers, got 4"},
		{"Vector2 object", `{"Vector2": {"x": 1, "y": 2}}`, ""},
		{"Color3 strings", `{"Color3": ["1", "0", "0"]}`, ""},
		{"UDim2 flat", `{"UDim2": [1, 0, 0, 36]}`, ""},
		{"CFrame no orientation", `{"CFrame": {"position": [0, 0, 0]}}`, "want position and orientation"},
		{"CFrame unknown field", `{"CFrame": {"position": [0,0,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]], "scale": 1}}`, "unknown field"},
		{"CFrame positional short", `{"CFrame": [[0,0,0]]}`, "want [position, orientation]"},
		{"OptionalCFrame bad", `{"OptionalCFrame": {"position": [0,0,0]}}`, "want position and orientation"},
		{"NumberSequence keypoint without envelope", `{"NumberSequence": {"keypoints": [{"time": 0, "value": 1}]}}`, "keypoint wants"},
		{"ColorSequence keypoint without color", `{"ColorSequence": {"keypoints": [{"time": 0}]}}`, "keypoint wants"},
		{"Rect short", `{"Rect": [[0, 0], [1]]}`, "want 2 numbers, got 1"},
		{"Rect one corner", `{"Rect": [[0, 0]]}`, "want [[minX, minY], [maxX, maxY]]"},
		{"Region3 short", `{"Region3": [[0, 0, 0]]}`, "want [[min], [max]]"},
		{"Ray no direction", `{"Ray": {"origin": [0, 0, 0]}}`, "want origin and direction"},
		{"Axes bad name", `{"Axes": ["W"]}`, `"W" is not one of`},
		{"Faces bad name", `{"Faces": ["Up"]}`, `"Up" is not one of`},
		{"Faces lower case", `{"Faces": ["top"]}`, `"top" is not one of`},
		{"Content other string", `{"Content": "rbxassetid://1"}`, "None"},
		{"Content unknown kind", `{"Content": {"Blob": "x"}}`, `unknown Content kind "Blob"`},
		{"Content two kinds", `{"Content": {"Uri": "a", "Object": "b"}}`, "None"},
		{"MaterialColors out of range", `{"MaterialColors": {"Grass": [256, 0, 0]}}`, "Grass"},
		{"MaterialColors short", `{"MaterialColors": {"Grass": [1, 2]}}`, "Grass"},
		{"BinaryString not base64", `{"BinaryString": "not base64!"}`, ""},
		{"SharedString unpadded", `{"SharedString": "aGk"}`, ""},
		{"Tags not strings", `{"Tags": [1]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal([]byte(tt.in))
			if err == nil {
				t.Fatalf("Unmarshal(%s) = %#v, want error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal(%s) error = %q, want it to mention %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestUnmarshalRejectsNullPayload checks every type but OptionalCFrame (whose null is
// "no CFrame") rejects a null payload.
func TestUnmarshalRejectsNullPayload(t *testing.T) {
	for _, name := range TypeNames() {
		if name == "OptionalCFrame" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			in := `{"` + name + `": null}`
			if got, err := Unmarshal([]byte(in)); err == nil {
				t.Errorf("Unmarshal(%s) = %#v, want error", in, got)
			}
		})
	}
}

func TestIsTagged(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"Vector3": [0, 1, 0]}`, true},
		{`{"Vector3": "nonsense"}`, true}, // the shape, not the payload
		{`{"Hp": {"Float64": 1}}`, false},
		{`{"Bool": true, "String": "x"}`, false},
		{`[0, 1, 0]`, false},
		{`"Neon"`, false},
		{`null`, false},
	}
	for _, tt := range tests {
		if got := IsTagged([]byte(tt.in)); got != tt.want {
			t.Errorf("IsTagged(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDecodePayload(t *testing.T) {
	got, err := DecodePayload("Vector3", json.RawMessage(`[1, 2, 3]`))
	if err != nil {
		t.Fatalf("DecodePayload(Vector3, [1, 2, 3]) error: %v", err)
	}
	if want := (Vector3{1, 2, 3}); got != want {
		t.Errorf("DecodePayload(Vector3, [1, 2, 3]) = %#v, want %#v", got, want)
	}
	for _, tt := range []struct{ tag, body string }{
		{"Nope", `1`},
		// A payload is one JSON value: what follows it is an error, not ignored.
		{"Vector3", `[1, 2, 3] [4]`},
		{"Vector3", `[1, 2, 3]]`},
		{"Bool", `true false`},
		{"Int32", `1 2`},
		{"CFrame", `{"position": [0,0,0], "orientation": [[1,0,0],[0,1,0],[0,0,1]]} x`},
		{"Tags", `["a"] ["b"]`},
	} {
		if got, err := DecodePayload(tt.tag, json.RawMessage(tt.body)); err == nil {
			t.Errorf("DecodePayload(%s, %s) = %#v, want error", tt.tag, tt.body, got)
		}
	}
	// A long payload is shortened in the message.
	long := json.RawMessage(`"` + strings.Repeat("x", 200) + `"`)
	_, err = DecodePayload("Ref", long)
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "...") {
		t.Errorf("DecodePayload(Ref, <202 bytes>) error = %v, want a short message ending the payload with ...", err)
	}
}

func TestPropertiesJSON(t *testing.T) {
	props := Properties{
		"Size":     Vector3{4, 1, 2},
		"Anchored": Bool(true),
		"Material": Enum(288),
		"Tags":     Tags{"Lava"},
	}
	got, err := json.Marshal(props)
	if err != nil {
		t.Fatalf("json.Marshal(%v) error: %v", props, err)
	}
	want := `{"Anchored":{"Bool":true},"Material":{"Enum":288},"Size":{"Vector3":[4,1,2]},"Tags":{"Tags":["Lava"]}}`
	if string(got) != want {
		t.Errorf("json.Marshal(%v) = %s, want %s", props, got, want)
	}
	var back Properties
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", got, err)
	}
	if diff := cmp.Diff(props, back); diff != "" {
		t.Errorf("json.Unmarshal(%s) mismatch (-want +got):\n%s", got, diff)
	}

	for _, in := range []string{
		`{"Size": [4, 1, 2]}`,           // implicit values are not accepted here
		`{"Size": {"Vector3": [4, 1]}}`, // a bad explicit value
		`[]`,
	} {
		var p Properties
		if err := json.Unmarshal([]byte(in), &p); err == nil {
			t.Errorf("json.Unmarshal(%s) into Properties = %v, want error", in, p)
		}
	}
	bad := Properties{"X": Content{Kind: "Blob"}}
	if got, err := json.Marshal(bad); err == nil {
		t.Errorf("json.Marshal(bad Content property) = %s, want error", got)
	}
}

func TestMustMarshal(t *testing.T) {
	if got, want := string(MustMarshal(Vector3{0, 10, 0})), `{"Vector3":[0,10,0]}`; got != want {
		t.Errorf("MustMarshal(Vector3{0, 10, 0}) = %s, want %s", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MustMarshal(nil) did not panic")
		}
	}()
	MustMarshal(nil)
}

func TestValidBrickColor(t *testing.T) {
	tests := []struct {
		n    uint16
		want bool
	}{
		{1, true}, {4, false}, {194, true}, {199, true}, {0, false}, {1032, true}, {1033, false},
		{21, true}, {29, true}, {30, false}, {326, false}, {365, true}, {366, false},
	}
	for _, tt := range tests {
		if got := ValidBrickColor(tt.n); got != tt.want {
			t.Errorf("ValidBrickColor(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// FuzzUnmarshal checks that whatever Unmarshal accepts, Marshal encodes, and that the
// encoding decodes to an Equal value and is stable.
func FuzzUnmarshal(f *testing.F) {
	for _, tt := range roundTrips {
		f.Add([]byte(tt.in))
		f.Add([]byte(tt.out))
	}
	for _, seed := range []string{
		`{"Float32": 3.5e38}`,
		`{"Vector3": [null, 0, 0]}`,
		`{"SecurityCapabilities": 9223372036854775809}`,
		`{"Attributes": {"x": {"Attributes": {}}}}`,
		`{"CFrame": [[0, 0, 0], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Unmarshal(data)
		if err != nil {
			return
		}
		if !Equal(v, v) {
			t.Fatalf("Unmarshal(%q) = %#v, not Equal to itself", data, v)
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("Unmarshal(%q) = %#v, which Marshal rejects: %v", data, v, err)
		}
		again, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("Unmarshal(%s) (from Marshal) error: %v", out, err)
		}
		if !Equal(v, again) {
			t.Fatalf("Unmarshal(%s) = %#v, want Equal to %#v", out, again, v)
		}
		out2, err := Marshal(again)
		if err != nil {
			t.Fatalf("Marshal(%#v) error: %v", again, err)
		}
		if string(out2) != string(out) {
			t.Fatalf("Marshal is not stable: %s then %s", out, out2)
		}
	})
}

func BenchmarkMarshalProperties(b *testing.B) {
	props := Properties{
		"Anchored":   Bool(true),
		"Material":   Enum(288),
		"Size":       Vector3{4, 1, 2},
		"Color":      Color3{1, 0, 0},
		"CFrame":     CFrame{Position: [3]float32{0, 10, 0}, Orientation: IdentityCFrame.Orientation},
		"Tags":       Tags{"Lava"},
		"Name":       String("Lava"),
		"Attributes": Attributes{"Damage": Float64(10), "Kind": EnumItem{"Material", 288}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(props); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTagged(t *testing.T) {
	type doc struct {
		A Tagged `json:"a"`
		B Tagged `json:"b"`
	}
	in := doc{A: Tagged{Vector3{0, 10, 0}}}
	got, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("json.Marshal(%+v) error: %v", in, err)
	}
	if want := `{"a":{"Vector3":[0,10,0]},"b":null}`; string(got) != want {
		t.Errorf("json.Marshal(%+v) = %s, want %s", in, got, want)
	}
	back := doc{B: Tagged{Bool(true)}}
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", got, err)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("json.Unmarshal(%s) mismatch (-want +got):\n%s", got, diff)
	}
	for _, bad := range []string{`{"a":[0,10,0]}`, `{"a":{"Vector3":[0,10]}}`, `{"a":{"Nope":1}}`} {
		var d doc
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("json.Unmarshal(%s) = %+v, want error", bad, d)
		}
	}
}

// The fast path and the full decoder agree on every input.
func TestUnmarshalFastAgreesWithFullDecoder(t *testing.T) {
	inputs := []string{
		`{"String":"print(1)\n"}`, `{"String":"plain"}`, `{"String":"tab\there"}`, `{"String":"quote\"d"}`,
		`{"String":"a","String":"b"}`, `{ "Bool" : true }`, `{"Bool":true,"x":1}`, `{"Vector3":[1,2,3]}`,
		`{"String":"\u00e9"}`, `{"String":"é"}`, `{"Enum":2}`, `{"Nope":1}`, `{"String":1}`, `{"String":"x"} `,
		`{"Str\u0069ng":"x"}`, `{"String":"x"`, `{}`,
	}
	for _, in := range inputs {
		tag, body, err := splitTagged([]byte(in))
		var want Value
		if err == nil {
			want, err = DecodePayload(tag, body)
		}
		got, gotErr := Unmarshal([]byte(in))
		if (err == nil) != (gotErr == nil) || (err == nil && !Equal(got, want)) {
			t.Errorf("Unmarshal(%s) = %v, %v; full decoder %v, %v", in, got, gotErr, want, err)
		}
	}
}

// FuzzPlainJSONString: whenever the one-pass string reader takes a literal, it
// gives what encoding/json gives.
func FuzzPlainJSONString(f *testing.F) {
	for _, seed := range []string{`"plain"`, `"a\nb\tc\\d\"e\/f\bg\fh\ri"`, `"\u00e9\u4e2d\uFFFF"`, `"\ud83d\ude00"`,
		`"é中😀"`, `"bad \x"`, `"\u12"`, "\"ctl \x01\"", "\"\xff\"", `"a"b"`, `"trailing \"`, `""`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := plainJSONString(data)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("plainJSONString(%q) = %q, but encoding/json refuses it: %v", data, got, err)
		}
		if got != want {
			t.Fatalf("plainJSONString(%q) = %q, encoding/json gives %q", data, got, want)
		}
	})
}

func TestPlainJSONString(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`"line\nnext\ttab \"q\" \\ \/"`, "line\nnext\ttab \"q\" \\ /", true},
		{`"\u00e9\u4E2D"`, "é中", true},
		{`"é😀"`, "é😀", true},
		{`"\ud83d\ude00"`, "", false}, // surrogates: left to encoding/json
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{"\"\xff\"", "", false},
		{"\"a\nb\"", "", false}, // a raw control character is not JSON
		{`"a"b"`, "", false},
		{`"end\"`, "", false},
	} {
		got, ok := plainJSONString([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("plainJSONString(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// BenchmarkUnmarshalSource decodes a 4 KB script's Source as a snapshot sends it
// (every line ends in an escaped newline).
func BenchmarkUnmarshalSource(b *testing.B) {
	var src strings.Builder
	for src.Len() < 4096 {
		src.WriteString("\tlocal value = compute(\"name\", 42) -- a comment\n")
	}
	data, err := json.Marshal(map[string]string{"String": src.String()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		v, err := Unmarshal(data)
		if err != nil || string(v.(String)) != src.String() {
			b.Fatalf("Unmarshal = %v, %v", v, err)
		}
	}
}

// isInteger and IsHex32 replace two regular expressions (compiled at every start of
// the binary); they accept exactly what the expressions did.
func TestIntegerAndHexChecks(t *testing.T) {
	intRe := regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	hexRe := regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
	ints := []string{"", "-", "0", "-0", "00", "01", "-01", "7", "-7", "10", "1e3", "1.0", "--1", "+1", " 1", "1 ", "9223372036854775808", "١"}
	hexes := []string{"", "0123456789abcdefABCDEF0123456789", "0123456789abcdefABCDEF012345678", "0123456789abcdefABCDEF01234567890",
		"0123456789abcdefABCDEF012345678g", "0123456789abcdefABCDEF012345678 ", strings.Repeat("f", 32), strings.Repeat("é", 16)}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int, alphabet string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 5000 {
		ints = append(ints, pick(rng.IntN(6), "0123456789-.e+ "))
		hexes = append(hexes, pick(30+rng.IntN(5), "0123456789abcdefABCDEF0123456789abcdefABCDEFgG -"))
	}
	for _, s := range ints {
		if got, want := isInteger(s), intRe.MatchString(s); got != want {
			t.Errorf("isInteger(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range hexes {
		if got, want := IsHex32(s), hexRe.MatchString(s); got != want {
			t.Errorf("IsHex32(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestMarshalStringAsEncodingJSON: a String's tagged JSON is what encoding/json writes
// for the string (HTML characters and U+2028, U+2029 escaped), for random strings of
// every byte and text that is not UTF-8 (which goes as base64), byte for byte.
func TestMarshalStringAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	texts := []string{"", "print('hi')\n", "a \"quoted\" <tag> & \\ back\tslash\r\x01\x7f\b\f", "é中😀\u2028\u2029",
		strings.Repeat("local x = \"<y>\" -- a line\n", 500)}
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = []byte("a\"\\<>&\n\t\x01\xe2\x80\xa8\xa9\xc3\xa9\xff ")[r.IntN(17)]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		got, err := Marshal(String(s))
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if utf8.ValidString(s) {
			q, _ := json.Marshal(s)
			want = append(append([]byte(`{"String":`), q...), '}')
		} else {
			want = []byte(`{"String":{"base64":"` + base64.StdEncoding.EncodeToString([]byte(s)) + `"}}`)
		}
		if string(got) != string(want) {
			t.Fatalf("Marshal(String(%q)) = %s, want %s", s, got, want)
		}
	}
}

// strict takes the plain decoder only where no struct field can be met, so an unknown
// field is still refused wherever one can be.
func TestStrictFields(t *testing.T) {
	type font struct {
		Family string `json:"family"`
	}
	for _, tc := range []struct {
		dst  any
		want bool
	}{
		{new([]*float64), false},
		{new(map[string]json.RawMessage), false},
		{new(vec3), false},
		{new(mat3), false},
		{new(string), false},
		{new(font), true},
		{new([]font), true},
		{new(map[string]*font), true},
		{new(any), true},
	} {
		if got := meetsFields(reflect.TypeOf(tc.dst)); got != tc.want {
			t.Errorf("meetsFields(%T) = %v, want %v", tc.dst, got, tc.want)
		}
	}
	var f []font
	if err := strict([]byte(`[{"family": "a", "weight": 1}]`), &f); err == nil {
		t.Error("an unknown field decoded")
	}
	var fs []*float64
	if err := strict([]byte(`[1, 2, 3] x`), &fs); err == nil {
		t.Error("trailing data decoded")
	}
	if v, err := Unmarshal([]byte(`{"Vector3": [1, 2.5, -3e2]}`)); err != nil || v != (Vector3{1, 2.5, -300}) {
		t.Errorf("Vector3 = %v, %v", v, err)
	}
	for _, bad := range []string{`{"Vector3": [1, 2]}`, `{"Vector3": [1, null, 3]}`, `{"Vector3": [1, 2, 3] }x`, `{"Color3": [1e40, 0, 0]}`} {
		if v, err := Unmarshal([]byte(bad)); err == nil {
			t.Errorf("%s decoded as %v", bad, v)
		}
	}
}

// FuzzPlainFloats checks that the fast read of a number array gives what the decoder
// gives, whenever it takes the input.
func FuzzPlainFloats(f *testing.F) {
	for _, s := range []string{"[1, 2, 3]", "[0.5,-0,1e3]", " [ -1.25E-2 , 3 , 4 ] ", "[1,2]", "[01,2,3]", "[1.,2,3]", "[1,2,3,]", "[1e39,0,0]", "[null,1,2]", "[1,2,3] x"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, n uint8) {
		got, ok := plainFloats(body, int(n%13))
		if !ok {
			return
		}
		want, err := decodeFloats(body, int(n%13))
		if err != nil {
			t.Fatalf("plainFloats(%q) = %v, the decoder refuses it: %v", body, got, err)
		}
		if len(got) != len(want) {
			t.Fatalf("plainFloats(%q) = %v, the decoder gives %v", body, got, want)
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("plainFloats(%q) = %v, the decoder gives %v", body, got, want)
			}
		}
	})
}
