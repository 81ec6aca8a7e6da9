package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchDoc is a project file of n nodes with properties and comments, about 100
// bytes a node.
func benchDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  // generated\n  \"name\": \"Bench\",\n  \"tree\": {\n    \"$className\": \"DataModel\",\n")
	for i := range n {
		fmt.Fprintf(&b, "    \"Node%d\": { \"$className\": \"Part\", \"$properties\": { \"Anchored\": true, \"Size\": [1, 2, 3] } }, // %d\n", i, i)
	}
	b.WriteString("  },\n}\n")
	return []byte(b.String())
}

func BenchmarkParseJSONC(b *testing.B) {
	doc := benchDoc(500)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ParseJSONC(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONCEdit edits a property of a node in the middle of the document.
func BenchmarkJSONCEdit(b *testing.B) {
	doc := benchDoc(500)
	path := []string{"tree", "Node250", "$properties", "Anchored"}
	edits := []struct {
		name string
		edit func() ([]byte, error)
	}{
		{"patch", func() ([]byte, error) { return PatchJSONCValue(doc, path, json.RawMessage("false")) }},
		{"insert", func() ([]byte, error) {
			return PatchJSONCValue(doc, append(path[:3:3], "CanCollide"), json.RawMessage("false"))
		}},
		{"delete", func() ([]byte, error) { return DeleteJSONCMember(doc, path) }},
	}
	for _, e := range edits {
		b.Run(e.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := e.edit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
