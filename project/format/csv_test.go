package format

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocalizationFromCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ROJO_FORMAT example", "Key,Source,Context,Example,fr\nHi,Hello,,greeting,Bonjour",
			`[{"key":"Hi","example":"greeting","source":"Hello","values":{"fr":"Bonjour"}}]`},
		{"Rojo's own test", "\nKey,Source,Context,Example,es\nAck,Ack!,,An exclamation of despair,¡Ay!",
			`[{"key":"Ack","example":"An exclamation of despair","source":"Ack!","values":{"es":"¡Ay!"}}]`},
		{"all columns and sorted locales", "Source,zh-cn,Key,de,Context,Example\nS,中,K,D,C,E\n",
			`[{"key":"K","context":"C","example":"E","source":"S","values":{"de":"D","zh-cn":"中"}}]`},
		{"values always present", "Key,Source,fr\nk,,\n",
			`[{"key":"k","values":{}}]`},
		{"rows without key and source are dropped", "Key,Source,Context,fr\n,,ctx,texte\nk,,,\n,s,,\n",
			`[{"key":"k","values":{}},{"source":"s","values":{}}]`},
		{"empty header columns are ignored", "Key,,fr\nk,ignored,v\n",
			`[{"key":"k","values":{"fr":"v"}}]`},
		{"header names are case-sensitive", "key,Source\nk,s\n",
			`[{"source":"s","values":{"key":"k"}}]`},
		{"duplicate locale columns: last non-empty wins", "Key,fr,fr\na,1,2\nb,3,\n",
			`[{"key":"a","values":{"fr":"2"}},{"key":"b","values":{"fr":"3"}}]`},
		{"quoted fields", "Key,Source\n\"a,b\",\"say \"\"hi\"\"\nnow\"\n",
			`[{"key":"a,b","source":"say \"hi\"\nnow","values":{}}]`},
		{"quotes inside an unquoted field are kept", "Key,Source\na\"b,c\"\"d\n",
			`[{"key":"a\"b","source":"c\"\"d","values":{}}]`},
		{"text after a closing quote is kept", "Key,Source\n\"ab\"c,d\n",
			`[{"key":"abc","source":"d","values":{}}]`},
		{"unterminated quote runs to the end", "Key,Source\nk,\"open\n",
			`[{"key":"k","source":"open\n","values":{}}]`},
		{"CRLF, CR and blank lines", "Key,Source\r\n\r\na,1\rb,2\r\n\n\nc,3",
			`[{"key":"a","source":"1","values":{}},{"key":"b","source":"2","values":{}},{"key":"c","source":"3","values":{}}]`},
		{"JSON escaping like serde_json", "Key,Source\nk,\"<tab\t> \\ \x01 \u2028 é\"\n",
			`[{"key":"k","source":"<tab\t> \\ \u0001 ` + "\u2028" + ` é","values":{}}]`},
		{"spaces are kept", "Key,Source\n k , s \n",
			`[{"key":" k ","source":" s ","values":{}}]`},
		{"leading BOM", "\ufeffKey,Source\nk,s\n", `[{"key":"k","source":"s","values":{}}]`},
		{"empty file", "", "[]"},
		{"BOM only", "\ufeff", "[]"},
		{"blank lines only", "\n\r\n", "[]"},
		{"header only", "Key,Source,fr\n", "[]"},
		{"trailing comma is an empty field", "Key,Source,\nk,s,\n", `[{"key":"k","source":"s","values":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LocalizationFromCSV([]byte(tt.in))
			if err != nil {
				t.Fatalf("LocalizationFromCSV(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LocalizationFromCSV(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLocalizationFromCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"row with fewer fields", "Key,Source,fr\nk,s\n"},
		{"row with more fields", "Key,Source\nk,s,extra\n"},
		{"ragged row later on", "Key,Source\na,1\nb\n"},
		{"invalid UTF-8", "Key,Source\nk,\xff\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := LocalizationFromCSV([]byte(tt.in)); err == nil {
				t.Errorf("LocalizationFromCSV(%q) = %q, want an error", tt.in, got)
			}
		})
	}
}

func TestCSVFromLocalization(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ROJO_FORMAT example", `[{"key":"Hi","example":"greeting","source":"Hello","values":{"fr":"Bonjour"}}]`,
			"Key,Source,Context,Example,fr\nHi,Hello,,greeting,Bonjour\n"},
		{"locales of all entries, sorted", `[{"key":"a","values":{"fr":"1"}},{"source":"b","values":{"de":"2","es":"3"}}]`,
			"Key,Source,Context,Example,de,es,fr\na,,,,,,1\n,b,,,2,3,\n"},
		{"quoting", `[{"key":"a,b","source":"say \"hi\"\nnow","context":"cr\r","values":{"fr":"plain \"no\" quote"}}]`,
			"Key,Source,Context,Example,fr\n\"a,b\",\"say \"\"hi\"\"\nnow\",\"cr\r\",,\"plain \"\"no\"\" quote\"\n"},
		{"Roblox's examples spelling", `[{"key":"k","context":"","examples":"ex","source":"s","values":{}}]`,
			"Key,Source,Context,Example\nk,s,,ex\n"},
		{"entry order kept", `[{"key":"z","values":{}},{"key":"a","values":{}}]`,
			"Key,Source,Context,Example\nz,,,\na,,,\n"},
		{"empty table", `[]`, "Key,Source,Context,Example\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CSVFromLocalization(tt.in)
			if err != nil {
				t.Fatalf("CSVFromLocalization(%s) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("CSVFromLocalization(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCSVFromLocalizationErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"not JSON", `[{`},
		{"not an array", `{"key":"k"}`},
		{"neither key nor source", `[{"context":"c","values":{"fr":"x"}}]`},
		{"empty key and source", `[{"key":"","source":"","values":{}}]`},
		{"empty locale", `[{"key":"k","values":{"":"x"}}]`},
		{"locale named like a fixed column", `[{"key":"k","values":{"Source":"x"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := CSVFromLocalization(tt.in); err == nil {
				t.Errorf("CSVFromLocalization(%s) = %q, want an error", tt.in, got)
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	files := []string{
		"Key,Source,Context,Example,fr\nHi,Hello,,greeting,Bonjour",
		"\nKey,Source,Context,Example,es\nAck,Ack!,,An exclamation of despair,¡Ay!",
		"Source,zh-cn,Key,de,Context,Example\nS,中,K,D,C,E\n",
		"Key,Source,Context,fr,de\n,,ctx,texte,\nk,,,,x\n,s,,\"a,b\",\n\"multi\nline\",\"q\"\"q\",c,,\n",
		"Key,Source\n\"ab\"c,\"open\n",
		"",
	}
	for _, f := range files {
		contents, err := LocalizationFromCSV([]byte(f))
		if err != nil {
			t.Fatalf("LocalizationFromCSV(%q) error: %v", f, err)
		}
		csv, err := CSVFromLocalization(contents)
		if err != nil {
			t.Fatalf("CSVFromLocalization(%s) error: %v", contents, err)
		}
		again, err := LocalizationFromCSV(csv)
		if err != nil {
			t.Fatalf("LocalizationFromCSV(%q) error: %v", csv, err)
		}
		if diff := cmp.Diff(contents, again); diff != "" {
			t.Errorf("round trip of %q through %q mismatch (-want +got):\n%s", f, csv, diff)
		}
	}
}
