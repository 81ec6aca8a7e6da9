package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxLuauInt is the largest integer a YAML file may hold: above it a float64 loses
// precision, which Rojo refuses.
const maxLuauInt = 1 << 53

// LuaFromYAML turns a .yaml or .yml module into the Source Rojo gives it: "return "
// and the document as Luau. Mapping keys keep their file order; a key that is not a
// string is written [1] = or [true] =. Scalars are typed as Rojo's YAML library does
// (YAML 1.2 core schema: only true/false are booleans, ~, null and empty are nil,
// 0x/0o integers, .inf and .nan).
//
// It is an error when the file holds no document ("must contain a document"), more
// than one document, an alias, a duplicated key, a null key, an integer above 2^53,
// or a tagged scalar that does not fit its tag (!!int abc).
func LuaFromYAML(data []byte) (string, error) {
	if !utf8.Valid(data) {
		return "", errors.New("parse yaml: invalid UTF-8")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("parse yaml: %w", err)
		}
		docs = append(docs, &doc)
	}
	switch {
	case len(docs) == 0:
		return "", errors.New("parse yaml: the file must contain a document")
	case len(docs) > 1:
		return "", fmt.Errorf("parse yaml: line %d: multiple documents in one file are not supported", docs[1].Line)
	}
	root := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	if len(docs[0].Content) > 0 {
		root = docs[0].Content[0]
	}
	v, err := resolveYAML(root)
	if err != nil {
		return "", fmt.Errorf("parse yaml: %w", err)
	}
	lv, err := v.lua()
	if err != nil {
		return "", fmt.Errorf("convert yaml: %w", err)
	}
	return luaReturn(lv)
}

type yamlKind int

const (
	yamlNull yamlKind = iota
	yamlBool
	yamlInt
	yamlReal
	yamlString
	yamlSeq
	yamlMap
)

// yamlValue is a YAML node typed the way Rojo's YAML library (yaml-rust2) types it.
type yamlValue struct {
	kind  yamlKind
	line  int
	b     bool
	i     int64
	s     string // a string, or the text of a real number
	items []yamlValue
	pairs [][2]yamlValue
}

// identity is a text equal for two values exactly when yaml-rust2 finds them equal,
// used to find duplicated keys.
func (v yamlValue) identity() string {
	switch v.kind {
	case yamlBool:
		return "b" + strconv.FormatBool(v.b)
	case yamlInt:
		return "i" + strconv.FormatInt(v.i, 10)
	case yamlReal:
		return "r" + strconv.Quote(v.s)
	case yamlString:
		return "s" + strconv.Quote(v.s)
	case yamlSeq:
		parts := make([]string, len(v.items))
		for i, item := range v.items {
			parts[i] = item.identity()
		}
		return "[" + strings.Join(parts, ",") + "]"
	case yamlMap:
		parts := make([]string, len(v.pairs))
		for i, p := range v.pairs {
			parts[i] = p[0].identity() + ":" + p[1].identity()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "n"
}

func resolveYAML(n *yaml.Node) (yamlValue, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return yamlValue{}, fmt.Errorf("line %d: aliases cannot be converted to Luau", n.Line)
	case yaml.SequenceNode:
		v := yamlValue{kind: yamlSeq, line: n.Line}
		for _, c := range n.Content {
			item, err := resolveYAML(c)
			if err != nil {
				return yamlValue{}, err
			}
			v.items = append(v.items, item)
		}
		return v, nil
	case yaml.MappingNode:
		v := yamlValue{kind: yamlMap, line: n.Line}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, err := resolveYAML(n.Content[i])
			if err != nil {
				return yamlValue{}, err
			}
			value, err := resolveYAML(n.Content[i+1])
			if err != nil {
				return yamlValue{}, err
			}
			id := key.identity()
			if seen[id] {
				return yamlValue{}, fmt.Errorf("line %d: duplicated key %q in mapping", n.Content[i].Line, n.Content[i].Value)
			}
			seen[id] = true
			v.pairs = append(v.pairs, [2]yamlValue{key, value})
		}
		return v, nil
	case yaml.ScalarNode:
		return resolveYAMLScalar(n)
	}
	return yamlValue{}, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

func resolveYAMLScalar(n *yaml.Node) (yamlValue, error) {
	quoted := yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle
	if n.Style&quoted != 0 {
		return yamlValue{kind: yamlString, line: n.Line, s: n.Value}, nil
	}
	if n.Style&yaml.TaggedStyle == 0 {
		v := yamlPlainScalar(n.Value)
		v.line = n.Line
		return v, nil
	}
	v := yamlValue{line: n.Line}
	ok := true
	switch n.Tag {
	case "!!bool":
		v.kind = yamlBool
		v.b, ok = n.Value == "true", n.Value == "true" || n.Value == "false"
	case "!!int":
		var err error
		v.kind = yamlInt
		v.i, err = strconv.ParseInt(n.Value, 10, 64)
		ok = err == nil
	case "!!float":
		v.kind, v.s = yamlReal, n.Value
		_, ok = yamlFloat(n.Value)
	case "!!null":
		v.kind = yamlNull
		ok = n.Value == "~" || n.Value == "null"
	default:
		v.kind, v.s = yamlString, n.Value
	}
	if !ok {
		return yamlValue{}, fmt.Errorf("line %d: %q is not a valid %s", n.Line, n.Value, n.Tag)
	}
	return v, nil
}

// yamlPlainScalar types an untagged plain scalar as yaml-rust2's Yaml::from_str does.
func yamlPlainScalar(s string) yamlValue {
	if rest, ok := strings.CutPrefix(s, "0x"); ok {
		if i, err := strconv.ParseInt(rest, 16, 64); err == nil {
			return yamlValue{kind: yamlInt, i: i}
		}
	} else if rest, ok := strings.CutPrefix(s, "0o"); ok {
		if i, err := strconv.ParseInt(rest, 8, 64); err == nil {
			return yamlValue{kind: yamlInt, i: i}
		}
	} else if rest, ok := strings.CutPrefix(s, "+"); ok {
		if i, err := strconv.ParseInt(rest, 10, 64); err == nil {
			return yamlValue{kind: yamlInt, i: i}
		}
	}
	switch s {
	case "", "~", "null":
		return yamlValue{kind: yamlNull}
	case "true", "false":
		return yamlValue{kind: yamlBool, b: s == "true"}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return yamlValue{kind: yamlInt, i: i}
	}
	if _, ok := yamlFloat(s); ok {
		return yamlValue{kind: yamlReal, s: s}
	}
	return yamlValue{kind: yamlString, s: s}
}

// yamlFloat parses a real the way yaml-rust2 does: the YAML spellings of infinity and
// NaN, then Rust's f64 syntax.
func yamlFloat(s string) (float64, bool) {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1), true
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), true
	case ".nan", "NaN", ".NAN":
		return math.NaN(), true
	}
	return rustParseFloat(s)
}

