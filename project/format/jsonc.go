package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects. It is the limit encoding/json
// itself applies, so whatever ParseJSONC accepts can be unmarshalled.
const maxDepth = 10000

// SyntaxError is a JSONC file that cannot be parsed. Line and Column are 1-based;
// Column counts characters, not bytes, like the parser Rojo uses.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// ParseJSONC parses lenient JSONC as Rojo 7.7 does (its jsonc-parser dependency) and
// returns the same value as standard, compact JSON that encoding/json can unmarshal.
//
// Accepted beyond JSON: // and /* */ comments, trailing commas, missing commas between
// elements, unquoted object keys (words made of letters, digits, '-' and '_', and
// numbers), single-quoted strings, hexadecimal numbers (0x1F) and a unary plus. A
// string may hold raw control characters; a surrogate pair written as two \u escapes
// is joined, a lone surrogate is an error.
//
// When a key appears twice in an object, the last value wins; the key stays at the
// position of its first occurrence. Numbers keep their digits (a hexadecimal number is
// written in decimal); a number too large for a float64 is an error.
//
// An input that is empty or holds only whitespace and comments is an error ("contains
// no JSON value"), and so is a leading UTF-8 byte order mark and invalid UTF-8. Every
// error is a *SyntaxError.
func ParseJSONC(data []byte) (json.RawMessage, error) {
	root, err := parseJSONC(data)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	writeJSON(&buf, root)
	return json.RawMessage(buf.Bytes()), nil
}

// ParseJSONCUnordered is ParseJSONC for a document whose objects are read into maps
// and structs only, never in the order of their keys (a model file, a meta file).
// Standard JSON comes back as it is, without the rewrite. Anything else, and standard
// JSON that ParseJSONC would refuse or change in meaning, goes through ParseJSONC: a
// lone surrogate escape, a number out of a float64's range, and a key an object
// repeats (ParseJSONC keeps its last value, where encoding/json merges a repeated
// object into the map or struct the first one filled).
func ParseJSONCUnordered(data []byte) (json.RawMessage, error) {
	if plainJSON(data) && !repeatsKey(data) {
		return data, nil
	}
	return ParseJSONC(data)
}

// maxKeysChecked is how many keys of one object repeatsKey compares; an object with
// more is taken as repeating one.
const maxKeysChecked = 64

// repeatsKey reports whether an object in data, which is valid JSON, has a key twice,
// or a key with an escape (which could spell another key). It errs on the side of true.
func repeatsKey(data []byte) bool {
	// the keys of the open objects, innermost last, and where each open object's keys
	// start in keys (arrays on the stack, for most files)
	var keysBuf [2 * maxKeysChecked][]byte
	var openedBuf [32]int
	keys, opened := keysBuf[:0], openedBuf[:0]
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			opened = append(opened, len(keys))
		case '}':
			if len(opened) == 0 {
				return true
			}
			keys = keys[:opened[len(opened)-1]]
			opened = opened[:len(opened)-1]
		case '"':
			start, escaped := i+1, false
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					escaped = true
					i++
				}
			}
			end := i
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
				j++
			}
			if j == len(data) || data[j] != ':' {
				continue // a value, not a key
			}
			if escaped || len(opened) == 0 {
				return true
			}
			key := data[start:end]
			from := opened[len(opened)-1]
			if len(keys)-from >= maxKeysChecked {
				return true
			}
			for _, k := range keys[from:] {
				if bytes.Equal(k, key) {
					return true
				}
			}
			keys = append(keys, key)
		}
	}
	return false
}

// plainJSON reports whether data is standard JSON, in UTF-8, that decodes to the same
// values as ParseJSONC's output: no surrogate escape, no exponent, no run of digits a
// float64 may not hold (it errs on the side of false).
func plainJSON(data []byte) bool {
	digits := 0
	for i, c := range data {
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits > 300 {
				return false
			}
			continue
		case (c == 'e' || c == 'E') && digits > 0:
			return false // an exponent, or a word after a digit in a string
		case c == 'u' && i > 0 && data[i-1] == '\\' && i+1 < len(data) && (data[i+1] == 'd' || data[i+1] == 'D'):
			return false // \uDxxx: maybe a surrogate
		}
		digits = 0
	}
	return utf8.Valid(data) && json.Valid(data)
}

// ObjectKeys returns the keys of the JSON object raw in document order, a repeated
// key as often as it appears. Applied to the output of ParseJSONC, which has merged
// duplicates, it gives each key once, in the order the file first wrote it.
func ObjectKeys(raw json.RawMessage) ([]string, error) {
	if !json.Valid(raw) {
		// the decoder's own words for what is wrong
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("read object: %w", err)
		}
		return nil, errors.New("read object: not valid JSON")
	}
	return ValidObjectKeys(raw)
}

