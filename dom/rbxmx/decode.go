package rbxmx

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// Decode reads a document into instances (top-level items, with children, Parent set).
//
// Names written in the file are mapped back to canonical property names through
// the reflection database (size → Size, Color3uint8 → Color), and values are
// converted to the canonical type where the file stores another (Color3uint8 →
// Color3, int → BrickColor, BinaryString → Attributes, Tags or MaterialColors,
// Content → Content or ContentId). Legacy migrations (BrickColor → Color) are not
// applied. An AttributesSerialize or MaterialColors blob that cannot be read is kept
// as a BinaryString under its file name rather than failing the document.
//
// Every instance gets a provisional ID, unique within the result, and a Ref holds
// its target's provisional ID (the nil ref when the referent is "null" or not in
// the document). Reassigning IDs (dom.Instance.AssignIDs) leaves such refs stale:
// capture them first with CaptureRefs and call Refs.Rebind afterwards.
func Decode(r io.Reader) ([]*dom.Instance, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("rbxmx: read: %w", err)
	}
	root, err := parseXML(data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("rbxmx: line %d: %s", lineAt(data, se.offset), se.msg)
		}
		return nil, fmt.Errorf("rbxmx: %w", err)
	}
	d := &decoder{data: data, byReferent: map[string]*dom.Instance{}, shared: map[string][]byte{}}
	return d.document(root)
}

type decoder struct {
	data       []byte
	count      int // instances created, for provisional IDs
	byReferent map[string]*dom.Instance
	shared     map[string][]byte // SharedStrings by md5 key
	refs       []pendingRef
}

type pendingRef struct {
	inst     *dom.Instance
	prop     string
	referent string
}

// errorf returns an error located at n's start tag.
func (d *decoder) errorf(n *node, format string, args ...any) error {
	return fmt.Errorf("rbxmx: line %d: "+format, append([]any{lineAt(d.data, n.offset)}, args...)...)
}

func (d *decoder) document(root *node) ([]*dom.Instance, error) {
	if root.name != "roblox" {
		return nil, d.errorf(root, "the root element is <%s>, want <roblox>", root.name)
	}
	if v, _ := root.attr("version"); v != "4" {
		return nil, d.errorf(root, "<roblox> version is %q, want \"4\"", v)
	}
	for _, c := range root.children {
		if c.name == "SharedStrings" {
			if err := d.sharedStrings(c); err != nil {
				return nil, err
			}
		}
	}
	var roots []*dom.Instance
	for _, c := range root.children {
		// Meta, External, SharedStrings and elements Roblox adds to places
		// (MetaBreakpoints, DebuggerManager…) carry no instances.
		if c.name != "Item" {
			continue
		}
		inst, err := d.item(c)
		if err != nil {
			return nil, err
		}
		roots = append(roots, inst)
	}
	for _, p := range d.refs {
		if t, ok := d.byReferent[p.referent]; ok {
			p.inst.Properties.Set(p.prop, dom.Ref(t.ID))
		}
	}
	return roots, nil
}

func (d *decoder) sharedStrings(n *node) error {
	for _, c := range n.children {
		if c.name != "SharedString" {
			return d.errorf(c, "unexpected <%s> in <SharedStrings>", c.name)
		}
		key, ok := c.attr("md5")
		if !ok {
			return d.errorf(c, "<SharedString> has no md5 attribute")
		}
		data, err := decodeBase64(c.text)
		if err != nil {
			return d.errorf(c, "SharedString %s: %v", key, err)
		}
		if _, dup := d.shared[key]; !dup {
			d.shared[key] = data
		}
	}
	return nil
}

func (d *decoder) item(n *node) (*dom.Instance, error) {
	class, _ := n.attr("class")
	if class == "" {
		return nil, d.errorf(n, "<Item> has no class")
	}
	inst := dom.New(class, class)
	inst.ID = provisionalID(d.count)
	d.count++
	if ref, _ := n.attr("referent"); ref != "" && ref != "null" {
		if _, dup := d.byReferent[ref]; dup {
			return nil, d.errorf(n, "referent %s is used twice", ref)
		}
		d.byReferent[ref] = inst
	}
	for _, c := range n.children {
		switch c.name {
		case "Properties":
			if err := d.properties(c, inst); err != nil {
				return nil, err
			}
		case "Item":
			child, err := d.item(c)
			if err != nil {
				return nil, err
			}
			inst.AddChild(child)
		default:
			return nil, d.errorf(c, "unexpected <%s> in <Item class=%q>", c.name, class)
		}
	}
	return inst, nil
}

