package rbxmx

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// FuzzDecode checks that Decode never panics and that whatever it accepts, Encode
// writes and Decode reads again.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"model.rbxmx", "studio.rbxmx"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, props := range []string{
		`<bool name="B">true</bool><Ref name="R">RBX1</Ref>`,
		`<ProtectedString name="Source"><![CDATA[a]]]]><![CDATA[>b]]>&#13;</ProtectedString>`,
		`<Color3 name="C">4294934528</Color3><Color3uint8 name="Color3uint8">4278190335</Color3uint8>`,
		`<BinaryString name="AttributesSerialize">` + studioAttributes + `</BinaryString>`,
		`<BinaryString name="AttributesSerialize">AQAAAAEAAABhFAAAgD8AAABAAABAQAI=</BinaryString>`,
		`<BinaryString name="Tags">YQBi</BinaryString><token name="Material">256</token>`,
		`<Font name="FontFace"><Family><url>x</url></Family><Weight>700</Weight><Style>Italic</Style></Font>`,
		`<OptionalCoordinateFrame name="WorldPivotData"><CFrame><X>1</X><Y>2</Y><Z>3</Z><R00>1</R00><R01>0</R01><R02>0</R02><R10>0</R10><R11>1</R11><R12>0</R12><R20>0</R20><R21>0</R21><R22>1</R22></CFrame></OptionalCoordinateFrame>`,
		`<NumberSequence name="S">0 1 0 1 0 0 </NumberSequence><ColorSequence name="C">0 1 1 1 0 1 0 0 0 0 </ColorSequence>`,
		`<PhysicalProperties name="P"><CustomPhysics>true</CustomPhysics><Density>1</Density><Friction>1</Friction><Elasticity>1</Elasticity><FrictionWeight>1</FrictionWeight><ElasticityWeight>1</ElasticityWeight></PhysicalProperties>`,
		`<Content name="MeshContent"><uri>rbxassetid://1</uri></Content><Faces name="F"><faces>42</faces></Faces>`,
		`<BinaryString name="MaterialColors">AAAAAAAAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/</BinaryString>`,
	} {
		f.Add([]byte(`<roblox version="4"><Item class="Part" referent="RBX1"><Properties>` + props + `</Properties></Item></roblox>`))
	}
	f.Add([]byte(`<roblox version="4"><SharedStrings><SharedString md5="k">AA==</SharedString></SharedStrings><Item class="MeshPart"><Properties><SharedString name="PhysicalConfigData">k</SharedString></Properties></Item></roblox>`))
	f.Add([]byte("<roblox version=\"4\"><Item class=\"a\"><Item class=\"b\"/></Item>"))
	f.Add([]byte("\xef\xbb\xbf<?xml?><!DOCTYPE x [<!x>]><roblox version='4'>&#1;</roblox>"))

	f.Fuzz(func(t *testing.T, data []byte) {
		roots, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Encode(&b, roots); err != nil {
			t.Fatalf("Encode of a decoded document: %v", err)
		}
		again, err := Decode(&b)
		if err != nil {
			t.Fatalf("Decode of an encoded document: %v\n%s", err, b.Bytes())
		}
		if got, want := count(again), count(roots); got != want {
			t.Fatalf("re-decoded %d instances, want %d", got, want)
		}
	})
}

func count(roots []*dom.Instance) int {
	n := 0
	for _, r := range roots {
		n += r.Count()
	}
	return n
}
