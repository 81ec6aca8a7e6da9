package host_test

import (
	"context"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// BenchmarkStudioQuery reads a Part with every readable property (two plugin
// round trips: the classes, then the values) through the real plugin in the
// emulator.
func BenchmarkStudioQuery(b *testing.B) {
	env := startEmulated(b, hosttest.Project, func(pf *host.PlaceFile) {
		ws := findNode(pf.Root, "Workspace")
		ws.Children = append(ws.Children, &host.PlaceNode{Name: "Block", ClassName: "Part", Properties: dom.Properties{}, Children: []*host.PlaceNode{}})
	})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		d, err := env.host.Query(ctx, host.QueryRequest{Path: "Workspace/Block"})
		if err != nil || len(d.Instances[0].Properties) < 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkStudioLogs reads the 50 newest Output lines through the real plugin.
func BenchmarkStudioLogs(b *testing.B) {
	env := startEmulated(b, hosttest.Project, nil)
	ctx := context.Background()
	if _, err := env.host.Exec(ctx, host.ExecRequest{Code: `for i = 1, 200 do print("line", i) end`}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		d, err := env.host.Logs(ctx, host.LogsRequest{})
		if err != nil || len(d.Entries) != host.DefaultLogCount {
			b.Fatal(err)
		}
	}
}
