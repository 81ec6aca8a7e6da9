//go:build linux

package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDirFSReadStat: DirFS reads a file with the stat data os.Stat gives it (the
// index compares the two), and fails like os.DirFS.
func TestDirFSReadStat(t *testing.T) {
	dir := t.TempDir()
	modes := []fs.FileMode{0o644, 0o600, 0o755, 0o644 | fs.ModeSetgid, 0o755 | fs.ModeSetuid, 0o644 | fs.ModeSticky}
	for i, mode := range modes {
		name := filepath.Join(dir, "f"+itoa(i))
		if err := os.WriteFile(name, make([]byte, i*1000), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fsys := DirFS(dir).(*osFS)
	var sr statReader = fsys
	for _, name := range []string{"f0", "f1", "f2", "f3", "f4", "f5", "empty"} {
		data, st, done, err := sr.readStat(name)
		if !done || err != nil {
			t.Fatalf("readStat(%s) = done %v, %v", name, done, err)
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if want := statOf(fi); st != want {
			t.Errorf("readStat(%s) stat = %+v, os.Stat gives %+v", name, st, want)
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != string(want) {
			t.Errorf("readStat(%s) read %d bytes, want %d", name, len(data), len(want))
		}
		if got, err := fs.ReadFile(fsys, name); err != nil || string(got) != string(want) {
			t.Errorf("fs.ReadFile(%s) = %d bytes, %v", name, len(got), err)
		}
	}
	if _, _, done, _ := sr.readStat("sub"); done {
		t.Errorf("readStat of a folder: done, want it left to the caller")
	}
	for _, name := range []string{"missing", "sub/missing", "../outside", "/abs"} {
		_, errOS := fs.ReadFile(os.DirFS(dir), name)
		_, err := fs.ReadFile(fsys, name)
		if err == nil || errors.Is(err, fs.ErrNotExist) != errors.Is(errOS, fs.ErrNotExist) ||
			errors.Is(err, fs.ErrInvalid) != errors.Is(errOS, fs.ErrInvalid) {
			t.Errorf("ReadFile(%s) = %v; os.DirFS gives %v", name, err, errOS)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path != name {
			t.Errorf("ReadFile(%s): error names %q", name, pe.Path)
		}
	}
	if _, err := fs.ReadFile(fsys, "sub"); err == nil {
		t.Errorf("ReadFile of a folder: no error")
	}
}
