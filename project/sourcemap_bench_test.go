package project_test

import (
	"os"
	"testing"

	"github.com/atlas-rbx/atlas/project"
)

// BenchmarkSourcemap10k is what `atlas sourcemap` (and each --watch rewrite) does on
// the generated 10,000-script project: load it recording files, and render the JSON.
// Compare with BenchmarkLoad10k for the cost of recording.
func BenchmarkSourcemap10k(b *testing.B) {
	gen := benchProject(b)
	loc, err := project.Locate(gen.dir, gen.dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var out []byte
	var p *project.Project
	for b.Loop() {
		p, err = project.Load(os.DirFS(loc.FSRoot), loc.FileInFS, project.Options{DirName: loc.DirName(), RecordFiles: true})
		if err != nil {
			b.Fatal(err)
		}
		out = p.Sourcemap(project.SourcemapOptions{IncludeNonScripts: true}).AppendJSON(out[:0])
	}
	checkBenchLoad(b, p)
	if n := p.Sourcemap(project.SourcemapOptions{IncludeNonScripts: true}).Count(); n != gen.instances {
		b.Fatalf("the sourcemap has %d nodes, want %d", n, gen.instances)
	}
	b.ReportMetric(float64(len(out)), "sourcemap-bytes")
}
