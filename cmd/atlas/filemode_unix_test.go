//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputModeFollowsUmask: `atlas build` and `atlas plugin build` create their files
// with mode 0666 less the umask, like any tool (they wrote 0600 once), and a file they
// replace keeps its mode.
func TestOutputModeFollowsUmask(t *testing.T) {
	tests := []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o002, 0o664}}
	commands := map[string][]string{
		"build":        {"--project", fixture(t, "file-rules"), "build", "-o"},
		"plugin build": {"plugin", "build", "-o"},
	}
	for name, args := range commands {
		for _, tt := range tests {
			t.Run(name+"/"+tt.want.String(), func(t *testing.T) {
				cwd := t.TempDir()
				out := filepath.Join(cwd, "out.rbxmx")
				old := syscall.Umask(tt.umask)
				_, stderr, code := runAtlas(t, cwd, append(args, out)...)
				syscall.Umask(old)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				fi, err := os.Stat(out)
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != tt.want {
					t.Errorf("mode %v, want %v", got, tt.want)
				}
			})
		}
		t.Run(name+"/keeps mode", func(t *testing.T) {
			cwd := t.TempDir()
			out := filepath.Join(cwd, "out.rbxmx")
			if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(out, 0o640); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runAtlas(t, cwd, append(args, out)...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			fi, err := os.Stat(out)
			if err != nil || fi.Mode().Perm() != 0o640 || fi.Size() < 100 {
				t.Fatalf("%v, mode %v, size %d; want the new file with mode 0640", err, fi.Mode().Perm(), fi.Size())
			}
		})
	}
}