func (d *decoder) properties(n *node, inst *dom.Instance) error {
	var props dom.PropsBuilder
	for name, v := range inst.Properties.All() {
		props.Add(name, v)
	}
	defer func() { inst.Properties = props.Props() }()
	for _, c := range n.children {
		file, ok := c.attr("name")
		if !ok {
			return d.errorf(c, "<%s> in %s's properties has no name", c.name, inst.ClassName)
		}
		canon, p := canonicalName(inst.ClassName, file)
		if c.name == "Ref" {
			if props.Add(canon, dom.Ref(nilRef)) {
				d.refs = append(d.refs, pendingRef{inst, canon, strings.TrimSpace(string(c.text))})
			}
			continue
		}
		v, err := d.value(c)
		if err != nil {
			return d.errorf(c, "%s.%s: %v", inst.ClassName, file, err)
		}
		if canon == "Name" {
			s, ok := v.(dom.String)
			if !ok {
				return d.errorf(c, "%s.Name is a <%s>, want a string", inst.ClassName, c.name)
			}
			inst.Name = string(s)
			continue
		}
		v, keep := convert(v, dbType(p))
		if !keep {
			canon = file
		}
		props.Add(canon, v)
	}
	return nil
}

var nilRef = strings.Repeat("0", 32)

// contentValue is a <Content> element before the property type decides whether it
// is a Content or a ContentId.
type contentValue struct{ kind, value string } // kind: url, uri or null

func (contentValue) Type() string { return "Content" }

// convert turns a value as read into the property's canonical type typ (a
// database type name, "" when unknown). keep is false when a blob did not decode
// and the raw value should stay under its file name.
func convert(v dom.Value, typ string) (dom.Value, bool) {
	switch v := v.(type) {
	case contentValue:
		switch {
		case typ == "Content" && v.kind == "null":
			return dom.Content{Kind: "None"}, true
		case typ == "Content":
			return dom.Content{Kind: "Uri", Value: v.value}, true
		case typ == "ContentId" || v.kind != "uri":
			return dom.ContentId(v.value), true
		}
		return dom.Content{Kind: "Uri", Value: v.value}, true
	case dom.Color3uint8:
		if typ == "Color3" {
			return dom.Color3{float32(v[0]) / 255, float32(v[1]) / 255, float32(v[2]) / 255}, true
		}
	case dom.Int32:
		if typ == "BrickColor" && v >= 0 && v <= math.MaxUint16 && dom.ValidBrickColor(uint16(v)) {
			return dom.BrickColor(v), true
		}
	case dom.BinaryString:
		switch typ {
		case "Tags":
			tags := dom.Tags{}
			for _, t := range strings.Split(string(v), "\x00") {
				if t != "" {
					tags = append(tags, t)
				}
			}
			return tags, true
		case "Attributes":
			attrs, err := decodeAttributes(v)
			if err != nil {
				return v, false
			}
			return attrs, true
		case "MaterialColors":
			mc, err := decodeMaterialColors(v)
			if err != nil {
				return v, false
			}
			return mc, true
		}
	}
	return v, true
}

