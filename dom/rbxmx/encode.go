package rbxmx

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// How each dom value type is written (element name, then content):
//
//	Bool bool · String string, or ProtectedString in CDATA for Source ·
//	Float32 float · Float64 double · Int32 int · Int64 int64 · Enum token ·
//	BrickColor int · SecurityCapabilities · UniqueId (hex) ·
//	Vector2, Vector3 (X Y Z) · Vector2int16, Vector3int16 · Color3 (R G B), or
//	Color3uint8 (0xFFRRGGBB in decimal) where the database stores it so ·
//	Color3uint8 · UDim (S O) · UDim2 (XS XO YS YO) · CFrame CoordinateFrame
//	(X Y Z R00…R22) · OptionalCFrame OptionalCoordinateFrame (<CFrame> or empty) ·
//	Rect Rect2D (min max) · Ray (origin direction) · Region3, Region3int16
//	(min max; Roblox saves no such property) · NumberRange, NumberSequence,
//	ColorSequence (space-separated numbers) · Axes (<axes>), Faces (<faces>)
//	bit flags · ContentId Content (<url> or <null>) · Content Content (<uri> or
//	<null>) · Font (Family Weight Style [CachedFaceId]) · PhysicalProperties
//	(CustomPhysics [Density … AcousticAbsorption]) · Ref (referent or null) ·
//	BinaryString, and as BinaryString: Tags (names joined by NUL), Attributes
//	(binary attribute format), MaterialColors (69 bytes) · SharedString and
//	NetAssetRef (key into <SharedStrings>).
//
// EnumItem (only meaningful inside attributes) and a Content holding an object
// ref have no XML form: Encode fails on them.

// header is the start of every document, as Roblox Studio writes it.
const header = `<roblox xmlns:xmime="http://www.w3.org/2005/05/xmlmime" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.roblox.com/roblox.xsd" version="4">
	<Meta name="ExplicitAutoJoints">true</Meta>
	<External>null</External>
	<External>nil</External>
`

// Encode writes roots as an XML model/place document: each root becomes a top-level <Item>.
// For a .rbxmx model pass the root instance itself; for a .rbxlx place pass the DataModel's children.
//
// The output is deterministic. Referents are "RBX" and 32 hex digits counting the
// instances in document order. The Name property comes first, the others follow
// sorted by the name they are written under (the database's serialized name, e.g.
// BasePart.Size as "size"). A Ref is written as the referent of the instance whose
// ID it holds, or "null" when that instance is not in the document. SharedString
// and NetAssetRef values go to a <SharedStrings> block keyed by the MD5 of their
// bytes. Nothing is written to w when an error is returned.
func Encode(w io.Writer, roots []*dom.Instance) error {
	e := &encoder{referents: map[*dom.Instance]string{}, byID: map[string]string{}, sharedSeen: map[string]bool{}}
	n := 0
	for _, r := range roots {
		if r == nil {
			return errors.New("rbxmx: encode: nil root")
		}
		r.Walk(func(i *dom.Instance) bool {
			ref := fmt.Sprintf("RBX%032X", n)
			n++
			e.referents[i] = ref
			if _, dup := e.byID[i.ID]; i.ID != "" && !dup {
				e.byID[i.ID] = ref
			}
			return true
		})
	}
	e.buf.WriteString(header)
	for _, r := range roots {
		if err := e.item(r, 1); err != nil {
			return fmt.Errorf("rbxmx: encode: %w", err)
		}
	}
	if len(e.shared) > 0 {
		e.buf.WriteString("\t<SharedStrings>\n")
		for _, s := range e.shared {
			e.buf.WriteString("\t\t<SharedString md5=\"")
			e.buf.WriteString(s.key)
			e.buf.WriteString("\">")
			e.buf.WriteString(base64.StdEncoding.EncodeToString(s.data))
			e.buf.WriteString("</SharedString>\n")
		}
		e.buf.WriteString("\t</SharedStrings>\n")
	}
	e.buf.WriteString("</roblox>\n")
	_, err := w.Write(e.buf.Bytes())
	return err
}

