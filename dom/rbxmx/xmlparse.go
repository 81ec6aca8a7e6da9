package rbxmx

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The document is parsed by a small XML reader rather than encoding/xml because
// Roblox strings may hold control characters (written as &#1; and the like) and
// bytes that are not UTF-8, which a conforming parser rejects, and because errors
// should carry line numbers for every element.

// maxDepth bounds element nesting so that hostile input cannot exhaust the stack
// of the recursive decoder.
const maxDepth = 2048

// node is one element of the parsed document.
type node struct {
	name     string
	attrs    []xmlAttr
	children []*node
	text     []byte // character data and CDATA directly inside the element, concatenated
	offset   int    // byte offset of the start tag, for line numbers
}

type xmlAttr struct{ name, value string }

func (n *node) attr(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// parser turns a document into a node tree.
type parser struct {
	data []byte
	pos  int
}

// syntaxError is a parse error at a byte offset.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

func lineAt(data []byte, offset int) int {
	if offset > len(data) {
		offset = len(data)
	}
	return bytes.Count(data[:offset], []byte{'\n'}) + 1
}

func (p *parser) errorf(offset int, format string, args ...any) error {
	return &syntaxError{offset: offset, msg: fmt.Sprintf(format, args...)}
}

// parseXML returns the root element of data.
func parseXML(data []byte) (*node, error) {
	p := &parser{data: data}
	p.pos = len(bomPrefix(data))
	var root *node
	var stack []*node
	for p.pos < len(p.data) {
		if p.data[p.pos] != '<' {
			start := p.pos
			text, err := p.charData()
			if err != nil {
				return nil, err
			}
			if len(stack) == 0 {
				if len(bytes.TrimSpace(text)) > 0 {
					return nil, p.errorf(start, "text outside the root element")
				}
				continue
			}
			top := stack[len(stack)-1]
			top.text = append(top.text, text...)
			continue
		}
		switch {
		case bytes.HasPrefix(p.data[p.pos:], []byte("<!--")):
			if err := p.skipPast(p.pos+4, "-->", "comment"); err != nil {
				return nil, err
			}
		case bytes.HasPrefix(p.data[p.pos:], []byte("<![CDATA[")):
			if len(stack) == 0 {
				return nil, p.errorf(p.pos, "CDATA outside the root element")
			}
			start := p.pos + len("<![CDATA[")
			end := bytes.Index(p.data[start:], []byte("]]>"))
			if end < 0 {
				return nil, p.errorf(p.pos, "unterminated CDATA section")
			}
			top := stack[len(stack)-1]
			top.text = appendNormalized(top.text, p.data[start:start+end])
			p.pos = start + end + 3
		case bytes.HasPrefix(p.data[p.pos:], []byte("<?")):
			if err := p.skipPast(p.pos+2, "?>", "processing instruction"); err != nil {
				return nil, err
			}
		case bytes.HasPrefix(p.data[p.pos:], []byte("<!")):
			if len(stack) > 0 || root != nil {
				return nil, p.errorf(p.pos, "unexpected <! declaration")
			}
			if err := p.skipDoctype(); err != nil {
				return nil, err
			}
		case bytes.HasPrefix(p.data[p.pos:], []byte("</")):
			start := p.pos
			p.pos += 2
			name := p.name()
			p.skipSpace()
			if p.pos >= len(p.data) || p.data[p.pos] != '>' {
				return nil, p.errorf(start, "malformed end tag </%s", name)
			}
			p.pos++
			if len(stack) == 0 {
				return nil, p.errorf(start, "end tag </%s> without a start tag", name)
			}
			top := stack[len(stack)-1]
			if top.name != name {
				return nil, p.errorf(start, "end tag </%s> does not match <%s> (line %d)", name, top.name, lineAt(p.data, top.offset))
			}
			stack = stack[:len(stack)-1]
		default:
			n, selfClosing, err := p.startTag()
			if err != nil {
				return nil, err
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, p.errorf(n.offset, "second root element <%s>", n.name)
				}
				root = n
			} else {
				top := stack[len(stack)-1]
				top.children = append(top.children, n)
			}
			if !selfClosing {
				if len(stack) >= maxDepth {
					return nil, p.errorf(n.offset, "elements nested deeper than %d", maxDepth)
				}
				stack = append(stack, n)
			}
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, p.errorf(len(p.data), "unexpected end of document: <%s> (line %d) is not closed", top.name, lineAt(p.data, top.offset))
	}
	if root == nil {
		return nil, p.errorf(len(p.data), "no root element")
	}
	return root, nil
}

func bomPrefix(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return data[:3]
	}
	return nil
}

func (p *parser) skipPast(from int, end, what string) error {
	i := bytes.Index(p.data[from:], []byte(end))
	if i < 0 {
		return p.errorf(p.pos, "unterminated %s", what)
	}
	p.pos = from + i + len(end)
	return nil
}

// skipDoctype skips a <!DOCTYPE …> declaration, internal subset included.
func (p *parser) skipDoctype() error {
	start := p.pos
	depth := 0
	for i := p.pos + 2; i < len(p.data); i++ {
		switch p.data[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '>':
			if depth <= 0 {
				p.pos = i + 1
				return nil
			}
		}
	}
	return p.errorf(start, "unterminated <! declaration")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && isSpace(p.data[p.pos]) {
		p.pos++
	}
}

