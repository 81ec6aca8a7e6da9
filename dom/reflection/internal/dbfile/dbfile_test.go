package dbfile

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func embeddedJSON(t testing.TB) []byte {
	t.Helper()
	gz, err := os.ReadFile("../../database.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestParseMatchesJSON checks that Parse agrees with encoding/json on the
// embedded database.
func TestParseMatchesJSON(t *testing.T) {
	js := embeddedJSON(t)
	var want File
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Parse mismatch (-encoding/json +Parse):\n%.4000s", diff)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     *File // nil: error expected
	}{
		{"empty", `{}`, &File{}},
		{"full", ` { "note" : "a\"b\u0026" , "version":[0,1,2,3],
			"classes":{"A":{"super":"B","tags":["T"],"props":{"p":{"value":"Bool","script":"None","ser":"Alias","alias":"q","tags":["x","y"]}},
				"defaults":{"p":{"Bool":true},"s":{"String":"}]\"["},"n":{"Enum":12},"l":[1,{"a":[]}]}}},
			"enums":{"E":{"I":7,"J":4294967295}}}`,
			&File{
				Note:    "a\"b&",
				Version: [4]uint32{0, 1, 2, 3},
				Classes: map[string]*Class{"A": {
					Super: "B", Tags: []string{"T"},
					Props: map[string]*Property{"p": {Value: "Bool", Script: "None", Ser: "Alias", Alias: "q", Tags: []string{"x", "y"}}},
					Defaults: map[string]json.RawMessage{
						"p": json.RawMessage(`{"Bool":true}`),
						"s": json.RawMessage(`{"String":"}]\"["}`),
						"n": json.RawMessage(`{"Enum":12}`),
						"l": json.RawMessage(`[1,{"a":[]}]`),
					},
				}},
				Enums: map[string]map[string]uint32{"E": {"I": 7, "J": 4294967295}},
			}},
		{"unknown field", `{"x":1}`, nil},
		{"unknown property field", `{"classes":{"A":{"props":{"p":{"bogus":""}}}}}`, nil},
		{"trailing", `{} x`, nil},
		{"unterminated", `{"classes":{"A":{"defaults":{"p":{"Bool":true}`, nil},
		{"bad number", `{"version":[1,-2]}`, nil},
		{"too many version parts", `{"version":[1,2,3,4,5]}`, nil},
		{"missing colon", `{"note" "x"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Parse succeeded, want error; got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	js := embeddedJSON(b)
	for b.Loop() {
		if _, err := Parse(js); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	js := embeddedJSON(b)
	for b.Loop() {
		var f File
		if err := json.Unmarshal(js, &f); err != nil {
			b.Fatal(err)
		}
	}
}
