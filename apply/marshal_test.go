package apply

import (
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// TestMarshalIsDomMarshal: the ops' values are dom.Marshal's bytes, Strings of every
// kind (escapes, HTML characters, U+2028, not UTF-8) and other types alike.
func TestMarshalIsDomMarshal(t *testing.T) {
	values := []dom.Value{
		dom.String(""), dom.String("print('hi')\n"), dom.String("a \"quoted\" <tag> & \\ back\tslash\r\x01\x7f"),
		dom.String("é中😀\u2028\u2029"), dom.String("\xff not UTF-8 \xe2\x80"), dom.String(strings.Repeat("local x = \"<y>\" -- a line\n", 500)),
		dom.Bool(true), dom.Float64(1.5), dom.Vector3{1, 2.5, -3},
	}
	for _, v := range values {
		got, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := dom.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("marshal(%#v) = %s, want %s", v, got, want)
		}
	}
}