// ValidObjectKeys is ObjectKeys of raw known to be valid JSON (json.Unmarshal took it):
// a scan of the top level, which a model file's every instance goes through (a
// decoder's tokens cost many times more).
func ValidObjectKeys(raw json.RawMessage) ([]string, error) {
	keys := []string{}
	err := ValidMembers(raw, func(key string, _ json.RawMessage) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// ValidMembers calls fn with each member of the object raw, which is valid JSON, in
// document order: its key, decoded as encoding/json decodes it, and its value's bytes
// (a part of raw, without the whitespace around it). It stops at fn's first error.
func ValidMembers(raw json.RawMessage, fn func(key string, value json.RawMessage) error) error {
	i := skipJSONSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return errors.New("read object: not a JSON object")
	}
	for i++; ; {
		i = skipJSONSpace(raw, i)
		switch raw[i] {
		case '}':
			return nil
		case ',':
			i++
			continue
		}
		end := jsonValueEnd(raw, i) // the key, a string
		key, err := JSONString(raw[i:end])
		if err != nil {
			return fmt.Errorf("read object key: %w", err)
		}
		start := skipJSONSpace(raw, skipJSONSpace(raw, end)+1) // past the colon
		i = jsonValueEnd(raw, start)
		if err := fn(key, raw[start:i]); err != nil {
			return err
		}
	}
}

// ValidElements calls fn with each element of the array raw, which is valid JSON, in
// order (each a part of raw, without the whitespace around it). ok is false when raw
// is not an array.
func ValidElements(raw json.RawMessage, fn func(value json.RawMessage)) (ok bool) {
	i := skipJSONSpace(raw, 0)
	if i == len(raw) || raw[i] != '[' {
		return false
	}
	for i++; ; {
		i = skipJSONSpace(raw, i)
		switch raw[i] {
		case ']':
			return true
		case ',':
			i++
			continue
		}
		end := jsonValueEnd(raw, i)
		fn(raw[i:end])
		i = end
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd returns the index just past the value that starts at b[i], in valid
// JSON.
func jsonValueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the end of the enclosing object or array
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i // after a number or a literal
			}
		}
	}
	return i
}

// JSONString decodes a JSON string, valid JSON, as encoding/json does (bytes that are
// not UTF-8 become U+FFFD).
func JSONString(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 && utf8.Valid(quoted) {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var key string
	err := json.Unmarshal(quoted, &key)
	return key, err
}

// kind is the type of a parsed JSONC value.
type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is a parsed JSONC value together with where it sits in the source.
type node struct {
	kind kind
	// start and end are the byte offsets of the value: for an array or object, from
	// its opening bracket to just after its closing one.
	start, end int
	b          bool
	num        string  // JSON text of a number (decimal, no unary plus)
	f          float64 // value of a number
	str        string
	elems      []*node
	members    []member // in document order, duplicates included
}

// member is one key/value pair of an object.
type member struct {
	key              string
	keyStart, keyEnd int
	value            *node
	// comma is the offset of the comma after the value, or -1 if there is none.
	comma int
}

type parser struct {
	s     scanner
	depth int
}

// parseJSONC parses data into a tree that keeps every member and its position.
func parseJSONC(data []byte) (*node, error) {
	src := string(data)
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return nil, newError(src, i, "invalid UTF-8")
	}
	p := &parser{s: scanner{src: src}}
	v, err := p.nextValue()
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "contains no JSON value"}
	}
	if err := p.s.next(); err != nil {
		return nil, err
	}
	if p.s.tok.kind != tokEOF {
		return nil, p.s.errAt(p.s.tok.start, "text cannot contain more than one JSON value")
	}
	return v, nil
}

// nextValue scans the next token and parses the value it starts, as value does.
func (p *parser) nextValue() (*node, error) {
	if err := p.s.next(); err != nil {
		return nil, err
	}
	return p.value()
}

