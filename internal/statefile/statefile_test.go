package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "cache")
	for _, payload := range [][]byte{nil, []byte("hello"), make([]byte, 1<<20)} {
		if err := Write(p, "test", 3, payload); err != nil {
			t.Fatal(err)
		}
		got, mod, err := Read(p, "test", 3)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(payload) || mod.IsZero() {
			t.Fatalf("Read = %d bytes at %v, want %d bytes", len(got), mod, len(payload))
		}
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil || len(entries) != 1 {
		t.Fatalf("the folder holds %v (%v), want the file alone (no temp files)", entries, err)
	}
}

func TestUnusable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	if err := Write(p, "test", 1, []byte("payload")); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		kind    string
		version uint32
		want    error
	}{
		{"missing", nil, "test", 1, fs.ErrNotExist},
		{"other kind", good, "other", 1, ErrStale},
		{"other version", good, "test", 2, ErrStale},
		{"flipped payload", flip(good, len(good)-33), "test", 1, ErrStale},
		{"flipped checksum", flip(good, len(good)-1), "test", 1, ErrStale},
		{"truncated", good[:len(good)-1], "test", 1, ErrStale},
		{"empty", []byte{}, "test", 1, ErrStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := filepath.Join(dir, tc.name)
			if tc.data != nil {
				if err := os.WriteFile(q, tc.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := Read(q, tc.kind, tc.version); !errors.Is(err, tc.want) {
				t.Fatalf("Read = %v, want %v", err, tc.want)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}
