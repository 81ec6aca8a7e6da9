package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSONC(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain JSON", `{"a": [1, 2.5, -3e2], "b": {"c": null, "d": true, "e": false}}`,
			`{"a":[1,2.5,-3e2],"b":{"c":null,"d":true,"e":false}}`},
		{"line comment", "{\n  // the name\n  \"name\": \"x\" // after\n}", `{"name":"x"}`},
		{"block comment", "/* head */ {\"a\": /* inside */ 1} /* tail */", `{"a":1}`},
		{"comment markers in a string", `{"url": "http://x/*y*/"}`, `{"url":"http://x/*y*/"}`},
		{"trailing comma in object", `{"a": 1, "b": 2,}`, `{"a":1,"b":2}`},
		{"trailing comma in array", `[1, 2, ]`, `[1,2]`},
		{"missing commas", "{\"a\": 1\n\"b\": [1 2]}", `{"a":1,"b":[1,2]}`},
		{"unquoted word keys", `{name: "x", my-key_2: 1, clé: 2}`, `{"name":"x","my-key_2":1,"clé":2}`},
		{"number and keyword keys", `{1: "a", 2.5: "b", true: "c", null: "d"}`,
			`{"1":"a","2.5":"b","true":"c","null":"d"}`},
		{"single-quoted strings", `{'a': 'it\'s "here"'}`, `{"a":"it's \"here\""}`},
		{"duplicate keys: last wins at the first position", `{"a": 1, "b": 2, "a": 3}`, `{"a":3,"b":2}`},
		{"nested duplicates", `{"o": {"x": 1, "x": {"y": 2}}, "o": {"x": 5, "x": 6}}`, `{"o":{"x":6}}`},
		{"hexadecimal numbers", `[0x1F, 0XfF, -0x10, +0x2]`, `[31,255,-16,2]`},
		{"unary plus", `[+5, +0.5, +1e3]`, `[5,0.5,1e3]`},
		{"number forms kept", `[0, -0, 0.3e+025, 1E-2, 12345678901234567890]`,
			`[0,-0,0.3e+025,1E-2,12345678901234567890]`},
		{"string escapes", `["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00"]`,
			`["\"\\/\b\f\n\r\t","é中","😀"]`},
		{"raw control characters in strings", "[\"a\tb\nc\x01\"]", `["a\tb\nc\u0001"]`},
		{"HTML characters are not escaped", `["<a>&", "\u2028"]`, "[\"<a>&\",\"\u2028\"]"},
		{"CRLF line endings", "{\r\n  \"a\": 1,\r\n  // c\r\n  \"b\": 2\r\n}\r\n", `{"a":1,"b":2}`},
		{"unicode whitespace", "{\u00a0\"a\":\u3000 1\u2028}", `{"a":1}`},
		{"top-level scalar", ` "x" `, `"x"`},
		{"top-level null", `null // nothing`, `null`},
		{"keyword prefix is a word", `{nullable: 1, trueish: 2}`, `{"nullable":1,"trueish":2}`},
		{"empty containers", `{"a": {}, "b": [], "c": [{}]}`, `{"a":{},"b":[],"c":[{}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSONC([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseJSONC(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("ParseJSONC(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if !json.Valid(got) {
				t.Errorf("ParseJSONC(%q) = %s, not valid JSON", tt.in, got)
			}
		})
	}
}

func TestParseJSONCErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want SyntaxError
	}{
		{"empty", "", SyntaxError{1, 1, "contains no JSON value"}},
		{"whitespace only", " \n\t ", SyntaxError{1, 1, "contains no JSON value"}},
		{"comments only", "// a comment\n/* another */\n", SyntaxError{1, 1, "contains no JSON value"}},
		{"leading BOM", "\ufeff{}", SyntaxError{1, 1, "unexpected token: the file starts with a UTF-8 byte order mark, which JSON does not allow; save it as UTF-8 without BOM"}},
		{"invalid UTF-8", "{\n  \"a\": \"\xff\"\n}", SyntaxError{2, 9, "invalid UTF-8"}},
		{"missing colon", "{\n  \"a\": 1,\n  \"b\" 2\n}", SyntaxError{3, 7, "expected colon after the string or word in object property"}},
		{"missing value", `{"a": }`, SyntaxError{1, 7, "unexpected close brace"}},
		{"value missing at end", `{"a":`, SyntaxError{1, 6, "expected value after colon in object property"}},
		{"unterminated object", "\n  {\"a\": 1", SyntaxError{2, 3, "unterminated object"}},
		{"unterminated array", "[1, 2", SyntaxError{1, 1, "unterminated array"}},
		{"two values", "[][]", SyntaxError{1, 3, "text cannot contain more than one JSON value"}},
		{"colon in array", "[:]", SyntaxError{1, 2, "unexpected colon"}},
		{"double comma", "[1,,2]", SyntaxError{1, 4, "unexpected comma"}},
		{"leading comma in object", "{,}", SyntaxError{1, 2, "unexpected token in object"}},
		{"word as value", `{"a": yes }`, SyntaxError{1, 7, "unexpected word"}},
		{"word ended by a brace", `{a}`, SyntaxError{1, 2, "unexpected token"}},
		{"dollar in an unquoted key", `{$schema: 1}`, SyntaxError{1, 2, "unexpected token"}},
		{"unterminated comment", "[1] /* x", SyntaxError{1, 5, "unterminated comment block"}},
		{"lone slash", "[1] / 2", SyntaxError{1, 5, "unexpected token"}},
		{"unterminated string", `["abc`, SyntaxError{1, 2, "unterminated string literal"}},
		{"invalid escape", `{"a": "\x"}`, SyntaxError{1, 8, "invalid escape"}},
		{"column counts characters", `["é\q"]`, SyntaxError{1, 4, "invalid escape"}},
		{"single quote escaped in double quotes", `["\'"]`, SyntaxError{1, 3, "invalid escape in double quote string"}},
		{"double quote escaped in single quotes", `['\"']`, SyntaxError{1, 3, "invalid escape in single quote string"}},
		{"short unicode escape", `["\u12"]`, SyntaxError{1, 3, "expected four hex digits"}},
		{"lone surrogate", `["\ud800x"]`, SyntaxError{1, 3, "invalid unicode escape sequence: d800 is a lone surrogate"}},
		{"minus without digits", `[-x]`, SyntaxError{1, 3, "expected digit following negative sign"}},
		{"fraction without digits", `[1.]`, SyntaxError{1, 4, "expected digit"}},
		{"exponent without digits", `[1e]`, SyntaxError{1, 4, "expected plus, minus, or digit in number literal"}},
		{"hexadecimal without digits", `[0x]`, SyntaxError{1, 4, "expected digit"}},
		{"number out of range", `[1e400]`, SyntaxError{1, 2, "number out of range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSONC([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseJSONC(%q) = %s, %v, want a *SyntaxError", tt.in, got, err)
			}
			if diff := cmp.Diff(tt.want, *se); diff != "" {
				t.Errorf("ParseJSONC(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseJSONCDepth(t *testing.T) {
	deep := make([]byte, 0, 2*maxDepth+2)
	for range maxDepth + 1 {
		deep = append(deep, '[')
	}
	for range maxDepth + 1 {
		deep = append(deep, ']')
	}
	tests := []struct {
		name    string
		in      []byte
		wantErr bool
	}{
		{"at the limit", deep[1 : len(deep)-1], false},
		{"over the limit", deep, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSONC(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseJSONC(depth %d) error = %v, want error %v", len(tt.in)/2, err, tt.wantErr)
			}
			if err == nil {
				var v any
				if err := json.Unmarshal(got, &v); err != nil {
					t.Errorf("json.Unmarshal(ParseJSONC(depth %d)) error: %v", len(tt.in)/2, err)
				}
			}
		})
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	err := &SyntaxError{Line: 3, Column: 7, Msg: "unexpected comma"}
	if got, want := err.Error(), "line 3, column 7: unexpected comma"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// A file that starts with a byte order mark (as some Windows editors save) is
// refused, saying so.
func TestParseJSONCByteOrderMark(t *testing.T) {
	_, err := ParseJSONC([]byte("\uFEFF{\"name\": \"x\"}"))
	if err == nil || !strings.Contains(err.Error(), "byte order mark") || !strings.Contains(err.Error(), "line 1, column 1") {
		t.Errorf("ParseJSONC with a BOM = %v, want the BOM named at line 1, column 1", err)
	}
}

func TestObjectKeys(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr bool
	}{
		{"document order", `{"b": 1, "a": {"x": 1, "y": 2}, "c": [1, {"z": 3}]}`, []string{"b", "a", "c"}, false},
		{"empty object", `{}`, []string{}, false},
		{"duplicates are reported", `{"a": 1, "b": 2, "a": 3}`, []string{"a", "b", "a"}, false},
		{"array", `[1, 2]`, nil, true},
		{"string", `"a"`, nil, true},
		{"two values", `{} {}`, nil, true},
		{"truncated", `{"a": 1`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ObjectKeys(json.RawMessage(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ObjectKeys(%s) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ObjectKeys(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestObjectKeysAfterParseJSONC(t *testing.T) {
	raw, err := ParseJSONC([]byte(`{zeta: 1, "alpha": 2, /* c */ 'mid': 3, zeta: 4,}`))
	if err != nil {
		t.Fatalf("ParseJSONC error: %v", err)
	}
	got, err := ObjectKeys(raw)
	if err != nil {
		t.Fatalf("ObjectKeys(%s) error: %v", raw, err)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, got); diff != "" {
		t.Errorf("ObjectKeys(%s) mismatch (-want +got):\n%s", raw, diff)
	}
}

func FuzzParseJSONC(f *testing.F) {
	seeds := []string{
		``, `{}`, `[]`, `null`, `"x"`, `{"a": 1}`, "\ufeff{}",
		`{"a": [1, 2, {"b": null}], "c": "d",}`,
		"{\n  // comment\n  name: 'x', /* block */ \"k\": +0x1F,\n}",
		`{"a": 1 "b": 2}`, `[1 2 3]`, `{"a": "\ud83d\ude00\u00e9"}`,
		`{a: {b: {c: {}}}}`, `[1e400]`, `{"a": 1, "a": 2}`, "{\r\n\t\"a\": [\r\n\t\t1,\r\n\t],\r\n}",
		`{'a': 'it\'s'}`, `[-0, 0.5e-3, 1E+2]`, "{\"\xff\": 1}", `/* unterminated`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := ParseJSONC(data)
		_, luaErr := LuaFromJSON(data)
		if (err == nil) != (luaErr == nil) {
			t.Fatalf("ParseJSONC error %v but LuaFromJSON error %v", err, luaErr)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("ParseJSONC(%q) error %v is not a *SyntaxError with a position", data, err)
			}
			return
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("json.Unmarshal(ParseJSONC(%q) = %s) error: %v", data, raw, err)
		}
		again, err := ParseJSONC(raw)
		if err != nil || string(again) != string(raw) {
			t.Fatalf("ParseJSONC(%s) = %s, %v, want it unchanged", raw, again, err)
		}
		if _, ok := v.(map[string]any); !ok {
			return
		}
		patched, err := PatchJSONCValue(data, []string{"fuzz"}, json.RawMessage(`[1, 2]`))
		if err != nil {
			t.Fatalf("PatchJSONCValue(%q) error: %v", data, err)
		}
		praw, err := ParseJSONC(patched)
		if err != nil {
			t.Fatalf("PatchJSONCValue(%q) = %q, which does not parse: %v", data, patched, err)
		}
		var pv map[string]any
		if err := json.Unmarshal(praw, &pv); err != nil {
			t.Fatalf("json.Unmarshal(%s) error: %v", praw, err)
		}
		want := v.(map[string]any)
		want["fuzz"] = []any{1.0, 2.0}
		if diff := cmp.Diff(want, pv); diff != "" {
			t.Fatalf("PatchJSONCValue(%q) = %q, value mismatch (-want +got):\n%s", data, patched, diff)
		}
	})
}

// FuzzParseJSONCUnordered checks that standard JSON taken as it is decodes to what
// ParseJSONC gives, and that both accept and refuse the same documents.
func FuzzParseJSONCUnordered(f *testing.F) {
	for _, seed := range []string{
		`{"className":"Part","properties":{"Size":[1,2,3]}}`,
		"{\n  \"a\": 1,\n  \"a\": 2\n}",
		`{"a": {"b": 1, "b": {"c": [true, null]}}, "a": {"d": "x"}}`,
		`["\ud83d\ude00", "\u00e9\/\n"]`,
		`["\ud800x"]`,
		`[1e400]`, `[1E2]`, `[0.5e-3]`, `"1e5"`,
		`[` + strings.Repeat("9", 320) + `]`,
		`{"a": 1,}`, `{"a": 1 // c
}`, "\ufeff{}", "", " ", `{'a': 1}`, `[0x1F]`, "[\"\x01\"]", "[\"\xff\"]",
		`{"\\u": 1}`, `{"a\\ud800": "\\\\ud800"}`, `-0`, `[-12.5, 0]`,
		// repeated keys whose values encoding/json would merge into a struct's map or struct
		`{"p": {"a": 1}, "p": {"b": 2}}`, `{"o": {"a": 1}, "o": {"b": [2]}}`, `{"l": [{"p": {"a": 1}, "p": {}}]}`,
		`{"p": {"a": 1}, "\\u0070": {"b": 2}}`,
	} {
		f.Add([]byte(seed))
	}
	decode := func(raw []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, errWant := ParseJSONC(data)
		got, errGot := ParseJSONCUnordered(data)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("ParseJSONC error %v, ParseJSONCUnordered error %v, for %q", errWant, errGot, data)
		}
		if errWant != nil {
			if errWant.Error() != errGot.Error() {
				t.Fatalf("errors differ: %v and %v", errWant, errGot)
			}
			return
		}
		a, err := decode(want)
		if err != nil {
			t.Fatalf("ParseJSONC gave %q, which does not decode: %v", want, err)
		}
		b, err := decode(got)
		if err != nil {
			t.Fatalf("ParseJSONCUnordered gave %q, which does not decode: %v", got, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("for %q: ParseJSONC decodes to %#v, ParseJSONCUnordered to %#v", data, a, b)
		}
		// Into a struct too, as meta and model files are read: encoding/json merges a
		// repeated key's object into a map or struct it filled already.
		var sa, sb unorderedShape
		errA, errB := json.Unmarshal(want, &sa), json.Unmarshal(got, &sb)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(sa, sb) {
			t.Fatalf("for %q: ParseJSONC decodes into a struct as %#v (%v), ParseJSONCUnordered as %#v (%v)", data, sa, errA, sb, errB)
		}
	})
}

// unorderedShape has the field kinds of the meta and model files' structs.
type unorderedShape struct {
	P map[string]json.RawMessage `json:"p"`
	O struct {
		A json.RawMessage `json:"a"`
		B json.RawMessage `json:"b"`
	} `json:"o"`
	L []unorderedShape `json:"l"`
	N *string          `json:"n"`
}

// TestParseJSONCUnorderedTakesJSONAsItIs: standard JSON is not rewritten (the fast
// path is taken), anything else is.
func TestParseJSONCUnorderedTakesJSONAsItIs(t *testing.T) {
	for _, c := range []struct {
		in   string
		asIs bool
	}{
		{"{\n  \"className\": \"Part\",\n  \"properties\": { \"Size\": [1, 2.5, -3] }\n}", true},
		{`{"a": "é \" \\ \/"}`, true},
		{`{"a": 1e3}`, false},
		{`{"a": "\ud83d\ude00"}`, false},
		{`{"a": 1,}`, false},
		{"{\"a\": 1} // c", false},
		// a key repeated in one object, or spelled with an escape: rewritten
		{`{"a": 1, "b": {"a": 2}, "a": 3}`, false},
		{`{"a\u0062": 1}`, false},
		// the same key in different objects, or as a value: as it is
		{`{"a": {"a": ["a", {"a": 1}]}, "b": {"a": "a"}}`, true},
		// more keys in one object than are compared: rewritten
		{manyKeys(maxKeysChecked + 1), false},
		{manyKeys(maxKeysChecked), true},
	} {
		got, err := ParseJSONCUnordered([]byte(c.in))
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if same := string(got) == c.in; same != c.asIs {
			t.Errorf("%q: returned as it is = %v, want %v (got %q)", c.in, same, c.asIs, got)
		}
	}
}

// manyKeys is an object of n distinct keys.
func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q: %d", fmt.Sprint("k", i), i) // (spaced: a rewrite would show)
	}
	b.WriteString("}")
	return b.String()
}

// FuzzObjectKeys checks the scan against encoding/json's decoder on any input: the
// same keys, in the same order, and an error exactly when the decoder finds one.
func FuzzObjectKeys(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1, "b": [1, {"c": "}"}], "d": "\"x\\"}`, `{"a\u00e9\"": null, "b": -1.5e3}`, `[1]`, `{"a": 1`, `{} {}`, " {\n\"k\"\t:\r true } "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ObjectKeys(data)
		want, wantErr := decoderKeys(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("ObjectKeys(%q) error = %v, the decoder's = %v", data, err, wantErr)
		}
		if err == nil && !cmp.Equal(want, got) {
			t.Fatalf("ObjectKeys(%q) = %q, the decoder gives %q", data, got, want)
		}
	})
}

// decoderKeys is ObjectKeys by encoding/json's tokens.
func decoderKeys(raw []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token()
	keys := []string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
