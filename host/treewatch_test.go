package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTreeWatcher: a change in a folder created after the watch started is reported
// (the new folder is watched), .git is not watched, and Close returns.
func TestTreeWatcher(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := WatchTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// Wait until `want` is reported, ignoring other events; a minute is "never".
	waitFor := func(want string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case name := <-w.Changes():
				if name == filepath.Join(dir, ".git", "index") {
					t.Fatalf("a change inside .git was reported: %s", name)
				}
				if name == want {
					return
				}
			case <-timeout:
				t.Fatalf("no change reported for %s", want)
			}
		}
	}
	sub := filepath.Join(dir, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	waitFor(sub)
	// The new folder is now watched: a file written inside it is reported. Written
	// until seen, since the folder's watch is added just after its event.
	file := filepath.Join(sub, "Main.luau")
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				os.WriteFile(file, []byte{byte(i)}, 0o644)
			}
		}
	}()
	waitFor(file)
	close(done)
	if err := w.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
}
