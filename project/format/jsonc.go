package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
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

// ObjectKeys returns the keys of the JSON object raw in document order, a repeated
// key as often as it appears. Applied to the output of ParseJSONC, which has merged
// duplicates, it gives each key once, in the order the file first wrote it.
func ObjectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("read object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("read object: not a JSON object")
	}
	keys := []string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read object key: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("read object key: unexpected %v", tok)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("read value of %q: %w", key, err)
		}
		keys = append(keys, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("read object end: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("read object: data after the object")
	}
	return keys, nil
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

type tokKind int

const (
	tokEOF tokKind = iota
	tokOpenBrace
	tokCloseBrace
	tokOpenBracket
	tokCloseBracket
	tokComma
	tokColon
	tokString
	tokNumber
	tokWord
	tokTrue
	tokFalse
	tokNull
)

type token struct {
	kind       tokKind
	start, end int
	text       string // decoded string, raw number or word
}

// punctuation maps the one-byte tokens to their kind.
var punctuation = [256]tokKind{'{': tokOpenBrace, '}': tokCloseBrace, '[': tokOpenBracket,
	']': tokCloseBracket, ',': tokComma, ':': tokColon}

type scanner struct {
	src string
	pos int
	tok token
}

func newError(src string, offset int, msg string) *SyntaxError {
	if offset > len(src) {
		offset = len(src)
	}
	line, lineStart := 1, 0
	for i := 0; i < offset; i++ {
		if src[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	col := 1 + utf8.RuneCountInString(src[lineStart:offset])
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

func (s *scanner) errAt(offset int, msg string) *SyntaxError {
	return newError(s.src, offset, msg)
}

// next scans the next token, skipping whitespace and comments.
func (s *scanner) next() error {
	for {
		s.skipSpace()
		if s.pos+1 < len(s.src) && s.src[s.pos] == '/' && s.src[s.pos+1] == '/' {
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
			continue
		}
		if s.pos+1 < len(s.src) && s.src[s.pos] == '/' && s.src[s.pos+1] == '*' {
			end := strings.Index(s.src[s.pos+2:], "*/")
			if end < 0 {
				return s.errAt(s.pos, "unterminated comment block")
			}
			s.pos += 2 + end + 2
			continue
		}
		break
	}
	start := s.pos
	s.tok = token{start: start}
	if start >= len(s.src) {
		s.tok.kind, s.tok.end = tokEOF, start
		return nil
	}
	c := s.src[start]
	switch {
	case punctuation[c] != tokEOF:
		s.pos++
		s.tok.kind = punctuation[c]
	case c == '"' || c == '\'':
		if err := s.scanString(); err != nil {
			return err
		}
	case c == '/':
		return s.errAt(start, "unexpected token")
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		if err := s.scanNumber(); err != nil {
			return err
		}
	case c == 't' && s.keyword("true"):
		s.tok.kind = tokTrue
	case c == 'f' && s.keyword("false"):
		s.tok.kind = tokFalse
	case c == 'n' && s.keyword("null"):
		s.tok.kind = tokNull
	default:
		if err := s.scanWord(); err != nil {
			return err
		}
	}
	s.tok.end = s.pos
	if s.tok.kind != tokString && s.tok.kind != tokNumber {
		s.tok.text = s.src[start:s.pos]
	}
	return nil
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			s.pos++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s.src[s.pos:])
			if unicode.IsSpace(r) {
				s.pos += size
				continue
			}
		}
		return
	}
}

// isAlnum reports whether r is alphanumeric the way Rust's char::is_alphanumeric is.
func isAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.Other_Alphabetic)
}

// keyword consumes word if it is not followed by an alphanumeric character.
func (s *scanner) keyword(word string) bool {
	if !strings.HasPrefix(s.src[s.pos:], word) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(s.src[s.pos+len(word):]); r != utf8.RuneError && isAlnum(r) {
		return false
	}
	s.pos += len(word)
	return true
}