// value parses the value starting at the current token, which it leaves as the last
// token of the value. It returns nil at the end of the input.
func (p *parser) value() (*node, error) {
	t := p.s.tok
	n := &node{start: t.start, end: t.end}
	switch t.kind {
	case tokEOF:
		return nil, nil
	case tokOpenBrace, tokOpenBracket:
		p.depth++
		if p.depth > maxDepth {
			return nil, p.s.errAt(t.start, "nesting too deep")
		}
		defer func() { p.depth-- }()
		if t.kind == tokOpenBrace {
			return p.object()
		}
		return p.array()
	case tokString:
		n.kind, n.str = kindString, t.text
	case tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil && (math.IsInf(f, 0) || !errors.Is(err, strconv.ErrRange)) {
			return nil, p.s.errAt(t.start, "number out of range")
		}
		n.kind, n.num, n.f = kindNumber, t.text, f
	case tokTrue, tokFalse:
		n.kind, n.b = kindBool, t.kind == tokTrue
	case tokNull:
		n.kind = kindNull
	case tokCloseBracket:
		return nil, p.s.errAt(t.start, "unexpected close bracket")
	case tokCloseBrace:
		return nil, p.s.errAt(t.start, "unexpected close brace")
	case tokComma:
		return nil, p.s.errAt(t.start, "unexpected comma")
	case tokColon:
		return nil, p.s.errAt(t.start, "unexpected colon")
	default:
		return nil, p.s.errAt(t.start, "unexpected word")
	}
	return n, nil
}

func (p *parser) object() (*node, error) {
	n := &node{kind: kindObject, start: p.s.tok.start}
	if err := p.s.next(); err != nil {
		return nil, err
	}
	for {
		t := p.s.tok
		switch t.kind {
		case tokCloseBrace:
			n.end = t.end
			return n, nil
		case tokString, tokWord, tokNumber, tokTrue, tokFalse, tokNull:
		case tokEOF:
			return nil, p.s.errAt(n.start, "unterminated object")
		default:
			return nil, p.s.errAt(t.start, "unexpected token in object")
		}
		m := member{key: t.text, keyStart: t.start, keyEnd: t.end, comma: -1}
		if t.kind == tokNumber {
			// A number used as a key keeps the text it was written with.
			m.key = p.s.src[t.start:t.end]
		}
		if err := p.s.next(); err != nil {
			return nil, err
		}
		if p.s.tok.kind != tokColon {
			return nil, p.s.errAt(p.s.tok.start, "expected colon after the string or word in object property")
		}
		v, err := p.nextValue()
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, p.s.errAt(p.s.tok.start, "expected value after colon in object property")
		}
		m.value = v
		if err := p.s.next(); err != nil {
			return nil, err
		}
		if p.s.tok.kind == tokComma {
			m.comma = p.s.tok.start
			if err := p.s.next(); err != nil {
				return nil, err
			}
		}
		n.members = append(n.members, m)
	}
}

func (p *parser) array() (*node, error) {
	n := &node{kind: kindArray, start: p.s.tok.start, elems: []*node{}}
	if err := p.s.next(); err != nil {
		return nil, err
	}
	for {
		switch p.s.tok.kind {
		case tokCloseBracket:
			n.end = p.s.tok.end
			return n, nil
		case tokEOF:
			return nil, p.s.errAt(n.start, "unterminated array")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.s.next(); err != nil {
			return nil, err
		}
		if p.s.tok.kind == tokComma {
			if err := p.s.next(); err != nil {
				return nil, err
			}
		}
	}
}

// merged returns the members of an object with duplicates removed: each key at the
// position of its first occurrence, with the value of its last.
func (n *node) merged() []member {
	index := make(map[string]int, len(n.members))
	out := make([]member, 0, len(n.members))
	for _, m := range n.members {
		if i, ok := index[m.key]; ok {
			out[i].value = m.value
			continue
		}
		index[m.key] = len(out)
		out = append(out, m)
	}
	return out
}

// writeJSON writes n as compact, standard JSON.
func writeJSON(buf *bytes.Buffer, n *node) {
	switch n.kind {
	case kindNull:
		buf.WriteString("null")
	case kindBool:
		buf.WriteString(strconv.FormatBool(n.b))
	case kindNumber:
		buf.WriteString(n.num)
	case kindString:
		writeJSONString(buf, n.str)
	case kindArray:
		buf.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSON(buf, e)
		}
		buf.WriteByte(']')
	case kindObject:
		buf.WriteByte('{')
		for i, m := range n.merged() {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, m.key)
			buf.WriteByte(':')
			writeJSON(buf, m.value)
		}
		buf.WriteByte('}')
	}
}

// writeJSONString writes s as a JSON string the way serde_json does: only '"', '\\'
// and control characters are escaped; everything else, HTML characters and U+2028
// included, is written as is.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			buf.WriteString(`\"`)
		case c == '\\':
			buf.WriteString(`\\`)
		case c == '\b':
			buf.WriteString(`\b`)
		case c == '\f':
			buf.WriteString(`\f`)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[c>>4])
			buf.WriteByte(hex[c&0xF])
		default:
			buf.WriteByte(c)
		}
	}
	buf.WriteByte('"')
}
