package format

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObject(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name     string
		obj      Object
		indented string
		compact  string
	}{
		{"empty", Object{}, "{}\n", "{}"},
		{"members keep their order",
			Object{{"b", raw("1")}, {"a", raw(`"x"`)}},
			"{\n  \"b\": 1,\n  \"a\": \"x\"\n}\n",
			`{"b": 1, "a": "x"}`},
		{"nested object",
			Object{{"properties", Object{{"Anchored", raw("true")}}}, {"attributes", Object{}}},
			"{\n  \"properties\": {\n    \"Anchored\": true\n  },\n  \"attributes\": {}\n}\n",
			`{"properties": {"Anchored": true}, "attributes": {}}`},
		{"array of objects",
			Object{{"className", raw(`"Model"`)}, {"children", []Object{{{"name", raw(`"A"`)}}, {{"name", raw(`"B"`)}, {"children", []Object{{}}}}}}},
			"{\n  \"className\": \"Model\",\n  \"children\": [\n    {\n      \"name\": \"A\"\n    },\n    {\n      \"name\": \"B\",\n      \"children\": [\n        {}\n      ]\n    }\n  ]\n}\n",
			`{"className": "Model", "children": [{"name": "A"}, {"name": "B", "children": [{}]}]}`},
		{"expanded values, strings, bools and an empty list",
			Object{{"Size", Expanded(`{"Vector3":[4,1,2]}`)}, {"$path", "src/<a>"}, {"$ignoreUnknownInstances", true}, {"children", []Object{}}},
			"{\n  \"Size\": {\n    \"Vector3\": [\n      4,\n      1,\n      2\n    ]\n  },\n  \"$path\": \"src/<a>\",\n  \"$ignoreUnknownInstances\": true,\n  \"children\": []\n}\n",
			`{"Size": {"Vector3":[4,1,2]}, "$path": "src/<a>", "$ignoreUnknownInstances": true, "children": []}`},
		{"keys are escaped but for HTML characters",
			Object{{"a<b>&\"c\"\n", raw("0")}},
			"{\n  \"a<b>&\\\"c\\\"\\n\": 0\n}\n",
			`{"a<b>&\"c\"\n": 0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.indented, string(tt.obj.Indented())); diff != "" {
				t.Errorf("Indented() (-want +got):\n%s", diff)
			}
			got := tt.obj.Compact()
			if diff := cmp.Diff(tt.compact, string(got)); diff != "" {
				t.Errorf("Compact() (-want +got):\n%s", diff)
			}
			if !json.Valid(got) || !json.Valid(tt.obj.Indented()) {
				t.Errorf("Compact() = %s or Indented() is not valid JSON", got)
			}
		})
	}
}

func TestEncodeJSON(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"print(a < b and c > d && e)", `"print(a < b and c > d && e)"`},
		{"tab\tline\n\u2028", `"tab\tline\n\u2028"`},
		{[]float32{0.1, 1}, `[0.1,1]`},
		{map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`},
	}
	for _, tt := range tests {
		got, err := EncodeJSON(tt.in)
		if err != nil {
			t.Fatalf("EncodeJSON(%#v): %v", tt.in, err)
		}
		if string(got) != tt.want {
			t.Errorf("EncodeJSON(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if _, err := EncodeJSON(func() {}); err == nil {
		t.Errorf("EncodeJSON(func) = nil error, want one")
	}
}

func TestSpacedJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[1,2]}`, `{"a": 1, "b": [1, 2]}`},
		{`{"Vector3":[0,5,0]}`, `{"Vector3": [0, 5, 0]}`},
		{`"a,b:c"`, `"a,b:c"`},
		{`"\u003cb\u003e \u0026 \"q\" \\u003c \u00e9"`, `"<b> & \"q\" \\u003c \u00e9"`},
		{`["\\",1]`, `["\\", 1]`},
		{``, ``},
	}
	for _, tt := range tests {
		if got := string(SpacedJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("SpacedJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
