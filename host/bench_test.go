package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/internal/benchgen"
	"github.com/atlas-rbx/atlas/project"
)

// benchEdits is how many scripts BenchmarkApply1000 edits: one per subfolder of
// the budget project.
const benchEdits = 1000

// bench is the generated project (benchgen.Budget), committed in a git repository
// once per process and removed by TestMain.
var bench struct {
	once      sync.Once
	err       error
	dir       string
	loc       *project.Location
	placeJSON []byte   // the place at HEAD, as host.InitialPlace gives it
	source    int64    // bytes of script source
	instances int      // instances in the place
	edits     []string // files BenchmarkApply1000 edits (one script per subfolder)
	files     []string // every file of the project, relative to dir with '/'
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// benchProject generates the project on first use, with the place at HEAD.
func benchProject(b *testing.B) {
	b.Helper()
	bench.once.Do(func() {
		if _, err := exec.LookPath("git"); err != nil {
			bench.err = fmt.Errorf("git is not installed: %w", err)
			return
		}
		dir, err := os.MkdirTemp("", "atlas-host-bench-")
		if err != nil {
			bench.err = err
			return
		}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		bench.dir = dir
		gen, err := benchgen.Write(dir, benchgen.Budget)
		if err != nil {
			bench.err = err
			return
		}
		bench.source, bench.edits, bench.files = gen.Source, gen.Edits, gen.Files
		bench.loc, bench.err = project.Locate(dir, "", func(string) string { return dir })
		if bench.err != nil {
			return
		}
		h, err := host.New(host.Options{Location: bench.loc, StateDir: filepath.Join(dir, ".git", "atlas-state"), Version: "bench"})
		if err != nil {
			bench.err = err
			return
		}
		pf, err := h.InitialPlace()
		h.Close()
		if err != nil {
			bench.err = err
			return
		}
		bench.placeJSON, bench.err = json.Marshal(pf)
		var count func(n *host.PlaceNode) int
		count = func(n *host.PlaceNode) int {
			c := 1
			for _, k := range n.Children {
				c += count(k)
			}
			return c
		}
		bench.instances = count(pf.Root)
	})
	if bench.err != nil {
		b.Fatalf("generate the benchmark project: %v", bench.err)
	}
}

func benchPlace(b *testing.B) *bridgetest.Place {
	b.Helper()
	p, err := bridgetest.LoadPlace(bytes.NewReader(bench.placeJSON))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// benchHost starts a host on the generated project with the Go fake plugin holding
// the place at HEAD (session id "bench"). stop closes both.
func benchHost(b *testing.B, place *bridgetest.Place) (h *host.Host, p *bridgetest.Plugin, stop func()) {
	b.Helper()
	state, err := os.MkdirTemp("", "atlas-host-bench-state-")
	if err != nil {
		b.Fatal(err)
	}
	h, err = host.New(host.Options{Location: bench.loc, StateDir: state, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	p = connectPlugin(b, h, place)
	return h, p, func() {
		p.Close()
		h.Close()
		os.RemoveAll(state)
	}
}

func connectPlugin(b *testing.B, h *host.Host, place *bridgetest.Place) *bridgetest.Plugin {
	b.Helper()
	p := bridgetest.New(place)
	p.SessionID = "bench"
	// As the real plugin where Studio's engine hashes (EncodingService, engine 697+):
	// a whole snapshot sends the sources the host holds as their blob ids.
	p.HashSources = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Connect(ctx, h.PluginURL()); err != nil {
		b.Fatal(err)
	}
	// A reconnect replaces the old connection: wait until the host serves this one.
	for {
		s, err := h.Bridge().WaitSession(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if s.Call(ctx, "ping", struct{}{}, nil) == nil {
			return p
		}
	}
}

func mustEmptyPlan(b *testing.B, h *host.Host) {
	b.Helper()
	d, err := h.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		b.Fatal(err)
	}
	if len(d.Changes) != 0 {
		c, _ := json.MarshalIndent(d.Changes[:min(len(d.Changes), 3)], "", " ")
		b.Fatalf("the plan of a place equal to HEAD has %d changes:\n%s", len(d.Changes), c)
	}
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// reportPlanMemory runs one more plan, outside the timing, and reports the process's
// HeapInuse right after it (heap-MB), the largest seen during it (peak-MB) and after a
// GC (live-MB). harness is HeapInuse after a GC before the host started: the fake
// plugin's place and the place's JSON, which this process holds for the benchmark;
// host-MB and host-peak-MB are live-MB and peak-MB without it. source-MB is the
// scripts' source bytes.
func reportPlanMemory(b *testing.B, h *host.Host, harness uint64) {
	b.Helper()
	runtime.GC()
	stop, peak := make(chan struct{}), make(chan uint64, 1)
	go func() {
		var m uint64
		t := time.NewTicker(500 * time.Microsecond)
		defer t.Stop()
		for {
			m = max(m, heapInuse())
			select {
			case <-stop:
				peak <- m
				return
			case <-t.C:
			}
		}
	}()
	if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
		b.Fatal(err)
	}
	after := heapInuse()
	close(stop)
	top := max(<-peak, after)
	runtime.GC()
	live := heapInuse()
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mb(after), "heap-MB")
	b.ReportMetric(mb(top), "peak-MB")
	b.ReportMetric(mb(live), "live-MB")
	b.ReportMetric(mb(harness), "harness-MB")
	b.ReportMetric(mb(live-harness), "host-MB")
	b.ReportMetric(mb(top-harness), "host-peak-MB")
	b.ReportMetric(float64(bench.source)/(1<<20), "source-MB")
}

// BenchmarkPlanCold is the first plan of a new host (base tree not cached): load the
// disk project, load the base tree from the commit, snapshot the whole scope from the
// fake plugin (in this process), compute the plan, issue its token. Starting the host
// and connecting the plugin are not timed. Files are in the page cache.
func BenchmarkPlanCold(b *testing.B) {
	benchProject(b)
	place := benchPlace(b)
	var last *host.Host
	var stopLast func()
	for b.Loop() {
		b.StopTimer()
		if stopLast != nil {
			stopLast()
		}
		h, _, stop := benchHost(b, place.Clone())
		runtime.GC()
		b.StartTimer()
		if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
			b.Fatal(err)
		}
		last, stopLast = h, stop
	}
	mustEmptyPlan(b, last)
	b.ReportMetric(float64(bench.instances), "instances")
	stopLast()
}

// BenchmarkHashObject is the yardstick of BenchmarkPlanCold, on the same files and in
// the same run: `git hash-object --stdin-paths` of every file of the project.
func BenchmarkHashObject(b *testing.B) {
	benchProject(b)
	paths := strings.Join(bench.files, "\n") + "\n"
	for b.Loop() {
		cmd := exec.Command("git", "hash-object", "--stdin-paths")
		cmd.Dir, cmd.Stdin = bench.dir, strings.NewReader(paths)
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if n := bytes.Count(out, []byte("\n")); n != len(bench.files) {
			b.Fatalf("git hash-object printed %d ids, want %d", n, len(bench.files))
		}
	}
}

// BenchmarkPlanWarm repeats the plan on one host with nothing changed (the disk
// project cached while the watcher sees no change, unchanged sources reused from the
// previous snapshot), then measures memory around one more plan (reportPlanMemory).
func BenchmarkPlanWarm(b *testing.B) {
	benchProject(b)
	place := benchPlace(b)
	runtime.GC()
	harness := heapInuse()
	h, _, stop := benchHost(b, place)
	defer stop()
	mustEmptyPlan(b, h)
	for b.Loop() {
		if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
			b.Fatal(err)
		}
	}
	reportPlanMemory(b, h, harness)
}

// BenchmarkPlanAfterDiskEdit is a plan after one script file changed on disk: the
// watcher names the file and the disk cache re-reads it alone ("watcher"), or, with
// ATLAS_NO_WATCH, compares every file's stat data ("stat", the path of platforms
// without inotify). The file is written before each plan (not timed).
func BenchmarkPlanAfterDiskEdit(b *testing.B) {
	benchProject(b)
	for _, mode := range []string{"watcher", "stat"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "stat" {
				b.Setenv("ATLAS_NO_WATCH", "1")
			}
			h, _, stop := benchHost(b, benchPlace(b))
			defer stop()
			mustEmptyPlan(b, h)
			file := filepath.Join(bench.dir, filepath.FromSlash(bench.edits[0]))
			orig, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			defer os.WriteFile(file, orig, 0o644)
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				if err := os.WriteFile(file, append(orig, fmt.Sprintf("-- %d\n", i)...), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				p, err := h.Plan(context.Background(), host.PlanRequest{})
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Changes) != 1 {
					b.Fatalf("the plan has %d changes, want the one edit", len(p.Changes))
				}
			}
		})
	}
}

