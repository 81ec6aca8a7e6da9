package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PatchJSONCValue returns data with the value at keyPath (object keys from the top;
// an empty path is the whole document) replaced by newValue, keeping every other byte
// (comments, formatting, key order, trailing commas) as it was. Where a key appears
// twice, the last one, the one that takes effect, is replaced.
//
// When the last key is missing, it is added as the last key of its object: on a line
// of its own indented like its siblings if they are on lines of their own (one level
// deeper than the closing brace for an empty object spread over lines), otherwise
// inline after them; a comma is added after the previous member when it has none,
// and the new member gets a trailing comma when the previous one had one. The new
// key is written as a JSON string, with the spacing around the colon of its sibling.
//
// newValue must be valid JSON; when it spans several lines, its lines after the
// first are indented like the line it starts on. It is an error when data does not
// parse, or when an object on the path is missing or is not an object.
func PatchJSONCValue(data []byte, keyPath []string, newValue json.RawMessage) ([]byte, error) {
	value := string(bytes.TrimSpace(newValue))
	if !json.Valid([]byte(value)) {
		return nil, errors.New("patch jsonc: the new value is not valid JSON")
	}
	root, err := parseJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("patch jsonc: %w", err)
	}
	src := string(data)
	nl := newline(src)
	if len(keyPath) == 0 {
		return splice(src, root.start, root.end, reindent(value, nl, lineIndent(src, root.start))), nil
	}
	obj := root
	for i, key := range keyPath {
		if obj.kind != kindObject {
			return nil, fmt.Errorf("patch jsonc: %s is not an object", describePath(keyPath[:i]))
		}
		m := lastMember(obj, key)
		if m == nil && i < len(keyPath)-1 {
			return nil, fmt.Errorf("patch jsonc: %s does not exist", describePath(keyPath[:i+1]))
		}
		if m == nil {
			return insertMember(src, nl, obj, key, value), nil
		}
		if i == len(keyPath)-1 {
			v := reindent(value, nl, lineIndent(src, m.keyStart))
			return splice(src, m.value.start, m.value.end, v), nil
		}
		obj = m.value
	}
	panic("unreachable")
}

func describePath(path []string) string {
	if len(path) == 0 {
		return "the document"
	}
	return fmt.Sprintf("key path %q", strings.Join(path, "."))
}

func lastMember(obj *node, key string) *member {
	for i := len(obj.members) - 1; i >= 0; i-- {
		if obj.members[i].key == key {
			return &obj.members[i]
		}
	}
	return nil
}

func splice(src string, start, end int, text string) []byte {
	return []byte(src[:start] + text + src[end:])
}

// newline is the line ending src uses: CRLF if its first line ends with one.
func newline(src string) string {
	if i := strings.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineIndent is the run of spaces and tabs that starts the line holding offset.
func lineIndent(src string, offset int) string {
	start := strings.LastIndexByte(src[:offset], '\n') + 1
	end := start
	for end < offset && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return src[start:end]
}

// indentUnit guesses one level of indentation in src: a tab if an indented line starts
// with one, else the smallest number of leading spaces, else two spaces.
func indentUnit(src string) string {
	smallest := 0
	for _, line := range strings.Split(src, "\n") {
		n := len(line) - len(strings.TrimLeft(line, " \t"))
		if n == 0 || n == len(strings.TrimRight(line, "\r")) {
			continue
		}
		if line[0] == '\t' {
			return "\t"
		}
		if spaces := len(line) - len(strings.TrimLeft(line, " ")); smallest == 0 || spaces < smallest {
			smallest = spaces
		}
	}
	if smallest == 0 {
		smallest = 2
	}
	return strings.Repeat(" ", smallest)
}

// reindent puts indent after every line break of a JSON value and uses nl for them.
func reindent(value, nl, indent string) string {
	lines := strings.Split(value, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	return strings.Join(lines, nl+indent)
}

// lineEnd returns the offset of the line break after pos when only spaces, tabs and
// comments come before it, or -1.
func lineEnd(src string, pos int) int {
	for pos < len(src) {
		switch {
		case src[pos] == ' ' || src[pos] == '\t':
			pos++
		case src[pos] == '\r' || src[pos] == '\n':
			return pos
		case strings.HasPrefix(src[pos:], "//"):
			end := strings.IndexByte(src[pos:], '\n')
			if end < 0 {
				return -1
			}
			pos += end
			if src[pos-1] == '\r' {
				pos--
			}
			return pos
		case strings.HasPrefix(src[pos:], "/*"):
			end := strings.Index(src[pos:], "*/")
			if end < 0 || strings.ContainsAny(src[pos:pos+end], "\r\n") {
				return -1
			}
			pos += end + 2
		default:
			return -1
		}
	}
	return -1
}

// insertMember adds key: value as the last member of obj.
func insertMember(src, nl string, obj *node, key, value string) []byte {
	var keyBuf bytes.Buffer
	writeJSONString(&keyBuf, key)
	quoted := keyBuf.String()

	if len(obj.members) == 0 {
		inner := src[obj.start+1 : obj.end-1]
		if !strings.ContainsAny(inner, "\n") {
			text := quoted + ": " + reindent(value, nl, lineIndent(src, obj.start))
			switch {
			case inner == "":
				return splice(src, obj.start+1, obj.end-1, text)
			case strings.TrimSpace(inner) == "":
				return splice(src, obj.start+1, obj.end-1, " "+text+" ")
			}
			return splice(src, obj.start+1, obj.start+1, " "+text)
		}
		// The closing brace's line gives the object's own indentation when the brace
		// starts that line.
		closeIndent := src[strings.LastIndexByte(src[:obj.end-1], '\n')+1 : obj.end-1]
		if strings.Trim(closeIndent, " \t") != "" {
			closeIndent = lineIndent(src, obj.start)
		}
		indent := closeIndent + indentUnit(src)
		at := lineEnd(src, obj.start+1)
		if at < 0 {
			at = obj.start + 1
		}
		text := nl + indent + quoted + ": " + reindent(value, nl, indent)
		return splice(src, at, at, text)
	}

	n := len(obj.members)
	last := obj.members[n-1]
	gapStart := obj.start + 1
	if n > 1 {
		prev := obj.members[n-2]
		gapStart = prev.value.end
		if prev.comma >= 0 {
			gapStart = prev.comma + 1
		}
	}
	gap := src[gapStart:last.keyStart]
	colon := src[last.keyEnd:last.value.start]
	if strings.ContainsAny(colon, "\r\n/") {
		colon = ": "
	}
	indent := lineIndent(src, last.keyStart)
	text := quoted + colon + reindent(value, nl, indent)
	trailing := last.comma >= 0
	after := last.value.end
	if trailing {
		after = last.comma + 1
	}

	if strings.Contains(gap, "\n") {
		at := lineEnd(src, after)
		if at < 0 {
			at = after
		}
		ins := nl + indent + text
		if trailing {
			return splice(src, at, at, ins+",")
		}
		return []byte(src[:after] + "," + src[after:at] + ins + src[at:])
	}

	sep := " "
	switch {
	case n > 1 && strings.Trim(gap, " \t") == "":
		sep = gap
	case n == 1 && !strings.Contains(colon, " "):
		sep = ""
	}
	if trailing {
		return splice(src, after, after, sep+text+",")
	}
	return splice(src, after, after, ","+sep+text)
}
