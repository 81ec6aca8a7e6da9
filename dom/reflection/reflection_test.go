package reflection

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/dom/reflection/internal/dbfile"
)

func TestVersion(t *testing.T) {
	if got, want := Version(), "0.728.0.7280895"; got != want {
		t.Errorf("Version() = %q, want %q", got, want)
	}
}

func TestLookupProperty(t *testing.T) {
	tests := []struct {
		class, prop string
		want        *Property // nil: not found
	}{
		{"Part", "Size", &Property{
			Name: "Size", Class: "BasePart", Type: DataType{ValueKind, "Vector3"},
			Scriptability: "ReadWrite", Serializes: true, SerializesAs: "size",
			Tags: []string{"NotReplicated"},
		}},
		{"Part", "Anchored", &Property{
			Name: "Anchored", Class: "BasePart", Type: DataType{ValueKind, "Bool"},
			Scriptability: "ReadWrite", Serializes: true,
		}},
		{"Part", "Material", &Property{
			Name: "Material", Class: "BasePart", Type: DataType{EnumKind, "Material"},
			Scriptability: "ReadWrite", Serializes: true,
		}},
		{"Part", "Color", &Property{
			Name: "Color", Class: "BasePart", Type: DataType{ValueKind, "Color3"},
			Scriptability: "ReadWrite", Serializes: true, SerializesAs: "Color3uint8",
			Tags: []string{"NotReplicated"},
		}},
		{"Part", "BrickColor", &Property{
			Name: "BrickColor", Class: "BasePart", Type: DataType{ValueKind, "BrickColor"},
			Scriptability: "ReadWrite", MigrateTo: []string{"Color"}, Migration: "BrickColorToColor",
			Tags: []string{"NotReplicated"},
		}},
		{"Script", "RunContext", &Property{
			Name: "RunContext", Class: "BaseScript", Type: DataType{EnumKind, "RunContext"},
			Scriptability: "ReadWrite", Serializes: true,
		}},
		{"StringValue", "Value", &Property{
			Name: "Value", Class: "StringValue", Type: DataType{ValueKind, "String"},
			Scriptability: "ReadWrite", Serializes: true,
		}},
		// LocalizationTable.Contents exists: a hidden, serialized string that
		// Lua reaches only through methods.
		{"LocalizationTable", "Contents", &Property{
			Name: "Contents", Class: "LocalizationTable", Type: DataType{ValueKind, "String"},
			Scriptability: "Custom", Serializes: true, Tags: []string{"Hidden", "NotScriptable"},
		}},
		{"Part", "Name", &Property{
			Name: "Name", Class: "Instance", Type: DataType{ValueKind, "String"},
			Scriptability: "ReadWrite", Serializes: true,
		}},
		// Aliases are returned as such.
		{"Part", "shape", &Property{
			Name: "shape", Class: "Part", Type: DataType{EnumKind, "PartType"},
			Scriptability: "None", AliasFor: "Shape", Tags: []string{"Hidden", "NotScriptable"},
		}},
		{"Part", "NoSuchProperty", nil},
		{"NoSuchClass", "Name", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop, func(t *testing.T) {
			got, ok := LookupProperty(tt.class, tt.prop)
			if ok != (tt.want != nil) {
				t.Fatalf("LookupProperty(%q, %q) ok = %v, want %v", tt.class, tt.prop, ok, tt.want != nil)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LookupProperty(%q, %q) mismatch (-want +got):\n%s", tt.class, tt.prop, diff)
			}
		})
	}
}

func TestCanonicalProperty(t *testing.T) {
	tests := []struct {
		class, prop string
		wantClass   string // declaring class of the canonical property
		wantName    string // "" = not found
	}{
		{"Part", "shape", "Part", "Shape"},
		{"Part", "Shape", "Part", "Shape"},
		{"Part", "Size", "BasePart", "Size"},
		{"Part", "Nope", "", ""},
		{"Nope", "Size", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop, func(t *testing.T) {
			p, ok := CanonicalProperty(tt.class, tt.prop)
			if !ok {
				if tt.wantName != "" {
					t.Fatalf("CanonicalProperty(%q, %q) not found", tt.class, tt.prop)
				}
				return
			}
			if tt.wantName == "" {
				t.Fatalf("CanonicalProperty(%q, %q) = %s.%s, want not found", tt.class, tt.prop, p.Class, p.Name)
			}
			if p.Class != tt.wantClass || p.Name != tt.wantName || p.AliasFor != "" {
				t.Errorf("CanonicalProperty(%q, %q) = %s.%s (alias for %q), want %s.%s",
					tt.class, tt.prop, p.Class, p.Name, p.AliasFor, tt.wantClass, tt.wantName)
			}
		})
	}
}

