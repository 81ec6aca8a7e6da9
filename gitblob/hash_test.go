package gitblob

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	r.Read(b)
	return b
}

func TestHash(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", []byte{}},
		{"lf text", []byte("print(\"hello\")\n")},
		{"crlf text", []byte("local x = 1\r\nreturn x\r\n")},
		{"utf-8 bom", []byte("\xef\xbb\xbfprint(\"bom\")\n")},
		{"all byte values", allBytes()},
		{"20 MB", randomBytes(20<<20, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := gitOutput(t.TempDir(), tt.data, "hash-object", "--no-filters", "--stdin")
			if err != nil {
				t.Fatal(err)
			}
			if got := Hash(tt.data); got != want {
				t.Errorf("Hash = %s, want %s", got, want)
			}
			if got := HashString(string(tt.data)); got != want {
				t.Errorf("HashString = %s, want %s", got, want)
			}
			readers := map[string]io.Reader{
				"whole": bytes.NewReader(tt.data),
				"half":  iotest.HalfReader(bytes.NewReader(tt.data)),
				// Extra bytes after size must be left unread, not hashed.
				"longer": io.MultiReader(bytes.NewReader(tt.data), bytes.NewReader([]byte("trailing"))),
			}
			for rname, r := range readers {
				got, err := HashReader(r, int64(len(tt.data)))
				if err != nil {
					t.Fatalf("HashReader(%s): %v", rname, err)
				}
				if got != want {
					t.Errorf("HashReader(%s) = %s, want %s", rname, got, want)
				}
			}
		})
	}
}

func TestHashEmptyBlob(t *testing.T) {
	// The well-known id of the empty blob, independent of any git binary.
	const want = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	if got := Hash(nil); got != want {
		t.Errorf("Hash(nil) = %s, want %s", got, want)
	}
}

func TestHashReaderErrors(t *testing.T) {
	readErr := errors.New("disk on fire")
	tests := []struct {
		name string
		r    io.Reader
		size int64
		want error
	}{
		{"short", bytes.NewReader([]byte("abc")), 4, io.ErrUnexpectedEOF},
		{"empty reader", bytes.NewReader(nil), 1, io.ErrUnexpectedEOF},
		{"read error", iotest.ErrReader(readErr), 3, readErr},
		{"negative size", bytes.NewReader(nil), -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HashReader(tt.r, tt.size)
			if err == nil {
				t.Fatalf("HashReader = %s, want an error", got)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("HashReader error = %v, want %v", err, tt.want)
			}
		})
	}
}
