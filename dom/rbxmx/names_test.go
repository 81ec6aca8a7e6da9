package rbxmx

import (
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

func TestPropertyElements(t *testing.T) {
	tests := []struct {
		class, prop string
		value       dom.Value
		want        string // the property's line in the document
	}{
		{"Part", "Size", dom.Vector3{4, 1, 2}, `<Vector3 name="size">`},
		{"Part", "Color", dom.Color3{1, 0, 0}, `<Color3uint8 name="Color3uint8">4294901760</Color3uint8>`},
		{"Part", "Color", dom.Color3{0.5, 2, -1}, `<Color3uint8 name="Color3uint8">4286643968</Color3uint8>`},
		{"Part", "Shape", dom.Enum(1), `<token name="shape">1</token>`},
		{"Part", "Material", dom.Enum(256), `<token name="Material">256</token>`},
		{"Part", "BrickColor", dom.BrickColor(194), `<int name="BrickColor">194</int>`},
		{"Part", "Anchored", dom.Bool(true), `<bool name="Anchored">true</bool>`},
		{"Part", "Archivable", dom.Bool(false), `<bool name="archivable">false</bool>`},
		{"Part", "Attributes", dom.Attributes{}, `<BinaryString name="AttributesSerialize"></BinaryString>`},
		{"Part", "Tags", dom.Tags{"a", "b"}, `<BinaryString name="Tags">YQBi</BinaryString>`},
		{"Fire", "Size", dom.Float32(5), `<float name="size_xml">5</float>`},
		{"Model", "Scale", dom.Float32(2), `<float name="ScaleFactor">2</float>`},
		{"Sound", "RollOffMaxDistance", dom.Float32(100), `<float name="xmlRead_MaxDistance_3">100</float>`},
		{"Decal", "Texture", dom.ContentId("rbxassetid://1"), `<Content name="Texture"><url>rbxassetid://1</url></Content>`},
		{"Decal", "Texture", dom.ContentId(""), `<Content name="Texture"><null></null></Content>`},
		{"ImageLabel", "ImageContent", dom.Content{Kind: "Uri", Value: "rbxassetid://2"}, `<Content name="ImageContent"><uri>rbxassetid://2</uri></Content>`},
		{"Script", "Source", dom.String("a]]>b"), `<ProtectedString name="Source"><![CDATA[a]]]]><![CDATA[>b]]></ProtectedString>`},
		{"StringValue", "Value", dom.String("a<b>&c"), `<string name="Value">a&lt;b&gt;&amp;c</string>`},
		{"Model", "WorldPivotData", dom.OptionalCFrame{}, `<OptionalCoordinateFrame name="WorldPivotData"></OptionalCoordinateFrame>`},
		{"Model", "PrimaryPart", dom.Ref(strings.Repeat("0", 32)), `<Ref name="PrimaryPart">null</Ref>`},
		{"ParticleEmitter", "Lifetime", dom.NumberRange{1, 2.5}, `<NumberRange name="Lifetime">1 2.5 </NumberRange>`},
		{"ParticleEmitter", "Transparency", dom.NumberSequence{{Time: 0, Value: 6, Envelope: 3}, {Time: 1, Value: 4, Envelope: 2}}, `<NumberSequence name="Transparency">0 6 3 1 4 2 </NumberSequence>`},
		{"ParticleEmitter", "Color", dom.ColorSequence{{Time: 0, Color: dom.Color3{1, 0.5, 0}}, {Time: 1, Color: dom.Color3{0, 0, 1}}}, `<ColorSequence name="Color">0 1 0.5 0 0 1 0 0 1 0 </ColorSequence>`},
		{"Part", "Transparency", dom.Float32(0.1), `<float name="Transparency">0.1</float>`},
		{"NumberValue", "Value", dom.Float64(0.1), `<double name="Value">0.1</double>`},
		{"Part", "UniqueId", dom.UniqueId("0123456789ABCDEF0123456789ABCDEF"), `<UniqueId name="UniqueId">0123456789abcdef0123456789abcdef</UniqueId>`},
		{"Script", "Capabilities", dom.SecurityCapabilities(5), `<SecurityCapabilities name="Capabilities">5</SecurityCapabilities>`},
		{"Folder", "Odd Name", dom.Int64(-1), `<int64 name="Odd Name">-1</int64>`},
	}
	for _, tt := range tests {
		t.Run(tt.class+"."+tt.prop, func(t *testing.T) {
			in := dom.New("x", tt.class)
			in.Properties.Set(tt.prop, tt.value)
			doc := string(encode(t, in))
			if !strings.Contains(doc, "\t\t\t"+tt.want+"\n") && !strings.Contains(doc, "\t\t\t"+tt.want) {
				t.Errorf("Encode(%s.%s = %#v) has no line %s:\n%s", tt.class, tt.prop, tt.value, tt.want, doc)
			}
			got := decode(t, []byte(doc))
			if _, ok := got[0].Properties.Lookup(tt.prop); !ok {
				t.Errorf("Decode did not map the file name back to %s: %v", tt.prop, got[0].PropertyNames())
			}
		})
	}
}

func TestCompoundElements(t *testing.T) {
	in := dom.New("x", "TextLabel")
	in.Properties.Set("FontFace", dom.Font{Family: "rbxasset://fonts/families/Arial.json", Weight: "Bold", Style: "Italic"})
	in.Properties.Set("Size", dom.UDim2{{Scale: 0.15625, Offset: 1337}, {Scale: -123, Offset: 456}})
	in.Properties.Set("SliceCenter", dom.Rect{{1, 2}, {3, 4}})
	doc := string(encode(t, in))
	for _, want := range []string{
		"\t\t\t<Font name=\"FontFace\">\n" +
			"\t\t\t\t<Family><url>rbxasset://fonts/families/Arial.json</url></Family>\n" +
			"\t\t\t\t<Weight>700</Weight>\n" +
			"\t\t\t\t<Style>Italic</Style>\n" +
			"\t\t\t</Font>\n",
		"\t\t\t<UDim2 name=\"Size\">\n" +
			"\t\t\t\t<XS>0.15625</XS>\n\t\t\t\t<XO>1337</XO>\n\t\t\t\t<YS>-123</YS>\n\t\t\t\t<YO>456</YO>\n" +
			"\t\t\t</UDim2>\n",
		"\t\t\t<Rect2D name=\"SliceCenter\">\n" +
			"\t\t\t\t<min>\n\t\t\t\t\t<X>1</X>\n\t\t\t\t\t<Y>2</Y>\n\t\t\t\t</min>\n" +
			"\t\t\t\t<max>\n\t\t\t\t\t<X>3</X>\n\t\t\t\t\t<Y>4</Y>\n\t\t\t\t</max>\n" +
			"\t\t\t</Rect2D>\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("Encode has no\n%s\nin\n%s", want, doc)
		}
	}
}

