package format

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLuaFromTOML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"Rojo's own test", `
			array = [1, 2, 3]
			true = true
			false = false
			int = 1234
			float = 1234.5452
			"1invalidident" = "nice"

			[object]
			hello = "world"

			[dates]
			offset1 = 1979-05-27T00:32:00.999999-07:00
			offset2 = 1979-05-27 07:32:00Z
			localdatetime = 1979-05-27T07:32:00
			localdate = 1979-05-27
			localtime = 00:32:00.999999
		`,
			"return {\n\t[\"1invalidident\"] = \"nice\",\n\tarray = {1, 2, 3},\n\tdates = {\n" +
				"\t\tlocaldate = \"1979-05-27\",\n\t\tlocaldatetime = \"1979-05-27T07:32:00\",\n" +
				"\t\tlocaltime = \"00:32:00.999999\",\n\t\toffset1 = \"1979-05-27T00:32:00.999999-07:00\",\n" +
				"\t\toffset2 = \"1979-05-27T07:32:00Z\",\n\t},\n\t[\"false\"] = false,\n\tfloat = 1234.5452,\n" +
				"\tint = 1234,\n\tobject = {\n\t\thello = \"world\",\n\t},\n\t[\"true\"] = true,\n}"},
		{"integers become floats", "big = 9007199254740993\nneg = -17\nhex = 0xff\nmax = 9223372036854775807",
			"return {\n\tbig = 9007199254740992,\n\thex = 255,\n\tmax = 9223372036854776000,\n\tneg = -17,\n}"},
		{"floats", "a = 1e21\nb = 0.5\nc = -0.0\nd = 6.626e-34",
			"return {\n\ta = 1000000000000000000000,\n\tb = 0.5,\n\tc = -0,\n\td = 0.0000000000000000000000000000000006626,\n}"},
		{"nan and infinities", "a = nan\nb = inf\nc = -inf\nd = +inf\ne = -nan",
			"return {\n\ta = 0/0,\n\tb = math.huge,\n\tc = -math.huge,\n\td = math.huge,\n\te = 0/0,\n}"},
		{"datetimes", "a = 1979-05-27t07:32:00z\nb = 1979-05-27T07:32:00+00:00\nc = 1979-05-27T07:32:00.120-01:30\n" +
			"d = 07:32:00.000\ne = 0001-01-01",
			"return {\n\ta = \"1979-05-27T07:32:00Z\",\n\tb = \"1979-05-27T07:32:00+00:00\",\n" +
				"\tc = \"1979-05-27T07:32:00.12-01:30\",\n\td = \"07:32:00\",\n\te = \"0001-01-01\",\n}"},
		{"strings", `a = "line\nbreak \"q\" \\ tab\t"` + "\nb = '''\nraw \\n'''",
			"return {\n\ta = \"line\\nbreak \\\"q\\\" \\\\ tab\\t\",\n\tb = \"raw \\\\n\",\n}"},
		{"arrays of tables", "[[fruit]]\nname = \"apple\"\n[[fruit]]\nname = \"pear\"\ncolors = []",
			"return {\n\tfruit = {{\n\t\tname = \"apple\",\n\t}, {\n\t\tcolors = {},\n\t\tname = \"pear\",\n\t}},\n}"},
		{"inline tables and dotted keys", "point = { x = 1, y = 2 }\na.b.c = true\n\"key with space\" = 1",
			"return {\n\ta = {\n\t\tb = {\n\t\t\tc = true,\n\t\t},\n\t},\n\t[\"key with space\"] = 1,\n" +
				"\tpoint = {\n\t\tx = 1,\n\t\ty = 2,\n\t},\n}"},
		{"mixed array", `a = [1, "two", [3], {four = 4}]`,
			"return {\n\ta = {1, \"two\", {3}, {\n\t\tfour = 4,\n\t}},\n}"},
		{"empty file", "", "return {\n}"},
		{"comments only", "# nothing\n\n", "return {\n}"},
		{"leading BOM", "\ufeffa = 1", "return {\n\ta = 1,\n}"},
		{"CRLF", "a = 1\r\nb = \"x\"\r\n", "return {\n\ta = 1,\n\tb = \"x\",\n}"},
		{"empty table", "[empty]", "return {\n\tempty = {\n\t},\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LuaFromTOML([]byte(tt.in))
			if err != nil {
				t.Fatalf("LuaFromTOML(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LuaFromTOML(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLuaFromTOMLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"duplicate key", "a = 1\na = 2"},
		{"redefined table", "[a]\nx = 1\n[a]\ny = 2"},
		{"missing value", "a ="},
		{"bare word value", "a = yes"},
		{"integer overflow", "a = 9223372036854775808"},
		{"invalid UTF-8", "a = \"\xff\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := LuaFromTOML([]byte(tt.in)); err == nil {
				t.Errorf("LuaFromTOML(%q) = %q, want an error", tt.in, got)
			}
		})
	}
}
