package rbxmx

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// snap is an instance tree reduced to what the format stores, for comparisons.
type snap struct {
	Class, Name string
	Props       dom.Properties
	Children    []snap
}

func snapshot(roots []*dom.Instance) []snap {
	if len(roots) == 0 {
		return nil
	}
	out := make([]snap, len(roots))
	for i, r := range roots {
		out[i] = snap{Class: r.ClassName, Name: r.Name, Props: r.Properties.Map(), Children: snapshot(r.Children)}
	}
	return out
}

// equalValues compares property values as dom.Equal does (floats within Epsilon).
var equalValues = cmp.Comparer(func(a, b dom.Value) bool { return dom.Equal(a, b) })

func encode(t *testing.T, roots ...*dom.Instance) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, roots); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b.Bytes()
}

func decode(t *testing.T, data []byte) []*dom.Instance {
	t.Helper()
	roots, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, data)
	}
	return roots
}

// golden compares got with testdata/name, rewriting the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

func ptr[T any](v T) *T { return &v }

var rotated = dom.CFrame{
	Position:    [3]float32{1, 2.5, -3},
	Orientation: [3][3]float32{{0.70710677, 0, 0.70710677}, {0, 1, 0}, {-0.70710677, 0, 0.70710677}},
}

func TestRoundTripValues(t *testing.T) {
	allBytes := make([]byte, 256)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	tests := []struct {
		name        string
		class, prop string
		value       dom.Value
	}{
		{"Bool", "Part", "Anchored", dom.Bool(true)},
		{"BoolFalse", "Part", "Anchored", dom.Bool(false)},
		{"String", "StringValue", "Value", dom.String("hello <world> & \"friends\"")},
		{"StringEmpty", "StringValue", "Value", dom.String("")},
		{"StringWhitespace", "StringValue", "Value", dom.String("  \n\tpadded\n  ")},
		{"StringControl", "StringValue", "Value", dom.String("cr\r lf\n crlf\r\n nul\x00 esc\x1b del\x7f ]]> end")},
		{"StringUnicode", "StringValue", "Value", dom.String("héllo 世界 🙂 \u2028")},
		{"StringNotUTF8", "StringValue", "Value", dom.String("bad \xff\xfe bytes")},
		{"Source", "Script", "Source", dom.String("local s = \"]]>\"\r\nprint(s) -- ]]]]>\n\x01\tdone\n")},
		{"SourceEmpty", "ModuleScript", "Source", dom.String("")},
		{"Float32", "Part", "Transparency", dom.Float32(0.1)},
		{"Float32Neg", "Part", "Transparency", dom.Float32(-1234.5678)},
		{"Float32Inf", "Part", "Transparency", dom.Float32(math.Inf(1))},
		{"Float32NegInf", "Part", "Transparency", dom.Float32(math.Inf(-1))},
		{"Float32NaN", "Part", "Transparency", dom.Float32(math.NaN())},
		{"Float32Max", "Part", "Transparency", dom.Float32(math.MaxFloat32)},
		{"Float32Tiny", "Part", "Transparency", dom.Float32(math.SmallestNonzeroFloat32)},
		{"Float64", "NumberValue", "Value", dom.Float64(0.1)},
		{"Float64Big", "NumberValue", "Value", dom.Float64(1e300)},
		{"Float64NaN", "NumberValue", "Value", dom.Float64(math.NaN())},
		{"Int32", "Frame", "LayoutOrder", dom.Int32(math.MinInt32)},
		{"Int64", "IntValue", "Value", dom.Int64(math.MaxInt64)},
		{"Vector2", "Frame", "AnchorPoint", dom.Vector2{0.5, 1}},
		{"Vector3", "Part", "Size", dom.Vector3{4, 1.2, 2}},
		{"Vector2int16", "Folder", "Custom", dom.Vector2int16{-32768, 32767}},
		{"Vector3int16", "TerrainRegion", "ExtentsMax", dom.Vector3int16{1, -2, 3}},
		{"Color3", "Frame", "BackgroundColor3", dom.Color3{0.25, 0.5, 1.5}},
		{"Color3AsUint8", "Part", "Color", dom.Color3{1, 0, 51.0 / 255}},
		{"Color3uint8", "Folder", "Custom", dom.Color3uint8{1, 2, 255}},
		{"UDim", "UIPadding", "PaddingLeft", dom.UDim{Scale: 0.5, Offset: -8}},
		{"UDim2", "Frame", "Size", dom.UDim2{{Scale: 1, Offset: 0}, {Scale: 0, Offset: 36}}},
		{"CFrame", "Part", "CFrame", rotated},
		{"CFrameIdentity", "Part", "CFrame", dom.IdentityCFrame},
		{"OptionalCFrame", "Model", "WorldPivotData", dom.OptionalCFrame{CFrame: &rotated}},
		{"OptionalCFrameNil", "Model", "WorldPivotData", dom.OptionalCFrame{}},
		{"Enum", "Part", "Material", dom.Enum(256)},
		{"BrickColor", "Part", "BrickColor", dom.BrickColor(194)},
		{"NumberRange", "ParticleEmitter", "Lifetime", dom.NumberRange{1, 3.5}},
		{"NumberSequence", "ParticleEmitter", "Transparency", dom.NumberSequence{{Time: 0, Value: 1, Envelope: 0}, {Time: 0.5, Value: 0.25, Envelope: 0.1}, {Time: 1, Value: 0, Envelope: 0}}},
		{"ColorSequence", "ParticleEmitter", "Color", dom.ColorSequence{{Time: 0, Color: dom.Color3{1, 1, 1}}, {Time: 1, Color: dom.Color3{0, 0.5, 0}}}},
		{"Rect", "ImageLabel", "SliceCenter", dom.Rect{{1, 2}, {30, 40}}},
		{"Ray", "RayValue", "Value", dom.Ray{Origin: dom.Vector3{1, 2, 3}, Direction: dom.Vector3{0, -1, 0}}},
		{"Region3", "Folder", "Custom", dom.Region3{{-1, -2, -3}, {4, 5, 6}}},
		{"Region3int16", "Terrain", "MaxExtents", dom.Region3int16{{-10, 0, -10}, {10, 5, 10}}},
		{"Axes", "ArcHandles", "Axes", dom.Axes{"X", "Z"}},
		{"AxesNone", "ArcHandles", "Axes", dom.Axes{}},
		{"Faces", "Handles", "Faces", dom.Faces{"Right", "Top", "Back", "Left", "Bottom", "Front"}},
		{"FacesSome", "Handles", "Faces", dom.Faces{"Top", "Left", "Front"}},
		{"ContentId", "Decal", "Texture", dom.ContentId("rbxassetid://123")},
		{"ContentIdEmpty", "Decal", "Texture", dom.ContentId("")},
		{"ContentUri", "ImageLabel", "ImageContent", dom.Content{Kind: "Uri", Value: "rbxasset://textures/face.png"}},
		{"ContentNone", "ImageLabel", "ImageContent", dom.Content{Kind: "None"}},
		{"Tags", "Part", "Tags", dom.Tags{"Enemy", "Boss", "ünï"}},
		{"TagsEmpty", "Part", "Tags", dom.Tags{}},
		{"Attributes", "Part", "Attributes", dom.Attributes{"Hp": dom.Float64(100), "Team": dom.String("Red")}},
		{"AttributesEmpty", "Folder", "Attributes", dom.Attributes{}},
		{"StyleRuleProperties", "StyleRule", "Properties", dom.Attributes{"BackgroundColor3": dom.Color3{1, 0, 0}}},
		{"Font", "TextLabel", "FontFace", dom.Font{Family: "rbxasset://fonts/families/GothamSSm.json", Weight: "Bold", Style: "Italic"}},
		{"FontCached", "TextLabel", "FontFace", dom.Font{Family: "rbxasset://fonts/families/SourceSansPro.json", Weight: "Regular", Style: "Normal", CachedFaceID: ptr("rbxasset://fonts/SourceSansPro-Regular.ttf")}},
		{"PhysicalDefault", "Part", "CustomPhysicalProperties", dom.PhysicalProperties{Default: true}},
		{"PhysicalCustom", "Part", "CustomPhysicalProperties", dom.PhysicalProperties{Density: 0.7, Friction: 0.3, Elasticity: 0.5, FrictionWeight: 1, ElasticityWeight: 2, AcousticAbsorption: 0.25}},
		{"MaterialColors", "Terrain", "MaterialColors", dom.MaterialColors{"Grass": {10, 20, 30}, "Pavement": {255, 0, 127}}},
		{"MaterialColorsDefault", "Terrain", "MaterialColors", dom.MaterialColors{}},
		{"BinaryString", "Folder", "Custom", dom.BinaryString(allBytes)},
		{"BinaryStringEmpty", "Folder", "Custom", dom.BinaryString{}},
		{"SharedString", "MeshPart", "PhysicalConfigData", dom.SharedString("shared \x00 bytes")},
		{"NetAssetRef", "PartOperation", "SolidMeshHolder", dom.NetAssetRef("mesh data")},
		{"UniqueId", "Part", "UniqueId", dom.UniqueId("0123456789abcdef0123456789abcdef")},
		{"SecurityCapabilities", "Script", "Capabilities", dom.SecurityCapabilities(math.MaxUint64)},
		{"UnknownClass", "NotAClass", "Anything", dom.Vector3{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := dom.New("Thing", tt.class)
			in.Properties.Set(tt.prop, tt.value)
			data := encode(t, in)
			got := decode(t, data)
			if len(got) != 1 {
				t.Fatalf("Decode returned %d roots, want 1", len(got))
			}
			if diff := cmp.Diff(snapshot([]*dom.Instance{in}), snapshot(got), equalValues); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\ndocument:\n%s", diff, data)
			}
		})
	}
}

