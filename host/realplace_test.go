package host

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
)

func samplePlaceRoots() []*dom.Instance {
	ws := dom.New("Workspace", "Workspace")
	m := dom.New("Car", "Model")
	seat := dom.New("Seat", "Seat")
	m.AddChild(seat)
	ws.AddChild(m)
	m.ID, seat.ID = "00000000000000000000000000000001", "00000000000000000000000000000002"
	m.Properties.Set("PrimaryPart", dom.Ref(seat.ID))
	m.Properties.Set("Attributes", dom.Attributes{"RBX_Migrated": dom.Bool(true), "Speed": dom.Float64(3)})
	return []*dom.Instance{ws}
}

// A place read from either format, run through the emulator's JSON (which drops
// refs and Roblox's own attributes) and saved back, keeps both, in its format.
func TestRobloxFileRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name   string
		encode func(*bytes.Buffer, []*dom.Instance) error
		binary bool
	}{
		{"game.rbxl", func(b *bytes.Buffer, r []*dom.Instance) error { return rbxbin.Encode(b, r) }, true},
		{"game.rbxlx", func(b *bytes.Buffer, r []*dom.Instance) error { return rbxmx.Encode(b, r) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tt.name)
			var b bytes.Buffer
			if err := tt.encode(&b, samplePlaceRoots()); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ReadRobloxFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if f.Binary != tt.binary || f.Root.ClassName != "DataModel" || f.Root.Find("Workspace", "Car", "Seat") == nil {
				t.Fatalf("read %+v", f)
			}
			// What the emulator would load, and save unchanged.
			pf := f.EmulatorPlace()
			car := pf.Root.Children[0].Children[0]
			if a := car.Properties["Attributes"].(dom.Attributes); len(a) != 1 || a["Speed"] == nil {
				t.Errorf("the emulator's place has attributes %v, want only Speed", a)
			}
			delete(car.Properties, "PrimaryPart")
			saved := filepath.Join(dir, "saved.json")
			data, _ := json.Marshal(pf)
			if err := os.WriteFile(saved, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := f.UpdateFromPlace(saved); err != nil {
				t.Fatal(err)
			}
			if err := f.Write(); err != nil {
				t.Fatal(err)
			}
			back, err := ReadRobloxFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if back.Binary != tt.binary {
				t.Errorf("saved as binary=%v, want %v", back.Binary, tt.binary)
			}
			c, s := back.Root.Find("Workspace", "Car"), back.Root.Find("Workspace", "Car", "Seat")
			if c.Properties.Get("PrimaryPart") != dom.Ref(s.ID) {
				t.Errorf("PrimaryPart = %v, want the seat %s", c.Properties.Get("PrimaryPart"), s.ID)
			}
			if a := c.Properties.Get("Attributes").(dom.Attributes); a["RBX_Migrated"] != dom.Bool(true) || a["Speed"] != dom.Float64(3) {
				t.Errorf("attributes after the save: %v", a)
			}
		})
	}
}

func TestReadRobloxFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rbxl")
	if err := os.WriteFile(bad, []byte("<roblox!\x89\xff\r\n\x1a\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadRobloxFile(bad)
	ce := errcode.As(err)
	if ce.Code != errcode.ProjectInvalid || ce.Details["file"] != bad {
		t.Errorf("err %v, want %s naming %s", err, errcode.ProjectInvalid, bad)
	}
	if _, err := ReadRobloxFile(filepath.Join(dir, "none.rbxl")); errcode.As(err).Code != errcode.NotFound {
		t.Errorf("a missing file: %v, want %s", err, errcode.NotFound)
	}
	if !IsRobloxFile("x.RBXL") || IsRobloxFile("x.json") {
		t.Error("IsRobloxFile goes by extension, ignoring case")
	}
}
