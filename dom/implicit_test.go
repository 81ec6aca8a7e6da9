package dom

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// enumValue returns the value of enum's item from the reflection database.
func enumValue(t testing.TB, enum, item string) Enum {
	t.Helper()
	e, ok := reflection.LookupEnum(enum)
	if !ok {
		t.Fatalf("reflection.LookupEnum(%q) not found", enum)
	}
	v, ok := e.Items[item]
	if !ok {
		t.Fatalf("enum %s has no item %q", enum, item)
	}
	return Enum(v)
}

// implicitCases are class/property pairs of the real reflection database with a
// value in the implicit form and the value it resolves to.
func implicitCases(t testing.TB) []struct {
	class, prop, raw string
	want             Value
} {
	return []struct {
		class, prop, raw string
		want             Value
	}{
		{"Part", "Anchored", `true`, Bool(true)},
		{"Part", "Anchored", `false`, Bool(false)},
		{"Part", "Material", `"Neon"`, enumValue(t, "Material", "Neon")},
		{"Part", "Material", `"Plastic"`, enumValue(t, "Material", "Plastic")},
		{"Script", "RunContext", `"Client"`, enumValue(t, "RunContext", "Client")},
		{"Part", "Size", `[4, 1, 2]`, Vector3{4, 1, 2}},
		// Part.Color serializes as Color3uint8, but its data type is Color3.
		{"Part", "Color", `[1, 0, 0]`, Color3{1, 0, 0}},
		{"Part", "CFrame", `[0, 10, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]`,
			CFrame{Position: [3]float32{0, 10, 0}, Orientation: IdentityCFrame.Orientation}},
		{"Part", "CFrame", `[1, 2, 3, 0, -1, 0, 1, 0, 0, 0, 0, 1]`,
			CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}}},
		{"Part", "Tags", `["Lava"]`, Tags{"Lava"}},
		{"Part", "Tags", `[]`, Tags{}},
		{"Lighting", "ClockTime", `12`, Float32(12)},
		{"Lighting", "ClockTime", `14.5`, Float32(14.5)},
		{"Workspace", "Gravity", `150`, Float32(150)},
		{"Sound", "TimePosition", `0.1`, Float64(0.1)},
		{"Workspace", "StreamingMinRadius", `64`, Int32(64)},
		{"Workspace", "StreamingMinRadius", `1.9`, Int32(1)},
		{"Workspace", "StreamingMinRadius", `-1.9`, Int32(-1)},
		{"Workspace", "StreamingMinRadius", `1e12`, Int32(2147483647)},
		{"Workspace", "StreamingMinRadius", `-1e12`, Int32(-2147483648)},
		{"IntValue", "Value", `42`, Int64(42)},
		{"IntValue", "Value", `1e300`, Int64(9223372036854775807)},
		{"IntValue", "Value", `-1e300`, Int64(-9223372036854775808)},
		{"StringValue", "Value", `"x"`, String("x")},
		{"Part", "Name", `"Lava"`, String("Lava")},
		{"Sound", "SoundId", `"rbxassetid://1"`, ContentId("rbxassetid://1")},
		{"Beam", "TextureContent", `"rbxassetid://1"`, Content{Kind: "Uri", Value: "rbxassetid://1"}},
		{"Beam", "TextureContent", `"None"`, Content{Kind: "None"}},
		{"Beam", "TextureContent", `""`, Content{Kind: "None"}},
		{"TextLabel", "FontFace", `{"family": "rbxasset://fonts/families/GothamSSm.json", "weight": "Bold", "style": "Normal"}`,
			Font{Family: "rbxasset://fonts/families/GothamSSm.json", Weight: "Bold", Style: "Normal"}},
		{"Terrain", "MaterialColors", `{"Grass": [10, 20, 30]}`, MaterialColors{"Grass": {10, 20, 30}}},
		{"Part", "Attributes", `{"Damage": 10, "Kind": {"EnumItem": {"type": "Material", "value": 288}}}`,
			Attributes{"Damage": Float64(10), "Kind": EnumItem{EnumType: "Material", Value: 288}}},
		// The explicit form is taken for any property, known or not, and is not checked
		// against the database.
		{"Part", "CustomPhysicalProperties", `{"PhysicalProperties": "Default"}`, PhysicalProperties{Default: true}},
		{"Part", "Size", `{"Vector3": [4, 1, 2]}`, Vector3{4, 1, 2}},
		{"Part", "Size", `{"String": "big"}`, String("big")},
		{"Part", "NoSuchProperty", `{"Vector3": [1, 2, 3]}`, Vector3{1, 2, 3}},
		{"NoSuchClass", "Whatever", `{"Bool": true}`, Bool(true)},
		{"Part", "Material", `{"Enum": 288}`, Enum(288)},
		{"Model", "PrimaryPart", `{"Ref": "000000000000000000000000000000a1"}`, Ref("000000000000000000000000000000a1")},
		{"Frame", "Size", `{"UDim2": [[1, 0], [0, 36]]}`, UDim2{{Scale: 1}, {Offset: 36}}},
		{"Part", "Size", ` [4, 1, 2] `, Vector3{4, 1, 2}},
	}
}

