package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedDatabaseIsGenerated checks that the embedded database is exactly what
// the generator makes from the committed source, so a clone can regenerate it and
// nobody edits the generated file by hand.
func TestCommittedDatabaseIsGenerated(t *testing.T) {
	dir := filepath.Join("..", "..")
	got, err := generate(filepath.Join(dir, "source", "rbx-dom-database.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "database.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("database.json.gz (%d bytes) is not what source/rbx-dom-database.json.gz generates (%d bytes): run go generate ./dom/reflection", len(want), len(got))
	}
	for _, name := range []string{"LICENSE-rbx-dom.txt", filepath.Join("source", "LICENSE-rbx-dom.txt")} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("licence %s: %v", name, err)
		}
	}
}

func TestGenerateRefusesGarbage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "db.json.gz")
	if err := os.WriteFile(p, []byte("not gzip"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := generate(p); err == nil {
		t.Fatal("generate accepted a file that is not gzip")
	}
}
