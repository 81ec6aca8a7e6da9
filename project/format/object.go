package format

import (
	"bytes"
	"encoding/json"
)

// Object is a JSON object whose members are written in the order given, for files
// a person reads and diffs (meta, model and project files). A Member's Value is a
// json.RawMessage, written as is; an Expanded, laid out one element a line; an
// Object; a []Object; or a string or bool.
type Object []Member

// Expanded is JSON that Indented lays out one element a line at its member's
// indent, as a pretty printer does (Rojo's own files); Compact writes it as is.
type Expanded json.RawMessage

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Indented returns o as a file: one member a line, two-space indents, and a final
// line break.
func (o Object) Indented() []byte {
	var b bytes.Buffer
	o.writeIndented(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func (o Object) writeIndented(b *bytes.Buffer, indent string) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, m := range o {
		b.WriteString(indent + "  ")
		writeKey(b, m.Key)
		writeIndentedValue(b, m.Value, indent+"  ")
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

// writeIndentedValue writes a member's value whose line starts at indent.
func writeIndentedValue(b *bytes.Buffer, v any, indent string) {
	switch v := v.(type) {
	case json.RawMessage:
		b.Write(v)
	case Expanded:
		if err := json.Indent(b, v, indent, "  "); err != nil {
			b.Write(v)
		}
	case Object:
		v.writeIndented(b, indent)
	case []Object:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for j, e := range v {
			b.WriteString(indent + "  ")
			e.writeIndented(b, indent+"  ")
			if j < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string, bool:
		enc, _ := EncodeJSON(v) // strings and bools always encode
		b.Write(enc)
	}
}

// Compact returns o on one line, with a space after each ',' and ':', for a value
// patched into a file that already exists.
func (o Object) Compact() json.RawMessage {
	var b bytes.Buffer
	o.writeCompact(&b)
	return b.Bytes()
}

func (o Object) writeCompact(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		writeKey(b, m.Key)
		switch v := m.Value.(type) {
		case json.RawMessage:
			b.Write(v)
		case Expanded:
			b.Write(v)
		case string, bool:
			enc, _ := EncodeJSON(v)
			b.Write(enc)
		case Object:
			v.writeCompact(b)
		case []Object:
			b.WriteByte('[')
			for j, e := range v {
				if j > 0 {
					b.WriteString(", ")
				}
				e.writeCompact(b)
			}
			b.WriteByte(']')
		}
	}
	b.WriteByte('}')
}

// writeKey writes a member's key and the colon after it.
func writeKey(b *bytes.Buffer, key string) {
	k, _ := EncodeJSON(key) // a string always encodes
	b.Write(k)
	b.WriteString(": ")
}

// EncodeJSON is json.Marshal without escaping <, > and &, which are common in code.
func EncodeJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// SpacedJSON reformats compact JSON with a space after each ',' and ':' and
// without the \u escapes encoding/json uses for <, > and &.
func SpacedJSON(compact []byte) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(compact) + len(compact)/4)
	inString := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			switch {
			case c == '\\' && i+1 < len(compact):
				if compact[i+1] == 'u' && i+5 < len(compact) {
					if r, ok := htmlEscapes[string(compact[i+2:i+6])]; ok {
						b.WriteByte(r)
						i += 5
						continue
					}
				}
				b.WriteByte(c)
				b.WriteByte(compact[i+1])
				i++
			case c == '"':
				inString = false
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
			continue
		}
		b.WriteByte(c)
		switch c {
		case '"':
			inString = true
		case ',', ':':
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

// htmlEscapes are the \u escapes encoding/json writes for HTML characters, by
// their four hex digits.
var htmlEscapes = map[string]byte{"003c": '<', "003e": '>', "0026": '&'}