// A property and its alias share a file name: only the canonical one is written.
func TestAliasWrittenOnce(t *testing.T) {
	in := dom.New("x", "Part")
	in.Properties.Set("Size", dom.Vector3{1, 2, 3})
	in.Properties.Set("size", dom.Vector3{9, 9, 9})
	in.Properties.Set("Color3uint8", dom.Color3uint8{9, 9, 9})
	in.Properties.Set("Color", dom.Color3{0, 0, 1})
	in.Properties.Set("Name", dom.String("ignored: the instance's Name wins"))
	doc := string(encode(t, in))
	for _, elem := range []string{`name="size"`, `name="Color3uint8"`, `name="Name"`} {
		if n := strings.Count(doc, elem); n != 1 {
			t.Errorf("%s written %d times, want once:\n%s", elem, n, doc)
		}
	}
	got := decode(t, []byte(doc))
	want := dom.Properties{"Size": dom.Vector3{1, 2, 3}, "Color": dom.Color3{0, 0, 1}}
	if diff := cmp.Diff(want, got[0].Properties.Map(), equalValues); diff != "" {
		t.Errorf("decoded properties (-want +got):\n%s", diff)
	}
	if got[0].Name != "x" {
		t.Errorf("Name = %q, want x", got[0].Name)
	}
}

func TestPropertyOrder(t *testing.T) {
	in := dom.New("x", "Part")
	for _, p := range []string{"Transparency", "Anchored", "Size", "CanCollide", "Locked"} {
		in.Properties.Set(p, dom.Bool(true))
	}
	doc := string(encode(t, in))
	var order []string
	for _, line := range strings.Split(doc, "\n") {
		_, rest, ok := strings.Cut(line, `name="`)
		if ok && strings.HasPrefix(line, "\t\t\t<") {
			name, _, _ := strings.Cut(rest, `"`)
			order = append(order, name)
		}
	}
	want := []string{"Name", "Anchored", "CanCollide", "Locked", "Transparency", "size"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("property order (-want +got):\n%s", diff)
	}
}

