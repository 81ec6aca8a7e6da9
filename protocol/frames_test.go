package protocol_test

import (
	"testing"

	"github.com/atlas-rbx/atlas/protocol"
)

// SourceLen counts what the plugin's encoder writes; the same vectors are in
// plugin/tests/Json.spec.luau, checked against Json.quote.
func TestSourceLen(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"a\"b\\c\n\x01\x7f", 23},
		{"héllo\t", 10},
		{"", 2},
		{"\xff\xfe", len(`{"base64":"//4="}`)},
	} {
		if got := protocol.SourceLen(tc.s); got != tc.want {
			t.Errorf("SourceLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestInstanceLimit(t *testing.T) {
	if got := protocol.InstanceLimit(protocol.DefaultFrameLimit); got != 64<<20-64<<10 {
		t.Errorf("InstanceLimit(64 MiB) = %d", got)
	}
	if got := protocol.InstanceLimit(16 << 10); got != 14<<10 {
		t.Errorf("InstanceLimit(16 KiB) = %d", got)
	}
}
