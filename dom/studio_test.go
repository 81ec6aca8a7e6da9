package dom

import "testing"

func TestStudioSyncable(t *testing.T) {
	tests := []struct {
		class, prop string
		want        bool
	}{
		{"Part", "Anchored", true},
		{"Part", "Size", true},
		{"Part", "Position", true},
		{"MeshPart", "MeshId", false},            // Read
		{"MeshPart", "TextureID", true},          // ReadWrite
		{"Players", "MaxPlayers", false},         // Read
		{"Model", "WorldPivotData", false},       // Custom, not scriptable
		{"LocalizationTable", "Contents", false}, // Custom, not scriptable
		{"Part", "size", false},                  // an alias scripts do not have (None)
		{"Script", "Source", true},
		{"Folder", "Attributes", true},
		{"Folder", "Tags", true},
		{"Folder", "Name", true},
		{"Part", "NoSuchProperty", true},
		{"NoSuchClass", "X", true},
		{"Model", "PrimaryPart", false}, // a reference
		{"ObjectValue", "Value", false}, // a reference
	}
	for _, tt := range tests {
		if got := StudioSyncable(tt.class, tt.prop); got != tt.want {
			t.Errorf("StudioSyncable(%s, %s) = %v, want %v", tt.class, tt.prop, got, tt.want)
		}
	}
}
