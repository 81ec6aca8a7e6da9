package protocol

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fields lists an object's fields as EachField sees them, keys decoded.
func fields(data []byte) (map[string]string, error) {
	got := map[string]string{}
	err := EachField(data, func(key, value []byte) error {
		var k string
		if err := json.Unmarshal(key, &k); err != nil {
			return err
		}
		got[k] = string(value)
		return nil
	})
	return got, err
}

func TestEachField(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		{`{}`, map[string]string{}},
		{` { "a" : 1 , "b":"x" } `, map[string]string{"a": "1", "b": `"x"`}},
		{`{"s":"quote \" and backslash \\","n":null}`, map[string]string{"s": `"quote \" and backslash \\"`, "n": "null"}},
		{`{"s":"ends in backslash \\\\"}`, map[string]string{"s": `"ends in backslash \\\\"`}},
		{`{"a":[1,[2,{"b":"]}"}],3],"c":{"d":[]}}`, map[string]string{"a": `[1,[2,{"b":"]}"}],3]`, "c": `{"d":[]}`}},
		{`{"k\"ey":true,"é":-1.5e3}`, map[string]string{`k"ey`: "true", "é": "-1.5e3"}},
	}
	for _, tt := range tests {
		got, err := fields([]byte(tt.in))
		if err != nil {
			t.Errorf("EachField(%s): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("EachField(%s) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":1`, `{"a":"x}`, `{"a":[1}`, `{a:1}`, `{"a":1 "b":2}`} {
		if _, err := fields([]byte(bad)); err == nil {
			t.Errorf("EachField(%s) = nil error, want one", bad)
		}
	}
}

// FuzzEachField checks that for every JSON object EachField finds the same fields as
// encoding/json.
func FuzzEachField(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\\\"","b":[{"c":"]"}]}`, `{"x":1e5,"y":null,"z":[true,false]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got, err := fields(data)
		if err != nil {
			t.Fatalf("EachField(%s): %v", data, err)
		}
		// encoding/json keeps the last of duplicate keys, and so does fields.
		for k, v := range want {
			if got[k] != string(v) {
				t.Errorf("EachField(%s)[%q] = %s, want %s", data, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("EachField(%s) found %d fields, want %d", data, len(got), len(want))
		}
	})
}