func TestDecodeNameMapping(t *testing.T) {
	tests := []struct {
		class, file, want string
	}{
		{"Part", "size", "Size"},
		{"Part", "Color3uint8", "Color"},
		{"Part", "shape", "Shape"},
		{"Part", "archivable", "Archivable"},
		{"Part", "AttributesSerialize", "Attributes"},
		{"Part", "DefinesCapabilities", "Sandboxed"},
		{"Fire", "size_xml", "Size"},
		{"Fire", "heat_xml", "Heat"},
		{"Sound", "xmlRead_MaxDistance_3", "RollOffMaxDistance"},
		{"Model", "ScaleFactor", "Scale"},
		{"MaterialService", "Use2022MaterialsXml", "Use2022Materials"},
		{"Part", "Anchored", "Anchored"},
		{"Part", "BrickColor", "BrickColor"},
		{"NotAClass", "size", "size"},
		{"Folder", "whatever", "whatever"},
	}
	for _, tt := range tests {
		if got, _ := canonicalName(tt.class, tt.file); got != tt.want {
			t.Errorf("canonicalName(%s, %s) = %s, want %s", tt.class, tt.file, got, tt.want)
		}
	}
}

func TestRefs(t *testing.T) {
	model := dom.New("Car", "Model")
	body := dom.New("Body", "Part")
	wheel := dom.New("Wheel", "Part")
	link := dom.New("Link", "ObjectValue")
	model.AddChild(body)
	model.AddChild(wheel)
	model.AddChild(link)
	model.AssignIDs()
	model.Properties.Set("PrimaryPart", dom.Ref(body.ID))
	link.Properties.Set("Value", dom.Ref(wheel.ID))
	weld := dom.New("Weld", "WeldConstraint")
	weld.Properties.Set("Part0", dom.Ref(body.ID))
	weld.Properties.Set("Part1", dom.Ref(dom.ChildID(dom.RootID, "Elsewhere", 0))) // not in the document
	model.AddChild(weld)
	model.AssignIDs()

	doc := encode(t, model)
	if !strings.Contains(string(doc), `<Ref name="Part1Internal">null</Ref>`) {
		t.Errorf("a ref outside the document is not written as null:\n%s", doc)
	}
	got := decode(t, doc)
	gm := got[0]
	gBody, gWheel, gLink, gWeld := gm.Children[0], gm.Children[1], gm.Children[2], gm.Children[3]
	nilRef := dom.Ref(strings.Repeat("0", 32))
	check := func(stage string) {
		t.Helper()
		for _, c := range []struct {
			inst *dom.Instance
			prop string
			want dom.Ref
		}{
			{gm, "PrimaryPart", dom.Ref(gBody.ID)},
			{gLink, "Value", dom.Ref(gWheel.ID)},
			{gWeld, "Part0", dom.Ref(gBody.ID)},
			{gWeld, "Part1", nilRef},
		} {
			if got := c.inst.Properties.Get(c.prop); got != c.want {
				t.Errorf("%s: %s.%s = %v, want %v", stage, c.inst.Name, c.prop, got, c.want)
			}
		}
	}
	check("decoded")
	ids := map[string]bool{}
	gm.Walk(func(i *dom.Instance) bool {
		if ids[i.ID] || len(i.ID) != 32 {
			t.Errorf("provisional ID %q of %s is not unique 32 hex digits", i.ID, i.Name)
		}
		ids[i.ID] = true
		return true
	})

	refs := CaptureRefs(got)
	gm.AssignIDs()
	if gm.Properties.Get("PrimaryPart") == dom.Ref(gBody.ID) {
		t.Fatal("AssignIDs kept the provisional IDs; the test proves nothing")
	}
	refs.Rebind()
	check("rebound")
	if gBody.ID != body.ID {
		t.Errorf("rebound body ID = %s, want the original %s", gBody.ID, body.ID)
	}
}

func TestRefsAcrossRoots(t *testing.T) {
	ws := dom.New("Workspace", "Workspace")
	rs := dom.New("ReplicatedStorage", "ReplicatedStorage")
	target := dom.New("Target", "Part")
	rs.AddChild(target)
	ptr := dom.New("Pointer", "ObjectValue")
	ws.AddChild(ptr)
	game := dom.New("game", "DataModel")
	game.AddChild(ws)
	game.AddChild(rs)
	game.AssignIDs()
	ptr.Properties.Set("Value", dom.Ref(target.ID))

	got := decode(t, encode(t, ws, rs))
	if v := got[0].Children[0].Properties.Get("Value"); v != dom.Ref(got[1].Children[0].ID) {
		t.Errorf("Pointer.Value = %v, want the decoded Target's ID %s", v, got[1].Children[0].ID)
	}
}
