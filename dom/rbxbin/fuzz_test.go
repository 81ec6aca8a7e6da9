package rbxbin

import (
	"bytes"
	"errors"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// FuzzDecode checks that Decode never panics, that every failure is a located
// *Error, and that whatever it accepts Encode writes and Decode reads again.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, Options{}, buildTree()))
	f.Add(encode(f, Options{Uncompressed: true}, buildTree()))
	for _, v := range []dom.Value{
		dom.CFrame(rotated), dom.OptionalCFrame{CFrame: &turned}, dom.Font{Family: "x", Weight: "Bold", Style: "Italic"},
		dom.Attributes{"a": dom.Float64(1)}, dom.SharedString("s"), dom.Content{Kind: "Uri", Value: "u"},
		dom.UniqueId("0123456789abcdef0123456789abcdef"), dom.PhysicalProperties{Density: 1},
		dom.NumberSequence{{Time: 0, Value: 1}}, dom.ColorSequence{{Time: 0}}, dom.Int64(-5), dom.UDim2{},
	} {
		in := dom.New("Thing", "Folder")
		in.Properties.Set("Custom", v)
		f.Add(encode(f, Options{Uncompressed: true}, in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roots, err := Decode(bytes.NewReader(data))
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		var b bytes.Buffer
		if err := Encode(&b, roots); err != nil {
			return // e.g. two instances of a class with one property of two types
		}
		again, err := Decode(&b)
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		if count(again) != count(roots) {
			t.Fatalf("re-read %d instances, first read %d", count(again), count(roots))
		}
	})
}

func count(roots []*dom.Instance) int {
	n := 0
	for _, r := range roots {
		n += r.Count()
	}
	return n
}
