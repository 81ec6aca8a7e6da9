package host_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
)

// unpack reads the packed form (plugin/emulator/pack.mjs) as mock/Json.luau's
// decodePacked does, into what json.Unmarshal gives, with the blob ids it carries.
func unpack(t *testing.T, b []byte) (any, map[string]string) {
	t.Helper()
	blobs := map[string]string{}
	pos := 0
	u32 := func() int {
		if pos+4 > len(b) {
			t.Fatalf("packed: no length at %d", pos)
		}
		n := int(binary.LittleEndian.Uint32(b[pos:]))
		pos += 4
		return n
	}
	count := u32
	var value func() any
	value = func() any {
		c := b[pos]
		pos++
		switch c {
		case 's':
			n := u32()
			s := string(b[pos : pos+n])
			pos += n
			return s
		case 'o':
			n := count()
			m := map[string]any{}
			for range n {
				k := value().(string)
				m[k] = value()
			}
			return m
		case 'a':
			n := count()
			a := make([]any, n)
			for i := range a {
				a[i] = value()
			}
			return a
		case 'n':
			f := math.Float64frombits(binary.LittleEndian.Uint64(b[pos:]))
			pos += 8
			return f
		case 't':
			return true
		case 'f':
			return false
		case 'z':
			return nil
		case 'h':
			hex := string(b[pos : pos+40])
			pos += 40
			v := value()
			blobs[v.(map[string]any)["String"].(string)] = hex
			return v
		}
		t.Fatalf("packed: unexpected %q at %d", c, pos-1)
		return nil
	}
	v := value()
	if pos != len(b) {
		t.Fatalf("packed: %d trailing bytes", len(b)-pos)
	}
	return v, blobs
}

// TestPackedPlaceIsItsJSON: the packed place holds what the JSON place decodes to,
// whatever the values (tagged types, text that is not UTF-8, empty and missing
// maps), and each script's Source carries its git blob id.
func TestPackedPlaceIsItsJSON(t *testing.T) {
	bad := "print('\xff\xfe')\n"
	pf := &host.PlaceFile{PlaceID: 42, PlaceName: "Pack \"é\"", GameID: 7, Context: "server", RunMode: true,
		Drafts: map[string]string{"ServerScriptService/Main": "print(\"draft\")\n"},
		Enums:  map[string]map[string]uint32{"Material": {"Plastic": 256, "Neon": 288}},
		Root: &host.PlaceNode{Name: "Game", ClassName: "DataModel", Properties: dom.Properties{}, Children: []*host.PlaceNode{
			{Name: "Main", ClassName: "Script", Properties: dom.Properties{"Source": dom.String("print(\"hi\")\n\t🎉"), "RunContext": dom.Enum(1)}},
			{Name: "Bad\xff", ClassName: "ModuleScript", Properties: dom.Properties{"Source": dom.String(bad)}, Children: []*host.PlaceNode{}},
			{Name: "Part", ClassName: "Part", Properties: dom.Properties{
				"Size": dom.Vector3{1, 2.5, -3}, "Color": dom.Color3{0.1, 0.2, 0.3}, "Anchored": dom.Bool(true),
				"Transparency": dom.Float32(0.25), "CFrame": dom.CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
				"Attributes": dom.Attributes{"Big": dom.Float64(1e300), "Text": dom.String("x")},
			}},
			// the same values again (packed once, then copied), and one that differs
			{Name: "Twin", ClassName: "Part", Properties: dom.Properties{
				"Size": dom.Vector3{1, 2.5, -3}, "Color": dom.Color3{0.1, 0.2, 0.3}, "Anchored": dom.Bool(true),
				"Transparency": dom.Float32(0.5),
			}},
			// numbers and booleans packed without their JSON: each as the JSON reads back
			{Name: "Numbers", ClassName: "Folder", Properties: dom.Properties{
				"I32": dom.Int32(-7), "I64": dom.Int64(1<<62 + 1), "Big": dom.Float64(1e300), "Tenth": dom.Float64(0.1),
				"Zero": dom.Float64(math.Copysign(0, -1)), "No": dom.Bool(false), "Mode": dom.Enum(4294967295),
				"Inf": dom.Float64(math.Inf(1)), "F32": dom.Float32(0.1),
				"Attributes": dom.Attributes{"Source": dom.String("not a script's"), "Nested": dom.Vector3{1, 2, 3}, "Index": dom.Float64(3),
					"Flag": dom.Bool(true), "Bytes\xff": dom.String("\xfe")},
			}},
			{Name: "Attributed", ClassName: "Folder", Properties: dom.Properties{
				"Attributes": dom.Attributes{"Index": dom.Float64(4), "Empty": dom.String(""), "Bad": dom.String("\xfe\xff")},
			}},
			{Name: "Nothing", ClassName: "Folder"},
		}},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "place"+host.PackedPlaceExt)
	if err := host.WritePackedPlace(path, pf); err != nil {
		t.Fatal(err)
	}
	packed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, blobs := unpack(t, packed)
	js, err := json.Marshal(pf)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		t.Errorf("packed place differs from its JSON\npacked: %s\njson:   %s", g, js)
	}
	// Only the valid UTF-8 Source has an id (the other is a base64 tagged value).
	wantBlobs := map[string]string{"print(\"hi\")\n\t🎉": gitblob.Hash([]byte("print(\"hi\")\n\t🎉"))}
	if !reflect.DeepEqual(blobs, wantBlobs) {
		t.Errorf("blob ids = %v, want %v", blobs, wantBlobs)
	}
}

// TestEmulatorLoadsPackedPlace: the emulator started on a packed place (what serve
// --emulate writes) holds the project at HEAD, so the first plan is empty, and a
// script's Source read in Studio is the disk's.
func TestEmulatorLoadsPackedPlace(t *testing.T) {
	e := startEmulatedAs(t, deltaProject, nil, true)
	dir, h := e.dir, e.host
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 0 {
		c, _ := json.Marshal(p.Changes)
		t.Fatalf("the packed place is not the project at HEAD: %s", c)
	}
	// The scripts' blob ids came with the place: Studio answered with them.
	if h.SourcesByHash() == 0 {
		t.Errorf("no Source came by hash from a packed place")
	}
	src, err := os.ReadFile(filepath.Join(dir, "src", "server", "Main.server.luau"))
	if err != nil {
		t.Fatal(err)
	}
	d := mustExec(t, h, `return game.ServerScriptService.Main.Source`)
	if fmt.Sprint(d.Returns) != fmt.Sprint([]string{string(src)}) {
		t.Errorf("Main's Source in Studio = %v, want the disk's %q", d.Returns, src)
	}
}