// value decodes a property element by its type name (everything but Ref).
func (d *decoder) value(n *node) (dom.Value, error) {
	text := string(n.text)
	trimmed := strings.TrimSpace(text)
	switch n.name {
	case "string", "ProtectedString":
		return dom.String(text), nil
	case "bool":
		switch strings.ToLower(trimmed) {
		case "true":
			return dom.Bool(true), nil
		case "false":
			return dom.Bool(false), nil
		}
		return nil, fmt.Errorf("bool %q is not true or false", trimmed)
	case "int":
		i, err := strconv.ParseInt(trimmed, 10, 32)
		return dom.Int32(i), numErr(err, trimmed, "int")
	case "int64":
		i, err := strconv.ParseInt(trimmed, 10, 64)
		return dom.Int64(i), numErr(err, trimmed, "int64")
	case "float":
		f, err := parseF32(trimmed)
		return dom.Float32(f), err
	case "double":
		f, err := parseF64(trimmed)
		return dom.Float64(f), err
	case "token":
		u, err := strconv.ParseUint(trimmed, 10, 32)
		return dom.Enum(u), numErr(err, trimmed, "token")
	case "BrickColor":
		u, err := strconv.ParseUint(trimmed, 10, 16)
		if err != nil {
			return nil, numErr(err, trimmed, "BrickColor")
		}
		if !dom.ValidBrickColor(uint16(u)) {
			return nil, fmt.Errorf("%d is not a BrickColor number", u)
		}
		return dom.BrickColor(u), nil
	case "SecurityCapabilities":
		u, err := strconv.ParseUint(trimmed, 10, 64)
		return dom.SecurityCapabilities(u), numErr(err, trimmed, "SecurityCapabilities")
	case "UniqueId":
		if !dom.IsHex32(trimmed) {
			return nil, fmt.Errorf("UniqueId %q is not 32 hex digits", trimmed)
		}
		return dom.UniqueId(strings.ToLower(trimmed)), nil
	case "Vector2":
		f, err := floatsOf(n, "X", "Y")
		if err != nil {
			return nil, err
		}
		return dom.Vector2{f[0], f[1]}, nil
	case "Vector3":
		f, err := floatsOf(n, "X", "Y", "Z")
		if err != nil {
			return nil, err
		}
		return dom.Vector3{f[0], f[1], f[2]}, nil
	case "Vector2int16":
		i, err := intsOf(n, 16, "X", "Y")
		if err != nil {
			return nil, err
		}
		return dom.Vector2int16{int16(i[0]), int16(i[1])}, nil
	case "Vector3int16":
		i, err := intsOf(n, 16, "X", "Y", "Z")
		if err != nil {
			return nil, err
		}
		return dom.Vector3int16{int16(i[0]), int16(i[1]), int16(i[2])}, nil
	case "Color3":
		if len(n.children) == 0 {
			// Old files store a Color3 packed like a Color3uint8.
			u, err := strconv.ParseUint(trimmed, 10, 32)
			if err != nil {
				return nil, numErr(err, trimmed, "Color3")
			}
			return dom.Color3{float32(u>>16&0xFF) / 255, float32(u>>8&0xFF) / 255, float32(u&0xFF) / 255}, nil
		}
		f, err := floatsOf(n, "R", "G", "B")
		if err != nil {
			return nil, err
		}
		return dom.Color3{f[0], f[1], f[2]}, nil
	case "Color3uint8":
		u, err := strconv.ParseUint(trimmed, 10, 32)
		if err != nil {
			return nil, numErr(err, trimmed, "Color3uint8")
		}
		return dom.Color3uint8{uint8(u >> 16), uint8(u >> 8), uint8(u)}, nil
	case "UDim":
		s, err := floatsOf(n, "S")
		if err != nil {
			return nil, err
		}
		o, err := intsOf(n, 32, "O")
		if err != nil {
			return nil, err
		}
		return dom.UDim{Scale: s[0], Offset: int32(o[0])}, nil
	case "UDim2":
		s, err := floatsOf(n, "XS", "YS")
		if err != nil {
			return nil, err
		}
		o, err := intsOf(n, 32, "XO", "YO")
		if err != nil {
			return nil, err
		}
		return dom.UDim2{{Scale: s[0], Offset: int32(o[0])}, {Scale: s[1], Offset: int32(o[1])}}, nil
	case "CoordinateFrame", "CFrame":
		return cframeOf(n)
	case "OptionalCoordinateFrame":
		c := child(n, "CFrame")
		if c == nil {
			return dom.OptionalCFrame{}, nil
		}
		cf, err := cframeOf(c)
		if err != nil {
			return nil, err
		}
		return dom.OptionalCFrame{CFrame: &cf}, nil
	case "Rect2D", "Rect":
		lo, hi, err := minMax(n, 2)
		if err != nil {
			return nil, err
		}
		return dom.Rect{{lo[0], lo[1]}, {hi[0], hi[1]}}, nil
	case "Region3":
		lo, hi, err := minMax(n, 3)
		if err != nil {
			return nil, err
		}
		return dom.Region3{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}, nil
	case "Region3int16":
		var v dom.Region3int16
		for i, tag := range []string{"min", "max"} {
			c := child(n, tag)
			if c == nil {
				return nil, fmt.Errorf("<%s> has no <%s>", n.name, tag)
			}
			xyz, err := intsOf(c, 16, "X", "Y", "Z")
			if err != nil {
				return nil, err
			}
			v[i] = dom.Vector3int16{int16(xyz[0]), int16(xyz[1]), int16(xyz[2])}
		}
		return v, nil
	case "Ray":
		o := child(n, "origin")
		dir := child(n, "direction")
		if o == nil || dir == nil {
			return nil, errors.New("<Ray> wants <origin> and <direction>")
		}
		of, err := floatsOf(o, "X", "Y", "Z")
		if err != nil {
			return nil, err
		}
		df, err := floatsOf(dir, "X", "Y", "Z")
		if err != nil {
			return nil, err
		}
		return dom.Ray{Origin: dom.Vector3(of), Direction: dom.Vector3(df)}, nil
	case "NumberRange":
		f, err := floatList(trimmed)
		if err != nil {
			return nil, err
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("NumberRange has %d numbers, want 2", len(f))
		}
		return dom.NumberRange{f[0], f[1]}, nil
	case "NumberSequence":
		f, err := floatList(trimmed)
		if err != nil {
			return nil, err
		}
		if len(f)%3 != 0 {
			return nil, fmt.Errorf("NumberSequence has %d numbers, want a multiple of 3", len(f))
		}
		seq := make(dom.NumberSequence, 0, len(f)/3)
		for i := 0; i < len(f); i += 3 {
			seq = append(seq, dom.NumberKeypoint{Time: f[i], Value: f[i+1], Envelope: f[i+2]})
		}
		return seq, nil
	case "ColorSequence":
		f, err := floatList(trimmed)
		if err != nil {
			return nil, err
		}
		if len(f)%5 != 0 {
			return nil, fmt.Errorf("ColorSequence has %d numbers, want a multiple of 5", len(f))
		}
		seq := make(dom.ColorSequence, 0, len(f)/5)
		for i := 0; i < len(f); i += 5 {
			seq = append(seq, dom.ColorKeypoint{Time: f[i], Color: dom.Color3{f[i+1], f[i+2], f[i+3]}})
		}
		return seq, nil
	case "Axes":
		names, err := flagsOf(n, "axes", axisNames)
		return dom.Axes(names), err
	case "Faces":
		names, err := flagsOf(n, "faces", faceNames)
		return dom.Faces(names), err
	case "Content", "ContentId":
		return contentOf(n)
	case "Font":
		return fontOf(n)
	case "PhysicalProperties":
		return physicalOf(n)
	case "BinaryString":
		b, err := decodeBase64(n.text)
		if err != nil {
			return nil, err
		}
		return dom.BinaryString(b), nil
	case "SharedString", "NetAssetRef":
		data, ok := d.shared[trimmed]
		if !ok {
			return nil, fmt.Errorf("shared string %q is not in <SharedStrings>", trimmed)
		}
		if n.name == "NetAssetRef" {
			return dom.NetAssetRef(data), nil
		}
		return dom.SharedString(data), nil
	}
	return nil, fmt.Errorf("unknown property type <%s>", n.name)
}

