package rbxmx

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

// goldenModel is the model of testdata/model.rbxmx.
func goldenModel() *dom.Instance {
	root := dom.New("Main", "Folder")
	root.Properties.Set("Attributes", dom.Attributes{"Version": dom.Float64(3), "Owner": dom.String("team-ünï")})
	root.Properties.Set("Tags", dom.Tags{"Generated"})

	script := dom.New("Server", "Script")
	script.Properties.Set("Source", dom.String("local t = {[1] = {2}}\n"+
		"print(t[1][1]) -- not the end: ]]>\n"+
		"print(\"héllo, 世界 🙂\")\n"+
		"\treturn nil\n"))
	script.Properties.Set("RunContext", dom.Enum(1))
	root.AddChild(script)

	part := dom.New("Base", "Part")
	part.Properties.Set("Size", dom.Vector3{64, 1.2, 64})
	part.Properties.Set("Color", dom.Color3{163.0 / 255, 162.0 / 255, 165.0 / 255})
	part.Properties.Set("Material", dom.Enum(256))
	part.Properties.Set("CFrame", dom.CFrame{
		Position:    [3]float32{0, -0.6, 10.5},
		Orientation: [3][3]float32{{0.70710677, 0, 0.70710677}, {0, 1, 0}, {-0.70710677, 0, 0.70710677}},
	})
	part.Properties.Set("Anchored", dom.Bool(true))
	part.Properties.Set("Transparency", dom.Float32(0.25))
	part.Properties.Set("Tags", dom.Tags{"Floor", "Static"})
	part.Properties.Set("Attributes", dom.Attributes{
		"Spawn":    dom.Vector3{0, 5, 0},
		"Friction": dom.Float64(0.5),
		"Enabled":  dom.Bool(true),
	})
	root.AddChild(part)

	value := dom.New("Greeting", "StringValue")
	value.Properties.Set("Value", dom.String("Hello, <world> & \"friends\"\nsecond line"))
	root.AddChild(value)
	return root
}

func TestGoldenModel(t *testing.T) {
	model := goldenModel()
	got := encode(t, model)
	golden(t, "model.rbxmx", got)

	data, err := os.ReadFile(filepath.Join("testdata", "model.rbxmx"))
	if err != nil {
		t.Fatal(err)
	}
	back := decode(t, data)
	if diff := cmp.Diff(snapshot([]*dom.Instance{model}), snapshot(back), equalValues); diff != "" {
		t.Errorf("Decode(model.rbxmx) (-want +got):\n%s", diff)
	}
}

// dump renders decoded instances one property per line, refs as the path of their
// target, for the decoded-view golden files.
func dump(roots []*dom.Instance) string {
	byID := map[string]string{}
	for _, r := range roots {
		r.Walk(func(i *dom.Instance) bool {
			byID[i.ID] = strings.Join(append([]string{r.Name}, i.PathNames()...), "/")
			return true
		})
	}
	var b strings.Builder
	for _, r := range roots {
		r.Walk(func(i *dom.Instance) bool {
			fmt.Fprintf(&b, "%s (%s)\n", byID[i.ID], i.ClassName)
			for _, name := range i.PropertyNames() {
				v := i.Properties.Get(name)
				if ref, ok := v.(dom.Ref); ok {
					target, found := byID[string(ref)]
					if !found {
						target = "nil"
					}
					fmt.Fprintf(&b, "\t%s = Ref → %s\n", name, target)
					continue
				}
				js, err := dom.Marshal(v)
				if err != nil {
					js = []byte(fmt.Sprintf("%#v", v))
				}
				fmt.Fprintf(&b, "\t%s = %s\n", name, js)
			}
			return true
		})
	}
	return b.String()
}