func TestResolveValue(t *testing.T) {
	for _, tt := range implicitCases(t) {
		t.Run(tt.class+"."+tt.prop+"="+tt.raw, func(t *testing.T) {
			got, err := ResolveValue(tt.class, tt.prop, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("ResolveValue(%s, %s, %s) error: %v", tt.class, tt.prop, tt.raw, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveValue(%s, %s, %s) mismatch (-want +got):\n%s", tt.class, tt.prop, tt.raw, diff)
			}
		})
	}
}

func TestResolveValueNeonFromDatabase(t *testing.T) {
	// Neon is 288 in every Roblox version; the database must agree.
	if got, want := enumValue(t, "Material", "Neon"), Enum(288); got != want {
		t.Errorf("Material.Neon = %d, want %d", got, want)
	}
}

func TestResolveValueRejects(t *testing.T) {
	tests := []struct {
		class, prop, raw string
		want             []string // substrings of the error
	}{
		// Messages name the class that declares the property (BasePart.Size).
		{"Part", "Material", `5`, []string{"enum Material", "Part.Material"}},
		{"Part", "Material", `"neon"`, []string{`"neon" is not an item of enum Material`}},
		{"Part", "Material", `"Unobtainium"`, []string{"Unobtainium", "Material"}},
		{"Model", "PrimaryPart", `"hull"`, []string{"Rojo_Target_PrimaryPart"}},
		{"ObjectValue", "Value", `"000000000000000000000000000000a1"`, []string{"Rojo_Target_Value"}},
		{"Part", "NoSuchProperty", `true`, []string{"unknown property Part.NoSuchProperty"}},
		{"NoSuchClass", "Size", `[1, 2, 3]`, []string{"unknown property NoSuchClass.Size"}},
		{"Part", "Size", `[1, 2, 3, 4]`, []string{"wrong type of value for BasePart.Size (a Vector3)"}},
		{"Part", "Color", `[1, 2, 3, 4]`, []string{"Part.Color"}},
		{"Part", "CFrame", `[1, 2, 3, 4]`, []string{"Part.CFrame"}},
		{"Part", "Size", `[4, 1]`, []string{"Part.Size"}},
		{"Part", "Size", `["4", "1", "2"]`, []string{"Part.Size"}},
		{"Part", "Size", `4`, []string{"Part.Size"}},
		{"Part", "CFrame", `[0, 10, 0]`, []string{"Part.CFrame"}},
		{"Part", "Anchored", `"true"`, []string{"Part.Anchored"}},
		{"Part", "Anchored", `1`, []string{"Part.Anchored"}},
		{"Part", "Anchored", `null`, []string{"null"}},
		{"Part", "Name", `7`, []string{"Instance.Name"}},
		{"Lighting", "ClockTime", `"noon"`, []string{"Lighting.ClockTime"}},
		{"Lighting", "ClockTime", `1e39`, []string{"Lighting.ClockTime"}},
		{"Part", "Size", `[0, 1e39, 0]`, []string{"Part.Size"}},
		{"Workspace", "StreamingMinRadius", `"64"`, []string{"Workspace.StreamingMinRadius"}},
		{"Part", "Tags", `"Lava"`, []string{"Instance.Tags"}},
		{"Part", "Tags", `[1]`, []string{"Instance.Tags"}},
		{"Part", "Tags", `["Lava", null]`, []string{"Instance.Tags"}},
		{"Part", "Size", `[4, null, 2]`, []string{"Part.Size"}},
		{"Part", "Size", `[4, 1, 2]]`, []string{"Part.Size"}},
		{"Part", "Size", `[4, 1, 2] [0]`, []string{"Part.Size"}},
		{"Part", "CFrame", `[0, 10, 0, 1, 0, 0, 0, 1, 0, 0, 0, null]`, []string{"Part.CFrame"}},
		{"Beam", "TextureContent", `{"Object": "x"}`, []string{"Beam.TextureContent"}},
		{"TextLabel", "FontFace", `{"family": "f", "weight": "Fat", "style": "Normal"}`, []string{"TextLabel.FontFace"}},
		{"Terrain", "MaterialColors", `{"Grass": [256, 0, 0]}`, []string{"Terrain.MaterialColors"}},
		// Messages name the class that declares the property.
		// Types with no implicit form.
		{"Part", "CustomPhysicalProperties", `"Default"`, []string{"no implicit form", "PhysicalProperties"}},
		{"Frame", "Size", `[[1, 0], [0, 36]]`, []string{"no implicit form", "UDim2"}},
		{"Part", "BrickColor", `194`, []string{"no implicit form", "BrickColor"}},
		{"Part", "Attributes", `{"RBXSecret": true}`, []string{"RBXSecret", "reserved"}},
		{"Part", "Attributes", `[1]`, []string{"attributes must be an object"}},
		{"Part", "Attributes", `{"Hp": null}`, []string{"Instance.Attributes", "attribute Hp"}},
		// An unknown tag is not the explicit form; the implicit form then does not fit.
		{"Part", "Size", `{"Vector4": [1, 2, 3, 4]}`, []string{"Part.Size"}},
		// A known tag with a bad payload is an explicit value in error.
		{"Part", "Size", `{"Vector3": [1, 2]}`, []string{"bad Vector3 value"}},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop+"="+tt.raw, func(t *testing.T) {
			got, err := ResolveValue(tt.class, tt.prop, json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("ResolveValue(%s, %s, %s) = %#v, want error", tt.class, tt.prop, tt.raw, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ResolveValue(%s, %s, %s) error = %q, want it to mention %q", tt.class, tt.prop, tt.raw, err, w)
				}
			}
		})
	}
}

