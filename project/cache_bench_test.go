package project_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
)

var benchSizes = []struct {
	name     string
	packages int
}{{"10k", bench10k}, {"50k", bench50k}}

// benchCache returns a cache of the project that has loaded it once.
func benchCache(b *testing.B, t *benchTreeInfo) *project.Cache {
	b.Helper()
	c := project.NewCache(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
	p, err := c.Load()
	if err != nil {
		b.Fatal(err)
	}
	if n := p.Root.Count(); n != t.instances {
		b.Fatalf("Load gave %d instances, want %d", n, t.instances)
	}
	return c
}

// BenchmarkCacheUpdate is the disk side of a plan after one script edit: the
// cache is told the file changed and brings the tree up to date.
func BenchmarkCacheUpdate(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			t := benchProjectOf(b, size.packages)
			c := benchCache(b, t)
			rel := "src/shared/pkg007/sub3/Script3.luau"
			abs := filepath.Join(t.dir, filepath.FromSlash(rel))
			orig, err := os.ReadFile(abs)
			if err != nil {
				b.Fatal(err)
			}
			defer os.WriteFile(abs, orig, 0o644)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := os.WriteFile(abs, append(orig, fmt.Sprintf("-- %d\n", i)...), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				p, err := c.Update([]string{rel})
				if err != nil {
					b.Fatal(err)
				}
				if st := c.Stats(); st.Full || p.Root.Count() != t.instances {
					b.Fatalf("Update rebuilt the whole tree (%+v) or gave %d instances", st, p.Root.Count())
				}
			}
		})
	}
}

// BenchmarkCacheRestart is a restarted host's disk load on an unchanged project:
// the index is read, every file is stat'ed, and only script texts are read.
func BenchmarkCacheRestart(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			t := benchProjectOf(b, size.packages)
			index := filepath.Join(b.TempDir(), "index")
			if err := benchCache(b, t).WriteIndex(index); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(t.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := project.NewCache(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
				if err := c.ReadIndex(index); err != nil {
					b.Fatal(err)
				}
				p, err := c.Load()
				if err != nil {
					b.Fatal(err)
				}
				if p.Root.Count() != t.instances {
					b.Fatalf("Load gave %d instances", p.Root.Count())
				}
				if st := c.Stats(); st.Parsed > t.scripts+1 {
					b.Fatalf("a restart read %d files, want the scripts and the project file only", st.Parsed)
				}
			}
		})
	}
}

// BenchmarkCacheCold is a new machine's disk load: no index, every file read,
// hashed and parsed.
func BenchmarkCacheCold(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			t := benchProjectOf(b, size.packages)
			b.SetBytes(t.bytes)
			b.ReportAllocs()
			for b.Loop() {
				c := project.NewCache(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
				p, err := c.Load()
				if err != nil {
					b.Fatal(err)
				}
				if p.Root.Count() != t.instances {
					b.Fatalf("Load gave %d instances", p.Root.Count())
				}
			}
		})
	}
}

// BenchmarkGitYardsticks runs, on the same trees, the git commands the budgets
// compare with: `git status --porcelain` and `git hash-object --stdin-paths` of
// every file.
func BenchmarkGitYardsticks(b *testing.B) {
	for _, size := range benchSizes {
		t := benchProjectOf(b, size.packages)
		b.Run("status-"+size.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if out, err := git(t.dir, "status", "--porcelain"); err != nil || out != "" {
					b.Fatalf("git status = %q, %v; want a clean tree", out, err)
				}
			}
		})
		b.Run("hash-object-"+size.name, func(b *testing.B) {
			paths := strings.Join(t.files, "\n") + "\n"
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("git", "hash-object", "--stdin-paths")
				cmd.Dir = t.dir
				cmd.Stdin = strings.NewReader(paths)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				if n := strings.Count(out.String(), "\n"); n != len(t.files) {
					b.Fatalf("git hash-object printed %d ids, want %d", n, len(t.files))
				}
			}
		})
	}
}

// BenchmarkLoadMemory reports the heap a loaded tree holds per byte of the files
// it was loaded from, for Load and for a Cache (which keeps records as well).
func BenchmarkLoadMemory(b *testing.B) {
	t := benchProjectOf(b, bench10k)
	measure := func(b *testing.B, load func() any) {
		var keep any
		for i := 0; i < b.N; i++ {
			keep = nil
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			keep = load()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(t.bytes), "heap/source-byte")
		}
		runtime.KeepAlive(keep)
	}
	b.Run("Load", func(b *testing.B) {
		measure(b, func() any {
			p, err := project.Load(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			return p
		})
	})
	b.Run("Cache", func(b *testing.B) {
		measure(b, func() any { return benchCache(b, t) })
	})
}

// BenchmarkCacheBase builds the base tree of the 10k project's commit in each of
// Base's ways: the disk tree itself (the commit holds the disk's files), the state
// dir's file, and the commit with the disk's records (no blob read). Compare with
// BenchmarkLoadCommit, the commit loaded alone.
func BenchmarkCacheBase(b *testing.B) {
	t := benchProjectOf(b, bench10k)
	repo, err := gitblob.Discover(t.dir)
	if err != nil {
		b.Fatal(err)
	}
	commit, err := repo.Resolve("HEAD")
	if err != nil {
		b.Fatal(err)
	}
	c := benchCache(b, t)
	state := filepath.Join(b.TempDir(), "base")
	run := func(b *testing.B, want project.BaseSource, base func(fs.FS) (*project.Project, project.BaseSource, error)) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fsys, err := repo.CommitFS(commit)
			if err != nil {
				b.Fatal(err)
			}
			p, src, err := base(fsys)
			if err != nil {
				b.Fatal(err)
			}
			if src != want || p.Root.Count() != t.instances {
				b.Fatalf("base from %s with %d instances, want from %s", src, p.Root.Count(), want)
			}
		}
	}
	b.Run("disk", func(b *testing.B) {
		run(b, project.BaseFromDisk, func(fsys fs.FS) (*project.Project, project.BaseSource, error) {
			return c.Base(fsys, commit, "")
		})
	})
	// A cache that has not loaded the disk cannot compare with it.
	fresh := func() *project.Cache {
		return project.NewCache(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
	}
	b.Run("commit", func(b *testing.B) {
		// The records of a disk load, but a disk tree the commit does not
		// match: one script more on disk.
		extra := filepath.Join(t.dir, "src", "shared", "pkg000", "Extra.luau")
		if err := os.WriteFile(extra, []byte("return 1\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		defer os.Remove(extra)
		c := benchCacheAny(b, t)
		b.ResetTimer()
		run(b, project.BaseFromCommit, func(fsys fs.FS) (*project.Project, project.BaseSource, error) {
			return c.Base(fsys, commit, "")
		})
	})
	b.Run("file", func(b *testing.B) {
		fsys, err := repo.CommitFS(commit)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := fresh().Base(fsys, commit, state); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		run(b, project.BaseFromFile, func(fsys fs.FS) (*project.Project, project.BaseSource, error) {
			return fresh().Base(fsys, commit, state)
		})
	})
}

// benchCacheAny is benchCache without the instance count check.
func benchCacheAny(b *testing.B, t *benchTreeInfo) *project.Cache {
	b.Helper()
	c := project.NewCache(project.DirFS(t.dir), "default.project.json", project.Options{DirName: "bench"})
	if _, err := c.Load(); err != nil {
		b.Fatal(err)
	}
	return c
}
