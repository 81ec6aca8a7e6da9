package syncback

import (
	"bytes"
	"encoding/json"
)

// jsonObj is a JSON object that keeps its members in order, rendered with two-space
// indents like the project files people write.
type jsonObj []member

type member struct {
	key string
	val any // string, json.RawMessage or jsonObj
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
		switch v := m.val.(type) {
		case jsonObj:
			v.write(b, indent+"  ")
		case json.RawMessage:
			b.Write(v)
		default:
			enc, _ := json.Marshal(v)
			b.Write(enc)
		}
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}