func TestSerializedName(t *testing.T) {
	tests := []struct{ class, prop, want string }{
		{"Part", "Size", "size"},
		{"Part", "Anchored", "Anchored"},
		{"Part", "Color", "Color3uint8"},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop, func(t *testing.T) {
			p, ok := LookupProperty(tt.class, tt.prop)
			if !ok {
				t.Fatal("not found")
			}
			if got := p.SerializedName(); got != tt.want {
				t.Errorf("SerializedName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsService(t *testing.T) {
	tests := []struct {
		class string
		want  bool
	}{
		{"Workspace", true},
		{"ReplicatedStorage", true},
		{"ServerScriptService", true},
		{"StarterPlayer", true},
		{"Lighting", true},
		{"Folder", false},
		{"Part", false},
		{"NoSuchClass", false},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			if got := IsService(tt.class); got != tt.want {
				t.Errorf("IsService(%q) = %v, want %v", tt.class, got, tt.want)
			}
		})
	}
}

func TestIsA(t *testing.T) {
	tests := []struct {
		class, ancestor string
		want            bool
	}{
		{"LocalScript", "Script", true},
		{"Script", "LuaSourceContainer", true},
		{"Script", "Instance", true},
		{"Part", "Part", true},
		{"Part", "BasePart", true},
		{"Script", "LocalScript", false},
		{"ModuleScript", "BaseScript", false},
		{"Folder", "BasePart", false},
		{"NoSuchClass", "Instance", false},
		{"Part", "NoSuchClass", false},
		{"NoSuchClass", "NoSuchClass", false},
	}
	for _, tt := range tests {
		t.Run(tt.class+"/"+tt.ancestor, func(t *testing.T) {
			if got := IsA(tt.class, tt.ancestor); got != tt.want {
				t.Errorf("IsA(%q, %q) = %v, want %v", tt.class, tt.ancestor, got, tt.want)
			}
		})
	}
}

func TestLookupClass(t *testing.T) {
	tests := []struct {
		name       string
		wantFound  bool
		wantSuper  string
		wantTagged string // a tag the class must carry, if any
	}{
		{"Part", true, "FormFactorPart", ""},
		{"Workspace", true, "WorldRoot", "Service"},
		{"BasePart", true, "PVInstance", "NotCreatable"},
		{"Instance", true, "Object", "NotCreatable"},
		{"NoSuchClass", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := LookupClass(tt.name)
			if ok != tt.wantFound {
				t.Fatalf("LookupClass(%q) ok = %v, want %v", tt.name, ok, tt.wantFound)
			}
			if !ok {
				return
			}
			if c.Name != tt.name || c.Superclass != tt.wantSuper {
				t.Errorf("LookupClass(%q) = {Name %q, Superclass %q}, want {%q, %q}",
					tt.name, c.Name, c.Superclass, tt.name, tt.wantSuper)
			}
			if tt.wantTagged != "" && !c.HasTag(tt.wantTagged) {
				t.Errorf("LookupClass(%q).Tags = %q, want %q among them", tt.name, c.Tags, tt.wantTagged)
			}
		})
	}
}

func TestEnums(t *testing.T) {
	tests := []struct {
		enum, item string
		value      uint32
	}{
		{"Material", "Neon", 288},
		{"Material", "Plastic", 256},
		{"RunContext", "Legacy", 0},
		{"RunContext", "Client", 2},
		{"PartType", "Ball", 0},
	}
	for _, tt := range tests {
		t.Run(tt.enum+"."+tt.item, func(t *testing.T) {
			e, ok := LookupEnum(tt.enum)
			if !ok {
				t.Fatalf("LookupEnum(%q) not found", tt.enum)
			}
			if got, ok := e.Items[tt.item]; !ok || got != tt.value {
				t.Errorf("Items[%q] = %d, %v; want %d", tt.item, got, ok, tt.value)
			}
			if got, ok := e.ItemName(tt.value); !ok || got != tt.item {
				t.Errorf("ItemName(%d) = %q, %v; want %q", tt.value, got, ok, tt.item)
			}
		})
	}
	t.Run("round trip", func(t *testing.T) {
		for _, name := range Enums() {
			e, _ := LookupEnum(name)
			for item, v := range e.Items {
				if got, ok := e.ItemName(v); !ok || e.Items[got] != v {
					t.Errorf("%s: ItemName(%d) = %q, %v (item %q)", name, v, got, ok, item)
				}
			}
		}
	})
	t.Run("unknown", func(t *testing.T) {
		if _, ok := LookupEnum("NoSuchEnum"); ok {
			t.Error("LookupEnum(NoSuchEnum) found")
		}
		e, _ := LookupEnum("Material")
		if name, ok := e.ItemName(1 << 30); ok {
			t.Errorf("ItemName(1<<30) = %q, want not found", name)
		}
	})
}

func TestDefault(t *testing.T) {
	tests := []struct {
		class, prop string
		want        string // "" = no default
	}{
		{"Part", "Anchored", `{"Bool":false}`},
		{"Part", "Size", `{"Vector3":[4.0,1.2,2.0]}`},
		{"Part", "Material", `{"Enum":256}`},
		{"StringValue", "Value", `{"String":""}`},
		{"LocalizationTable", "Contents", `{"String":"[]"}`},
		{"Part", "NoSuchProperty", ""},
		{"NoSuchClass", "Name", ""},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop, func(t *testing.T) {
			got, ok := Default(tt.class, tt.prop)
			if ok != (tt.want != "") || string(got) != tt.want {
				t.Errorf("Default(%q, %q) = %s, %v; want %s", tt.class, tt.prop, got, ok, tt.want)
			}
		})
	}
}

