package rbxmx

import (
	"math"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/google/go-cmp/cmp"
)

const docStart = `<roblox version="4">` + "\n"

// item wraps property elements in a document with one Folder.
func item(props string) string {
	return docStart + "<Item class=\"Folder\" referent=\"RBX1\">\n<Properties>\n" + props + "\n</Properties>\n</Item>\n</roblox>"
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"Empty", "", "no root element"},
		{"NotXML", "hello", "line 1: text outside the root element"},
		{"WrongRoot", "<model/>", "line 1: the root element is <model>, want <roblox>"},
		{"NoVersion", "<roblox></roblox>", `version is "", want "4"`},
		{"OldVersion", `<roblox version="3"></roblox>`, `version is "3"`},
		{"Unclosed", docStart + "<Item class=\"Folder\">\n<Properties>", "line 3: unexpected end of document: <Properties> (line 3) is not closed"},
		{"Mismatched", docStart + "<Item class=\"Folder\">\n</Properties>", "line 3: end tag </Properties> does not match <Item> (line 2)"},
		{"TwoRoots", `<roblox version="4"/><roblox version="4"/>`, "second root element"},
		{"BadEntity", item(`<string name="Value">&nope;</string>`), "line 4: unknown entity &nope;"},
		{"BareAmpersand", item(`<string name="Value">a & b</string>`), "line 4: '&' not starting an entity reference"},
		{"BadCharRef", item(`<string name="Value">&#xD800;</string>`), "unknown entity &#xD800;"},
		{"UnterminatedCDATA", item(`<ProtectedString name="Source"><![CDATA[abc</ProtectedString>`), "line 4: unterminated CDATA section"},
		{"UnterminatedComment", docStart + "<!-- never ends", "line 2: unterminated comment"},
		{"UnquotedAttr", "<roblox version=4>", "not quoted"},
		{"DuplicateAttr", `<roblox version="4" version="4">`, "duplicate attribute version"},
		{"NoClass", docStart + "<Item><Properties/></Item></roblox>", "line 2: <Item> has no class"},
		{"DuplicateReferent", docStart + `<Item class="Folder" referent="A"/>` + "\n" + `<Item class="Folder" referent="A"/></roblox>`, "line 3: referent A is used twice"},
		{"UnknownChild", docStart + `<Item class="Folder"><Stuff/></Item></roblox>`, "unexpected <Stuff> in <Item class=\"Folder\">"},
		{"UnknownType", item(`<Quaternion name="Spin">1</Quaternion>`), "line 4: Folder.Spin: unknown property type <Quaternion>"},
		{"NoName", item(`<bool>true</bool>`), "line 4: <bool> in Folder's properties has no name"},
		{"BadBool", item(`<bool name="Flag">yes</bool>`), `line 4: Folder.Flag: bool "yes" is not true or false`},
		{"BadInt", item(`<int name="N">1.5</int>`), `Folder.N: "1.5" is not a valid int`},
		{"IntRange", item(`<int name="N">2147483648</int>`), `"2147483648" is not a valid int`},
		{"BadFloat", item(`<float name="F">one</float>`), `Folder.F: "one" is not a number`},
		{"MissingComponent", item(`<Vector3 name="V"><X>1</X><Y>2</Y></Vector3>`), "Folder.V: <Vector3> has no <Z>"},
		{"BadComponent", item(`<Vector3 name="V"><X>1</X><Y>2</Y><Z>z</Z></Vector3>`), `<Z>: "z" is not a number`},
		{"Int16Range", item(`<Vector3int16 name="V"><X>40000</X><Y>0</Y><Z>0</Z></Vector3int16>`), "not a valid int16"},
		{"BadToken", item(`<token name="E">-1</token>`), "is not a valid token"},
		{"BadBrickColor", item(`<BrickColor name="B">4</BrickColor>`), "4 is not a BrickColor number"},
		{"BadUniqueId", item(`<UniqueId name="U">xyz</UniqueId>`), "not 32 hex digits"},
		{"NumberRangeCount", item(`<NumberRange name="R">1 2 3 </NumberRange>`), "NumberRange has 3 numbers, want 2"},
		{"NumberSequenceCount", item(`<NumberSequence name="S">0 1 0 1 </NumberSequence>`), "want a multiple of 3"},
		{"ColorSequenceCount", item(`<ColorSequence name="S">0 1 1 1 </ColorSequence>`), "want a multiple of 5"},
		{"FacesRange", item(`<Faces name="F"><faces>64</faces></Faces>`), "not a number below 64"},
		{"AxesRange", item(`<Axes name="A"><axes>8</axes></Axes>`), "not a number below 8"},
		{"ContentChild", item(`<Content name="C"><blob>x</blob></Content>`), "unexpected <blob> in <Content>"},
		{"FontWeight", item(`<Font name="F"><Family><url>x</url></Family><Weight>450</Weight><Style>Normal</Style></Font>`), "font weight 450 is unknown"},
		{"FontStyle", item(`<Font name="F"><Family><url>x</url></Family><Weight>400</Weight><Style>Oblique</Style></Font>`), `font style "Oblique"`},
		{"Physical", item(`<PhysicalProperties name="P"><CustomPhysics>maybe</CustomPhysics></PhysicalProperties>`), `CustomPhysics "maybe"`},
		{"PhysicalMissing", item(`<PhysicalProperties name="P"><CustomPhysics>true</CustomPhysics><Density>1</Density></PhysicalProperties>`), "has no <Friction>"},
		{"Base64", item(`<BinaryString name="B">!!!</BinaryString>`), "invalid base64"},
		{"SharedStringMissing", item(`<SharedString name="S">abc</SharedString>`), `shared string "abc" is not in <SharedStrings>`},
		{"SharedStringsChild", docStart + "<SharedStrings><Other/></SharedStrings></roblox>", "unexpected <Other> in <SharedStrings>"},
		{"SharedStringNoKey", docStart + "<SharedStrings><SharedString>AA==</SharedString></SharedStrings></roblox>", "has no md5 attribute"},
		{"NameType", item(`<int name="Name">5</int>`), "Folder.Name is a <int>, want a string"},
		{"Ray", item(`<Ray name="R"><origin><X>0</X><Y>0</Y><Z>0</Z></origin></Ray>`), "wants <origin> and <direction>"},
		{"Rect", item(`<Rect2D name="R"><min><X>0</X><Y>0</Y></min></Rect2D>`), "has no <max>"},
		{"TooDeep", docStart + strings.Repeat("<a>", maxDepth+1), "nested deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Decode succeeded, want an error containing %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), "rbxmx: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error = %q, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDecodeLenient(t *testing.T) {
	tests := []struct {
		name  string
		props string
		want  dom.Properties
	}{
		{"BoolCase", `<bool name="B">TRUE</bool>`, dom.Properties{"B": dom.Bool(true)}},
		{"FloatWords", `<float name="A">INF</float><float name="B">-INF</float><float name="C">+INF</float><double name="D">1e3</double>`,
			dom.Properties{"A": dom.Float32(math.Inf(1)), "B": dom.Float32(math.Inf(-1)), "C": dom.Float32(math.Inf(1)), "D": dom.Float64(1000)}},
		{"FloatNaN", `<float name="N">NAN</float>`, dom.Properties{"N": dom.Float32(math.NaN())}},
		{"FloatOutOfRange", `<float name="F">1e39</float>`, dom.Properties{"F": dom.Float32(math.Inf(1))}},
		{"Whitespace", `<int name="I">  42
		</int><Vector2 name="V">
			<X> 1 </X>
			<Y>2</Y>
		</Vector2>`, dom.Properties{"I": dom.Int32(42), "V": dom.Vector2{1, 2}}},
		{"ComponentCase", `<Vector3 name="V"><x>1</x><y>2</y><z>3</z></Vector3>`, dom.Properties{"V": dom.Vector3{1, 2, 3}}},
		{"CFrameTag", `<CFrame name="C"><X>1</X><Y>2</Y><Z>3</Z><R00>1</R00><R01>0</R01><R02>0</R02><R10>0</R10><R11>1</R11><R12>0</R12><R20>0</R20><R21>0</R21><R22>1</R22></CFrame>`,
			dom.Properties{"C": dom.CFrame{Position: [3]float32{1, 2, 3}, Orientation: dom.IdentityCFrame.Orientation}}},
		{"PackedColor3", `<Color3 name="C">4294934528</Color3>`, dom.Properties{"C": dom.Color3{1, 128.0 / 255, 0}}},
		{"BrickColorElement", `<BrickColor name="B">21</BrickColor>`, dom.Properties{"B": dom.BrickColor(21)}},
		{"ContentIdElement", `<ContentId name="C"><url>rbxassetid://5</url></ContentId>`, dom.Properties{"C": dom.ContentId("rbxassetid://5")}},
		{"ContentLegacyHash", `<Content name="C"><hash>abc</hash></Content>`, dom.Properties{"C": dom.ContentId("")}},
		{"ContentBareText", `<Content name="C">rbxassetid://7</Content>`, dom.Properties{"C": dom.ContentId("rbxassetid://7")}},
		{"ContentUriUnknown", `<Content name="C"><uri>rbxassetid://8</uri></Content>`, dom.Properties{"C": dom.Content{Kind: "Uri", Value: "rbxassetid://8"}}},
		{"EmptyFont", `<Font name="F"></Font>`, dom.Properties{"F": dom.Font{Family: defaultFontFamily, Weight: "Regular", Style: "Normal"}}},
		{"Base64Wrapped", "<BinaryString name=\"B\">AAEC\nAwQ=</BinaryString>", dom.Properties{"B": dom.BinaryString{0, 1, 2, 3, 4}}},
		{"Base64Unpadded", `<BinaryString name="B">AAECAw</BinaryString>`, dom.Properties{"B": dom.BinaryString{0, 1, 2, 3}}},
		{"DuplicateKeepsFirst", `<int name="N">1</int><int name="N">2</int>`, dom.Properties{"N": dom.Int32(1)}},
		{"CharRefs", `<string name="S">&#65;&#x42;&#0;&#x1F642;&apos;&quot;</string>`, dom.Properties{"S": dom.String("AB\x00🙂'\"")}},
		{"RawControl", "<string name=\"S\">a\x01b\xffc</string>", dom.Properties{"S": dom.String("a\x01b\xffc")}},
		{"CDATAInString", `<string name="S">a<![CDATA[<b>]]>c</string>`, dom.Properties{"S": dom.String("a<b>c")}},
		{"Comment", `<!-- note --><bool name="B">true</bool>`, dom.Properties{"B": dom.Bool(true)}},
		{"SelfClosingString", `<string name="S"/>`, dom.Properties{"S": dom.String("")}},
		{"TagsDropEmpty", `<BinaryString name="Tags">AGEAAGIA</BinaryString>`, dom.Properties{"Tags": dom.Tags{"a", "b"}}},
		// An attribute type this package does not know keeps the blob as it is.
		{"UnreadableAttributesKept", `<BinaryString name="AttributesSerialize">AQAAAAEAAABhJQEAAAA=</BinaryString>`,
			dom.Properties{"AttributesSerialize": dom.BinaryString("\x01\x00\x00\x00\x01\x00\x00\x00a\x25\x01\x00\x00\x00")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roots, err := Decode(strings.NewReader(item(tt.props)))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, roots[0].Properties.Map(), equalValues); diff != "" {
				t.Errorf("properties (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnreadableBlobsRoundTrip(t *testing.T) {
	doc := docStart + `<Item class="Terrain" referent="T"><Properties>
<BinaryString name="MaterialColors">AAEC</BinaryString>
<BinaryString name="AttributesSerialize">AQAAAAEAAABhJQEAAAA=</BinaryString>
</Properties></Item></roblox>`
	first, err := Decode(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := dom.Properties{
		"MaterialColors":      dom.BinaryString{0, 1, 2},
		"AttributesSerialize": dom.BinaryString("\x01\x00\x00\x00\x01\x00\x00\x00a\x25\x01\x00\x00\x00"),
	}
	if diff := cmp.Diff(want, first[0].Properties.Map(), equalValues); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	again := decode(t, encode(t, first...))
	if diff := cmp.Diff(want, again[0].Properties.Map(), equalValues); diff != "" {
		t.Errorf("Decode(Encode(…)) (-want +got):\n%s", diff)
	}
}

func TestDecodeDocumentShapes(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []snap
	}{
		{"NoItems", `<roblox version="4"></roblox>`, nil},
		{"Prolog", "\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE roblox [ <!ELEMENT roblox ANY> ]>\n<!-- c -->" +
			`<roblox version="4"><Item class="Folder"/></roblox>` + "\n<!-- after -->\n",
			[]snap{{Class: "Folder", Name: "Folder", Props: dom.Properties{}}}},
		{"UnknownTopLevel", `<roblox version="4"><MetaBreakpoints/><Item class="Part" referent="null"><Properties><string name="Name">P</string></Properties></Item></roblox>`,
			[]snap{{Class: "Part", Name: "P", Props: dom.Properties{}}}},
		{"SingleQuotes", `<roblox version='4'><Item class='Model' referent='R'/></roblox>`,
			[]snap{{Class: "Model", Name: "Model", Props: dom.Properties{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roots, err := Decode(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, snapshot(roots), equalValues); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		in   float32
		want string
	}{
		{0, "0"},
		{float32(math.Copysign(0, -1)), "-0"},
		{1, "1"},
		{0.1, "0.1"},
		{1.2, "1.2"},
		{-0.6, "-0.6"},
		{123456, "123456"},
		{1e20, "100000000000000000000"},
		{1e-7, "0.0000001"},
		{0.70710677, "0.70710677"},
		{math.MaxFloat32, "340282350000000000000000000000000000000"},
		{float32(math.Inf(1)), "INF"},
		{float32(math.Inf(-1)), "-INF"},
		{float32(math.NaN()), "NAN"},
	}
	for _, tt := range tests {
		if got := formatF32(tt.in); got != tt.want {
			t.Errorf("formatF32(%v) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := parseF32(tt.want)
		if err != nil || (back != tt.in && !(back != back && tt.in != tt.in)) || math.Signbit(float64(back)) != math.Signbit(float64(tt.in)) {
			t.Errorf("parseF32(%q) = %v, %v, want %v", tt.want, back, err, tt.in)
		}
	}
	for in, want := range map[float64]string{0.1: "0.1", 1e300: "1" + strings.Repeat("0", 300), math.Inf(1): "INF", math.NaN(): "NAN"} {
		if got := formatF64(in); got != want {
			t.Errorf("formatF64(%v) = %q, want %q", in, got, want)
		}
	}
}
