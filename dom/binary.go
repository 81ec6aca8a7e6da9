package dom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// The compact binary form of values and instance trees, for caches Atlas keeps in
// its state dir (the disk index, parsed base commits). It is not a wire format: a
// reader only ever reads what the same build wrote, and callers version their files.
//
// Repeated strings (class and property names, paths) are written once and referred
// to by number afterwards, so a decoded tree shares one copy of each.

// binaryTypes are the value types in tag order. Tags are stored: append only.
var binaryTypes = []Value{
	Bool(false), String(""), Float32(0), Float64(0), Int32(0), Int64(0), Vector2{}, Vector3{},
	Vector2int16{}, Vector3int16{}, Color3{}, Color3uint8{}, UDim{}, UDim2{}, CFrame{},
	OptionalCFrame{}, Enum(0), EnumItem{}, BrickColor(0), NumberRange{}, NumberSequence{},
	ColorSequence{}, Rect{}, Ray{}, Region3{}, Region3int16{}, Axes{}, Faces{}, ContentId(""),
	Content{}, Tags{}, Attributes{}, Font{}, Ref(""), PhysicalProperties{}, MaterialColors{},
	BinaryString{}, SharedString{}, NetAssetRef{}, UniqueId(""), SecurityCapabilities(0),
}

var (
	binaryTags  = map[reflect.Type]byte{}
	binaryRType = make([]reflect.Type, len(binaryTypes))
	valueType   = reflect.TypeFor[Value]()
)

func init() {
	for i, v := range binaryTypes {
		t := reflect.TypeOf(v)
		binaryTags[t] = byte(i + 1)
		binaryRType[i] = t
	}
}

// internMax is the longest string a writer numbers for reuse: longer ones (script
// sources) are rarely repeated and would only fill the table.
const internMax = 128

// Encoder appends values and instances to a byte slice.
type Encoder struct {
	buf  []byte
	strs map[string]uint64
	// HashedSources leaves out the Source of scripts whose text is known by its hash
	// (SourceHash or RawHash): for a record of what a tree held, compared by hash.
	HashedSources bool
}

// Bytes returns what was written.
func (e *Encoder) Bytes() []byte { return e.buf }

// Uvarint writes an unsigned number.
func (e *Encoder) Uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

// Varint writes a signed number.
func (e *Encoder) Varint(x int64) { e.buf = binary.AppendVarint(e.buf, x) }

// Bool writes a boolean.
func (e *Encoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Raw writes bytes as they are; the reader must know how many.
func (e *Encoder) Raw(b []byte) { e.buf = append(e.buf, b...) }

// String writes s; a short string written before is written as its number.
func (e *Encoder) String(s string) {
	if len(s) <= internMax {
		if n, ok := e.strs[s]; ok {
			e.Uvarint(n << 1)
			return
		}
		if e.strs == nil {
			e.strs = map[string]uint64{}
		}
		e.strs[s] = uint64(len(e.strs))
	}
	e.Uvarint(uint64(len(s))<<1 | 1)
	e.buf = append(e.buf, s...)
}

// Text writes a string that is not numbered for reuse (a path, a source).
func (e *Encoder) Text(s string) {
	e.Uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Value writes a value with its type.
func (e *Encoder) Value(v Value) error {
	if v == nil {
		e.buf = append(e.buf, 0)
		return nil
	}
	tag, ok := binaryTags[reflect.TypeOf(v)]
	if !ok {
		return fmt.Errorf("encode value: unknown type %T", v)
	}
	e.buf = append(e.buf, tag)
	switch x := v.(type) { // the common types without reflection
	case String:
		e.String(string(x))
		return nil
	case Bool:
		e.Bool(bool(x))
		return nil
	case Enum:
		e.Uvarint(uint64(x))
		return nil
	case Float32:
		e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(float32(x)))
		return nil
	case Vector3:
		for _, f := range x {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(f))
		}
		return nil
	}
	return e.reflectValue(reflect.ValueOf(v))
}

