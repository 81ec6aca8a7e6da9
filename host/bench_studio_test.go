package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
)

// BenchmarkPlanAfterStudioEdit times h.Plan after one Studio edit (one script's
// Source) on the budget project, the edit itself untimed: "fake" with the Go fake
// plugin answering deltas, "fake-whole" with it answering every snapshot whole (as
// before deltas), and "emulator" with the real plugin, the edit made by exec.
// BenchmarkGitStatus is the yardstick.
func BenchmarkPlanAfterStudioEdit(b *testing.B) {
	benchProject(b)
	for _, whole := range []bool{false, true} {
		name := "fake"
		if whole {
			name = "fake-whole"
		}
		b.Run(name, func(b *testing.B) {
			h, p, stop := benchHost(b, benchPlace(b))
			defer stop()
			p.NoDelta = whole // before the first snapshot: no request reads it yet
			mustEmptyPlan(b, h)
			var scripts []*bridgetest.Node
			p.Edit(func(root *bridgetest.Node) {
				var walk func(n *bridgetest.Node)
				walk = func(n *bridgetest.Node) {
					if n.IsScript() {
						scripts = append(scripts, n)
					}
					for _, c := range n.Children {
						walk(c)
					}
				}
				walk(root)
			})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				p.Edit(func(*bridgetest.Node) {
					s := scripts[i%len(scripts)]
					s.SetSource(s.Source() + fmt.Sprintf("-- edit %d\n", i))
				})
				b.StartTimer()
				d, err := h.Plan(context.Background(), host.PlanRequest{})
				if err != nil {
					b.Fatal(err)
				}
				if len(d.Changes) == 0 {
					b.Fatal("the plan after a Studio edit has no change")
				}
			}
		})
	}
	b.Run("emulator", func(b *testing.B) {
		h, stop := benchEmulatedHost(b)
		defer stop()
		mustEmptyPlan(b, h)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			code := fmt.Sprintf(`local n = 0
for _, d in game:GetService("ReplicatedStorage"):GetDescendants() do
	if d:IsA("LuaSourceContainer") then
		n += 1
		if n == %d then d.Source ..= "-- edit\n" break end
	end
end`, i%1000+1)
			if d, err := h.Exec(context.Background(), host.ExecRequest{Code: code}); err != nil || !d.Success {
				b.Fatalf("exec: %v %+v", err, d)
			}
			b.StartTimer()
			d, err := h.Plan(context.Background(), host.PlanRequest{})
			if err != nil {
				b.Fatal(err)
			}
			if len(d.Changes) == 0 {
				b.Fatal("the plan after a Studio edit has no change")
			}
		}
	})
}

// benchEmulatedHost starts a host on the budget project with the emulator holding
// the place at HEAD.
func benchEmulatedHost(b *testing.B) (*host.Host, func()) {
	b.Helper()
	pluginDir := emulatorPluginDir(b)
	state, err := os.MkdirTemp("", "atlas-host-bench-state-")
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(host.Options{Location: bench.loc, StateDir: state, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	placePath := filepath.Join(state, "place.json")
	if err := os.WriteFile(placePath, bench.placeJSON, 0o600); err != nil {
		b.Fatal(err)
	}
	emu, err := host.StartEmulator(context.Background(), host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: placePath})
	if err != nil {
		b.Fatalf("start the emulator: %v", err)
	}
	if _, err := h.Bridge().WaitSession(context.Background(), ""); err != nil {
		b.Fatal(err)
	}
	return h, func() {
		emu.Stop()
		h.Close()
		os.RemoveAll(state)
	}
}
