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

func BenchmarkPatchJSONCValue(b *testing.B) {
	doc := benchDoc(500)
	path := []string{"tree", "Node250", "$properties", "Anchored"}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := PatchJSONCValue(doc, path, json.RawMessage("false")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeleteJSONCMember(b *testing.B) {
	doc := benchDoc(500)
	path := []string{"tree", "Node250", "$properties", "Anchored"}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := DeleteJSONCMember(doc, path); err != nil {
			b.Fatal(err)
		}
	}
}
