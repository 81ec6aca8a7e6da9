package format

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLuaFromJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ROJO_FORMAT example", `{"b":[1,2],"a b":{"x":true}}`,
			"return {\n\t[\"a b\"] = {\n\t\tx = true,\n\t},\n\tb = {1, 2},\n}"},
		{"Rojo's own test", `{
			"array": [1, 2, 3],
			"object": {
				"hello": "world"
			},
			"true": true,
			"false": false,
			"null": null,
			"int": 1234,
			"float": 1234.5452,
			"1invalidident": "nice"
		}`,
			"return {\n\t[\"1invalidident\"] = \"nice\",\n\tarray = {1, 2, 3},\n\t[\"false\"] = false,\n" +
				"\tfloat = 1234.5452,\n\tint = 1234,\n\tnull = nil,\n\tobject = {\n\t\thello = \"world\",\n\t},\n" +
				"\t[\"true\"] = true,\n}"},
		{"keywords are bracketed", `{"end": 1, "nil": 2, "and": 3, "function": 4, "goto": 5, "continue": 6}`,
			"return {\n\t[\"and\"] = 3,\n\tcontinue = 6,\n\t[\"end\"] = 1,\n\t[\"function\"] = 4,\n\tgoto = 5,\n\t[\"nil\"] = 2,\n}"},
		{"keys that are not identifiers", `{"": 1, "1a": 2, "a-b": 3, "é": 4, "_ok9": 5, "A_Z": 6}`,
			"return {\n\t[\"\"] = 1,\n\t[\"1a\"] = 2,\n\tA_Z = 6,\n\t_ok9 = 5,\n\t[\"a-b\"] = 3,\n\t[\"é\"] = 4,\n}"},
		{"keys sorted byte-wise", `{"b": 1, "B": 2, "a": 3, "_": 4, "aa": 5}`,
			"return {\n\tB = 2,\n\t_ = 4,\n\ta = 3,\n\taa = 5,\n\tb = 1,\n}"},
		{"numbers", `[1e21, 0.5, -3, 1234, 1.5e-7, 0, -0, 12345678901234567890, 0.1, 0x1F, 1E2]`,
			"return {1000000000000000000000, 0.5, -3, 1234, 0.00000015, 0, -0, 12345678901234567000, 0.1, 31, 100}"},
		{"smallest number", `5e-324`, "return 0." + strings.Repeat("0", 323) + "5"},
		{"string escapes", `{"s": "q\" b\\ cr\r lf\n tab\t nul\u0000 bell\u0007 é 中 😀 '"}`,
			"return {\n\ts = \"q\\\" b\\\\ cr\\r lf\\n tab\\t nul\x00 bell\x07 é 中 😀 '\",\n}"},
		{"escapes in a bracketed key", `{"a\"b\n": 1}`, "return {\n\t[\"a\\\"b\\n\"] = 1,\n}"},
		{"null in a table", `{"k": null}`, "return {\n\tk = nil,\n}"},
		{"null in an array", `[1, null, 3]`, "return {1, nil, 3}"},
		{"top-level null", `null`, "return nil"},
		{"top-level string", `"hi"`, `return "hi"`},
		{"top-level boolean", `false`, "return false"},
		{"empty object", `{}`, "return {\n}"},
		{"empty array", `[]`, "return {}"},
		{"nested empty object", `{"a": {}, "b": []}`, "return {\n\ta = {\n\t},\n\tb = {},\n}"},
		{"deep nesting", `{"a": {"b": {"c": 1}}}`, "return {\n\ta = {\n\t\tb = {\n\t\t\tc = 1,\n\t\t},\n\t},\n}"},
		{"objects inside a top-level array", `[{"a": 1}, {"b": [{"c": 2}]}]`,
			"return {{\n\ta = 1,\n}, {\n\tb = {{\n\t\tc = 2,\n\t}},\n}}"},
		{"objects inside a nested array", `{"list": [{"k": "v"}, 2, []]}`,
			"return {\n\tlist = {{\n\t\tk = \"v\",\n\t}, 2, {}},\n}"},
		{"nested arrays", `[[1, [2]], [[]]]`, "return {{1, {2}}, {{}}}"},
		{"duplicate keys: last wins", `{"a": 1, "b": 2, "a": 3}`, "return {\n\ta = 3,\n\tb = 2,\n}"},
		{"JSONC", "{\n  // comment\n  b: 'x', a: [1, 2,],\n}", "return {\n\ta = {1, 2},\n\tb = \"x\",\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LuaFromJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("LuaFromJSON(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LuaFromJSON(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLuaFromJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"comments only", "// nothing here\n"},
		{"leading BOM", "\ufeff{\"a\": 1}"},
		{"invalid UTF-8", "{\"a\": \"\xc3\"}"},
		{"syntax error", `{"a": }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LuaFromJSON([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("LuaFromJSON(%q) = %q, %v, want a *SyntaxError", tt.in, got, err)
			}
		})
	}
}

func TestLuaNumberText(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.NaN(), "0/0"},
		{math.Inf(1), "math.huge"},
		{math.Inf(-1), "-math.huge"},
		{1e21, "1000000000000000000000"},
		{1e-7, "0.0000001"},
		{123456789.5, "123456789.5"},
		{math.Copysign(0, -1), "-0"},
		{9007199254740993, "9007199254740992"},
	}
	for _, tt := range tests {
		if got := luaNumberText(tt.in); got != tt.want {
			t.Errorf("luaNumberText(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLuaReturnKeys(t *testing.T) {
	str := func(s string) luaValue { return luaValue{kind: luaString, s: s} }
	num := func(f float64) luaValue { return luaValue{kind: luaNumber, n: f} }
	tests := []struct {
		name    string
		in      luaValue
		want    string
		wantErr error
	}{
		{"number, boolean and real keys", luaValue{kind: luaTable, pairs: []luaPair{
			{num(1), str("a")}, {luaValue{kind: luaBool, b: true}, str("b")}, {num(1.5), str("c")}, {num(math.NaN()), str("d")},
		}}, "return {\n\t[1] = \"a\",\n\t[true] = \"b\",\n\t[1.5] = \"c\",\n\t[0/0] = \"d\",\n}", nil},
		{"array and table keys", luaValue{kind: luaTable, pairs: []luaPair{
			{luaValue{kind: luaArray, items: []luaValue{num(1), num(2)}}, str("a")},
			{luaValue{kind: luaTable, pairs: []luaPair{{str("k"), num(1)}}}, str("b")},
		}}, "return {\n\t[{1, 2}] = \"a\",\n\t[{\n\t\tk = 1,\n\t}] = \"b\",\n}", nil},
		{"nil key", luaValue{kind: luaTable, pairs: []luaPair{{luaValue{kind: luaNil}, num(1)}}}, "", errNilKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := luaReturn(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("luaReturn() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("luaReturn() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
