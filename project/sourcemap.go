package project

import (
	"path/filepath"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
)

// SourcemapNode is one instance of a sourcemap: Rojo's format, which luau-lsp reads
// to map instances to files (requires, instance paths). FilePaths use '/' on every OS.
type SourcemapNode struct {
	Name      string           `json:"name"`
	ClassName string           `json:"className"`
	FilePaths []string         `json:"filePaths,omitempty"`
	Children  []*SourcemapNode `json:"children,omitempty"`
}

// SourcemapOptions tunes Sourcemap.
type SourcemapOptions struct {
	// IncludeNonScripts keeps every instance; by default only scripts and the
	// instances on the way to them are kept.
	IncludeNonScripts bool
	// AbsDir, when set, is the project folder as an absolute OS path, and file paths
	// are made absolute against it; else they are relative to the project folder.
	AbsDir string
}

// Sourcemap returns the project's sourcemap, by Rojo 7.7's rules (`rojo sourcemap`):
// an instance is kept if it passes the filter or has a kept descendant, children
// keep the tree's order, and filePaths are the instance's Files. It is nil when no
// instance is kept. The project must be loaded with Options.RecordFiles.
func (p *Project) Sourcemap(opts SourcemapOptions) *SourcemapNode {
	return p.sourcemapNode(p.Root, opts)
}

func (p *Project) sourcemapNode(inst *dom.Instance, opts SourcemapOptions) *SourcemapNode {
	var children []*SourcemapNode
	for _, c := range inst.Children {
		if n := p.sourcemapNode(c, opts); n != nil {
			children = append(children, n)
		}
	}
	if len(children) == 0 && !opts.IncludeNonScripts && !isScriptClass(inst.ClassName) {
		return nil
	}
	n := &SourcemapNode{Name: inst.Name, ClassName: inst.ClassName, Children: children}
	for _, f := range p.Files[inst] {
		if opts.AbsDir != "" {
			f = filepath.ToSlash(filepath.Join(opts.AbsDir, filepath.FromSlash(f)))
		}
		n.FilePaths = append(n.FilePaths, f)
	}
	return n
}

func isScriptClass(class string) bool {
	return class == "Script" || class == "LocalScript" || class == "ModuleScript"
}

// Count returns the number of nodes in the sourcemap rooted at n.
func (n *SourcemapNode) Count() int {
	if n == nil {
		return 0
	}
	c := 1
	for _, ch := range n.Children {
		c += ch.Count()
	}
	return c
}

// AppendJSON appends n as compact JSON, byte for byte as Rojo writes it (serde_json:
// keys in declaration order, empty lists omitted, only '"', '\' and control
// characters escaped), so a sourcemap diffs cleanly against Rojo's. A nil n is null.
func (n *SourcemapNode) AppendJSON(b []byte) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"name":`...)
	b = appendJSONString(b, n.Name)
	b = append(b, `,"className":`...)
	b = appendJSONString(b, n.ClassName)
	if len(n.FilePaths) > 0 {
		b = append(b, `,"filePaths":[`...)
		for i, f := range n.FilePaths {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, f)
		}
		b = append(b, ']')
	}
	if len(n.Children) > 0 {
		b = append(b, `,"children":[`...)
		for i, c := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...) // invalid UTF-8 (a name from a model file)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			if c < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}