func numErr(err error, text, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%q is not a valid %s", text, what)
}

// child returns n's child element named tag, matching case only when no child
// matches exactly (some old files vary the case of component names).
func child(n *node, tag string) *node {
	for _, c := range n.children {
		if c.name == tag {
			return c
		}
	}
	for _, c := range n.children {
		if strings.EqualFold(c.name, tag) {
			return c
		}
	}
	return nil
}

func childText(n *node, tag string) (string, error) {
	c := child(n, tag)
	if c == nil {
		return "", fmt.Errorf("<%s> has no <%s>", n.name, tag)
	}
	return strings.TrimSpace(string(c.text)), nil
}

func floatsOf(n *node, tags ...string) ([]float32, error) {
	out := make([]float32, len(tags))
	for i, tag := range tags {
		s, err := childText(n, tag)
		if err != nil {
			return nil, err
		}
		if out[i], err = parseF32(s); err != nil {
			return nil, fmt.Errorf("<%s>: %w", tag, err)
		}
	}
	return out, nil
}

func intsOf(n *node, bits int, tags ...string) ([]int64, error) {
	out := make([]int64, len(tags))
	for i, tag := range tags {
		s, err := childText(n, tag)
		if err != nil {
			return nil, err
		}
		if out[i], err = strconv.ParseInt(s, 10, bits); err != nil {
			return nil, fmt.Errorf("<%s>: %q is not a valid int%d", tag, s, bits)
		}
	}
	return out, nil
}

func cframeOf(n *node) (dom.CFrame, error) {
	f, err := floatsOf(n, "X", "Y", "Z", "R00", "R01", "R02", "R10", "R11", "R12", "R20", "R21", "R22")
	if err != nil {
		return dom.CFrame{}, err
	}
	return dom.CFrame{
		Position:    [3]float32{f[0], f[1], f[2]},
		Orientation: [3][3]float32{{f[3], f[4], f[5]}, {f[6], f[7], f[8]}, {f[9], f[10], f[11]}},
	}, nil
}

