package gitblob

import (
	"crypto/sha1"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pjbgf/sha1cd"
)

var benchSizes = []struct {
	name string
	size int
}{
	{"1MB", 1 << 20},
	{"40KB", 40 << 10},
}

func BenchmarkHash(b *testing.B) {
	for _, s := range benchSizes {
		data := randomBytes(s.size, 2)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Hash(data)
			}
		})
	}
}

// BenchmarkCryptoSHA1 is the floor for BenchmarkHash: plain SHA-1 of the
// same bytes, without header or hex encoding.
func BenchmarkCryptoSHA1(b *testing.B) {
	for _, s := range benchSizes {
		data := randomBytes(s.size, 2)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				sha1.Sum(data)
			}
		})
	}
}

// BenchmarkSHA1CD measures go-git's default hash, which Hash avoids.
func BenchmarkSHA1CD(b *testing.B) {
	for _, s := range benchSizes {
		data := randomBytes(s.size, 2)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				h := sha1cd.New()
				h.Write(data)
				h.Sum(nil)
			}
		})
	}
}

const benchFiles = 10000

var (
	benchOnce sync.Once
	benchErr  error
)

// benchRepos returns two repositories holding the same commit of benchFiles
// files of about 4 KB: one with loose objects, as after local commits, and
// one with a packfile, as after a clone or gc.
func benchRepos(b *testing.B) (loose, packed string) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "gitblob-bench-")
		if benchErr != nil {
			return
		}
		benchErr = makeBenchRepo(filepath.Join(benchDir, "loose"))
		if benchErr != nil {
			return
		}
		_, benchErr = gitOutput(benchDir, nil, "clone", "-q", "--no-local", "loose", "packed")
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, "loose"), filepath.Join(benchDir, "packed")
}

// makeBenchRepo lays files out like a big Rojo project: 20 services of 10
// folders of 50 scripts.
func makeBenchRepo(dir string) error {
	if _, err := gitOutput("", nil, "init", "-q", dir); err != nil {
		return err
	}
	filler := strings.Repeat("local value = math.floor(os.clock() * 1000) -- padding\n", 4096/56)
	for i := range benchFiles {
		p := filepath.Join(dir, "src", fmt.Sprintf("Service%02d", i/500), fmt.Sprintf("Folder%d", i/50%10),
			fmt.Sprintf("Script%04d.lua", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "-- script %d\n%s", i, filler), 0o644); err != nil {
			return err
		}
	}
	if _, err := gitOutput(dir, nil, "add", "-A"); err != nil {
		return err
	}
	// gc.auto=0 keeps the objects loose: committing this many runs gc otherwise.
	_, err := gitOutput(dir, nil, "-c", "gc.auto=0", "commit", "-q", "-m", "many scripts")
	return err
}

// walkAll lists every directory of fsys and takes the blob id of every file.
func walkAll(fsys fs.FS) (int, error) {
	h := fsys.(BlobHasher)
	files := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, err := h.BlobHash(p); err != nil {
			return err
		}
		files++
		return nil
	})
	return files, err
}

// BenchmarkCommitFSWalk measures CommitFS plus a full listing and BlobHash of
// every file over benchFiles files, from a repository with loose objects and
// from a packed one, in three states: "cold" opens the repository every time,
// so everything is read from disk; "trees" reuses the Repo, whose tree cache
// then serves a commit that shares its trees with one read before; "repeat"
// asks for the same commit again, which reuses the whole snapshot.
func BenchmarkCommitFSWalk(b *testing.B) {
	loose, packed := benchRepos(b)
	for _, repo := range []struct{ name, dir string }{{"loose", loose}, {"packed", packed}} {
		for _, state := range []string{"cold", "trees", "repeat"} {
			b.Run(repo.name+"/"+state, func(b *testing.B) {
				r := discover(b, repo.dir)
				for b.Loop() {
					switch state {
					case "cold":
						r = discover(b, repo.dir)
					case "trees":
						r.mu.Lock()
						r.last = nil
						r.mu.Unlock()
					}
					fsys, err := r.CommitFS("HEAD")
					if err != nil {
						b.Fatal(err)
					}
					n, err := walkAll(fsys)
					if err != nil {
						b.Fatal(err)
					}
					if n != benchFiles {
						b.Fatalf("walked %d files, want %d", n, benchFiles)
					}
				}
			})
		}
	}
}
