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
	parentPath, key := keyPath[:len(keyPath)-1], keyPath[len(keyPath)-1]
	obj, err := objectAt(root, parentPath)
	if err != nil {
		return nil, fmt.Errorf("patch jsonc: %w", err)
	}
	i := lastMember(obj, key)
	if i < 0 {
		return insertMember(src, nl, obj, key, value), nil
	}
	m := obj.members[i]
	return splice(src, m.value.start, m.value.end, reindent(value, nl, lineIndent(src, m.keyStart))), nil
}

// DeleteJSONCMember returns data without the object member at keyPath (object keys
// from the top), keeping every other byte. A member followed by a comma goes with
// that comma and with a comment on the rest of its line, and with its whole line
// when nothing else is on it; the last member of an object goes with the comma
// before it, so that none is left dangling. A key written twice is removed each
// time, since the earlier value would take over.
//
// The result is checked: it must parse to the document without the member. It is
// an error when data does not parse, when the member or an object on the path is
// missing, or when the file's layout defeats the edit.
func DeleteJSONCMember(data []byte, keyPath []string) ([]byte, error) {
	if len(keyPath) == 0 {
		return nil, errors.New("delete jsonc member: no key to remove")
	}
	root, err := parseJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("delete jsonc member: %w", err)
	}
	parentPath, key := keyPath[:len(keyPath)-1], keyPath[len(keyPath)-1]
	want, err := withoutMember(root, parentPath, key)
	if err != nil {
		return nil, fmt.Errorf("delete jsonc member: %w", err)
	}
	src := string(data)
	for n := 0; ; n++ {
		obj, err := objectAt(root, parentPath)
		if err != nil {
			return nil, fmt.Errorf("delete jsonc member: %w", err)
		}
		i := lastMember(obj, key)
		if i < 0 && n > 0 {
			break
		}
		if i < 0 {
			return nil, fmt.Errorf("delete jsonc member: %s does not exist", describePath(keyPath))
		}
		start, end := memberCut(src, obj, i)
		src = src[:start] + src[end:]
		if root, err = parseJSONC([]byte(src)); err != nil {
			return nil, fmt.Errorf("delete jsonc member: the edited file does not parse: %w", err)
		}
	}
	var got bytes.Buffer
	writeJSON(&got, root)
	if !bytes.Equal(want, got.Bytes()) {
		return nil, errors.New("delete jsonc member: the file's layout is too unusual to edit safely")
	}
	return []byte(src), nil
}

// withoutMember returns root as compact JSON without the member key of the object
// at parentPath, the value DeleteJSONCMember must leave. It leaves root as it was.
func withoutMember(root *node, parentPath []string, key string) ([]byte, error) {
	obj, err := objectAt(root, parentPath)
	if err != nil {
		return nil, err
	}
	saved := obj.members
	obj.members = make([]member, 0, len(saved))
	for _, m := range saved {
		if m.key != key {
			obj.members = append(obj.members, m)
		}
	}
	var b bytes.Buffer
	writeJSON(&b, root)
	obj.members = saved
	return b.Bytes(), nil
}

// objectAt follows path from root through the last occurrence of each key, the one
// that takes effect, to an object.
func objectAt(root *node, path []string) (*node, error) {
	obj := root
	for i, key := range path {
		if obj.kind != kindObject {
			return nil, fmt.Errorf("%s is not an object", describePath(path[:i]))
		}
		m := lastMember(obj, key)
		if m < 0 {
			return nil, fmt.Errorf("%s does not exist", describePath(path[:i+1]))
		}
		obj = obj.members[m].value
	}
	if obj.kind != kindObject {
		return nil, fmt.Errorf("%s is not an object", describePath(path))
	}
	return obj, nil
}

func describePath(path []string) string {
	if len(path) == 0 {
		return "the document"
	}
	return fmt.Sprintf("key path %q", strings.Join(path, "."))
}

// lastMember returns the index of the last member of obj named key, or -1.
func lastMember(obj *node, key string) int {
	for i := len(obj.members) - 1; i >= 0; i-- {
		if obj.members[i].key == key {
			return i
		}
	}
	return -1
}

// memberCut returns the bytes [start, end) of src to remove with the i-th member of
// obj (see DeleteJSONCMember).
func memberCut(src string, obj *node, i int) (start, end int) {
	m := obj.members[i]
	if m.comma < 0 {
		// The last member: from the previous member's comma, or from the end of the
		// previous member (or the '{'), through the value.
		start = obj.start + 1
		if i > 0 {
			prev := obj.members[i-1]
			start = prev.value.end
			if prev.comma >= 0 {
				start = prev.comma
			}
		}
		return start, m.value.end
	}
	// A comment on the rest of the line is the member's and goes with it.
	start, end = m.keyStart, skipInline(src, m.comma+1)
	lineStart := m.keyStart
	for lineStart > 0 && (src[lineStart-1] == ' ' || src[lineStart-1] == '\t') {
		lineStart--
	}
	if lineStart == 0 || src[lineStart-1] == '\n' {
		switch {
		case strings.HasPrefix(src[end:], "\r\n"):
			start, end = lineStart, end+2
		case strings.HasPrefix(src[end:], "\n"):
			start, end = lineStart, end+1
		}
	}
	return start, end
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
	if pos = skipInline(src, pos); pos < len(src) && (src[pos] == '\r' || src[pos] == '\n') {
		return pos
	}
	return -1
}

// skipInline returns the offset after the spaces, tabs and comments that follow pos
// on its line; a // comment runs to the line break, which it leaves out.
func skipInline(src string, pos int) int {
	for pos < len(src) {
		switch {
		case src[pos] == ' ' || src[pos] == '\t':
			pos++
		case strings.HasPrefix(src[pos:], "//"):
			end := strings.IndexByte(src[pos:], '\n')
			if end < 0 {
				return len(src)
			}
			pos += end
			if src[pos-1] == '\r' {
				pos--
			}
			return pos
		case strings.HasPrefix(src[pos:], "/*"):
			end := strings.Index(src[pos:], "*/")
			if end < 0 || strings.ContainsAny(src[pos:pos+end], "\r\n") {
				return pos
			}
			pos += end + 2
		default:
			return pos
		}
	}
	return pos
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