func TestResolveAttributes(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Attributes
	}{
		{"bool", `{"On": true}`, Attributes{"On": Bool(true)}},
		{"number is Float64", `{"Damage": 10}`, Attributes{"Damage": Float64(10)}},
		{"fraction", `{"Speed": -2.5}`, Attributes{"Speed": Float64(-2.5)}},
		{"string", `{"Team": "Red"}`, Attributes{"Team": String("Red")}},
		{"explicit", `{"Hp": {"Int32": 100}, "Pos": {"Vector3": [0, 5, 0]}}`,
			Attributes{"Hp": Int32(100), "Pos": Vector3{0, 5, 0}}},
		{"explicit EnumItem", `{"Kind": {"EnumItem": {"type": "Material", "value": 288}}}`,
			Attributes{"Kind": EnumItem{EnumType: "Material", Value: 288}}},
		{"Rojo ref attributes", `{"Rojo_Id": "hull", "Rojo_Target_PrimaryPart": "hull"}`,
			Attributes{"Rojo_Id": String("hull"), "Rojo_Target_PrimaryPart": String("hull")}},
		{"RBX inside the name", `{"MyRBX": 1}`, Attributes{"MyRBX": Float64(1)}},
		{"empty", `{}`, Attributes{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveAttributes(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("ResolveAttributes(%s) error: %v", tt.raw, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveAttributes(%s) mismatch (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestResolveAttributesRejects(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"RBX prefix", `{"RBXHealth": 1}`, `"RBXHealth" is reserved`},
		{"RBX prefix explicit", `{"RBX": {"Bool": true}}`, "reserved"},
		{"Ref", `{"Target": {"Ref": "000000000000000000000000000000a1"}}`, "type Ref cannot be an attribute"},
		{"Enum", `{"Kind": {"Enum": 288}}`, "type Enum cannot be an attribute"},
		{"Int64", `{"N": {"Int64": 1}}`, "type Int64 cannot be an attribute"},
		{"Tags", `{"T": {"Tags": ["a"]}}`, "type Tags cannot be an attribute"},
		{"null", `{"Hp": null}`, "attribute Hp: null"},
		{"array shorthand", `{"Pos": [0, 5, 0]}`, "attribute Pos"},
		{"object not tagged", `{"Pos": {"x": 1}}`, "attribute Pos"},
		{"bad explicit", `{"Hp": {"Int32": 1.5}}`, "attribute Hp"},
		{"not an object", `[1, 2]`, "attributes must be an object"},
		{"string", `"x"`, "attributes must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveAttributes(json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("ResolveAttributes(%s) = %#v, want error", tt.raw, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ResolveAttributes(%s) error = %q, want it to mention %q", tt.raw, err, tt.want)
			}
		})
	}
}

func TestPropertyType(t *testing.T) {
	tests := []struct {
		class, prop string
		typ, enum   string
		ok          bool
	}{
		{"Part", "Material", "Enum", "Material", true},
		{"Part", "Size", "Vector3", "", true},
		{"Part", "Color", "Color3", "", true},
		{"Model", "PrimaryPart", "Ref", "", true},
		{"Part", "NoSuchProperty", "", "", false},
		{"NoSuchClass", "Size", "", "", false},
	}
	for _, tt := range tests {
		typ, enum, ok := PropertyType(tt.class, tt.prop)
		if typ != tt.typ || enum != tt.enum || ok != tt.ok {
			t.Errorf("PropertyType(%s, %s) = %q, %q, %v, want %q, %q, %v",
				tt.class, tt.prop, typ, enum, ok, tt.typ, tt.enum, tt.ok)
		}
	}
}

// FuzzResolveValue checks ResolveValue does not panic, and that what it accepts
// encodes and decodes back to an Equal value.
func FuzzResolveValue(f *testing.F) {
	for _, tt := range implicitCases(f) {
		f.Add(tt.class, tt.prop, []byte(tt.raw))
	}
	f.Add("Part", "Size", []byte(`[1, 2, 3, 4]`))
	f.Add("Model", "PrimaryPart", []byte(`"hull"`))
	f.Add("Part", "Attributes", []byte(`{"Hp": null}`))
	f.Fuzz(func(t *testing.T, class, prop string, raw []byte) {
		v, err := ResolveValue(class, prop, raw)
		if err != nil {
			return
		}
		if v == nil {
			t.Fatalf("ResolveValue(%s, %s, %s) = nil, nil", class, prop, raw)
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("ResolveValue(%s, %s, %s) = %#v, which Marshal rejects: %v", class, prop, raw, v, err)
		}
		back, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("Unmarshal(%s) error: %v", out, err)
		}
		if !Equal(v, back) {
			t.Fatalf("Unmarshal(%s) = %#v, want Equal to %#v", out, back, v)
		}
		// The explicit form of a value resolves to the same value, on any property.
		again, err := ResolveValue(class, prop, out)
		if err != nil {
			t.Fatalf("ResolveValue(%s, %s, %s) error: %v", class, prop, out, err)
		}
		if !Equal(v, again) {
			t.Fatalf("ResolveValue(%s, %s, %s) = %#v, want Equal to %#v", class, prop, out, again, v)
		}
	})
}

// Attribute names Studio refuses (Instance:SetAttribute) are refused when read,
// naming the rule; a digit is a letter like any other, and periods, hyphens and
// slashes are allowed (Roblox: "You may also include periods, hyphens, slashes, and
// underscores").
func TestResolveAttributesNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"Hp": true, "_x": true, "5": true, "a_1": true, strings.Repeat("a", 100): true,
		"Config.Speed": true, "a-b": true, "ui/Theme": true,
		"bad name": false, "a@b": false, "a~b": false, "é": false, "": false, strings.Repeat("a", 101): false, "RBXThing": false,
	} {
		_, err := ResolveAttributes(json.RawMessage(fmt.Sprintf(`{%q: 1}`, name)))
		if (err == nil) != ok {
			t.Errorf("attribute name %q: err = %v, want accepted %v", name, err, ok)
		}
	}
}
