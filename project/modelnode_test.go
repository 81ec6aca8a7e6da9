package project

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/project/format"
)

// FuzzDecodeModelNode checks the scan of a model instance against json.Unmarshal: on
// any JSONC text that parses, whatever the scan takes, it decodes as the decoder does.
func FuzzDecodeModelNode(f *testing.F) {
	for _, s := range []string{
		`{"className": "Part", "properties": {"Anchored": true, "Size": [1, 2, 3]}, "children": [{"name": "A", "className": "Attachment"}]}`,
		`{"Name": "x", "ClassName": "Folder", "Properties": {}, "Children": null, "attributes": {"a": 1}, "id": "r1"}`,
		`{"name": null, "className": "Folder", "tags": ["t"], "$schema": "s"}`,
		`{"NAME": "folded", "className": "Folder"}`,
		`{"name": "a", "name": "b", "className": "Folder"}`,
		`{"className": 3}`,
		`{"className": "Folder", "properties": {"A": 1, "A": 2}}`,
		`{"className": "Folder", "attributes": null, "children": [1, "x", {}]}`,
		"{\"name\": \"\\u00e9\\n\", \"className\": \"Folder\", \"properties\": {\"k\\\"\": \"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := format.ParseJSONCUnordered(data)
		if err != nil || len(raw) == 0 || raw[0] != '{' {
			return
		}
		got, ok := decodeModelNode(raw)
		if !ok {
			return
		}
		var want modelNode
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("decodeModelNode(%s) took it; json.Unmarshal refuses it: %v", raw, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decodeModelNode(%s) mismatch (-json.Unmarshal +scan):\n%s", raw, diff)
		}
	})
}