type encoder struct {
	buf        bytes.Buffer
	referents  map[*dom.Instance]string
	byID       map[string]string // instance ID → referent
	shared     []sharedString    // in order of first use
	sharedSeen map[string]bool
}

type sharedString struct {
	key  string
	data []byte
}

func (e *encoder) item(i *dom.Instance, depth int) error {
	ind := strings.Repeat("\t", depth)
	e.buf.WriteString(ind)
	e.buf.WriteString(`<Item class="`)
	escapeAttr(&e.buf, i.ClassName)
	e.buf.WriteString(`" referent="`)
	e.buf.WriteString(e.referents[i])
	e.buf.WriteString("\">\n")
	e.buf.WriteString(ind)
	e.buf.WriteString("\t<Properties>\n")
	pw := propWriter{e: e, ind: ind + "\t\t"}
	pw.text("string", "Name", i.Name)
	for _, p := range FileProps(i) {
		if err := pw.value(p); err != nil {
			return fmt.Errorf("%s.%s: %w", pathOf(i), p.Name, err)
		}
	}
	e.buf.WriteString(ind)
	e.buf.WriteString("\t</Properties>\n")
	for _, c := range i.Children {
		if err := e.item(c, depth+1); err != nil {
			return err
		}
	}
	e.buf.WriteString(ind)
	e.buf.WriteString("</Item>\n")
	return nil
}

func pathOf(i *dom.Instance) string {
	if p := i.Path(); p != "" {
		return p
	}
	return i.Name
}

// propWriter writes property elements at one indentation.
type propWriter struct {
	e   *encoder
	ind string
}

func (w propWriter) open(tag, name string) {
	b := &w.e.buf
	b.WriteString(w.ind)
	b.WriteByte('<')
	b.WriteString(tag)
	b.WriteString(` name="`)
	escapeAttr(b, name)
	b.WriteString(`">`)
}

func (w propWriter) close(tag string) {
	b := &w.e.buf
	b.WriteString("</")
	b.WriteString(tag)
	b.WriteString(">\n")
}

// text writes <tag name="…">text</tag>.
func (w propWriter) text(tag, name, text string) {
	w.open(tag, name)
	escapeText(&w.e.buf, text)
	w.close(tag)
}

// field is one child element of a compound value.
type field struct {
	tag   string
	text  string
	inner []field // when set, the field is itself compound
}

func (w propWriter) compound(tag, name string, fields ...field) {
	w.open(tag, name)
	if len(fields) > 0 {
		w.e.buf.WriteByte('\n')
		writeFields(&w.e.buf, w.ind+"\t", fields)
		w.e.buf.WriteString(w.ind)
	}
	w.close(tag)
}

func writeFields(b *bytes.Buffer, ind string, fields []field) {
	for _, f := range fields {
		b.WriteString(ind)
		b.WriteByte('<')
		b.WriteString(f.tag)
		b.WriteByte('>')
		if f.inner != nil {
			b.WriteByte('\n')
			writeFields(b, ind+"\t", f.inner)
			b.WriteString(ind)
		} else {
			escapeText(b, f.text)
		}
		b.WriteString("</")
		b.WriteString(f.tag)
		b.WriteString(">\n")
	}
}

func floatFields(tags string, vals ...float32) []field {
	names := strings.Fields(tags)
	out := make([]field, len(vals))
	for i, v := range vals {
		out[i] = field{tag: names[i], text: formatF32(v)}
	}
	return out
}

func intFields(tags string, vals ...int64) []field {
	names := strings.Fields(tags)
	out := make([]field, len(vals))
	for i, v := range vals {
		out[i] = field{tag: names[i], text: strconv.FormatInt(v, 10)}
	}
	return out
}

func cframeFields(cf dom.CFrame) []field {
	o := cf.Orientation
	return floatFields("X Y Z R00 R01 R02 R10 R11 R12 R20 R21 R22",
		cf.Position[0], cf.Position[1], cf.Position[2],
		o[0][0], o[0][1], o[0][2], o[1][0], o[1][1], o[1][2], o[2][0], o[2][1], o[2][2])
}