// BenchmarkApply1000 edits 1,000 script files on disk (one per subfolder, across all
// three services), plans (not timed; reported as plan-ms), and times h.Apply: its
// token check, its own recomputed plan (disk, base, snapshot), the journal, and the
// apply of 1,000 edits with their sourceSha1 preconditions by the fake plugin, which
// runs in this process. Between iterations the files are restored and a new fake
// plugin with the place at HEAD replaces the old one (not timed).
func BenchmarkApply1000(b *testing.B) {
	benchProject(b)
	place := benchPlace(b)
	h, p, stop := benchHost(b, place.Clone())
	defer stop()
	defer func() { p.Close() }() // the last plugin connected
	originals := make([][]byte, len(bench.edits))
	for i, f := range bench.edits {
		data, err := os.ReadFile(filepath.Join(bench.dir, f))
		if err != nil {
			b.Fatal(err)
		}
		originals[i] = data
	}
	restore := func() {
		for i, f := range bench.edits {
			if err := os.WriteFile(filepath.Join(bench.dir, f), originals[i], 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	defer restore()
	var planTime time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		if n > 1 {
			restore()
			p.Close()
			p = connectPlugin(b, h, place.Clone())
		}
		for i, f := range bench.edits {
			edited := append(bytes.Clone(originals[i]), fmt.Sprintf("-- edit %d\n", n)...)
			if err := os.WriteFile(filepath.Join(bench.dir, f), edited, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		started := time.Now()
		d, err := h.Plan(context.Background(), host.PlanRequest{})
		if err != nil {
			b.Fatal(err)
		}
		planTime += time.Since(started)
		if d.Summary.Push != benchEdits || len(d.Changes) != benchEdits {
			b.Fatalf("plan: %+v, want %d pushes", d.Summary, benchEdits)
		}
		b.StartTimer()
		res, err := h.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken})
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Applied) != benchEdits || res.StudioOps != benchEdits {
			b.Fatalf("applied %d changes in %d Studio ops, want %d", len(res.Applied), res.StudioOps, benchEdits)
		}
		if got := p.Place().Find("ReplicatedStorage", "pkg000", "sub0", "Script0").Source(); !strings.HasSuffix(got, fmt.Sprintf("-- edit %d\n", n)) {
			b.Fatalf("Studio's Script0 does not end with the edit: ...%q", got[max(0, len(got)-40):])
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(planTime.Milliseconds())/float64(n), "plan-ms")
}

// BenchmarkPlanParts times, on their own, the parts of a plan that can be called from
// outside the host: loading the disk project, loading the base tree from the commit
// (HashOnly, repository opened each time), and a snapshot of all of game from the
// fake plugin through the bridge (with the project's Part properties).
func BenchmarkPlanParts(b *testing.B) {
	benchProject(b)
	b.Run("load-disk", func(b *testing.B) {
		for b.Loop() {
			if _, err := project.LoadDisk(bench.loc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load-base", func(b *testing.B) {
		for b.Loop() {
			repo, err := gitblob.Discover(bench.dir)
			if err != nil {
				b.Fatal(err)
			}
			fsys, err := repo.CommitFS("HEAD")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := project.Load(fsys, bench.loc.FileInFS, project.Options{DirName: bench.loc.DirName(), HashOnly: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		h, _, stop := benchHost(b, benchPlace(b))
		defer stop()
		s, err := h.Bridge().Session("")
		if err != nil {
			b.Fatal(err)
		}
		benchSnapshotCalls(b, s)
	})
}

var benchSnapshotParams = map[string]any{
	"roots": [][]string{{}},
	"nodes": [][]string{},
	"properties": map[string]any{
		"Part":   map[string]string{"Anchored": "Bool", "Size": "Vector3", "Material": "Enum:Material", "Color": "Color3"},
		"Script": map[string]string{"RunContext": "Enum:RunContext"},
	},
	"chunkSize": 2000,
}

func benchSnapshotCalls(b *testing.B, s *bridge.Session) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for b.Loop() {
		var res struct {
			Instances []json.RawMessage `json:"instances"`
		}
		if err := s.Call(ctx, "snapshot", benchSnapshotParams, &res); err != nil {
			b.Fatal(err)
		}
		if len(res.Instances) < bench.instances {
			b.Fatalf("snapshot has %d instances, want at least %d", len(res.Instances), bench.instances)
		}
	}
	b.ReportMetric(float64(bench.instances), "instances")
}

// BenchmarkGitStatus runs `git status --porcelain` on the same tree, the yardstick.
func BenchmarkGitStatus(b *testing.B) {
	benchProject(b)
	if _, err := benchgen.Git(bench.dir, "status", "--porcelain"); err != nil { // refresh stat data after the edits above
		b.Fatal(err)
	}
	for b.Loop() {
		out, err := benchgen.Git(bench.dir, "status", "--porcelain")
		if err != nil {
			b.Fatal(err)
		}
		if out != "" {
			b.Fatalf("git status --porcelain = %q, want a clean tree", out)
		}
	}
}

// BenchmarkEmulator runs the same place in the real plugin under the Studio emulator
// (Node, luau-web): "snapshot" is one snapshot of all of game as above, timed from the
// host's side; "plan" is h.Plan with the emulator as Studio, after a first plan
// (reported as first-s; later ones reuse unchanged sources). Writing the place and
// starting the emulator (it loads the place) are not timed; the start is reported as
// start-s.
func BenchmarkEmulator(b *testing.B) {
	benchProject(b)
	pluginDir := emulatorPluginDir(b)
	state, err := os.MkdirTemp("", "atlas-host-bench-state-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(state)
	h, err := host.New(host.Options{Location: bench.loc, StateDir: state, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	placePath := filepath.Join(state, "place.json")
	if err := os.WriteFile(placePath, bench.placeJSON, 0o600); err != nil {
		b.Fatal(err)
	}
	started := time.Now()
	emu, err := host.StartEmulator(context.Background(), host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: placePath})
	if err != nil {
		b.Fatalf("start the emulator: %v", err)
	}
	defer emu.Stop()
	s, err := h.Bridge().WaitSession(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	startS := time.Since(started).Seconds()

	b.Run("snapshot", func(b *testing.B) {
		benchSnapshotCalls(b, s)
		b.ReportMetric(startS, "start-s")
	})
	b.Run("plan", func(b *testing.B) {
		first := time.Now()
		mustEmptyPlan(b, h)
		firstS := time.Since(first).Seconds()
		for b.Loop() {
			if _, err := h.Plan(context.Background(), host.PlanRequest{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(firstS, "first-s") // after the loop: its start drops metrics reported before
	})
}

// BenchmarkMemoryCycles plans and applies one pushed edit per cycle (a different
// script each time, so each is a push) and reports the host's live heap after the
// first cycle and after the last: what a long-running host holds on to.
func BenchmarkMemoryCycles(b *testing.B) {
	benchProject(b)
	const cycles = 20
	for b.Loop() {
		h, _, stop := benchHost(b, benchPlace(b))
		mustEmptyPlan(b, h)
		var first uint64
		for i, f := range bench.edits[:cycles] {
			path := filepath.Join(bench.dir, filepath.FromSlash(f))
			orig, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, append(orig, "-- cycle\n"...), 0o644); err != nil {
				b.Fatal(err)
			}
			p, err := h.Plan(context.Background(), host.PlanRequest{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.Apply(context.Background(), host.ApplyRequest{Token: p.ConfirmToken}); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				runtime.GC()
				first = heapInuse()
			}
		}
		runtime.GC()
		last := heapInuse()
		stop()
		b.ReportMetric(float64(first)/1e6, "after-1-MB")
		b.ReportMetric(float64(last)/1e6, "after-20-MB")
	}
}

// BenchmarkInitialPlace is what `serve --emulate` does before it starts the
// emulator: a new host builds the place from the project (the disk load, the base
// commit, each script's text) and writes it in the packed form.
func BenchmarkInitialPlace(b *testing.B) {
	benchProject(b)
	for b.Loop() {
		b.StopTimer()
		state := b.TempDir()
		h, err := host.New(host.Options{Location: bench.loc, StateDir: state, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		pf, err := h.InitialPlace()
		if err != nil {
			b.Fatal(err)
		}
		if err := host.WritePackedPlace(filepath.Join(state, "place"+host.PackedPlaceExt), pf); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		h.Close()
		b.StartTimer()
	}
}

// BenchmarkPackPlace is the last step of BenchmarkInitialPlace alone: the place
// written in the packed form the emulator loads.
func BenchmarkPackPlace(b *testing.B) {
	benchProject(b)
	h, err := host.New(host.Options{Location: bench.loc, StateDir: b.TempDir(), Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	pf, err := h.InitialPlace()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "place"+host.PackedPlaceExt)
	for b.Loop() {
		if err := host.WritePackedPlace(path, pf); err != nil {
			b.Fatal(err)
		}
	}
}