func TestRoundTripAttributeTypes(t *testing.T) {
	attrs := dom.Attributes{
		"String":       dom.String("hi\x00there"),
		"Binary":       dom.BinaryString("\xff\xfe\x00"),
		"Bool":         dom.Bool(true),
		"Int32":        dom.Int32(-5),
		"Float32":      dom.Float32(0.5),
		"Float64":      dom.Float64(1.0 / 3),
		"UDim":         dom.UDim{Scale: 0.25, Offset: -4},
		"UDim2":        dom.UDim2{{Scale: 1, Offset: 2}, {Scale: 3, Offset: 4}},
		"BrickColor":   dom.BrickColor(1004),
		"Color3":       dom.Color3{0.1, 0.2, 0.3},
		"Vector2":      dom.Vector2{10, 20},
		"Vector3":      dom.Vector3{1, 2, 3},
		"CFrame":       rotated,
		"CFrameBasic":  dom.CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}},
		"EnumItem":     dom.EnumItem{EnumType: "Material", Value: 256},
		"NumberSeq":    dom.NumberSequence{{Time: 0, Value: 0, Envelope: 0}, {Time: 1, Value: 1, Envelope: 0.5}},
		"ColorSeq":     dom.ColorSequence{{Time: 0, Color: dom.Color3{1, 0, 0}}, {Time: 1, Color: dom.Color3{0, 0, 1}}},
		"NumberRange":  dom.NumberRange{10, 20},
		"Rect":         dom.Rect{{10, 20}, {30, 40}},
		"Font":         dom.Font{Family: "rbxasset://fonts/families/Arial.json", Weight: "Heavy", Style: "Italic"},
		"FontCached":   dom.Font{Family: "rbxasset://fonts/families/Arial.json", Weight: "Thin", Style: "Normal", CachedFaceID: ptr("rbxasset://fonts/arial.ttf")},
		"with space ü": dom.Float64(-0.0),
	}
	covered := map[string]bool{}
	for _, v := range attrs {
		covered[v.Type()] = true
	}
	for typ := range dom.AttributeTypes {
		if !covered[typ] {
			t.Errorf("attribute type %s is not covered", typ)
		}
	}
	in := dom.New("Thing", "Folder")
	in.Properties.Set("Attributes", attrs)
	got := decode(t, encode(t, in))
	if diff := cmp.Diff(snapshot([]*dom.Instance{in}), snapshot(got), equalValues); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestRoundTripNames(t *testing.T) {
	names := []string{"", "plain", "with space", "<tag> & \"quote\" 'apos'", "tab\there", "line\nbreak", "cr\rhere", "nul\x00", "ünï 世界", "bad\xffutf8"}
	for _, name := range names {
		in := dom.New(name, "Folder")
		child := dom.New(name, "Folder")
		in.AddChild(child)
		got := decode(t, encode(t, in))
		if diff := cmp.Diff(snapshot([]*dom.Instance{in}), snapshot(got), equalValues); diff != "" {
			t.Errorf("round trip of name %q (-want +got):\n%s", name, diff)
		}
	}
}

