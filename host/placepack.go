package host

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// PackedPlaceExt ends the name of a place file in the emulator's packed form, which
// run.mjs loads as it is (see WritePackedPlace).
const PackedPlaceExt = ".packed"

// WritePackedPlace writes pf in the binary form the emulator's Luau reads without
// decoding JSON (plugin/emulator/pack.mjs): every string's UTF-8 bytes counted ahead,
// and each script's Source preceded by its git blob id, which the emulator's EncodingService
// then answers without hashing. It holds what WritePlace's JSON holds, decoded.
func WritePackedPlace(path string, pf *PlaceFile) error {
	b, err := packPlace(pf)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func packPlace(pf *PlaceFile) ([]byte, error) {
	// One buffer of about the final size: growing a buffer of tens of megabytes step
	// by step took most of the time.
	p := &packer{b: make([]byte, 0, packedSize(pf.Root)+4096)}
	fields := 3
	extra := []struct {
		key string
		set bool
		put func()
	}{
		{"drafts", len(pf.Drafts) > 0, func() { p.strings(pf.Drafts) }},
		{"enums", len(pf.Enums) > 0, func() { p.enums(pf.Enums) }},
		{"context", pf.Context != "", func() { p.str(pf.Context) }},
		{"runMode", pf.RunMode, func() { p.boolean(pf.RunMode) }},
		{"paused", pf.Paused, func() { p.boolean(pf.Paused) }},
		{"gameId", pf.GameID != 0, func() { p.number(float64(pf.GameID)) }},
	}
	for _, e := range extra {
		if e.set {
			fields++
		}
	}
	p.object(fields)
	p.str("placeId")
	p.number(float64(pf.PlaceID))
	p.str("placeName")
	p.str(pf.PlaceName)
	p.str("root")
	if err := p.node(pf.Root); err != nil {
		return nil, err
	}
	for _, e := range extra {
		if e.set {
			p.str(e.key)
			e.put()
		}
	}
	return p.b, nil
}

// packer appends values in the packed form: a tag byte, then for s a uint32 byte
// length and the text, for o and a a uint32 count, for n a float64 (integers little-
// endian), for h a script's Source's 40 hex digit blob id; t, f and z stand alone.
type packer struct {
	b []byte
	// values holds the packed form of values other than Strings by their JSON:
	// a place repeats them (Anchored, a Size, an Enum) across thousands of
	// instances, and decoding each one's JSON again was most of the packing.
	values map[string][]byte
}

// maxPackedValues bounds packer.values.
const maxPackedValues = 4096

func (p *packer) str(s string) { p.text(jsonText(s)) }

// text packs s, which is valid UTF-8.
func (p *packer) text(s string) {
	p.b = append(p.b, 's')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	p.b = append(p.b, s...)
}

func (p *packer) object(n int) {
	p.b = append(p.b, 'o')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(n))
}

func (p *packer) array(n int) {
	p.b = append(p.b, 'a')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(n))
}

func (p *packer) number(f float64) {
	p.b = append(p.b, 'n')
	p.b = binary.LittleEndian.AppendUint64(p.b, math.Float64bits(f))
}

func (p *packer) boolean(v bool) {
	if v {
		p.b = append(p.b, 't')
	} else {
		p.b = append(p.b, 'f')
	}
}

func (p *packer) strings(m map[string]string) {
	p.object(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p.str(k)
		p.str(m[k])
	}
}

func (p *packer) enums(m map[string]map[string]uint32) {
	p.object(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p.str(k)
		items := m[k]
		p.object(len(items))
		for _, name := range slices.Sorted(maps.Keys(items)) {
			p.str(name)
			p.number(float64(items[name]))
		}
	}
}

func (p *packer) node(n *PlaceNode) error {
	if n == nil {
		p.b = append(p.b, 'z')
		return nil
	}
	p.object(4)
	p.str("name")
	p.str(n.Name)
	p.str("className")
	p.str(n.ClassName)
	p.str("properties") // dom.Properties writes {} for nil too
	p.object(len(n.Properties))
	keys := maps.Keys(n.Properties)
	if len(n.Properties) > 1 {
		keys = slices.Values(slices.Sorted(keys)) // (one key needs no sorting, nor a slice)
	}
	for k := range keys {
		p.str(k)
		if err := p.value(k, n.Properties[k]); err != nil {
			return fmt.Errorf("%s.%s: %w", n.Name, k, err)
		}
	}
	p.str("children")
	if n.Children == nil {
		p.b = append(p.b, 'z')
		return nil
	}
	p.array(len(n.Children))
	for _, c := range n.Children {
		if err := p.node(c); err != nil {
			return err
		}
	}
	return nil
}