func (w propWriter) value(p FileProp) error {
	name := p.File
	switch v := p.Value.(type) {
	case dom.Bool:
		w.text("bool", name, strconv.FormatBool(bool(v)))
	case dom.String:
		if name == "Source" {
			w.open("ProtectedString", name)
			writeCDATA(&w.e.buf, string(v))
			w.close("ProtectedString")
		} else {
			w.text("string", name, string(v))
		}
	case dom.Float32:
		w.text("float", name, formatF32(float32(v)))
	case dom.Float64:
		w.text("double", name, formatF64(float64(v)))
	case dom.Int32:
		w.text("int", name, strconv.FormatInt(int64(v), 10))
	case dom.Int64:
		w.text("int64", name, strconv.FormatInt(int64(v), 10))
	case dom.Enum:
		w.text("token", name, strconv.FormatUint(uint64(v), 10))
	case dom.BrickColor:
		// rbx_xml and Studio write BrickColor as a plain int.
		w.text("int", name, strconv.FormatUint(uint64(v), 10))
	case dom.SecurityCapabilities:
		w.text("SecurityCapabilities", name, strconv.FormatUint(uint64(v), 10))
	case dom.UniqueId:
		if !dom.IsHex32(string(v)) {
			return fmt.Errorf("UniqueId %q is not 32 hex digits", string(v))
		}
		w.text("UniqueId", name, strings.ToLower(string(v)))
	case dom.Vector2:
		w.compound("Vector2", name, floatFields("X Y", v[0], v[1])...)
	case dom.Vector3:
		w.compound("Vector3", name, floatFields("X Y Z", v[0], v[1], v[2])...)
	case dom.Vector2int16:
		w.compound("Vector2int16", name, intFields("X Y", int64(v[0]), int64(v[1]))...)
	case dom.Vector3int16:
		w.compound("Vector3int16", name, intFields("X Y Z", int64(v[0]), int64(v[1]), int64(v[2]))...)
	case dom.Color3:
		if p.FileType == "Color3uint8" {
			w.text("Color3uint8", name, strconv.FormatUint(uint64(packColor(toUint8(v[0]), toUint8(v[1]), toUint8(v[2]))), 10))
		} else {
			w.compound("Color3", name, floatFields("R G B", v[0], v[1], v[2])...)
		}
	case dom.Color3uint8:
		w.text("Color3uint8", name, strconv.FormatUint(uint64(packColor(v[0], v[1], v[2])), 10))
	case dom.UDim:
		w.compound("UDim", name, field{tag: "S", text: formatF32(v.Scale)}, field{tag: "O", text: strconv.Itoa(int(v.Offset))})
	case dom.UDim2:
		w.compound("UDim2", name,
			field{tag: "XS", text: formatF32(v[0].Scale)}, field{tag: "XO", text: strconv.Itoa(int(v[0].Offset))},
			field{tag: "YS", text: formatF32(v[1].Scale)}, field{tag: "YO", text: strconv.Itoa(int(v[1].Offset))})
	case dom.CFrame:
		w.compound("CoordinateFrame", name, cframeFields(v)...)
	case dom.OptionalCFrame:
		if v.CFrame == nil {
			w.compound("OptionalCoordinateFrame", name)
		} else {
			w.compound("OptionalCoordinateFrame", name, field{tag: "CFrame", inner: cframeFields(*v.CFrame)})
		}
	case dom.Rect:
		w.compound("Rect2D", name,
			field{tag: "min", inner: floatFields("X Y", v[0][0], v[0][1])},
			field{tag: "max", inner: floatFields("X Y", v[1][0], v[1][1])})
	case dom.Ray:
		w.compound("Ray", name,
			field{tag: "origin", inner: floatFields("X Y Z", v.Origin[0], v.Origin[1], v.Origin[2])},
			field{tag: "direction", inner: floatFields("X Y Z", v.Direction[0], v.Direction[1], v.Direction[2])})
	case dom.Region3:
		// Roblox saves no Region3 property; the form mirrors Rect2D.
		w.compound("Region3", name,
			field{tag: "min", inner: floatFields("X Y Z", v[0][0], v[0][1], v[0][2])},
			field{tag: "max", inner: floatFields("X Y Z", v[1][0], v[1][1], v[1][2])})
	case dom.Region3int16:
		w.compound("Region3int16", name,
			field{tag: "min", inner: intFields("X Y Z", int64(v[0][0]), int64(v[0][1]), int64(v[0][2]))},
			field{tag: "max", inner: intFields("X Y Z", int64(v[1][0]), int64(v[1][1]), int64(v[1][2]))})
	case dom.NumberRange:
		w.text("NumberRange", name, formatF32(v[0])+" "+formatF32(v[1])+" ")
	case dom.NumberSequence:
		var s strings.Builder
		for _, k := range v {
			s.WriteString(formatF32(k.Time) + " " + formatF32(k.Value) + " " + formatF32(k.Envelope) + " ")
		}
		w.text("NumberSequence", name, s.String())
	case dom.ColorSequence:
		var s strings.Builder
		for _, k := range v {
			s.WriteString(formatF32(k.Time) + " " + formatF32(k.Color[0]) + " " + formatF32(k.Color[1]) + " " + formatF32(k.Color[2]) + " 0 ")
		}
		w.text("ColorSequence", name, s.String())
	case dom.Axes:
		bits, err := flagBits(v, axisNames)
		if err != nil {
			return err
		}
		w.compound("Axes", name, field{tag: "axes", text: strconv.Itoa(bits)})
	case dom.Faces:
		bits, err := flagBits(v, faceNames)
		if err != nil {
			return err
		}
		w.compound("Faces", name, field{tag: "faces", text: strconv.Itoa(bits)})
	case dom.ContentId:
		w.content(name, "url", string(v))
	case dom.Content:
		switch v.Kind {
		case "None", "":
			w.content(name, "null", "")
		case "Uri":
			w.content(name, "uri", v.Value)
		default:
			return fmt.Errorf("a Content of kind %q has no XML form", v.Kind)
		}
	case dom.Font:
		weight, ok := fontWeights[v.Weight]
		if !ok {
			return fmt.Errorf("font weight %q is unknown", v.Weight)
		}
		if _, err := fontStyle(v.Style); err != nil {
			return err
		}
		w.open("Font", name)
		b := &w.e.buf
		b.WriteByte('\n')
		writeContentField(b, w.ind+"\t", "Family", v.Family)
		writeFields(b, w.ind+"\t", []field{{tag: "Weight", text: strconv.Itoa(int(weight))}, {tag: "Style", text: v.Style}})
		if v.CachedFaceID != nil {
			writeContentField(b, w.ind+"\t", "CachedFaceId", *v.CachedFaceID)
		}
		b.WriteString(w.ind)
		w.close("Font")
	case dom.PhysicalProperties:
		if v.Default {
			w.compound("PhysicalProperties", name, field{tag: "CustomPhysics", text: "false"})
		} else {
			w.compound("PhysicalProperties", name, append([]field{{tag: "CustomPhysics", text: "true"}},
				floatFields("Density Friction Elasticity FrictionWeight ElasticityWeight AcousticAbsorption",
					v.Density, v.Friction, v.Elasticity, v.FrictionWeight, v.ElasticityWeight, v.AcousticAbsorption)...)...)
		}
	case dom.Ref:
		w.text("Ref", name, w.e.referent(v))
	case dom.BinaryString:
		w.text("BinaryString", name, base64.StdEncoding.EncodeToString(v))
	case dom.Tags:
		w.text("BinaryString", name, base64.StdEncoding.EncodeToString([]byte(strings.Join(v, "\x00"))))
	case dom.Attributes:
		data, err := encodeAttributes(v)
		if err != nil {
			return err
		}
		w.text("BinaryString", name, base64.StdEncoding.EncodeToString(data))
	case dom.MaterialColors:
		data, err := encodeMaterialColors(v)
		if err != nil {
			return err
		}
		w.text("BinaryString", name, base64.StdEncoding.EncodeToString(data))
	case dom.SharedString:
		w.text("SharedString", name, w.e.share(v))
	case dom.NetAssetRef:
		w.text("NetAssetRef", name, w.e.share(v))
	case dom.EnumItem:
		return errors.New("an EnumItem value exists only inside attributes and has no XML form")
	default:
		return fmt.Errorf("value type %s has no XML form", p.Value.Type())
	}
	return nil
}

