package host

import (
	"os"
	"path/filepath"
	"testing"
)

// The probe agrees with the folder's file system, whatever it is here (this
// machine's have no case folding: no vfat, and a kernel without CONFIG_UNICODE
// for casefold ext4), and leaves nothing behind.
func TestCaseFoldingProbe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "probe-truth"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := os.Stat(filepath.Join(dir, "PROBE-TRUTH"))
	truth := err == nil
	os.Remove(filepath.Join(dir, "probe-truth"))
	got, err := probeCaseFolding(dir)
	if err != nil || got != truth {
		t.Fatalf("probeCaseFolding = %v, %v; the file system folds case: %v", got, err, truth)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %v", left)
	}
	// A folder where nothing can be created gets the system's default.
	var c caseFolding
	if c.get(filepath.Join(dir, "missing")) != (defaultFolds()) {
		t.Errorf("no probe possible: got %v", c.folds)
	}
	// A fixed answer is never probed.
	yes := true
	c2 := caseFolding{fixed: &yes}
	if !c2.get(dir) {
		t.Error("a fixed FoldsCase was not used")
	}
}
