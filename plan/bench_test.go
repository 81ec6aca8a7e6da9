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
// before the timer starts; what is measured is Compute alone: from scratch, and with
// a memo of the plan before the edit ("memo": the Studio tree after the edit shares
// every subtree but the edited script's ancestors, as the host's trees do).
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
	before := studio
	// After the edit: the script and its ancestors copied, the rest shared.
	edited := before.Find("ReplicatedStorage", "pkg000", "sub0", "Script0")
	var copyUp func(x, child, copied *dom.Instance) *dom.Instance
	copyUp = func(x, child, copied *dom.Instance) *dom.Instance {
		c := *x
		c.Children = append([]*dom.Instance(nil), x.Children...)
		for i, k := range c.Children {
			if k == child {
				c.Children[i] = copied
			}
		}
		if x.Parent == nil {
			return &c
		}
		return copyUp(x.Parent, x, &c)
	}
	script := *edited
	script.Properties = dom.PropsOf(dom.Properties{"Source": dom.String("return 'edited in Studio'\n")})
	script.SourceHash, script.RawHash = "0123456789abcdef0123456789abcdef01234567", ""
	studio = copyUp(edited.Parent, edited, &script)
	for _, memo := range []bool{false, true} {
		name := "scratch"
		if memo {
			name = "memo"
		}
		b.Run(name, func(b *testing.B) {
			// The indexes of disk and base, which the host keeps, are made once.
			in := plan.Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "HEAD",
				DiskIndex: disk.Index(), BaseIndex: base.Index()}
			if memo {
				in.Memo = &plan.Memo{}
			}
			b.ReportAllocs()
			var p *plan.Plan
			for b.Loop() {
				if memo {
					b.StopTimer()
					in.Studio = before
					plan.Compute(in) // the plan before the edit, remembered
					in.Studio = studio
					b.StartTimer()
				}
				p = plan.Compute(in)
			}
			if len(p.Changes) != 1 || p.Changes[0].Direction != plan.Pull {
				b.Fatalf("the plan has %d changes, want the one Studio edit as a pull", len(p.Changes))
			}
			b.ReportMetric(float64(gen.Instances), "instances")
		})
	}
}
