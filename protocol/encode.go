package protocol

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/atlas-rbx/atlas/dom"
)

// EncodeOps returns the JSON of ops, which json.Unmarshal reads back as it reads
// json.Marshal(ops). It is encoded once, for the journal and the wire: an apply of
// 1,000 scripts carries megabytes of sources, and json.Marshal scans every value
// again to compact it. Each value is checked to be one JSON value, cheaply for a
// string (a Source), and copied as it is.
func EncodeOps(ops []Op) ([]byte, error) {
	if ops == nil {
		return []byte("null"), nil
	}
	size := 2
	for i := range ops {
		size += 64 + valuesSize(ops[i].Set)
		if ops[i].Expect != nil {
			size += 64 + valuesSize(ops[i].Expect.Properties)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i := range ops {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendOp(b, &ops[i]); err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
	}
	return append(b, ']'), nil
}

// SplitOps cuts ops into runs of about pieceBytes of JSON each (at least one op
// each), in order: the pieces of an apply staged in several requests.
func SplitOps(ops []Op, pieceBytes int) [][]Op {
	var out [][]Op
	for start := 0; start < len(ops); {
		end, size := start, 0
		for end < len(ops) && (end == start || size < pieceBytes) {
			size += opSize(&ops[end])
			end++
		}
		out = append(out, ops[start:end:end])
		start = end
	}
	return out
}

// JoinOps joins the EncodeOps of consecutive runs of ops into the EncodeOps of them
// all: the arrays' elements, in order, in one array.
func JoinOps(pieces [][]byte) []byte {
	n := 2
	for _, p := range pieces {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for _, p := range pieces {
		inner := p[1 : len(p)-1]
		if len(inner) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, inner...)
	}
	return append(b, ']')
}

// opSize is about how many bytes op takes as JSON (at least its values' raw bytes).
func opSize(op *Op) int {
	n := 64 + valuesSize(op.Set)
	if op.Expect != nil {
		n += 64 + valuesSize(op.Expect.Properties)
	}
	if op.Instance != nil {
		n += instanceSize(op.Instance)
	}
	return n
}

func instanceSize(i *NewInstance) int {
	n := 64 + len(i.Name) + len(i.ClassName) + valuesSize(i.Properties)
	for _, c := range i.Children {
		n += instanceSize(c)
	}
	return n
}

func valuesSize(v Values) int {
	n := 0
	for k, raw := range v {
		n += len(k) + len(raw) + 4
	}
	return n
}

// appendOp appends op as json.Marshal would (the same fields, omitempty alike).
func appendOp(b []byte, op *Op) ([]byte, error) {
	var err error
	b = append(b, `{"op":`...)
	b = AppendString(b, string(op.Op))
	if op.Handle != "" {
		b = append(b, `,"handle":`...)
		b = AppendString(b, op.Handle)
	}
	if op.Parent != "" {
		b = append(b, `,"parent":`...)
		b = AppendString(b, op.Parent)
	}
	if e := op.Expect; e != nil {
		b = append(b, `,"expect":{`...)
		first := true
		if e.SourceSha1 != "" {
			b = append(b, `"sourceSha1":`...)
			b = AppendString(b, e.SourceSha1)
			first = false
		}
		if len(e.Properties) > 0 {
			if !first {
				b = append(b, ',')
			}
			b = append(b, `"properties":`...)
			if b, err = appendValues(b, e.Properties); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if len(op.Set) > 0 {
		b = append(b, `,"set":`...)
		if b, err = appendValues(b, op.Set); err != nil {
			return nil, err
		}
	}
	if op.Instance != nil {
		b = append(b, `,"instance":`...)
		if b, err = appendNewInstance(b, op.Instance); err != nil {
			return nil, err
		}
	}
	if op.ChangeID != "" {
		b = append(b, `,"changeId":`...)
		b = AppendString(b, op.ChangeID)
	}
	return append(b, '}'), nil
}

func appendNewInstance(b []byte, n *NewInstance) ([]byte, error) {
	if n == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"name":`...)
	b = AppendString(b, n.Name)
	b = append(b, `,"className":`...)
	b = AppendString(b, n.ClassName)
	b = append(b, `,"properties":`...)
	var err error
	if b, err = appendValues(b, n.Properties); err != nil {
		return nil, err
	}
	b = append(b, `,"children":`...)
	if n.Children == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendNewInstance(b, c); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendValues appends v with its keys sorted, as json.Marshal does; nil is null.
func appendValues(b []byte, v Values) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		raw := v[k]
		if raw == nil {
			raw = json.RawMessage("null") // as json.Marshal writes a nil RawMessage
		} else if !validValue(raw) {
			return nil, fmt.Errorf("value of %q is not JSON", k)
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

// AppendString appends s as a JSON string, byte for byte as json.Marshal writes it
// (dom.AppendJSONString).
func AppendString(b []byte, s string) []byte { return dom.AppendJSONString(b, s) }

// validValue reports whether raw is one JSON value: a tagged string such as
// {"String":"…"} (a Source) is checked in one pass, anything else (or a string the
// pass does not take) by encoding/json.
func validValue(raw []byte) bool {
	if body, ok := taggedStringBody(raw); ok && dom.ValidStringBody(body) {
		return true
	}
	return json.Valid(raw)
}

// taggedStringBody returns the body of the string in raw when raw is exactly
// {"<letters>":"<body>"} with no spaces.
func taggedStringBody(raw []byte) ([]byte, bool) {
	if len(raw) < 7 || raw[0] != '{' || raw[1] != '"' || raw[len(raw)-1] != '}' || raw[len(raw)-2] != '"' {
		return nil, false
	}
	i := 2
	for i < len(raw) && (raw[i] >= 'a' && raw[i] <= 'z' || raw[i] >= 'A' && raw[i] <= 'Z' || raw[i] >= '0' && raw[i] <= '9') {
		i++
	}
	if i == 2 || i+3 > len(raw)-2 || raw[i] != '"' || raw[i+1] != ':' || raw[i+2] != '"' {
		return nil, false
	}
	return raw[i+3 : len(raw)-2], true
}