// rustParseFloat accepts exactly what Rust's str::parse::<f64> accepts: an optional
// sign, then "inf", "infinity" or "nan" in any case, or decimal digits with an
// optional point and exponent. Out of range values become ±inf, as in Rust.
func rustParseFloat(s string) (float64, bool) {
	body := s
	negative := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		negative, body = body[0] == '-', body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if negative {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	i, digits := 0, 0
	for i < len(body) && isDigit(body[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(body) && body[i] == '.' {
		i++
		for i < len(body) && isDigit(body[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		exp := i
		for i < len(body) && isDigit(body[i]) {
			i++
		}
		if i == exp {
			return 0, false
		}
	}
	if i != len(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// lua converts a typed YAML value as Rojo does, refusing integers above 2^53.
func (v yamlValue) lua() (luaValue, error) {
	switch v.kind {
	case yamlBool:
		return luaValue{kind: luaBool, b: v.b}, nil
	case yamlInt:
		if v.i > maxLuauInt {
			return luaValue{}, fmt.Errorf("line %d: the integer %d cannot be converted to a Luau number without losing precision", v.line, v.i)
		}
		return luaValue{kind: luaNumber, n: float64(v.i)}, nil
	case yamlReal:
		f, _ := yamlFloat(v.s)
		return luaValue{kind: luaNumber, n: f}, nil
	case yamlString:
		return luaValue{kind: luaString, s: v.s}, nil
	case yamlSeq:
		out := luaValue{kind: luaArray, items: make([]luaValue, len(v.items))}
		for i, item := range v.items {
			lv, err := item.lua()
			if err != nil {
				return luaValue{}, err
			}
			out.items[i] = lv
		}
		return out, nil
	case yamlMap:
		out := luaValue{kind: luaTable, pairs: make([]luaPair, len(v.pairs))}
		for i, p := range v.pairs {
			if p[0].kind == yamlNull {
				return luaValue{}, fmt.Errorf("line %d: %w", p[0].line, errNilKey)
			}
			k, err := p[0].lua()
			if err != nil {
				return luaValue{}, err
			}
			value, err := p[1].lua()
			if err != nil {
				return luaValue{}, err
			}
			out.pairs[i] = luaPair{k, value}
		}
		return out, nil
	}
	return luaValue{kind: luaNil}, nil
}
