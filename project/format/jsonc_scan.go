package format

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a JSONC token; the scanner below cuts a file into tokens
// for the parser in jsonc.go.
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
	if offset == 0 && strings.HasPrefix(s.src, "\uFEFF") {
		msg += ": the file starts with a UTF-8 byte order mark, which JSON does not allow; save it as UTF-8 without BOM"
	}
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
