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

// The benchmark sizes, in packages of benchgen.Budget's shape: 200 packages are
// 10,000 scripts (about 41 MB), 1,000 are 50,000.
const (
	bench10k = 200
	bench50k = 1000
)

// benchTreeInfo is a generated project, made once per process and size (in a git
// repository with one commit) and removed by TestMain.
type benchTreeInfo struct {
	once sync.Once
	gen  *benchgen.Project
	err  error

	dir       string
	instances int      // instances Load must produce
	bytes     int64    // bytes of the files Load reads
	files     []string // every file, relative to dir
	scripts   int      // how many scripts it holds
}

var benchTrees = map[int]*benchTreeInfo{bench10k: {}, bench50k: {}}

// benchTree is the 10k project, which most benchmarks use.
var benchTree = benchTrees[bench10k]

func TestMain(m *testing.M) {
	code := m.Run()
	for _, t := range benchTrees {
		if t.dir != "" {
			os.RemoveAll(t.dir)
		}
	}
	os.Exit(code)
}

// git runs git in dir, isolated from the machine's configuration.
func git(dir string, args ...string) (string, error) { return benchgen.Git(dir, args...) }

// benchProject returns the folder of the 10k project, making it on first use.
func benchProject(b *testing.B) *benchTreeInfo { return benchProjectOf(b, bench10k) }

// benchProjectOf returns the generated project of the given size.
func benchProjectOf(b *testing.B, packages int) *benchTreeInfo {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Fatalf("git is not installed: %v", err)
	}
	t := benchTrees[packages]
	t.once.Do(func() {
		dir, err := os.MkdirTemp("", "atlas-bench-")
		if err != nil {
			t.err = err
			return
		}
		o := benchgen.Budget
		o.Packages = packages
		if t.gen, t.err = benchgen.Write(dir, o); t.err != nil {
			os.RemoveAll(dir)
			return
		}
		t.dir, t.instances, t.bytes, t.files = dir, t.gen.Instances, t.gen.Bytes, t.gen.Files
		t.scripts = o.Packages * o.Subfolders * o.Scripts
	})
	if t.err != nil {
		b.Fatal(t.err)
	}
	return t
}

func checkBenchLoad(b *testing.B, p *project.Project) {
	b.Helper()
	if n := p.Root.Count(); n != benchTree.instances {
		b.Fatalf("Load gave %d instances, want %d", n, benchTree.instances)
	}
}

// BenchmarkLoad10k loads the generated project from disk, as atlas does for the
// working tree.
func BenchmarkLoad10k(b *testing.B) {
	t := benchProject(b)
	loc, err := project.Locate(t.dir, t.dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(t.bytes)
	b.ReportAllocs()
	var p *project.Project
	for b.Loop() {
		if p, err = project.LoadDisk(loc); err != nil {
			b.Fatal(err)
		}
	}
	checkBenchLoad(b, p)
	b.ReportMetric(float64(t.instances), "instances")
}

// BenchmarkLoadCommit loads the same project from its git commit with HashOnly, as
// atlas does for the base tree: "cold" opens the repository and reads the commit's
// trees every time, "warm" reuses an open repository.
func BenchmarkLoadCommit(b *testing.B) {
	dir := benchProject(b).dir
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