func TestRoundTripClassAndPropertyNames(t *testing.T) {
	in := dom.New("x", "Odd \"Class\" <&>\n")
	in.Properties.Set("odd \"name\" <&>\t\n", dom.String("v"))
	got := decode(t, encode(t, in))
	if diff := cmp.Diff(snapshot([]*dom.Instance{in}), snapshot(got), equalValues); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestRoundTripTree(t *testing.T) {
	var roots []*dom.Instance
	for _, svc := range []string{"Workspace", "ReplicatedStorage", "ServerScriptService"} {
		s := dom.New(svc, svc)
		for i := range 3 {
			c := dom.New("Child", "Folder")
			c.Properties.Set("Tags", dom.Tags{svc})
			g := dom.New(strings.Repeat("g", i), "StringValue")
			g.Properties.Set("Value", dom.String(svc))
			c.AddChild(g)
			s.AddChild(c)
		}
		roots = append(roots, s)
	}
	got := decode(t, encode(t, roots...))
	if diff := cmp.Diff(snapshot(roots), snapshot(got), equalValues); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.Parent != nil {
			t.Errorf("root %s has a parent", r.Name)
		}
		r.Walk(func(i *dom.Instance) bool {
			for _, c := range i.Children {
				if c.Parent != i {
					t.Errorf("%s's parent is not %s", c.Name, i.Name)
				}
			}
			return true
		})
	}
}

