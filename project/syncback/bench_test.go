package syncback

import (
	"fmt"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// BenchPlace is a place of about n instances shaped like a game: code in folders
// of modules (files), and a map of models made of parts (model files).
func benchPlace(n int) *dom.Instance {
	root := dom.New("Game", "DataModel")
	ws, rs := dom.New("Workspace", "Workspace"), dom.New("ReplicatedStorage", "ReplicatedStorage")
	root.AddChild(ws)
	root.AddChild(rs)
	count := 2
	for i := 0; count < n/10; i++ {
		f := dom.New(fmt.Sprintf("Feature%d", i), "Folder")
		rs.AddChild(f)
		count++
		for j := 0; j < 5 && count < n/10; j++ {
			m := dom.New(fmt.Sprintf("Module%d", j), "ModuleScript")
			m.Properties.Set("Source", dom.String(fmt.Sprintf("local M = {}\nfunction M.run() return %d end\nreturn M\n", i*10+j)))
			f.AddChild(m)
			count++
		}
	}
	for i := 0; count < n; i++ {
		m := dom.New(fmt.Sprintf("Model%d", i), "Model")
		ws.AddChild(m)
		count++
		for j := 0; j < 8 && count < n; j++ {
			p := dom.New("Part", "Part")
			p.Properties.Set("Anchored", dom.Bool(true))
			p.Properties.Set("Size", dom.Vector3{4, 1, float32(j)})
			p.Properties.Set("CFrame", dom.CFrame{Position: [3]float32{float32(i), float32(j), 0}, Orientation: dom.IdentityCFrame.Orientation})
			m.AddChild(p)
			count++
		}
	}
	return root
}

func BenchmarkExtract50k(b *testing.B) {
	place := benchPlace(50_000)
	b.ReportMetric(float64(place.Count()), "instances")
	for b.Loop() {
		if _, err := Extract(place, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchPlaceExtracts(t *testing.T) {
	place := benchPlace(2000)
	res, err := Extract(place, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Instances != place.Count()-1 {
		t.Errorf("extracted %d instances, the place has %d besides the DataModel", res.Instances, place.Count()-1)
	}
}