// content writes <Content name="…"><kind>value</kind></Content>; an empty url is
// written as <null></null>, as Studio does.
func (w propWriter) content(name, kind, value string) {
	if kind == "url" && value == "" {
		kind = "null"
	}
	w.open("Content", name)
	b := &w.e.buf
	b.WriteString("<" + kind + ">")
	escapeText(b, value)
	b.WriteString("</" + kind + ">")
	w.close("Content")
}

func writeContentField(b *bytes.Buffer, ind, tag, url string) {
	b.WriteString(ind + "<" + tag + ">")
	if url == "" {
		b.WriteString("<null></null>")
	} else {
		b.WriteString("<url>")
		escapeText(b, url)
		b.WriteString("</url>")
	}
	b.WriteString("</" + tag + ">\n")
}

func (e *encoder) referent(r dom.Ref) string {
	if ref, ok := e.byID[string(r)]; ok && strings.Trim(string(r), "0") != "" {
		return ref
	}
	return "null"
}

// share registers data in the SharedStrings block and returns its key: the base64
// MD5 of the bytes, as Roblox writes it.
func (e *encoder) share(data []byte) string {
	sum := md5.Sum(data)
	key := base64.StdEncoding.EncodeToString(sum[:])
	if !e.sharedSeen[key] {
		e.sharedSeen[key] = true
		e.shared = append(e.shared, sharedString{key, append([]byte(nil), data...)})
	}
	return key
}