func TestEncodeDeterministic(t *testing.T) {
	build := func() *dom.Instance {
		m := dom.New("M", "Model")
		for _, n := range []string{"b", "a", "c"} {
			p := dom.New(n, "Part")
			p.Properties.Set("Size", dom.Vector3{1, 2, 3})
			p.Properties.Set("Anchored", dom.Bool(true))
			p.Properties.Set("Material", dom.Enum(256))
			p.Properties.Set("Tags", dom.Tags{n})
			p.Properties.Set("Attributes", dom.Attributes{"z": dom.Bool(true), "a": dom.Float64(1), "m": dom.String(n)})
			m.AddChild(p)
		}
		return m
	}
	first := encode(t, build())
	for range 20 {
		if got := encode(t, build()); !bytes.Equal(got, first) {
			t.Fatalf("Encode is not deterministic:\n%s\n---\n%s", first, got)
		}
	}
}

func TestEncodeNothingOnError(t *testing.T) {
	in := dom.New("x", "Folder")
	in.Properties.Set("Bad", dom.EnumItem{EnumType: "Material", Value: 1})
	var b bytes.Buffer
	err := Encode(&b, []*dom.Instance{in})
	if err == nil || !strings.Contains(err.Error(), "EnumItem") {
		t.Errorf("Encode(EnumItem property) error = %v, want one naming EnumItem", err)
	}
	if b.Len() != 0 {
		t.Errorf("Encode wrote %d bytes before failing", b.Len())
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		value dom.Value
		want  string
	}{
		{"EnumItem", dom.EnumItem{EnumType: "Material", Value: 1}, "EnumItem"},
		{"ContentObject", dom.Content{Kind: "Object", Value: "00000000000000000000000000000001"}, "Object"},
		{"FontWeight", dom.Font{Family: "x", Weight: "Huge", Style: "Normal"}, "Huge"},
		{"FontStyle", dom.Font{Family: "x", Weight: "Bold", Style: "Oblique"}, "Oblique"},
		{"Faces", dom.Faces{"Up"}, "Up"},
		{"Axes", dom.Axes{"W"}, "W"},
		{"MaterialColors", dom.MaterialColors{"Lava": {1, 2, 3}}, "Lava"},
		{"AttributeType", dom.Attributes{"v": dom.Int64(1)}, "Int64"},
		{"UniqueId", dom.UniqueId("xyz"), "xyz"},
		{"AttributeFont", dom.Attributes{"f": dom.Font{Weight: "Huge", Style: "Normal"}}, "Huge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := dom.New("x", "Folder")
			in.Properties.Set("P", tt.value)
			err := Encode(&bytes.Buffer{}, []*dom.Instance{in})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "rbxmx: ") {
				t.Errorf("Encode(%s) error = %v, want an rbxmx error mentioning %q", tt.name, err, tt.want)
			}
		})
	}
	if err := Encode(&bytes.Buffer{}, []*dom.Instance{nil}); err == nil {
		t.Error("Encode(nil root) succeeded")
	}
}
