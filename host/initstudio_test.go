package host

import (
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// The place snapshot asks, per class, for what a place file holds and scripts
// can read, under the names the plugin reads.
func TestPlaceProperties(t *testing.T) {
	props := placeProperties(map[string]bool{"Part": true, "Script": true})
	tests := []struct {
		class, prop string
		want        string // "" = not asked
	}{
		{"Part", "Size", "Vector3"},                 // inherited from BasePart, serialized as "size"
		{"Part", "Color", "Color3"},                 // serialized as Color3uint8, read as Color3
		{"Part", "Material", "Enum:Material"},       // enums name their enum
		{"Part", "Position", ""},                    // not in place files (CFrame is)
		{"Part", "CFrame", "CFrame"},                //
		{"Part", "Name", ""},                        // the instance's own name, sent anyway
		{"Part", "Attributes", "Attributes"},        // the plugin's own way
		{"Part", "Tags", "Tags"},                    //
		{"Script", "Source", ""},                    // always sent for scripts
		{"Script", "RunContext", "Enum:RunContext"}, //
	}
	for _, tt := range tests {
		if got := props[tt.class][tt.prop]; got != tt.want {
			t.Errorf("%s.%s asked as %q, want %q", tt.class, tt.prop, got, tt.want)
		}
	}
	if _, ok := props["Folder"]; ok {
		t.Errorf("a class not in the place is asked for")
	}
}

// Values Studio reports at their default are left out; others stay.
func TestDropDefaults(t *testing.T) {
	x := dom.New("P", "Part")
	x.Properties.Set("Color", dom.Color3{163.0 / 255, 162.0 / 255, 165.0 / 255}) // the default, read as Color3
	x.Properties.Set("Anchored", dom.Bool(false))                                // the default
	x.Properties.Set("Transparency", dom.Float32(0.5))                           // not
	x.Properties.Set("Size", dom.Vector3{2, 1, 2})                               // not
	dropDefaults(x)
	for _, gone := range []string{"Color", "Anchored"} {
		if _, ok := x.Properties.Lookup(gone); ok {
			t.Errorf("%s at its default was kept", gone)
		}
	}
	for _, kept := range []string{"Transparency", "Size"} {
		if _, ok := x.Properties.Lookup(kept); !ok {
			t.Errorf("%s was dropped", kept)
		}
	}
}
