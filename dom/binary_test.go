package dom

import (
	"errors"
	"reflect"
	"testing"
)

// binarySamples holds a value of every type, with fields set.
func binarySamples() []Value {
	face := "rbxasset://x"
	return []Value{
		Bool(true), String("héllo\x00"), Float32(-1.5), Float64(1e300), Int32(-7), Int64(1 << 40),
		Vector2{1, 2}, Vector3{1, -2, 3.5}, Vector2int16{-1, 2}, Vector3int16{1, 2, -3},
		Color3{0.1, 0.2, 0.3}, Color3uint8{1, 2, 255}, UDim{0.5, -3}, UDim2{{1, 2}, {3, 4}},
		CFrame{Position: [3]float32{1, 2, 3}, Orientation: IdentityCFrame.Orientation},
		OptionalCFrame{CFrame: &CFrame{Position: [3]float32{4, 5, 6}}}, OptionalCFrame{},
		Enum(3), EnumItem{EnumType: "Material", Value: 256}, BrickColor(194), NumberRange{1, 2},
		NumberSequence{{0, 1, 0}, {1, 0, 0.5}}, ColorSequence{{0, Color3{1, 0, 0}}, {1, Color3{0, 0, 1}}},
		Rect{{0, 0}, {1, 1}}, Ray{Origin: Vector3{1, 2, 3}, Direction: Vector3{0, 1, 0}},
		Region3{{0, 0, 0}, {1, 1, 1}}, Region3int16{{0, 0, 0}, {1, 1, 1}}, Axes{"X", "Z"}, Faces{"Top"},
		ContentId("rbxassetid://1"), Content{Kind: "Uri", Value: "rbxassetid://2"}, Tags{"a", "b"}, Tags{},
		Attributes{"N": Float64(1), "S": String("x"), "V": Vector3{1, 2, 3}},
		Font{Family: "rbxasset://fonts/a.json", Weight: "Bold", Style: "Italic", CachedFaceID: &face},
		Ref("0123456789abcdef0123456789abcdef"),
		PhysicalProperties{Density: 1, Friction: 0.3, Elasticity: 0.5, FrictionWeight: 1, ElasticityWeight: 1, AcousticAbsorption: 1},
		MaterialColors{"Grass": {1, 2, 3}}, BinaryString{0, 1, 2}, SharedString{}, NetAssetRef{9},
		UniqueId("abc"), SecurityCapabilities(5),
	}
}

func TestBinaryValues(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, v := range binarySamples() {
		seen[reflect.TypeOf(v)] = true
		var e Encoder
		if err := e.Value(v); err != nil {
			t.Fatalf("Value(%#v): %v", v, err)
		}
		d := NewDecoder(e.Bytes())
		got := d.Value()
		if d.Err() != nil || d.Len() != 0 {
			t.Fatalf("decode %T: err %v, %d bytes left", v, d.Err(), d.Len())
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("decode(encode(%#v)) = %#v", v, got)
		}
	}
	for _, v := range binaryTypes {
		if !seen[reflect.TypeOf(v)] {
			t.Errorf("no sample of %T", v)
		}
	}
}

func TestBinaryInstance(t *testing.T) {
	root := New("game", "DataModel")
	rs := New("ReplicatedStorage", "ReplicatedStorage")
	rs.FsPath, rs.Kind, rs.IgnoreUnknown = "src", KindDir, true
	rs.SetProjectNode("default.project.json", []string{"ReplicatedStorage"})
	root.AddChild(rs)
	for _, v := range binarySamples() {
		x := New(v.Type(), "Configuration")
		x.Properties.Set("P", v)
		x.SourceHash, x.RawHash, x.Handle = "s", "r", "h"
		x.SetMetaPath("a.meta.json")
		x.SetRefID("id")
		rs.AddChild(x)
	}
	var e Encoder
	if err := e.Instance(root); err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(e.Bytes())
	got := d.Instance()
	if d.Err() != nil || d.Len() != 0 {
		t.Fatalf("decode: err %v, %d bytes left", d.Err(), d.Len())
	}
	var cmpTree func(a, b *Instance)
	cmpTree = func(a, b *Instance) {
		if a.Name != b.Name || a.ClassName != b.ClassName || a.FsPath != b.FsPath || a.Kind != b.Kind ||
			a.MetaPath() != b.MetaPath() || a.ProjectFile() != b.ProjectFile() || !reflect.DeepEqual(a.ProjectKeys(), b.ProjectKeys()) ||
			a.IgnoreUnknown != b.IgnoreUnknown || a.RefID() != b.RefID() || a.SourceHash != b.SourceHash ||
			a.RawHash != b.RawHash || a.Handle != b.Handle || !reflect.DeepEqual(a.Properties, b.Properties) ||
			len(a.Children) != len(b.Children) {
			t.Fatalf("decoded %+v, want %+v", b, a)
		}
		for i := range a.Children {
			if b.Children[i].Parent != b {
				t.Fatalf("%s's Parent is not set", b.Children[i].Name)
			}
			cmpTree(a.Children[i], b.Children[i])
		}
	}
	cmpTree(root, got)
	// Repeated names are stored once.
	if got.Children[0].Children[0].ClassName != "Configuration" {
		t.Fatal("bad class")
	}

	// Every truncation fails cleanly.
	data := e.Bytes()
	for n := range len(data) {
		d := NewDecoder(data[:n])
		d.Instance()
		if !errors.Is(d.Err(), ErrCorrupt) {
			t.Fatalf("decoding %d of %d bytes: err %v, want ErrCorrupt", n, len(data), d.Err())
		}
	}
}

func FuzzBinaryDecode(f *testing.F) {
	var e Encoder
	for _, v := range binarySamples() {
		_ = e.Value(v)
	}
	f.Add(e.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		for d.Len() > 0 && d.Err() == nil {
			d.Value()
		}
		d = NewDecoder(data)
		d.Instance()
	})
}
