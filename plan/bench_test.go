package plan_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/benchgen"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// BenchmarkCompute10k is the plan's own work on benchgen's 10,000-script project
// (51,205 instances) after one Studio edit: the disk and the base are the loaded
// project, Studio is its copy with one script's Source changed. The trees are built
// before the timer starts; what is measured is Compute alone.
func BenchmarkCompute10k(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Fatalf("git is not installed: %v", err)
	}
	dir := b.TempDir()
	gen, err := benchgen.Write(dir, benchgen.Budget)
	if err != nil {
		b.Fatal(err)
	}
	load := func() *dom.Instance {
		p, err := project.Load(os.DirFS(dir), "default.project.json", project.Options{DirName: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		return p.Root
	}
	disk, base, studio := load(), load(), load()
	edited := studio.Find("ReplicatedStorage", "pkg000", "sub0", "Script0")
	edited.Properties["Source"] = dom.String("return 'edited in Studio'\n")
	edited.SourceHash, edited.RawHash = "0123456789abcdef0123456789abcdef01234567", ""
	b.ReportAllocs()
	var p *plan.Plan
	for b.Loop() {
		p = plan.Compute(plan.Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "HEAD"})
	}
	if len(p.Changes) != 1 || p.Changes[0].Direction != plan.Pull {
		b.Fatalf("the plan has %d changes, want the one Studio edit as a pull", len(p.Changes))
	}
	b.ReportMetric(float64(gen.Instances), "instances")
}
