package atomicfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/atlas-rbx/atlas/internal/atomicfile"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func check(t *testing.T, path, want string, perm fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q", path, got, err, want)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != perm {
		t.Errorf("%s mode = %v (%v), want %v", path, st.Mode().Perm(), err, perm)
	}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name  string
		old   string // "" = no file before
		perm  fs.FileMode
		write string
	}{
		{"new file", "", 0o600, "new"},
		{"replaces a file", "old bytes", 0o644, "new bytes"},
		{"empty data", "old", 0o640, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := atomicfile.Write(path, []byte(tt.write), tt.perm); err != nil {
				t.Fatalf("Write: %v", err)
			}
			check(t, path, tt.write, tt.perm)
			if got := names(t, dir); !slices.Equal(got, []string{"f.json"}) {
				t.Errorf("folder holds %v, want only f.json (no temp file left)", got)
			}
		})
	}
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	// A folder where the file should go: the rename fails, the folder stays.
	path := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("x"), 0o644); err == nil {
		t.Fatal("Write over a non-empty folder = nil, want an error")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"taken"}) {
		t.Errorf("folder holds %v after a failed Write, want only the original", got)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("Write into a missing folder = nil, want an error")
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := atomicfile.Create(path, []byte("first"), 0o600); err != nil {
		t.Fatalf("Create: %v", err)
	}
	check(t, path, "first", 0o600)
	err := atomicfile.Create(path, []byte("second"), 0o600)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file = %v, want fs.ErrExist", err)
	}
	check(t, path, "first", 0o600)
	if got := names(t, dir); !slices.Equal(got, []string{"key"}) {
		t.Errorf("folder holds %v, want only key", got)
	}
}

func TestBatch(t *testing.T) {
	dir := t.TempDir()
	var b atomicfile.Batch
	files := map[string]string{"a/x": "1", "a/y": "2", "b/z": "3"}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := b.Replace(p, []byte(data), 0o644); err != nil {
			t.Fatalf("Replace %s: %v", rel, err)
		}
	}
	if err := b.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	for rel, data := range files {
		check(t, filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644)
	}
}

// TestTempAndPlace: Place without replace never overwrites a file that appeared
// after the caller checked; with replace it does; Output keeps a replaced file's mode.
func TestTempAndPlace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.luau")
	tmp, err := atomicfile.Temp(target, []byte("new"), atomicfile.UmaskMode)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Place(tmp, target, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Place(no replace) over an existing file = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "user's" {
		t.Fatalf("the user's file became %q", b)
	}
	if err := atomicfile.Place(tmp, target, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("Place(replace) left %q", b)
	}
	fresh := filepath.Join(dir, "b.luau")
	tmp, err = atomicfile.Temp(fresh, []byte("b"), 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Place(tmp, fresh, false); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a.luau", "b.luau"}) {
		t.Fatalf("folder holds %v, want the two files and no temp file", got)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(fresh, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Output(fresh, []byte("again")); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
			t.Fatalf("Output changed a replaced file's mode to %v", fi.Mode().Perm())
		}
	}
}
