package project_test

import (
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/benchgen"
	"github.com/atlas-rbx/atlas/project"
)

// benchTree is the generated project (benchgen.Budget), made once per process and
// removed by TestMain.
var benchTree struct {
	once sync.Once
	gen  *benchgen.Project
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTree.gen != nil {
		os.RemoveAll(benchTree.gen.Dir)
	}
	os.Exit(code)
}

// benchProject returns the generated project, making it on first use.
func benchProject(b *testing.B) *benchgen.Project {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Fatalf("git is not installed: %v", err)
	}
	benchTree.once.Do(func() {
		dir, err := os.MkdirTemp("", "atlas-bench-")
		if err != nil {
			benchTree.err = err
			return
		}
		benchTree.gen, benchTree.err = benchgen.Write(dir, benchgen.Budget)
		if benchTree.err != nil {
			os.RemoveAll(dir)
		}
	})
	if benchTree.err != nil {
		b.Fatal(benchTree.err)
	}
	return benchTree.gen
}

func checkBenchLoad(b *testing.B, p *project.Project) {
	b.Helper()
	if n := p.Root.Count(); n != benchTree.gen.Instances {
		b.Fatalf("Load gave %d instances, want %d", n, benchTree.gen.Instances)
	}
}

// BenchmarkLoad10k loads the generated project from disk, as atlas does for the
// working tree.
func BenchmarkLoad10k(b *testing.B) {
	gen := benchProject(b)
	loc, err := project.Locate(gen.Dir, gen.Dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(gen.Bytes)
	b.ReportAllocs()
	var p *project.Project
	for b.Loop() {
		if p, err = project.LoadDisk(loc); err != nil {
			b.Fatal(err)
		}
	}
	checkBenchLoad(b, p)
	b.ReportMetric(float64(gen.Instances), "instances")
}

// BenchmarkLoadCommit loads the same project from its git commit with HashOnly, as
// atlas does for the base tree: "cold" opens the repository and reads the commit's
// trees every time, "warm" reuses an open repository.
func BenchmarkLoadCommit(b *testing.B) {
	dir := benchProject(b).Dir
	load := func(b *testing.B, repo *gitblob.Repo) *project.Project {
		fsys, err := repo.CommitFS("HEAD")
		if err != nil {
			b.Fatal(err)
		}
		p, err := project.Load(fsys, "default.project.json", project.Options{DirName: "bench", HashOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		var p *project.Project
		for b.Loop() {
			repo, err := gitblob.Discover(dir)
			if err != nil {
				b.Fatal(err)
			}
			p = load(b, repo)
		}
		checkBenchLoad(b, p)
		if _, loaded := p.Root.Find("ReplicatedStorage", "pkg000", "sub0", "Script0").Source(); loaded {
			b.Errorf("HashOnly load read a script's Source")
		}
	})
	b.Run("warm", func(b *testing.B) {
		repo, err := gitblob.Discover(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		var p *project.Project
		for b.Loop() {
			p = load(b, repo)
		}
		checkBenchLoad(b, p)
	})
}

// BenchmarkGitStatus runs `git status --porcelain` on the same tree, the yardstick
// for the two benchmarks above.
func BenchmarkGitStatus(b *testing.B) {
	dir := benchProject(b).Dir
	for b.Loop() {
		out, err := benchgen.Git(dir, "status", "--porcelain")
		if err != nil {
			b.Fatal(err)
		}
		if out != "" {
			b.Fatalf("git status --porcelain = %q, want a clean tree", out)
		}
	}
}