func minMax(n *node, dims int) (lo, hi []float32, err error) {
	tags := []string{"X", "Y", "Z"}[:dims]
	var out [2][]float32
	for i, tag := range []string{"min", "max"} {
		c := child(n, tag)
		if c == nil {
			return nil, nil, fmt.Errorf("<%s> has no <%s>", n.name, tag)
		}
		if out[i], err = floatsOf(c, tags...); err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

func flagsOf(n *node, tag string, names []string) ([]string, error) {
	s, err := childText(n, tag)
	if err != nil {
		return nil, err
	}
	bits, err := strconv.ParseUint(s, 10, 8)
	if err != nil || bits >= 1<<len(names) {
		return nil, fmt.Errorf("<%s> %q is not a number below %d", tag, s, 1<<len(names))
	}
	out := []string{}
	for i, name := range names {
		if bits&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out, nil
}

// contentOf reads <url>, <uri> or <null>; the legacy <binary> and <hash> read as
// empty, and bare text as a url.
func contentOf(n *node) (dom.Value, error) {
	if len(n.children) == 0 {
		s := strings.TrimSpace(string(n.text))
		if s == "" {
			return contentValue{kind: "null"}, nil
		}
		return contentValue{kind: "url", value: s}, nil
	}
	c := n.children[0]
	switch c.name {
	case "url", "uri":
		return contentValue{kind: c.name, value: string(c.text)}, nil
	case "null", "binary", "hash":
		return contentValue{kind: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected <%s> in <%s>", c.name, n.name)
}

// defaultFontFamily is what rbx_xml reads an empty <Font> as (old files have them).
const defaultFontFamily = "rbxasset://fonts/families/SourceSansPro.json"

func fontOf(n *node) (dom.Value, error) {
	if len(n.children) == 0 {
		return dom.Font{Family: defaultFontFamily, Weight: "Regular", Style: "Normal"}, nil
	}
	fam := child(n, "Family")
	if fam == nil {
		return nil, errors.New("<Font> has no <Family>")
	}
	family, err := contentOf(fam)
	if err != nil {
		return nil, err
	}
	ws, err := childText(n, "Weight")
	if err != nil {
		return nil, err
	}
	wn, err := strconv.ParseUint(ws, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("font weight %q is not a number", ws)
	}
	weight, ok := fontWeightName(uint16(wn))
	if !ok {
		return nil, fmt.Errorf("font weight %d is unknown", wn)
	}
	style, err := childText(n, "Style")
	if err != nil {
		return nil, err
	}
	if _, err := fontStyle(style); err != nil {
		return nil, err
	}
	f := dom.Font{Family: family.(contentValue).value, Weight: weight, Style: style}
	if c := child(n, "CachedFaceId"); c != nil {
		cached, err := contentOf(c)
		if err != nil {
			return nil, err
		}
		s := cached.(contentValue).value
		f.CachedFaceID = &s
	}
	return f, nil
}

func physicalOf(n *node) (dom.Value, error) {
	s, err := childText(n, "CustomPhysics")
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(s) {
	case "false":
		return dom.PhysicalProperties{Default: true}, nil
	case "true":
	default:
		return nil, fmt.Errorf("CustomPhysics %q is not true or false", s)
	}
	f, err := floatsOf(n, "Density", "Friction", "Elasticity", "FrictionWeight", "ElasticityWeight")
	if err != nil {
		return nil, err
	}
	pp := dom.PhysicalProperties{Density: f[0], Friction: f[1], Elasticity: f[2], FrictionWeight: f[3], ElasticityWeight: f[4],
		AcousticAbsorption: 1} // Roblox's default when a file predates the field
	if child(n, "AcousticAbsorption") != nil {
		a, err := floatsOf(n, "AcousticAbsorption")
		if err != nil {
			return nil, err
		}
		pp.AcousticAbsorption = a[0]
	}
	return pp, nil
}

// parseF32 reads a float as Roblox writes it (INF, -INF, NAN) or any decimal;
// values beyond float32's range become infinities.
func parseF32(s string) (float32, error) {
	f, err := parseFloat(s, 32)
	return float32(f), err
}

func parseF64(s string) (float64, error) { return parseFloat(s, 64) }

func parseFloat(s string, bits int) (float64, error) {
	switch strings.ToUpper(s) {
	case "INF", "+INF":
		return math.Inf(1), nil
	case "-INF":
		return math.Inf(-1), nil
	case "NAN", "-NAN", "+NAN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

func floatList(s string) ([]float32, error) {
	fields := strings.Fields(s)
	out := make([]float32, len(fields))
	for i, f := range fields {
		v, err := parseF32(f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// decodeBase64 reads standard base64, ignoring whitespace (some writers wrap lines)
// and accepting missing padding.
func decodeBase64(text []byte) ([]byte, error) {
	clean := bytes.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, text)
	out, err := base64.StdEncoding.DecodeString(string(clean))
	if err != nil {
		if out, err2 := base64.RawStdEncoding.DecodeString(string(bytes.TrimRight(clean, "="))); err2 == nil {
			return out, nil
		}
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	return out, nil
}