// name reads an element or attribute name. Any byte that cannot end a name is
// accepted, so that unusual names still produce a useful error later.
func (p *parser) name() string {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if isSpace(c) || c == '/' || c == '>' || c == '=' || c == '<' || c == '"' || c == '\'' {
			break
		}
		p.pos++
	}
	return string(p.data[start:p.pos])
}

func (p *parser) startTag() (*node, bool, error) {
	n := &node{offset: p.pos}
	p.pos++
	n.name = p.name()
	if n.name == "" {
		return nil, false, p.errorf(n.offset, "malformed start tag")
	}
	for {
		hadSpace := p.pos < len(p.data) && isSpace(p.data[p.pos])
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, false, p.errorf(n.offset, "unterminated start tag <%s", n.name)
		}
		switch p.data[p.pos] {
		case '>':
			p.pos++
			return n, false, nil
		case '/':
			if p.pos+1 < len(p.data) && p.data[p.pos+1] == '>' {
				p.pos += 2
				return n, true, nil
			}
			return nil, false, p.errorf(p.pos, "malformed start tag <%s", n.name)
		}
		if !hadSpace {
			return nil, false, p.errorf(p.pos, "malformed start tag <%s", n.name)
		}
		attrStart := p.pos
		name := p.name()
		if name == "" {
			return nil, false, p.errorf(attrStart, "malformed attribute in <%s>", n.name)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '=' {
			return nil, false, p.errorf(attrStart, "attribute %s of <%s> has no value", name, n.name)
		}
		p.pos++
		p.skipSpace()
		if p.pos >= len(p.data) || (p.data[p.pos] != '"' && p.data[p.pos] != '\'') {
			return nil, false, p.errorf(attrStart, "attribute %s of <%s> is not quoted", name, n.name)
		}
		quote := p.data[p.pos]
		p.pos++
		end := bytes.IndexByte(p.data[p.pos:], quote)
		if end < 0 {
			return nil, false, p.errorf(attrStart, "unterminated value of attribute %s", name)
		}
		raw := p.data[p.pos : p.pos+end]
		p.pos += end + 1
		if bytes.IndexByte(raw, '<') >= 0 {
			return nil, false, p.errorf(attrStart, "'<' in the value of attribute %s", name)
		}
		value, err := p.unescape(raw, attrStart, true)
		if err != nil {
			return nil, false, err
		}
		if _, dup := n.attr(name); dup {
			return nil, false, p.errorf(attrStart, "duplicate attribute %s in <%s>", name, n.name)
		}
		n.attrs = append(n.attrs, xmlAttr{name, string(value)})
	}
}

// charData reads text up to the next '<', resolving entity references.
func (p *parser) charData() ([]byte, error) {
	start := p.pos
	end := bytes.IndexByte(p.data[p.pos:], '<')
	if end < 0 {
		end = len(p.data) - p.pos
	}
	p.pos += end
	return p.unescape(p.data[start:p.pos], start, false)
}

// appendNormalized appends raw text with XML line-end normalization: CRLF and a
// lone CR become LF. A CR written as &#13; survives.
func appendNormalized(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\r' {
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			c = '\n'
		}
		dst = append(dst, c)
	}
	return dst
}

// unescape resolves entity and character references in raw. In attribute values,
// literal whitespace becomes a space (XML attribute-value normalization).
func (p *parser) unescape(raw []byte, offset int, attr bool) ([]byte, error) {
	if bytes.IndexByte(raw, '&') < 0 && bytes.IndexByte(raw, '\r') < 0 && !attr {
		return raw, nil
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\r':
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			c = '\n'
			if attr {
				c = ' '
			}
			out = append(out, c)
			continue
		case attr && (c == '\n' || c == '\t'):
			out = append(out, ' ')
			continue
		case c != '&':
			out = append(out, c)
			continue
		}
		semi := bytes.IndexByte(raw[i:], ';')
		if semi < 0 || semi > 12 {
			return nil, p.errorf(offset+i, "'&' not starting an entity reference")
		}
		ref := string(raw[i+1 : i+semi])
		switch ref {
		case "lt":
			out = append(out, '<')
		case "gt":
			out = append(out, '>')
		case "amp":
			out = append(out, '&')
		case "quot":
			out = append(out, '"')
		case "apos":
			out = append(out, '\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				return nil, p.errorf(offset+i, "unknown entity &%s;", ref)
			}
			out = utf8.AppendRune(out, r)
		}
		i += semi
	}
	return out, nil
}

// charRef decodes the body of &#N; or &#xN;. Control characters are accepted: Roblox
// strings may contain them and the encoder writes them this way.
func charRef(ref string) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	var n uint64
	var err error
	if ref[1] == 'x' || ref[1] == 'X' {
		n, err = strconv.ParseUint(ref[2:], 16, 32)
	} else {
		n, err = strconv.ParseUint(ref[1:], 10, 32)
	}
	if err != nil || n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, false
	}
	return rune(n), true
}