func (s *scanner) scanWord() error {
	start := s.pos
	for s.pos < len(s.src) {
		r, size := utf8.DecodeRuneInString(s.src[s.pos:])
		if r == ':' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' ||
			(r >= utf8.RuneSelf && unicode.IsSpace(r)) {
			break
		}
		if !isAlnum(r) && r != '-' && r != '_' {
			return s.errAt(start, "unexpected token")
		}
		s.pos += size
	}
	if s.pos == start {
		return s.errAt(start, "unexpected token")
	}
	s.tok.kind = tokWord
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

func (s *scanner) scanNumber() error {
	start := s.pos
	negative := s.src[s.pos] == '-'
	if s.src[s.pos] == '-' || s.src[s.pos] == '+' {
		s.pos++
	}
	s.tok.kind = tokNumber
	switch c := s.at(s.pos); {
	case c == '0':
		s.pos++
		if x := s.at(s.pos); x == 'x' || x == 'X' {
			s.pos++
			digits := s.pos
			for isHexDigit(s.at(s.pos)) {
				s.pos++
			}
			if s.pos == digits {
				return s.errAt(s.pos, "expected digit")
			}
			n, _ := new(big.Int).SetString(s.src[digits:s.pos], 16)
			if negative {
				n.Neg(n)
			}
			s.tok.text = n.String()
			return nil
		}
	case c >= '1' && c <= '9':
		for isDigit(s.at(s.pos)) {
			s.pos++
		}
	default:
		return s.errAt(s.pos, "expected digit following negative sign")
	}
	if s.at(s.pos) == '.' {
		s.pos++
		if !isDigit(s.at(s.pos)) {
			return s.errAt(s.pos, "expected digit")
		}
		for isDigit(s.at(s.pos)) {
			s.pos++
		}
	}
	if e := s.at(s.pos); e == 'e' || e == 'E' {
		s.pos++
		switch c := s.at(s.pos); {
		case c == '-' || c == '+':
			s.pos++
			if !isDigit(s.at(s.pos)) {
				return s.errAt(s.pos, "expected digit")
			}
		case isDigit(c):
		default:
			return s.errAt(s.pos, "expected plus, minus, or digit in number literal")
		}
		for isDigit(s.at(s.pos)) {
			s.pos++
		}
	}
	s.tok.text = strings.TrimPrefix(s.src[start:s.pos], "+")
	return nil
}

func (s *scanner) scanString() error {
	start := s.pos
	quote := s.src[s.pos]
	s.pos++
	var b strings.Builder
	for {
		if s.pos >= len(s.src) {
			return s.errAt(start, "unterminated string literal")
		}
		c := s.src[s.pos]
		if c == quote {
			s.pos++
			s.tok.kind, s.tok.text = tokString, b.String()
			return nil
		}
		if c != '\\' {
			b.WriteByte(c)
			s.pos++
			continue
		}
		esc := s.pos
		s.pos++
		switch e := s.at(s.pos); e {
		case '"', '\'':
			if e != quote {
				if quote == '"' {
					return s.errAt(esc, "invalid escape in double quote string")
				}
				return s.errAt(esc, "invalid escape in single quote string")
			}
			b.WriteByte(e)
			s.pos++
		case '\\', '/':
			b.WriteByte(e)
			s.pos++
		case 'b':
			b.WriteByte('\b')
			s.pos++
		case 'f':
			b.WriteByte('\f')
			s.pos++
		case 'n':
			b.WriteByte('\n')
			s.pos++
		case 'r':
			b.WriteByte('\r')
			s.pos++
		case 't':
			b.WriteByte('\t')
			s.pos++
		case 'u':
			r, ok := s.hex4(s.pos + 1)
			if !ok {
				return s.errAt(esc, "expected four hex digits")
			}
			s.pos += 5
			if r >= 0xD800 && r < 0xDC00 && s.at(s.pos) == '\\' && s.at(s.pos+1) == 'u' {
				if lo, ok := s.hex4(s.pos + 2); ok && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					s.pos += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				return s.errAt(esc, fmt.Sprintf("invalid unicode escape sequence: %04x is a lone surrogate", r))
			}
			b.WriteRune(r)
		default:
			return s.errAt(esc, "invalid escape")
		}
	}
}

func (s *scanner) hex4(i int) (rune, bool) {
	if i+4 > len(s.src) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s.src[i : i+4]) {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
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
	if err := p.s.next(); err != nil {
		return nil, err
	}
	v, err := p.value()
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
		if err := p.s.next(); err != nil {
			return nil, err
		}
		v, err := p.value()
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