func (e *Encoder) reflectValue(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		e.Bool(v.Bool())
	case reflect.String:
		e.String(v.String())
	case reflect.Float32:
		e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(float32(v.Float())))
	case reflect.Float64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		e.Varint(v.Int())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		e.Uvarint(v.Uint())
	case reflect.Array:
		for i := range v.Len() {
			if err := e.reflectValue(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			e.Uvarint(0)
			return nil
		}
		e.Uvarint(uint64(v.Len()) + 1)
		if v.Type().Elem().Kind() == reflect.Uint8 {
			e.buf = append(e.buf, v.Bytes()...)
			return nil
		}
		for i := range v.Len() {
			if err := e.reflectValue(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if err := e.reflectValue(v.Field(i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.Bool(false)
			return nil
		}
		e.Bool(true)
		return e.reflectValue(v.Elem())
	case reflect.Map:
		if v.IsNil() {
			e.Uvarint(0)
			return nil
		}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys) // the same map always gives the same bytes
		e.Uvarint(uint64(len(keys)) + 1)
		for _, k := range keys {
			e.String(k)
			if err := e.reflectValue(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))); err != nil {
				return err
			}
		}
	case reflect.Interface:
		if v.Type() != valueType {
			return fmt.Errorf("encode value: unexpected interface %s", v.Type())
		}
		if v.IsNil() {
			return e.Value(nil)
		}
		return e.Value(v.Elem().Interface().(Value))
	default:
		return fmt.Errorf("encode value: unexpected kind %s", v.Kind())
	}
	return nil
}

// Instance writes i and its descendants: every field but Parent and ID (an id
// follows from the tree), properties in name order.
func (e *Encoder) Instance(i *Instance) error {
	e.String(i.Name)
	e.String(i.ClassName)
	e.String(i.FsPath)
	e.Uvarint(uint64(i.Kind))
	e.String(i.MetaPath())
	e.String(i.ProjectFile())
	keys := i.ProjectKeys()
	e.Bool(keys != nil)
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.String(k)
	}
	e.Bool(i.IgnoreUnknown)
	e.String(i.RefID())
	e.String(i.SourceHash)
	e.String(i.RawHash)
	e.String(i.Handle)
	skip := ""
	if e.HashedSources && (i.SourceHash != "" || i.RawHash != "") && i.Properties.Get("Source") != nil {
		skip = "Source"
	}
	n := len(i.Properties)
	if skip != "" {
		n--
	}
	e.Uvarint(uint64(n))
	for name, v := range i.Properties.All() {
		if name == skip {
			continue
		}
		e.String(name)
		if err := e.Value(v); err != nil {
			return fmt.Errorf("%s.%s: %w", i.Name, name, err)
		}
	}
	e.Uvarint(uint64(len(i.Children)))
	for _, c := range i.Children {
		if err := e.Instance(c); err != nil {
			return err
		}
	}
	return nil
}

// ErrCorrupt means bytes given to a Decoder are not what an Encoder wrote.
var ErrCorrupt = errors.New("corrupt binary data")

// Decoder reads what an Encoder wrote. The first failure sticks: later reads
// return zero values and Err reports it.
type Decoder struct {
	buf  []byte
	strs []string
	err  error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Err returns the first failure.
func (d *Decoder) Err() error { return d.err }

// Len returns the number of unread bytes.
func (d *Decoder) Len() int { return len(d.buf) }

func (d *Decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
	d.buf = nil
}

// Uvarint reads an unsigned number.
func (d *Decoder) Uvarint() uint64 {
	x, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.buf = d.buf[n:]
	return x
}

// Varint reads a signed number.
func (d *Decoder) Varint() int64 {
	x, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.buf = d.buf[n:]
	return x
}

// Count reads a length and checks that at least min bytes per item remain, so a
// corrupt length cannot make the caller allocate without bound.
func (d *Decoder) Count(min int) int {
	n := d.Uvarint()
	if min < 1 {
		min = 1
	}
	if n > uint64(len(d.buf)/min) {
		d.fail("count past the end")
		return 0
	}
	return int(n)
}

// optCount reads a length written plus one, zero meaning nil.
func (d *Decoder) optCount(min int) (int, bool) {
	n := d.Uvarint()
	if n == 0 {
		return 0, false
	}
	if n-1 > uint64(len(d.buf)/min) {
		d.fail("count past the end")
		return 0, false
	}
	return int(n - 1), true
}

// Bool reads a boolean.
func (d *Decoder) Bool() bool {
	b := d.Raw(1)
	return len(b) == 1 && b[0] != 0
}

// Raw reads n bytes; the result aliases the input.
func (d *Decoder) Raw(n int) []byte {
	if n < 0 || len(d.buf) < n {
		d.fail("short data")
		return nil
	}
	b := d.buf[:n:n]
	d.buf = d.buf[n:]
	return b
}

// String reads a string.
func (d *Decoder) String() string {
	x := d.Uvarint()
	if x&1 == 0 {
		if x>>1 >= uint64(len(d.strs)) {
			d.fail("bad string reference")
			return ""
		}
		return d.strs[x>>1]
	}
	n := x >> 1
	if n > uint64(len(d.buf)) {
		d.fail("string past the end")
		return ""
	}
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	if len(s) <= internMax {
		d.strs = append(d.strs, s)
	}
	return s
}

// Text reads a string written by Encoder.Text.
func (d *Decoder) Text() string {
	n := d.Uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("string past the end")
		return ""
	}
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	return s
}

