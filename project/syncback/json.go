package syncback

import (
	"bytes"
	"encoding/json"
)

// jsonObj is a JSON object that keeps its members in order, rendered as Rojo
// renders its files: two-space indents, one array element per line.
type jsonObj []member

type member struct {
	key string
	val any // string, json.RawMessage, jsonObj or []jsonObj
}

func (o jsonObj) render() []byte {
	var b bytes.Buffer
	o.write(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func (o jsonObj) write(b *bytes.Buffer, indent string) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, m := range o {
		b.WriteString(indent + "  ")
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteString(": ")
		writeValue(b, m.val, indent+"  ")
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

func writeValue(b *bytes.Buffer, v any, indent string) {
	switch v := v.(type) {
	case jsonObj:
		v.write(b, indent)
	case []jsonObj:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, o := range v {
			b.WriteString(indent + "  ")
			o.write(b, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case json.RawMessage:
		var out bytes.Buffer
		if err := json.Indent(&out, v, indent, "  "); err != nil {
			b.Write(v)
			return
		}
		b.Write(out.Bytes())
	default:
		enc, _ := json.Marshal(v)
		b.Write(enc)
	}
}
