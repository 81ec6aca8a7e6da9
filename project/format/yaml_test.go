package format

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLuaFromYAML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Rojo's test ends the flow sequence with "sequence?"; the YAML library used here
		// (like libyaml) ends a plain scalar at '?' inside a flow collection, so that item
		// is quoted here. See TestLuaFromYAMLErrors.
		{"Rojo's own test", `
---
string: this is a string
boolean: true
integer: 1337
float: 123456789.5
value-with-hypen: it sure is
sequence:
  - wow
  - 8675309
map:
  key: value
  key2: "value 2"
  key3: 'value 3'
nested-map:
  - key: value
  - key2: "value 2"
  - key3: 'value 3'
whatever_this_is: [i imagine, it's, a, 'sequence?']
null1: ~
null2: null`,
			"return {\n\tstring = \"this is a string\",\n\tboolean = true,\n\tinteger = 1337,\n\tfloat = 123456789.5,\n" +
				"\t[\"value-with-hypen\"] = \"it sure is\",\n\tsequence = {\"wow\", 8675309},\n\tmap = {\n" +
				"\t\tkey = \"value\",\n\t\tkey2 = \"value 2\",\n\t\tkey3 = \"value 3\",\n\t},\n" +
				"\t[\"nested-map\"] = {{\n\t\tkey = \"value\",\n\t}, {\n\t\tkey2 = \"value 2\",\n\t}, {\n" +
				"\t\tkey3 = \"value 3\",\n\t}},\n\twhatever_this_is = {\"i imagine\", \"it's\", \"a\", \"sequence?\"},\n" +
				"\tnull1 = nil,\n\tnull2 = nil,\n}"},
		{"keys keep file order", "zeta: 1\nalpha: 2\nmid: 3", "return {\n\tzeta = 1,\n\talpha = 2,\n\tmid = 3,\n}"},
		{"non-string keys", "1: one\ntrue: yes\n1.5: half\n0x10: hex\n\"2\": quoted",
			"return {\n\t[1] = \"one\",\n\t[true] = \"yes\",\n\t[1.5] = \"half\",\n\t[16] = \"hex\",\n\t[\"2\"] = \"quoted\",\n}"},
		{"complex key", "? [1, 2]\n: pair", "return {\n\t[{1, 2}] = \"pair\",\n}"},
		{"core schema scalars", "a: yes\nb: True\nc: FALSE\nd: Null\ne:\nf: ''\ng: 0o17\nh: +5\ni: -0x10\nj: 1_000",
			"return {\n\ta = \"yes\",\n\tb = \"True\",\n\tc = \"FALSE\",\n\td = \"Null\",\n\te = nil,\n\tf = \"\",\n" +
				"\tg = 15,\n\th = 5,\n\ti = \"-0x10\",\n\tj = \"1_000\",\n}"},
		{"special floats", "a: .inf\nb: -.Inf\nc: .nan\nd: NaN\ne: inf\nf: -infinity\ng: .Nan\nh: 1e3\ni: .5\nj: 5.",
			"return {\n\ta = math.huge,\n\tb = -math.huge,\n\tc = 0/0,\n\td = 0/0,\n\te = math.huge,\n\tf = -math.huge,\n" +
				"\tg = \".Nan\",\n\th = 1000,\n\ti = 0.5,\n\tj = 5,\n}"},
		{"integers up to 2^53", "a: 9007199254740992\nb: -9223372036854775808\nc: 99999999999999999999",
			"return {\n\ta = 9007199254740992,\n\tb = -9223372036854776000,\n\tc = 100000000000000000000,\n}"},
		{"quoted scalars are strings", "a: '1'\nb: \"true\"\nc: |\n  line\n  two\nd: >\n  folded\n  text\n",
			"return {\n\ta = \"1\",\n\tb = \"true\",\n\tc = \"line\\ntwo\\n\",\n\td = \"folded text\\n\",\n}"},
		{"tags", "a: !!str 12\nb: !!int 12\nc: !!float 1\nd: !!bool true\ne: !!null null\nf: !custom 7\ng: !!int '7'",
			"return {\n\ta = \"12\",\n\tb = 12,\n\tc = 1,\n\td = true,\n\te = nil,\n\tf = \"7\",\n\tg = \"7\",\n}"},
		{"anchor without alias", "a: &x 1\nb: 2", "return {\n\ta = 1,\n\tb = 2,\n}"},
		{"top-level sequence", "- 1\n- [a, {b: c}]", "return {1, {\"a\", {\n\tb = \"c\",\n}}}"},
		{"top-level scalar", "hello", `return "hello"`},
		{"document marker only", "---\n", "return nil"},
		{"empty map and sequence", "a: {}\nb: []", "return {\n\ta = {\n\t},\n\tb = {},\n}"},
		{"escapes", `a: "tab\t quote\" backslash\\ nl\n"`, "return {\n\ta = \"tab\\t quote\\\" backslash\\\\ nl\\n\",\n}"},
		{"leading BOM", "\ufeffa: 1", "return {\n\ta = 1,\n}"},
		{"CRLF", "a: 1\r\nb: two\r\n", "return {\n\ta = 1,\n\tb = \"two\",\n}"},
		{"explicit document end", "a: 1\n...\n", "return {\n\ta = 1,\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LuaFromYAML([]byte(tt.in))
			if err != nil {
				t.Fatalf("LuaFromYAML(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LuaFromYAML(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLuaFromYAMLErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"empty file", "", "must contain a document"},
		{"comments only", "# nothing\n", "must contain a document"},
		{"two documents", "---\na: 1\n---\nb: 2\n", "multiple documents"},
		{"alias", "a: &x 1\nb: *x", "aliases"},
		{"merge key", "base: &b {x: 1}\nother:\n  <<: *b", "aliases"},
		{"integer above 2^53", "value: 9007199254740993", "cannot be converted to a Luau number"},
		{"integer key above 2^53", "9007199254740993: a", "cannot be converted to a Luau number"},
		{"hexadecimal above 2^53", "value: 0x20000000000001", "cannot be converted to a Luau number"},
		{"duplicated key", "a: 1\nb: 2\na: 3", "duplicated key"},
		{"duplicated numeric key", "1: a\n0x1: b", "duplicated key"},
		{"null key", "~: 1", "nil cannot be a table key"},
		{"bad tagged int", "a: !!int abc", "not a valid !!int"},
		{"bad tagged bool", "a: !!bool yes", "not a valid !!bool"},
		{"bad tagged null", "a: !!null x", "not a valid !!null"},
		{"syntax error", "a: [1, 2", "parse yaml"},
		// Rojo accepts this; the YAML library used here does not (see above).
		{"question mark in a flow plain scalar", "a: [is it?]", "parse yaml"},
		{"invalid UTF-8", "a: \xff", "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LuaFromYAML([]byte(tt.in))
			if err == nil {
				t.Fatalf("LuaFromYAML(%q) = %q, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("LuaFromYAML(%q) error = %q, want it to mention %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestRustParseFloat(t *testing.T) {
	tests := []struct {
		in     string
		want   float64
		wantOK bool
	}{
		{"1", 1, true},
		{"+1.5", 1.5, true},
		{"-.5", -0.5, true},
		{"5.", 5, true},
		{"1e5", 1e5, true},
		{"1.e5", 1e5, true},
		{"1E-2", 0.01, true},
		{"INF", 0, true},
		{"1e999", 0, true},
		{".", 0, false},
		{"e5", 0, false},
		{"1e", 0, false},
		{"0x10", 0, false},
		{"1_0", 0, false},
		{"", 0, false},
		{"1.5f", 0, false},
		{" 1", 0, false},
	}
	for _, tt := range tests {
		got, ok := rustParseFloat(tt.in)
		if ok != tt.wantOK || (ok && tt.want != 0 && got != tt.want) {
			t.Errorf("rustParseFloat(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