// testdata/studio.rbxmx is written the way Roblox Studio writes a model: CRLF line
// ends, External elements, properties in Studio's order, legacy names (size,
// Color3uint8, shape, ScaleFactor, BrickColor as int), a packed Color3, binary
// attributes and tags, and a SharedStrings block.
func TestDecodeStudioFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "studio.rbxmx"))
	if err != nil {
		t.Fatal(err)
	}
	roots := decode(t, data)
	golden(t, "studio.decoded.txt", []byte(dump(roots)))

	if len(roots) != 1 {
		t.Fatalf("Decode returned %d roots, want 1", len(roots))
	}
	car := roots[0]
	body, script, wheel, label, target := car.Find("Body"), car.Find("Drive"), car.Find("Wheel"), car.Find("Speed"), car.Find("Target")
	note := car.Find("Note")
	if body == nil || script == nil || wheel == nil || label == nil || target == nil || note == nil {
		t.Fatalf("missing children: %s", dump(roots))
	}
	checks := []struct {
		inst *dom.Instance
		prop string
		want dom.Value
	}{
		{car, "PrimaryPart", dom.Ref(body.ID)},
		{car, "Scale", dom.Float32(1)},
		{car, "Sandboxed", dom.Bool(false)},
		{body, "Size", dom.Vector3{4, 1.2, 8}},
		{body, "Color", dom.Color3{163.0 / 255, 162.0 / 255, 165.0 / 255}},
		{body, "BrickColor", dom.BrickColor(194)},
		{body, "Shape", dom.Enum(1)},
		{body, "Tags", dom.Tags{"Enemy", "Boss"}},
		{body, "Attributes", studioAttributesValues},
		{body, "MaterialVariant", dom.String("")},
		{script, "Source", dom.String("local car = script.Parent\nlocal t = {[1] = \"x\"}\nprint(t[1]) -- a[b[1]]> in a comment\n-- ünï 世界 🙂\n")},
		{script, "LinkedSource", dom.ContentId("")},
		{wheel, "MeshId", dom.ContentId("rbxassetid://1234567")},
		{wheel, "MeshContent", dom.Content{Kind: "Uri", Value: "rbxassetid://1234567"}},
		{wheel, "PhysicalConfigData", dom.SharedString("CSGPHS\x00\x00\x00\x00\x05\x00\x00\x00")},
		{wheel, "CustomPhysicalProperties", dom.PhysicalProperties{Density: 0.7, Friction: 0.3, Elasticity: 0.5, FrictionWeight: 1, ElasticityWeight: 1, AcousticAbsorption: 1}},
		{car, "ModelMeshData", dom.SharedString("mesh bytes \x00\x01\x02")},
		{label, "TextColor3", dom.Color3{0, 0, 0}},
		{label, "Text", dom.String("Speed: <0> & \"rising\"")},
		{label, "FontFace", dom.Font{Family: "rbxasset://fonts/families/SourceSansPro.json", Weight: "Bold", Style: "Normal", CachedFaceID: ptr("rbxasset://fonts/SourceSansPro-Bold.ttf")}},
		{note, "Value", dom.String("line one\r\nline two\ttabbed")},
		{target, "Value", dom.Ref(body.ID)},
	}
	for _, c := range checks {
		if got := c.inst.Properties.Get(c.prop); !dom.Equal(got, c.want) {
			t.Errorf("%s.%s = %#v, want %#v", c.inst.Name, c.prop, got, c.want)
		}
	}

	// What Studio wrote, Encode writes back to the same values.
	again := decode(t, encode(t, roots...))
	if diff := cmp.Diff(dump(roots), dump(again)); diff != "" {
		t.Errorf("re-encoding the Studio file changed it (-first +second):\n%s", diff)
	}
}

// Output without control characters is plain XML that a standard parser reads, with
// the same text.
func TestOutputIsStandardXML(t *testing.T) {
	model := goldenModel()
	model.Properties.Set("Odd", dom.String("crlf\r\n tab\t quote\" apos' ]]> <&>"))
	data := encode(t, model)
	d := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("encoding/xml: %v\n%s", err, data)
		}
		if c, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(c))
		}
	}
	all := strings.Join(texts, "")
	for _, want := range []string{"crlf\r\n tab\t quote\" apos' ]]> <&>", "-- not the end: ]]>\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("encoding/xml did not read %q back", want)
		}
	}
}
