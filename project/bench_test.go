package project_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
)

// The benchmark projects: packages folders of benchSubfolders folders, each
// holding benchScripts scripts of about 4 KB (half with a meta file), as many .txt
// files, and as many .model.json Parts with two children each. With 200 packages
// that is 10,000 scripts (about 40 MB) and about 51,000 instances; with 1,000,
// 50,000 scripts. This is the one generator of the package's benchmarks.
const (
	benchSubfolders = 5
	benchScripts    = 10
	benchScriptSize = 4096
)

// The sizes, in packages.
const (
	bench10k = 200
	bench50k = 1000
)

// benchTreeInfo is a generated project, made once per process and size (in a git
// repository with one commit) and removed by TestMain.
type benchTreeInfo struct {
	once      sync.Once
	dir       string
	instances int      // instances Load must produce
	bytes     int64    // bytes of the files Load reads
	files     []string // every file, relative to dir
	err       error
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

// benchProject returns the folder of the 10k project, making it on first use.
func benchProject(b *testing.B) string { return benchProjectOf(b, bench10k).dir }

// benchProjectOf returns the generated project of the given size.
func benchProjectOf(b *testing.B, packages int) *benchTreeInfo {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	t := benchTrees[packages]
	t.once.Do(func() {
		t.dir, t.err = os.MkdirTemp("", "atlas-bench-")
		if t.err == nil {
			t.err = writeBenchTree(t, packages)
		}
		if t.err == nil {
			t.err = commitBenchTree(t.dir)
		}
	})
	if t.err != nil {
		b.Fatal(t.err)
	}
	return t
}

// benchScript is a script of about benchScriptSize bytes, different for every path
// so that git stores every file as its own blob.
func benchScript(path string) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "-- %s\nlocal M = {}\n\n", path)
	for i := 0; buf.Len() < benchScriptSize-64; i++ {
		fmt.Fprintf(&buf, "function M.f%d(x)\n\treturn x * %d + %d -- %s\nend\n\n", i, i+1, len(path), path)
	}
	buf.WriteString("return M\n")
	return buf.Bytes()
}

func writeBenchTree(t *benchTreeInfo, packages int) error {
	dir := t.dir
	files := map[string][]byte{
		"default.project.json": []byte(`{
  "name": "Bench",
  "tree": { "$className": "DataModel", "ReplicatedStorage": { "$path": "src" } }
}
`),
	}
	instances := 2 // the DataModel and ReplicatedStorage
	var size int64
	add := func(name string, data []byte) {
		files[name] = data
		size += int64(len(data))
	}
	kinds := []string{".luau", ".server.luau", ".client.luau"}
	for p := range packages {
		pkg := fmt.Sprintf("src/pkg%03d", p)
		add(pkg+"/init.meta.json", []byte(`{ "ignoreUnknownInstances": true }`+"\n"))
		instances++
		for s := range benchSubfolders {
			sub := fmt.Sprintf("%s/sub%d", pkg, s)
			instances++
			for i := range benchScripts {
				script := fmt.Sprintf("%s/Script%d%s", sub, i, kinds[i%len(kinds)])
				add(script, benchScript(script))
				if i%2 == 0 {
					add(fmt.Sprintf("%s/Script%d.meta.json", sub, i), []byte(fmt.Sprintf(`{ "attributes": { "Index": %d } }`+"\n", i)))
				}
				add(fmt.Sprintf("%s/Note%d.txt", sub, i), []byte(fmt.Sprintf("note %d of %s\n", i, sub)))
				add(fmt.Sprintf("%s/Part%d.model.json", sub, i), []byte(fmt.Sprintf(`{
  "className": "Part",
  "properties": { "Anchored": true, "Size": [%d, 1, 2], "Material": "Neon" },
  "attributes": { "Index": %d },
  "children": [
    { "name": "Top", "className": "Attachment" },
    { "name": "Weld", "className": "WeldConstraint" }
  ]
}
`, i+1, i)))
				instances += 1 + 1 + 3
			}
		}
	}
	for name, data := range files {
		t.files = append(t.files, name)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	sort.Strings(t.files)
	t.instances, t.bytes = instances, size
	return nil
}

// git runs git in dir, isolated from the user's and the system's configuration.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), nil
}

func commitBenchTree(dir string) error {
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", "bench tree"},
		{"status", "--porcelain"}, // refreshes the index's stat data, as any earlier use would have
	} {
		if _, err := git(dir, args...); err != nil {
			return err
		}
	}
	return nil
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
	dir := benchProject(b)
	loc, err := project.Locate(dir, dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchTree.bytes)
	b.ReportAllocs()
	var p *project.Project
	for b.Loop() {
		if p, err = project.LoadDisk(loc); err != nil {
			b.Fatal(err)
		}
	}
	checkBenchLoad(b, p)
	b.ReportMetric(float64(benchTree.instances), "instances")
}

// BenchmarkLoadCommit loads the same project from its git commit with HashOnly, as
// atlas does for the base tree: "cold" opens the repository and reads the commit's
// trees every time, "warm" reuses an open repository.
func BenchmarkLoadCommit(b *testing.B) {
	dir := benchProject(b)
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
	dir := benchProject(b)
	for b.Loop() {
		out, err := git(dir, "status", "--porcelain")
		if err != nil {
			b.Fatal(err)
		}
		if out != "" {
			b.Fatalf("git status --porcelain = %q, want a clean tree", out)
		}
	}
}
