package format

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const patchProject = `{
  // The place.
  "name": "Game", /* kept */
  "tree": {
    "$className": "DataModel",
    "Workspace": {
      "$properties": {
        "Gravity": 196.2, // default
      },
    },
    'Lighting': {"$properties": {}},
  },
}
`

func TestPatchJSONCValue(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		path  []string
		value string
		want  string
	}{
		{"replace a nested value", patchProject, []string{"tree", "Workspace", "$properties", "Gravity"}, `100`,
			strings.Replace(patchProject, "196.2", "100", 1)},
		{"replace a top-level value", patchProject, []string{"name"}, `"Other"`,
			strings.Replace(patchProject, `"Game"`, `"Other"`, 1)},
		{"replace an object with its comments", patchProject, []string{"tree", "Workspace"}, `{}`,
			strings.Replace(patchProject, "{\n      \"$properties\": {\n        \"Gravity\": 196.2, // default\n      },\n    }", "{}", 1)},
		{"insert after a trailing comma and comment", patchProject, []string{"tree", "Workspace", "$properties", "FallenPartsDestroyHeight"}, `-500`,
			strings.Replace(patchProject, "196.2, // default\n", "196.2, // default\n        \"FallenPartsDestroyHeight\": -500,\n", 1)},
		{"insert into an inline empty object", patchProject, []string{"tree", "Lighting", "$properties", "Brightness"}, `2`,
			strings.Replace(patchProject, `{"$properties": {}}`, `{"$properties": {"Brightness": 2}}`, 1)},
		{"insert at the top level", patchProject, []string{"servePort"}, `34873`,
			strings.Replace(patchProject, "  },\n}", "  },\n  \"servePort\": 34873,\n}", 1)},
		{"match unquoted and single-quoted keys by name", `{name: 'x', 'b': 1}`, []string{"b"}, `2`, `{name: 'x', 'b': 2}`},
		{"insert without a trailing comma",
			"{\n  \"a\": 1 // one\n}", []string{"b"}, `2`,
			"{\n  \"a\": 1, // one\n  \"b\": 2\n}"},
		{"insert after a block comment on the line",
			"{\n  \"a\": 1 /* one */\n}", []string{"b"}, `2`,
			"{\n  \"a\": 1, /* one */\n  \"b\": 2\n}"},
		{"insert with the closing brace on the last line",
			"{\n  \"a\": 1}", []string{"b"}, `2`,
			"{\n  \"a\": 1,\n  \"b\": 2}"},
		{"insert inline", `{"a": 1}`, []string{"b"}, `2`, `{"a": 1, "b": 2}`},
		{"insert inline, compact", `{"a":1,"b":2}`, []string{"c"}, `3`, `{"a":1,"b":2,"c":3}`},
		{"insert inline, spaced", `{ "a" : 1, "b" : 2 }`, []string{"c"}, `3`, `{ "a" : 1, "b" : 2, "c" : 3 }`},
		{"insert inline after a trailing comma", `{"a": 1,}`, []string{"b"}, `2`, `{"a": 1, "b": 2,}`},
		{"insert into {}", `{}`, []string{"k"}, `true`, `{"k": true}`},
		{"insert into { }", `{ }`, []string{"k"}, `true`, `{ "k": true }`},
		{"insert into an inline object holding a comment", `{ /* none */ }`, []string{"k"}, `1`, `{ "k": 1 /* none */ }`},
		{"insert into an empty object spread over lines",
			"{\n  \"tree\": {\n    \"$properties\": {\n    }\n  }\n}", []string{"tree", "$properties", "Name"}, `"x"`,
			"{\n  \"tree\": {\n    \"$properties\": {\n      \"Name\": \"x\"\n    }\n  }\n}"},
		{"insert into an empty object with a comment",
			"{\n    \"p\": { // none yet\n    }\n}", []string{"p", "K"}, `1`,
			"{\n    \"p\": { // none yet\n        \"K\": 1\n    }\n}"},
		{"tabs and CRLF", "{\r\n\t\"a\": 1\r\n}\r\n", []string{"b"}, `2`, "{\r\n\t\"a\": 1,\r\n\t\"b\": 2\r\n}\r\n"},
		{"multi-line value is indented like its line",
			"{\n    \"a\": 1\n}", []string{"a"}, "{\n  \"x\": [\n    1\n  ]\n}",
			"{\n    \"a\": {\n      \"x\": [\n        1\n      ]\n    }\n}"},
		{"multi-line value inserted",
			"{\n  \"a\": 1\n}", []string{"b"}, "{\n  \"x\": 1\n}",
			"{\n  \"a\": 1,\n  \"b\": {\n    \"x\": 1\n  }\n}"},
		{"new value is trimmed", `{"a": 1}`, []string{"a"}, " \n[1, 2]\n", `{"a": [1, 2]}`},
		{"duplicate key: the last one is replaced", `{"a": 1, "a": 2}`, []string{"a"}, `3`, `{"a": 1, "a": 3}`},
		{"duplicate parent: the last one is followed", `{"o": {"x": 1}, "o": {"y": 1}}`, []string{"o", "x"}, `2`,
			`{"o": {"x": 1}, "o": {"y": 1, "x": 2}}`},
		{"key is written as a JSON string", `{"a": 1}`, []string{"say \"hi\"\n"}, `0`, `{"a": 1, "say \"hi\"\n": 0}`},
		{"empty path replaces the document", "// top\n[1, 2] // end\n", nil, `{"a": 1}`, "// top\n{\"a\": 1} // end\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PatchJSONCValue([]byte(tt.in), tt.path, json.RawMessage(tt.value))
			if err != nil {
				t.Fatalf("PatchJSONCValue(%q, %q, %s) error: %v", tt.in, tt.path, tt.value, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("PatchJSONCValue(%q, %q, %s) mismatch (-want +got):\n%s", tt.in, tt.path, tt.value, diff)
			}
			if _, err := ParseJSONC(got); err != nil {
				t.Errorf("PatchJSONCValue(%q, %q, %s) = %q, which does not parse: %v", tt.in, tt.path, tt.value, got, err)
			}
		})
	}
}

func TestPatchJSONCValueErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		path  []string
		value string
	}{
		{"missing parent", patchProject, []string{"tree", "Missing", "$properties"}, `{}`},
		{"parent is not an object", patchProject, []string{"name", "x"}, `1`},
		{"parent is an array", `{"a": [1]}`, []string{"a", "0"}, `1`},
		{"document is not an object", `[1, 2]`, []string{"a"}, `1`},
		{"invalid new value", `{"a": 1}`, []string{"a"}, `{a: 1}`},
		{"empty new value", `{"a": 1}`, []string{"a"}, ``},
		{"two new values", `{"a": 1}`, []string{"a"}, `1 2`},
		{"file does not parse", `{"a": }`, []string{"a"}, `1`},
		{"empty file", ``, []string{"a"}, `1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PatchJSONCValue([]byte(tt.in), tt.path, json.RawMessage(tt.value))
			if err == nil {
				t.Errorf("PatchJSONCValue(%q, %q, %s) = %q, want an error", tt.in, tt.path, tt.value, got)
			}
		})
	}
}

func TestDeleteJSONCMember(t *testing.T) {
	tests := []struct {
		name string
		in   string
		path []string
		want string
	}{
		{"middle member on its own line",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n", []string{"b"},
			"{\n  \"a\": 1,\n  \"c\": 3\n}\n"},
		{"last member takes the previous comma",
			"{\n  \"a\": 1,\n  \"b\": 2\n}\n", []string{"b"},
			"{\n  \"a\": 1\n}\n"},
		{"last member with a trailing comma takes its line",
			"{\n  \"a\": 1,\n  \"b\": 2,\n}\n", []string{"b"},
			"{\n  \"a\": 1,\n}\n"},
		{"last member's comment stays on the line before",
			"{\n  \"a\": 1,\n  \"b\": 2 // two\n}\n", []string{"b"},
			"{\n  \"a\": 1 // two\n}\n"},
		{"only member",
			"{\n  \"a\": {\"x\": 1}\n}\n", []string{"a"},
			"{\n}\n"},
		{"only member with a trailing comma",
			"{\n  \"a\": 1,\n}\n", []string{"a"},
			"{\n}\n"},
		{"only member inline", `{"a": 1}`, []string{"a"}, `{}`},
		{"inline object",
			`{"p": {"a": 1, "b": [1, 2], "c": 3}}`, []string{"p", "b"},
			`{"p": {"a": 1, "c": 3}}`},
		{"first member inline", `{"a": 1, "b": 2}`, []string{"a"}, `{"b": 2}`},
		{"nested object on lines",
			"{\n  \"tree\": {\n    \"$properties\": {\n      \"A\": 1,\n      \"B\": 2\n    }\n  }\n}\n", []string{"tree", "$properties", "A"},
			"{\n  \"tree\": {\n    \"$properties\": {\n      \"B\": 2\n    }\n  }\n}\n"},
		{"a value spread over lines",
			"{\n  \"a\": {\n    \"x\": 1\n  },\n  \"b\": 2\n}", []string{"a"},
			"{\n  \"b\": 2\n}"},
		{"comments and trailing commas",
			"{\n  // head\n  \"p\": {\n    \"a\": true, // keep\n    'b': \"}\", /* x */\n  },\n}\n", []string{"p", "b"},
			"{\n  // head\n  \"p\": {\n    \"a\": true, // keep\n  },\n}\n"},
		{"a comment on the line before stays",
			"{\n  // about b\n  \"b\": 2,\n  \"c\": 3\n}", []string{"b"},
			"{\n  // about b\n  \"c\": 3\n}"},
		{"the member's comment goes with it",
			"{\n  \"a\": 1, // about a\r\n  b: 2,\n}", []string{"a"},
			"{\n  b: 2,\n}"},
		{"CRLF",
			"{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", []string{"a"},
			"{\r\n  \"b\": 2\r\n}\r\n"},
		{"CRLF, last member",
			"{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", []string{"b"},
			"{\r\n  \"a\": 1\r\n}\r\n"},
		{"CRLF with a comment",
			"{\r\n\t\"a\": 1, /* one */ // a\r\n\t\"b\": 2\r\n}", []string{"a"},
			"{\r\n\t\"b\": 2\r\n}"},
		{"unquoted and single-quoted keys", `{name: 'x', 'b': 1}`, []string{"name"}, `{'b': 1}`},
		{"a key written twice goes twice",
			`{"a": 1, "b": 0, "a": 2}`, []string{"a"},
			`{"b": 0}`},
		{"duplicate parent: the last one is followed",
			`{"o": {"x": 1}, "o": {"x": 2, "y": 3}}`, []string{"o", "x"},
			`{"o": {"x": 1}, "o": {"y": 3}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DeleteJSONCMember([]byte(tt.in), tt.path)
			if err != nil {
				t.Fatalf("DeleteJSONCMember(%q, %q): %v", tt.in, tt.path, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("DeleteJSONCMember(%q, %q) (-want +got):\n%s", tt.in, tt.path, diff)
			}
		})
	}
}

func TestDeleteJSONCMemberErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		path []string
	}{
		{"missing key", `{"a": 1}`, []string{"b"}},
		{"missing parent", patchProject, []string{"tree", "Missing", "$properties"}},
		{"parent is not an object", patchProject, []string{"name", "x"}},
		{"parent is an array", `{"a": [1]}`, []string{"a", "0"}},
		{"document is not an object", `[1, 2]`, []string{"a"}},
		{"no key", `{"a": 1}`, nil},
		{"file does not parse", `{"a": }`, []string{"a"}},
		{"empty file", ``, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DeleteJSONCMember([]byte(tt.in), tt.path)
			if err == nil {
				t.Errorf("DeleteJSONCMember(%q, %q) = %q, want an error", tt.in, tt.path, got)
			}
		})
	}
}

func FuzzDeleteJSONCMember(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, patchProject, "{\r\n\t\"a\": 1, // one\r\n\t'b': [2],\r\n}\r\n",
		`{"a": 1 "b": 2, "a": 3,}`, "{\n  /* c */ \"a\": {\"x\": 1},\n  b: 2 // two\n}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := ParseJSONC(data)
		if err != nil {
			return
		}
		keys, err := ObjectKeys(raw)
		if err != nil {
			return
		}
		for _, key := range keys {
			var want map[string]any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			delete(want, key)
			out, err := DeleteJSONCMember(data, []string{key})
			if err != nil {
				continue // refused: the file stays as it is
			}
			oraw, err := ParseJSONC(out)
			if err != nil {
				t.Fatalf("DeleteJSONCMember(%q, %q) = %q, which does not parse: %v", data, key, out, err)
			}
			var got map[string]any
			if err := json.Unmarshal(oraw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("DeleteJSONCMember(%q, %q) = %q, value mismatch (-want +got):\n%s", data, key, out, diff)
			}
		}
		// What PatchJSONCValue adds, DeleteJSONCMember takes away.
		if slices.Contains(keys, "fuzz") {
			return
		}
		patched, err := PatchJSONCValue(data, []string{"fuzz"}, json.RawMessage(`{"x": 1}`))
		if err != nil {
			t.Fatalf("PatchJSONCValue(%q): %v", data, err)
		}
		out, err := DeleteJSONCMember(patched, []string{"fuzz"})
		if err != nil {
			t.Fatalf("DeleteJSONCMember(%q, fuzz): %v", patched, err)
		}
		back, err := ParseJSONC(out)
		if err != nil || string(back) != string(raw) {
			t.Fatalf("DeleteJSONCMember(%q, fuzz) = %q, parsing to %s, %v; want %s", patched, out, back, err, raw)
		}
	})
}