func TestClasses(t *testing.T) {
	names := Classes()
	if !slices.IsSorted(names) {
		t.Error("Classes() is not sorted")
	}
	for _, want := range []string{"Part", "Workspace", "Folder", "Instance"} {
		if _, found := slices.BinarySearch(names, want); !found {
			t.Errorf("Classes() lacks %q", want)
		}
	}
	names[0] = "changed"
	if Classes()[0] == "changed" {
		t.Error("Classes() shares its slice")
	}
	if !slices.IsSorted(Enums()) {
		t.Error("Enums() is not sorted")
	}
}

// TestConsistency checks references inside the embedded data.
func TestConsistency(t *testing.T) {
	for _, name := range Classes() {
		c, _ := LookupClass(name)
		if c.Superclass != "" {
			if _, ok := LookupClass(c.Superclass); !ok {
				t.Errorf("%s: unknown superclass %q", name, c.Superclass)
			}
		}
		for pname, p := range c.Properties {
			if p.Name != pname || p.Class != name {
				t.Errorf("%s.%s: Name %q Class %q", name, pname, p.Name, p.Class)
			}
			if p.Type.Kind == EnumKind {
				if _, ok := LookupEnum(p.Type.Name); !ok {
					t.Errorf("%s.%s: unknown enum %q", name, pname, p.Type.Name)
				}
			}
			if p.AliasFor != "" {
				cp, ok := CanonicalProperty(name, pname)
				if !ok || cp.AliasFor != "" {
					t.Errorf("%s.%s: alias for %q does not resolve", name, pname, p.AliasFor)
				}
			}
		}
		for dname, raw := range c.Defaults {
			var v map[string]json.RawMessage
			if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
				t.Errorf("%s default %s = %s: not a single tagged value", name, dname, raw)
			}
		}
	}
}

// TestEncodeDeterministic checks that encoding the same data twice gives
// identical bytes.
func TestEncodeDeterministic(t *testing.T) {
	f, err := dbfile.Decode(embeddedDB)
	if err != nil {
		t.Fatal(err)
	}
	a, err := dbfile.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, embeddedDB) {
		t.Error("re-encoding the embedded database changes its bytes")
	}
}

// BenchmarkLoad measures decoding the embedded database (done once per
// process in normal use).
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := decode(embeddedDB); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(embeddedDB)), "gz-bytes")
}