var (
	axisNames = []string{"X", "Y", "Z"}
	faceNames = []string{"Right", "Top", "Back", "Left", "Bottom", "Front"}
)

func flagBits(set []string, names []string) (int, error) {
	bits := 0
	for _, s := range set {
		i := indexOf(names, s)
		if i < 0 {
			return 0, fmt.Errorf("%q is not one of %v", s, names)
		}
		bits |= 1 << i
	}
	return bits, nil
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

func packColor(r, g, b uint8) uint32 {
	return 0xFF<<24 | uint32(r)<<16 | uint32(g)<<8 | uint32(b)
}

// toUint8 converts a Color3 component to 0–255, rounding and clamping.
func toUint8(c float32) uint8 {
	v := math.Round(float64(c) * 255)
	switch {
	case math.IsNaN(v) || v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v)
}

// formatF32 prints the shortest decimal that reads back as the same float32,
// without exponent, as rbx_xml does; infinities and NaN as INF, -INF and NAN.
func formatF32(f float32) string {
	switch {
	case math.IsInf(float64(f), 1):
		return "INF"
	case math.IsInf(float64(f), -1):
		return "-INF"
	case f != f:
		return "NAN"
	}
	return strconv.FormatFloat(float64(f), 'f', -1, 32)
}

func formatF64(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		return "NAN"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// escapeText writes s as element text. CR and the C0 controls other than tab and
// newline become character references so that they survive line-end
// normalization; other bytes, even ones that are not UTF-8, are written as they are.
func escapeText(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c < 0x20 && c != '\t' && c != '\n':
			b.WriteString("&#" + strconv.Itoa(int(c)) + ";")
		default:
			b.WriteByte(c)
		}
	}
}

// escapeAttr writes s as an attribute value in double quotes.
func escapeAttr(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '"':
			b.WriteString("&quot;")
		case c < 0x20:
			b.WriteString("&#" + strconv.Itoa(int(c)) + ";")
		default:
			b.WriteByte(c)
		}
	}
}

// writeCDATA writes s in CDATA sections. "]]>" is split across two sections, and
// CR and other C0 controls (but tab and newline) are written between sections as
// character references, which is the only way they survive a reader.
func writeCDATA(b *bytes.Buffer, s string) {
	b.WriteString("<![CDATA[")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ']' && strings.HasPrefix(s[i:], "]]>"):
			b.WriteString("]]]]><![CDATA[>")
			i += 2
		case c < 0x20 && c != '\t' && c != '\n':
			b.WriteString("]]>&#" + strconv.Itoa(int(c)) + ";<![CDATA[")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("]]>")
}