func (d *Decoder) float32() float32 {
	b := d.Raw(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// Value reads a value with its type.
func (d *Decoder) Value() Value {
	tag := d.Raw(1)
	if tag == nil || tag[0] == 0 {
		return nil
	}
	if int(tag[0]) > len(binaryTypes) {
		d.fail("unknown value type")
		return nil
	}
	switch tag[0] - 1 {
	case 0:
		return Bool(d.Bool())
	case 1:
		return String(d.String())
	case 2:
		return Float32(d.float32())
	case 7:
		return Vector3{d.float32(), d.float32(), d.float32()}
	case 16:
		return Enum(d.Uvarint())
	}
	t := binaryRType[tag[0]-1]
	v := reflect.New(t).Elem()
	d.reflectValue(v)
	if d.err != nil {
		return nil
	}
	return v.Interface().(Value)
}

func (d *Decoder) reflectValue(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(d.Bool())
	case reflect.String:
		v.SetString(d.String())
	case reflect.Float32:
		v.SetFloat(float64(d.float32()))
	case reflect.Float64:
		b := d.Raw(8)
		if b != nil {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		x := d.Varint()
		if v.OverflowInt(x) {
			d.fail("number out of range")
			return
		}
		v.SetInt(x)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		x := d.Uvarint()
		if v.OverflowUint(x) {
			d.fail("number out of range")
			return
		}
		v.SetUint(x)
	case reflect.Array:
		for i := range v.Len() {
			d.reflectValue(v.Index(i))
		}
	case reflect.Slice:
		n, ok := d.optCount(1)
		if !ok {
			return // nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(append([]byte{}, d.Raw(n)...))
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			d.reflectValue(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			d.reflectValue(v.Field(i))
		}
	case reflect.Pointer:
		if d.Bool() {
			p := reflect.New(v.Type().Elem())
			d.reflectValue(p.Elem())
			v.Set(p)
		}
	case reflect.Map:
		n, ok := d.optCount(2)
		if !ok {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k := reflect.ValueOf(d.String()).Convert(v.Type().Key())
			e := reflect.New(v.Type().Elem()).Elem()
			d.reflectValue(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if x := d.Value(); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		d.fail("unexpected kind")
	}
}

// Instance reads an instance tree written by Encoder.Instance; ids are not set.
func (d *Decoder) Instance() *Instance {
	i := &Instance{
		Name:      d.String(),
		ClassName: d.String(),
		FsPath:    d.String(),
		Kind:      FileKind(d.Uvarint()),
	}
	i.SetMetaPath(d.String())
	file := d.String()
	var keys []string
	hasKeys := d.Bool()
	if n := d.Count(1); hasKeys {
		keys = make([]string, n)
		for k := range keys {
			keys[k] = d.String()
		}
	}
	i.SetProjectNode(file, keys)
	i.IgnoreUnknown = d.Bool()
	i.SetRefID(d.String())
	i.SourceHash = d.String()
	i.RawHash = d.String()
	i.Handle = d.String()
	n := d.Count(2)
	props := make([]Property, n)
	for k := range props {
		props[k] = Property{d.String(), d.Value()}
	}
	i.Properties = MakeProps(props)
	if n := d.Count(1); n > 0 {
		i.Children = make([]*Instance, 0, n)
		for range n {
			c := d.Instance()
			if d.err != nil {
				return i
			}
			i.AddChild(c)
		}
	}
	return i
}
