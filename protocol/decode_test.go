package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// plainInstance is SnapshotInstance without its UnmarshalJSON: what encoding/json
// makes of a document.
type plainInstance SnapshotInstance

// FuzzSnapshotInstanceJSON checks that the fast decode gives what encoding/json
// gives, into a new instance and into one already filled, errors included.
func FuzzSnapshotInstanceJSON(f *testing.F) {
	for _, seed := range []string{
		`{"handle":"h1","parent":"h0","name":"Part","className":"Part","properties":{"Size":{"Vector3":[1,2,3]},"Anchored":{"Bool":true}}}`,
		`{"handle":"h2","parent":null,"name":"game","className":"DataModel","properties":{}}`,
		`{"handle":"h3","parent":"h1","name":"S","className":"Script","properties":{"RunContext":{"Enum":0}},"sourceHash":"0123abcd"}`,
		`{"handle":"h4","name":"M","className":"ModuleScript","properties":{"Source":{"String":"return 1\n"}},"sourceFrom":"h9"}`,
		`{"handle":"h7","name":"M","className":"Script","properties":{},"sourceFrom":"h7","editorSha1":"0123abcd"}`,
		`{"editorSha1":null}`, `{"editorSha1":"a","editorSha1":"b"}`,
		`{"Handle":"h5","NAME":"x"}`,
		`{"handle":"h\u0036","name":"é\n"}`,
		`{"handle":"a","handle":"b"}`,
		`{"properties":null}`, `{"properties":{"A":null,"A":{"Int":1}}}`, `{"properties":{"\u0041":1}}`,
		`{"name":null,"parent":null}`, `{"name":5}`, `{"parent":[1]}`, `{"properties":[]}`,
		`{"other":{"x":[1,{"y":"}"}]},"name":"n"}`, `null`, `[]`, `"s"`, `{}`,
		"{\"name\":\"\xff\"}", `{ "handle" : "h" , "properties" : { "A" : { "Int" : 1 } } }`,
	} {
		f.Add([]byte(seed))
	}
	filled := func() SnapshotInstance {
		p := "old-parent"
		return SnapshotInstance{Handle: "old", Parent: &p, Name: "old", ClassName: "Old",
			Properties: Values{"Old": json.RawMessage(`1`)}, SourceFrom: "f", SourceHash: "h", EditorSha1: "e"}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, start := range []func() SnapshotInstance{func() SnapshotInstance { return SnapshotInstance{} }, filled} {
			got, want := start(), plainInstance(start())
			errGot := json.Unmarshal(data, &got)
			errWant := json.Unmarshal(data, &want)
			// (The messages name the type decoded into: only whether there is one
			// is compared.)
			if (errGot == nil) != (errWant == nil) {
				t.Fatalf("%q: error %v, encoding/json's %v", data, errGot, errWant)
			}
			if errGot == nil && !reflect.DeepEqual(got, SnapshotInstance(want)) {
				t.Fatalf("%q: decoded %+v, encoding/json %+v", data, got, SnapshotInstance(want))
			}
		}
	})
}

// TestSnapshotInstanceFastDecode: the plugin's form is decoded without encoding/json.
func TestSnapshotInstanceFastDecode(t *testing.T) {
	for _, c := range []struct {
		doc  string
		fast bool
	}{
		{`{"handle":"h1","parent":"h0","name":"Part","className":"Part","properties":{"Size":{"Vector3":[1,2,3]}}}`, true},
		{`{"handle":"h1","parent":null,"name":"game","className":"DataModel","properties":{},"sourceHash":"ab"}`, true},
		{`{"handle":"h1","parent":"h0","name":"Main","className":"Script","properties":{},"sourceFrom":"h1","editorSha1":"ab"}`, true},
		{`{"Handle":"h1"}`, false},
		{`{"name":"a\nb"}`, false},
		{`{"name":"a","name":"b"}`, false},
	} {
		var s SnapshotInstance
		if _, ok := decodeInstance([]byte(c.doc), &s); ok != c.fast {
			t.Errorf("%s: fast = %v, want %v", c.doc, ok, c.fast)
		}
		var plain plainInstance
		if err := json.Unmarshal([]byte(c.doc), &plain); c.fast && (err != nil || !reflect.DeepEqual(SnapshotInstance(plain), s)) {
			t.Errorf("%s: fast decode %+v, encoding/json %+v", c.doc, s, plain)
		}
	}
}

// BenchmarkSnapshotPartDecode decodes a partial frame's instances (2,000 parts and
// scripts, as the plugin writes them), with the fast decode ("fast") and with
// encoding/json alone ("plain").
func BenchmarkSnapshotPartDecode(b *testing.B) {
	var buf []byte
	buf = append(buf, '[')
	for i := range 2000 {
		if i > 0 {
			buf = append(buf, ',')
		}
		if i%5 == 0 {
			buf = fmt.Appendf(buf, `{"handle":"h%d","parent":"h%d","name":"Script%d","className":"Script","properties":{"RunContext":{"Enum":0},"Attributes":{"Attributes":{}}},"sourceHash":"%040d"}`, i, i/5, i, i)
		} else {
			buf = fmt.Appendf(buf, `{"handle":"h%d","parent":"h%d","name":"Part%d","className":"Part","properties":{"Anchored":{"Bool":true},"Size":{"Vector3":[1,2,%d]},"Color":{"Color3":[0.5,0,0.25]},"Material":{"Enum":288}}}`, i, i/5, i, i)
		}
	}
	buf = append(buf, ']')
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			var out []SnapshotInstance
			if err := json.Unmarshal(buf, &out); err != nil || len(out) != 2000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			var out []plainInstance
			if err := json.Unmarshal(buf, &out); err != nil || len(out) != 2000 {
				b.Fatal(err)
			}
		}
	})
}
