package rbxmx

import (
	"fmt"

	"github.com/atlas-rbx/atlas/dom"
)

// Terrain.MaterialColors is stored as 69 bytes: 6 reserved zero bytes, then the
// RGB of each terrain material in the order below (rbx_types/src/material_colors.rs).
// dom.MaterialColors lists only the colors that differ from the defaults.
var terrainMaterials = []struct {
	name  string
	color [3]uint8
}{
	{"Grass", [3]uint8{106, 127, 63}},
	{"Slate", [3]uint8{63, 127, 107}},
	{"Concrete", [3]uint8{127, 102, 63}},
	{"Brick", [3]uint8{138, 86, 62}},
	{"Sand", [3]uint8{143, 126, 95}},
	{"WoodPlanks", [3]uint8{139, 109, 79}},
	{"Rock", [3]uint8{102, 108, 111}},
	{"Glacier", [3]uint8{101, 176, 234}},
	{"Snow", [3]uint8{195, 199, 218}},
	{"Sandstone", [3]uint8{137, 90, 71}},
	{"Mud", [3]uint8{58, 46, 36}},
	{"Basalt", [3]uint8{30, 30, 37}},
	{"Ground", [3]uint8{102, 92, 59}},
	{"CrackedLava", [3]uint8{232, 156, 74}},
	{"Asphalt", [3]uint8{115, 123, 107}},
	{"Cobblestone", [3]uint8{132, 123, 90}},
	{"Ice", [3]uint8{129, 194, 224}},
	{"LeafyGrass", [3]uint8{115, 132, 74}},
	{"Salt", [3]uint8{198, 189, 181}},
	{"Limestone", [3]uint8{206, 173, 148}},
	{"Pavement", [3]uint8{148, 148, 140}},
}

const materialColorsSize = 6 + 3*21

func encodeMaterialColors(mc dom.MaterialColors) ([]byte, error) {
	for name := range mc {
		if !knownMaterial(name) {
			return nil, fmt.Errorf("%q is not a terrain material with a color", name)
		}
	}
	out := make([]byte, 6, materialColorsSize)
	for _, m := range terrainMaterials {
		c, ok := mc[m.name]
		if !ok {
			c = m.color
		}
		out = append(out, c[0], c[1], c[2])
	}
	return out, nil
}

func decodeMaterialColors(data []byte) (dom.MaterialColors, error) {
	if len(data) != materialColorsSize {
		return nil, fmt.Errorf("MaterialColors data is %d bytes, want %d", len(data), materialColorsSize)
	}
	mc := dom.MaterialColors{}
	for i, m := range terrainMaterials {
		c := [3]uint8(data[6+3*i : 9+3*i])
		if c != m.color {
			mc[m.name] = c
		}
	}
	return mc, nil
}

func knownMaterial(name string) bool {
	for _, m := range terrainMaterials {
		if m.name == name {
			return true
		}
	}
	return false
}
