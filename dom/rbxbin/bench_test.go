package rbxbin

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
)

// benchPlace is a place of about n instances: models of parts with the
// properties Studio saves, a script in every tenth model, and folders of values.
func benchPlace(n int) []*dom.Instance {
	ws := dom.New("Workspace", "Workspace")
	ss := dom.New("ServerScriptService", "ServerScriptService")
	rng := rand.New(rand.NewPCG(1, 2))
	f := func(scale float32) float32 { return float32(rng.Float64()) * scale }
	count := 2
	for m := 0; count < n; m++ {
		model := dom.New(fmt.Sprintf("Model%d", m), "Model")
		model.Properties.Set("WorldPivotData", dom.OptionalCFrame{CFrame: &dom.CFrame{Position: [3]float32{float32(m), 0, 0}, Orientation: dom.IdentityCFrame.Orientation}})
		ws.AddChild(model)
		count++
		for p := 0; p < 8 && count < n; p++ {
			part := dom.New("Part", "Part")
			part.Properties.Set("CFrame", dom.CFrame{Position: [3]float32{f(1000), f(100), f(1000)}, Orientation: rotated.Orientation})
			if p%2 == 0 {
				part.Properties.Set("CFrame", dom.CFrame{Position: [3]float32{f(1000), f(100), f(1000)}, Orientation: dom.IdentityCFrame.Orientation})
			}
			part.Properties.Set("Size", dom.Vector3{f(10), f(10), f(10)})
			part.Properties.Set("Color", dom.Color3{f(1), f(1), f(1)})
			part.Properties.Set("Anchored", dom.Bool(true))
			part.Properties.Set("Material", dom.Enum(256+p))
			part.Properties.Set("Transparency", dom.Float32(0))
			part.Properties.Set("Attributes", dom.Attributes{"Hp": dom.Float64(float64(p * 10))})
			model.AddChild(part)
			count++
		}
		if m%10 == 0 && count < n {
			s := dom.New("Script", "Script")
			s.Properties.Set("Source", dom.String(fmt.Sprintf("-- model %d\nlocal part = script.Parent.Part\nprint(part.Name, %d)\n", m, m)))
			ss.AddChild(s)
			count++
		}
	}
	return []*dom.Instance{ws, ss}
}

func BenchmarkPlace50k(b *testing.B) {
	place := benchPlace(50_000)
	var bin, xml bytes.Buffer
	if err := Encode(&bin, place); err != nil {
		b.Fatal(err)
	}
	if err := rbxmx.Encode(&xml, place); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d-instance place: binary %d bytes, XML %d bytes", count(place), bin.Len(), xml.Len())

	b.Run("rbxl/read", func(b *testing.B) {
		b.SetBytes(int64(bin.Len()))
		for b.Loop() {
			if _, err := Decode(bytes.NewReader(bin.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rbxl/write", func(b *testing.B) {
		b.SetBytes(int64(bin.Len()))
		for b.Loop() {
			if err := Encode(&bytes.Buffer{}, place); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rbxlx/read", func(b *testing.B) {
		b.SetBytes(int64(xml.Len()))
		for b.Loop() {
			if _, err := rbxmx.Decode(bytes.NewReader(xml.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rbxlx/write", func(b *testing.B) {
		b.SetBytes(int64(xml.Len()))
		for b.Loop() {
			if err := rbxmx.Encode(&bytes.Buffer{}, place); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestBenchPlaceRoundTrips(t *testing.T) {
	place := benchPlace(2000)
	got := decode(t, encode(t, Options{}, place...))
	if count(got) != count(place) || count(place) != 2000 {
		t.Fatalf("read %d instances, wrote %d (want 2000)", count(got), count(place))
	}
}
