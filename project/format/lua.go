package format

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// luaKind is the type of a value in generated Luau.
type luaKind int

const (
	luaNil luaKind = iota
	luaBool
	luaNumber
	luaString
	luaArray
	luaTable
)

// luaValue is a value the code generator prints. Arrays print inline, tables one
// entry per line, in the order of pairs.
type luaValue struct {
	kind  luaKind
	b     bool
	n     float64
	s     string
	items []luaValue
	pairs []luaPair
}

type luaPair struct{ key, value luaValue }

// errNilKey is a table key that is nil, which Luau cannot express (Rojo panics).
var errNilKey = errors.New("nil cannot be a table key")

// luaReturn prints "return <v>" exactly as Rojo's code generator does:
//   - a table is "{", a newline, one "key = value," line per entry indented by one tab
//     per nesting level, and "}" at the indentation of the line it closes;
//   - an array is inline, "{a, b}"; a table inside an array is still printed as a
//     multi-line table, its entries indented one level deeper than the line the array
//     is on ("{{\n\t\tk = 1,\n\t}, 2}");
//   - a string key that is a Lua identifier and not a Lua 5.1 keyword is bare, any
//     other string key is ["key"], and any other key is [value] ([1], [true]).
func luaReturn(v luaValue) (string, error) {
	w := &luaWriter{startOfLine: true}
	w.write("return ")
	w.value(v)
	if w.err != nil {
		return "", w.err
	}
	return w.buf.String(), nil
}

// luaWriter indents the way Rojo's LuaStream does: the indentation is written before
// the first non-empty text of each line, at the level current at that moment.
type luaWriter struct {
	buf         strings.Builder
	level       int
	startOfLine bool
	err         error
}

func (w *luaWriter) write(s string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.buf.WriteByte('\n')
			w.startOfLine = true
		}
		if line == "" {
			continue
		}
		if w.startOfLine {
			w.startOfLine = false
			w.buf.WriteString(strings.Repeat("\t", w.level))
		}
		w.buf.WriteString(line)
	}
}

func (w *luaWriter) value(v luaValue) {
	switch v.kind {
	case luaNil:
		w.write("nil")
	case luaBool:
		w.write(strconv.FormatBool(v.b))
	case luaNumber:
		w.write(luaNumberText(v.n))
	case luaString:
		w.write(`"` + luaEscape(v.s) + `"`)
	case luaArray:
		w.write("{")
		for i, item := range v.items {
			if i > 0 {
				w.write(", ")
			}
			w.value(item)
		}
		w.write("}")
	case luaTable:
		w.write("{\n")
		w.level++
		for _, p := range v.pairs {
			w.key(p.key)
			w.write(" = ")
			w.value(p.value)
			w.write(",\n")
		}
		w.level--
		w.write("}")
	}
}

func (w *luaWriter) key(k luaValue) {
	switch {
	case k.kind == luaNil:
		if w.err == nil {
			w.err = errNilKey
		}
	case k.kind == luaString && isLuaIdent(k.s):
		w.write(k.s)
	case k.kind == luaString:
		w.write(`["` + luaEscape(k.s) + `"]`)
	default:
		w.write("[")
		w.value(k)
		w.write("]")
	}
}

// luaNumberText prints a float64 like Rust's Display does: the shortest text that
// reads back to the same value, never with an exponent.
func luaNumberText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "0/0"
	case math.IsInf(f, 1):
		return "math.huge"
	case math.IsInf(f, -1):
		return "-math.huge"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// luaEscape escapes only '"', '\\', CR, LF and tab; every other byte is kept.
func luaEscape(s string) string {
	return luaEscaper.Replace(s)
}

var luaEscaper = strings.NewReplacer(`"`, `\"`, `\`, `\\`, "\r", `\r`, "\n", `\n`, "\t", `\t`)

var luaKeywords = []string{"and", "break", "do", "else", "elseif", "end", "false", "for",
	"function", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true",
	"until", "while"}

// isLuaIdent reports whether s can be a bare table key: an ASCII letter or '_', then
// ASCII letters, digits or '_', and not a Lua 5.1 keyword.
func isLuaIdent(s string) bool {
	if s == "" || slices.Contains(luaKeywords, s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// LuaFromJSON turns a .json or .jsonc module into the Source Rojo gives it: "return "
// and the value as Luau, with object keys in sorted byte order (when a key repeats,
// the last value wins), null as nil and numbers as float64. The file is parsed by
// ParseJSONC, so an empty file or a leading byte order mark is an error.
func LuaFromJSON(data []byte) (string, error) {
	root, err := parseJSONC(data)
	if err != nil {
		return "", err
	}
	return luaReturn(luaFromJSONNode(root))
}

func luaFromJSONNode(n *node) luaValue {
	switch n.kind {
	case kindBool:
		return luaValue{kind: luaBool, b: n.b}
	case kindNumber:
		return luaValue{kind: luaNumber, n: n.f}
	case kindString:
		return luaValue{kind: luaString, s: n.str}
	case kindArray:
		items := make([]luaValue, len(n.elems))
		for i, e := range n.elems {
			items[i] = luaFromJSONNode(e)
		}
		return luaValue{kind: luaArray, items: items}
	case kindObject:
		members := n.merged()
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		pairs := make([]luaPair, len(members))
		for i, m := range members {
			pairs[i] = luaPair{luaValue{kind: luaString, s: m.key}, luaFromJSONNode(m.value)}
		}
		return luaValue{kind: luaTable, pairs: pairs}
	}
	return luaValue{kind: luaNil}
}