// packedSize estimates the packed size of n (a little over, for a String's
// length digits and blob id, a little under for other values).
func packedSize(n *PlaceNode) int {
	if n == nil {
		return 1
	}
	size := 64 + len(n.Name) + len(n.ClassName)
	for k, v := range n.Properties {
		size += len(k) + 16
		if s, ok := v.(dom.String); ok {
			size += len(s) + 64
		} else {
			size += 64
		}
	}
	for _, c := range n.Children {
		size += packedSize(c)
	}
	return size
}

// value packs a property value as its tagged JSON would decode: a String as it is (a
// script's Source with its blob id first), any other value through its JSON.
func (p *packer) value(key string, v dom.Value) error {
	if s, ok := v.(dom.String); ok && utf8.ValidString(string(s)) {
		if key == "Source" {
			p.b = append(p.b, 'h')
			p.b = append(p.b, gitblob.HashString(string(s))...)
		}
		p.object(1)
		p.text("String")
		p.text(string(s)) // checked above
		return nil
	}
	if p.scalar(v) {
		return nil
	}
	if a, ok := v.(dom.Attributes); ok && p.attributes(a) {
		return nil
	}
	b, err := dom.Marshal(v)
	if err != nil {
		return err
	}
	if packed, ok := p.values[string(b)]; ok {
		p.b = append(p.b, packed...)
		return nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	start := len(p.b)
	if err := p.any(x); err != nil {
		return err
	}
	if len(p.values) < maxPackedValues && len(b) <= 256 {
		if p.values == nil {
			p.values = map[string][]byte{}
		}
		p.values[string(b)] = slices.Clone(p.b[start:])
	}
	return nil
}

// scalar packs v, a tagged value whose payload is one JSON number or boolean, as its
// JSON would decode ({"Enum": 1} with the number as a float64), without writing the
// JSON; false when v is of another type, or a number JSON cannot hold. (Float32 goes
// through its JSON: it is written in float32's shortest digits, which read back as
// another float64 than the float32's own.)
func (p *packer) scalar(v dom.Value) bool {
	var f float64
	switch x := v.(type) {
	case dom.Enum:
		f = float64(x)
	case dom.Int32:
		f = float64(x)
	case dom.Int64:
		f = float64(x)
	case dom.Float64:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return false
		}
		f = float64(x)
	case dom.Bool:
		p.object(1)
		p.text("Bool")
		p.boolean(bool(x))
		return true
	default:
		return false
	}
	p.object(1)
	p.text(v.Type())
	p.number(f)
	return true
}

// attributes packs a, as its JSON would decode ({"Attributes": {name: tagged value}}),
// each value as value packs it; false, having packed nothing, when a name is not
// valid UTF-8 (the JSON would write it otherwise).
func (p *packer) attributes(a dom.Attributes) bool {
	for k := range a {
		if !utf8.ValidString(k) {
			return false
		}
	}
	start := len(p.b)
	p.object(1)
	p.text("Attributes")
	p.object(len(a))
	for _, k := range slices.Sorted(maps.Keys(a)) {
		p.text(k)
		// (an attribute is never a script's Source: no blob id)
		if err := p.value("", a[k]); err != nil {
			p.b = p.b[:start]
			return false
		}
	}
	return true
}

// any packs a value json.Unmarshal gave.
func (p *packer) any(x any) error {
	switch x := x.(type) {
	case nil:
		p.b = append(p.b, 'z')
	case bool:
		p.boolean(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("%v is not a JSON number", x)
		}
		p.number(x)
	case string:
		p.str(x)
	case []any:
		p.array(len(x))
		for _, e := range x {
			if err := p.any(e); err != nil {
				return err
			}
		}
	case map[string]any:
		p.object(len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p.str(k)
			if err := p.any(x[k]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot pack a %T", x)
	}
	return nil
}

// jsonText is s as it reads back from encoding/json's output: each byte that is not
// part of valid UTF-8 becomes U+FFFD.
func jsonText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
