//go:build unix

package casfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLinkUnlink checks the fallback for file systems without a no-replace
// rename: it moves a file, and refuses (changing nothing) when the target exists.
func TestLinkUnlink(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"from": "from", "taken": "user"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, _, err := r.folder("from", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()

	if err := linkUnlink(d, "from", "taken"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("linkUnlink onto an existing file = %v, want fs.ErrExist", err)
	}
	if err := linkUnlink(d, "gone", "to"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("linkUnlink of a missing file = %v, want fs.ErrNotExist", err)
	}
	if err := linkUnlink(d, "from", "to"); err != nil {
		t.Errorf("linkUnlink = %v", err)
	}
	want := map[string]string{"taken": "user", "to": "from"}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("folder holds %d entries, want %d", len(entries), len(want))
	}
	for name, content := range want {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", name, b, err, content)
		}
	}
}
