package project

import (
	"fmt"
	"regexp"
	"strings"
)

// glob is a compiled glob with Rust globset's default semantics: `*` also matches
// `/`, `**` matches any run of path components, `{a,b}` alternates, `[…]` is a class,
// and matching is case-sensitive.
type glob struct {
	pattern string
	re      *regexp.Regexp
}

func compileGlob(pattern string) (*glob, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				// "**/" may match nothing; "/**" at the end may match nothing.
				if i+2 < len(pattern) && pattern[i+2] == '/' {
					b.WriteString("(?:.*/)?")
					i += 2
					continue
				}
				b.WriteString(".*")
				i++
				continue
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("glob %q: unmatched '}'", pattern)
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '[':
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob %q: unclosed '['", pattern)
			}
			class := pattern[i+1 : i+1+j]
			if j == 0 { // "[]...]" : a leading ']' is literal
				k := strings.IndexByte(pattern[i+2:], ']')
				if k < 0 {
					return nil, fmt.Errorf("glob %q: unclosed '['", pattern)
				}
				class = pattern[i+1 : i+2+k]
				j = k + 1
			}
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteString(regexp.QuoteMeta(string(pattern[i])))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("glob %q: unclosed '{'", pattern)
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return &glob{pattern: pattern, re: re}, nil
}

func (g *glob) match(p string) bool { return g.re.MatchString(p) }

// ignoreRule is one globIgnorePaths entry, relative to the folder of the project
// that declared it. From Rojo 7.7 the rules are gitignore-like: "!" negates and the
// last matching rule wins.
type ignoreRule struct {
	base   string // folder of the declaring project, relative to the fs root ("" for root)
	negate bool
	g      *glob
}

func compileIgnore(base string, patterns []string) ([]ignoreRule, error) {
	rules := make([]ignoreRule, 0, len(patterns))
	for _, p := range patterns {
		r := ignoreRule{base: base}
		switch {
		case strings.HasPrefix(p, `\!`):
			p = p[1:]
		case strings.HasPrefix(p, "!"):
			r.negate = true
			p = p[1:]
		}
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		r.g = g
		rules = append(rules, r)
	}
	return rules, nil
}

// ignored reports whether the fs path p is ignored by rules (last match wins).
func ignored(rules []ignoreRule, p string) bool {
	result := false
	for _, r := range rules {
		rel, ok := relTo(r.base, p)
		if ok && r.g.match(rel) {
			result = !r.negate
		}
	}
	return result
}

// relTo returns p relative to base ("" = fs root), and whether p is inside base.
func relTo(base, p string) (string, bool) {
	if base == "" || base == "." {
		return p, true
	}
	if strings.HasPrefix(p, base+"/") {
		return p[len(base)+1:], true
	}
	return "", false
}
