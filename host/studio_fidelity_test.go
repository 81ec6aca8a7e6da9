package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// fidelityProject sets what Studio treats specially: a read-only property
// (MeshPart.MeshId), a Position (derived from CFrame in Studio) and an infinite float
// (BillboardGui.MaxDistance).
var fidelityProject = map[string]string{
	"default.project.json": `{
  "name": "Fidelity",
  "tree": {
    "$className": "DataModel",
    "ServerScriptService": { "$path": "src/server" },
    "Workspace": {
      "Rock": {
        "$className": "MeshPart",
        "$properties": { "MeshId": "rbxassetid://123", "Anchored": true }
      },
      "Box": {
        "$className": "Part",
        "$properties": { "Position": [3, 4, 5], "Anchored": true }
      },
      "Sign": {
        "$className": "Part",
        "Gui": {
          "$className": "BillboardGui",
          "$properties": { "MaxDistance": { "Float32": "inf" } }
        }
      }
    }
  }
}`,
	"src/server/Main.server.luau": "print('hi')\n",
	"src/server/Odd.server.luau":  "print('odd')\n",
}

func warningsOf(d *host.PlanData) string { return strings.Join(d.Warnings, "\n") }

// TestEmulatorUnsyncableProperty: a MeshId in the project (read-only to Studio's
// scripts) is named in a warning and never drifts: the place Studio loads has it, the
// plan is empty, an edit of the same part's other properties is pushed, and a new
// MeshPart with a MeshId is added without it (Studio would refuse the write).
func TestEmulatorUnsyncableProperty(t *testing.T) {
	e := startEmulated(t, fidelityProject, nil)
	d := mustPlan(t, e.host, nil)
	if w := warningsOf(d); !strings.Contains(w, "MeshPart.MeshId") || !strings.Contains(w, "Workspace/Rock") {
		t.Errorf("warnings = %q, want MeshPart.MeshId at Workspace/Rock named", d.Warnings)
	}
	// In the emulated place, as in Studio, scripts read the MeshId the place holds
	// and cannot write it.
	x := mustExec(t, e.host, `local r = workspace.Rock
		local ok = pcall(function() r.MeshId = "rbxassetid://9" end)
		return r.MeshId, ok`)
	if got := strings.Join(x.Returns, " "); got != "rbxassetid://123 false" {
		t.Errorf("MeshId in the emulator, and whether a script could write it: %s", got)
	}

	proj := strings.Replace(fidelityProject["default.project.json"],
		`"MeshId": "rbxassetid://123", "Anchored": true`, `"MeshId": "rbxassetid://456", "Anchored": false`, 1)
	proj = strings.Replace(proj, `"Box": {`, `"Boulder": { "$className": "MeshPart", "$properties": { "MeshId": "rbxassetid://7" } },
      "Box": {`, 1)
	hosttest.Write(t, e.dir, "default.project.json", proj)
	d = mustPlan(t, e.host, map[string]string{"Workspace/Rock": "disk_changed/push", "Workspace/Boulder": "new_on_disk/push"})
	for _, c := range d.Changes {
		for _, f := range c.Fields {
			if f == "MeshId" {
				t.Errorf("%s: MeshId is a field of the change", c.Path)
			}
		}
	}
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	x = mustExec(t, e.host, `return workspace.Rock.Anchored, workspace.Boulder.ClassName, workspace.Rock.MeshId`)
	if got := strings.Join(x.Returns, " "); got != "false MeshPart rbxassetid://123" {
		t.Errorf("after the push: %s", got)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorPositionAndInfinity: a project's Position comes back from the emulated
// place (Studio derives it from CFrame), and an infinite MaxDistance round-trips:
// plugin → host → no change; a push of 100 and then of infinity reach Studio.
func TestEmulatorPositionAndInfinity(t *testing.T) {
	e := startEmulated(t, fidelityProject, nil)
	mustPlan(t, e.host, nil)
	x := mustExec(t, e.host, `local p = workspace.Box.Position return p.X, p.Y, p.Z, workspace.Sign.Gui.MaxDistance`)
	if got := strings.Join(x.Returns, " "); got != "3 4 5 inf" {
		t.Errorf("Box.Position and Gui.MaxDistance in the emulator = %s, want 3 4 5 inf", got)
	}

	setMax := func(v string) {
		proj := strings.Replace(fidelityProject["default.project.json"], `{ "Float32": "inf" }`, v, 1)
		hosttest.Write(t, e.dir, "default.project.json", proj)
	}
	setMax(`100`)
	d := mustPlan(t, e.host, map[string]string{"Workspace/Sign/Gui": "disk_changed/push"})
	if b, _ := json.Marshal(d.Changes[0].Properties["MaxDistance"]); !strings.Contains(string(b), `"current":{"Float32":"inf"}`) {
		t.Errorf("MaxDistance diff = %s, want Studio's current value inf", b)
	}
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply 100: %v", err)
	}
	if got := mustExec(t, e.host, `return workspace.Sign.Gui.MaxDistance`).Returns[0]; got != "100" {
		t.Errorf("MaxDistance after the push = %s", got)
	}
	hosttest.Git(t, e.dir, "commit", "-qam", "max 100")
	mustPlan(t, e.host, nil)

	setMax(`{ "Float32": "inf" }`)
	d = mustPlan(t, e.host, map[string]string{"Workspace/Sign/Gui": "disk_changed/push"})
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply inf: %v", err)
	}
	if got := mustExec(t, e.host, `return workspace.Sign.Gui.MaxDistance`).Returns[0]; got != "inf" {
		t.Errorf("MaxDistance after pushing infinity = %s", got)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorSourceNotUTF8: a Studio script whose bytes are not UTF-8 (a 4-byte
// sequence, F0 28 8C 28; a project file cannot hold one) arrives byte for byte (base64
// on the wire), is reported by path in the plan's warnings, hashes the same on both
// sides, and a push over it passes its precondition.
func TestEmulatorSourceNotUTF8(t *testing.T) {
	bad := "print('\xf0\x28\x8c\x28')\n"
	e := startEmulated(t, fidelityProject, func(pf *host.PlaceFile) {
		for _, c := range pf.Root.Children {
			if c.Name == "ServerScriptService" {
				for _, s := range c.Children {
					if s.Name == "Odd" {
						s.Properties["Source"] = dom.String(bad)
					}
				}
			}
		}
	})
	// The plan holds the table's pull back: a file holding these bytes could not be
	// loaded back (scripts are read as UTF-8).
	d := mustPlan(t, e.host, map[string]string{"ServerScriptService/Odd": "unwritable_value/"})
	if g := d.Guards; g == nil || len(g.Unwritable) != 1 || g.Unwritable[0].Reason != "unwritable_value" ||
		!strings.Contains(g.Unwritable[0].Message, "not valid UTF-8") {
		t.Errorf("guards = %+v, want Odd's pull held as unwritable_value", g)
	}
	if w := warningsOf(d); !strings.Contains(w, "ServerScriptService/Odd: the Studio Source is not valid UTF-8") {
		t.Errorf("warnings = %q, want the Studio script named", d.Warnings)
	}
	want := gitblob.Hash([]byte(bad))
	if got := d.Changes[0].StudioHash; got != want {
		t.Errorf("the plan's Studio hash of Odd = %s, want %s (its bytes as they are)", got, want)
	}
	r, err := getScript(e.session(t), map[string]any{"path": []string{"ServerScriptService", "Odd"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.SourceSha1 != want {
		t.Errorf("the plugin's hash of Odd = %s, want %s", r.SourceSha1, want)
	}
	// An apply refuses it, and a pull chosen anyway: nothing is written.
	id := d.Changes[0].ID
	before := readFile(t, e.dir, "src/server/Odd.server.luau")
	_, err = e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != "unwritable_value" {
		t.Fatalf("apply of the held pull: %v (reason %q), want E_UNRESOLVED unwritable_value", err, ce.ReasonCode())
	}
	_, err = e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken,
		Overrides: []apply.Override{{ID: id, Direction: "pull"}}})
	if ce := errcode.As(err); ce.Code != errcode.Unresolved || ce.ReasonCode() != "unwritable_value" {
		t.Fatalf("pull of the non-UTF-8 script: %v (reason %q), want E_UNRESOLVED unwritable_value", err, ce.ReasonCode())
	}
	if got := readFile(t, e.dir, "src/server/Odd.server.luau"); got != before {
		t.Errorf("the file after the refused pull = %q, want %q", got, before)
	}
	// The precondition of a push holds: both sides hashed the same bytes.
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken,
		Overrides: []apply.Override{{ID: id, Direction: "push", StudioHash: &want}}}); err != nil {
		t.Fatalf("push over the non-UTF-8 script: %v", err)
	}
	if got := mustExec(t, e.host, `return game.ServerScriptService.Odd.Source`).Returns[0]; got != "print('odd')\n" {
		t.Errorf("Odd after the push = %q", got)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorPlayContext: an emulator booted as a playtest's server connects
// read-only (context "server", its own session id) beside the edit one: there is
// still exactly one edit session, and the playtest's refuses apply.
func TestEmulatorPlayContext(t *testing.T) {
	e := startEmulated(t, fidelityProject, nil)
	pf, err := e.host.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pf)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["context"] = "server"
	b, _ = json.Marshal(raw)
	placePath := filepath.Join(t.TempDir(), "play.json")
	if err := os.WriteFile(placePath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	edit := e.session(t).Info().ID
	play, err := host.StartEmulator(ctx, host.EmulatorOptions{
		PluginDir: emulatorPluginDir(t), URL: e.host.PluginURL(), Place: placePath,
		SessionID: edit, // even told to, a playtest never takes the edit session's id
	})
	if err != nil {
		t.Fatalf("start the playtest emulator: %v", err)
	}
	t.Cleanup(func() { play.Stop() })

	var sessions []bridge.SessionInfo
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if sessions = e.host.Bridge().Sessions(); len(sessions) == 2 {
			break
		}
	}
	if len(sessions) != 2 {
		t.Fatalf("sessions = %+v, want the edit one and the playtest's", sessions)
	}
	var editSessions []string
	var playInfo bridge.SessionInfo
	for _, s := range sessions {
		if s.Context == "edit" {
			editSessions = append(editSessions, s.ID)
		} else {
			playInfo = s
		}
	}
	if len(editSessions) != 1 || editSessions[0] != edit {
		t.Errorf("edit sessions = %v, want only %s", editSessions, edit)
	}
	if playInfo.Context != "server" || !playInfo.ReadOnly || playInfo.ID == edit {
		t.Errorf("playtest session = %+v, want context server, read-only, its own id", playInfo)
	}
	ps, err := e.host.Bridge().Session(playInfo.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = ps.Call(ctx, "apply", map[string]any{"txId": "tx-play", "ops": []any{}}, nil)
	if errcode.Of(err) != errcode.ApplyFailed || !strings.Contains(err.Error(), "only reads") {
		t.Errorf("apply in the playtest = %v, want %s (read-only)", err, errcode.ApplyFailed)
	}
	var x struct {
		Success bool     `json:"success"`
		Returns []string `json:"returns"`
	}
	if err := ps.Call(ctx, "exec", map[string]any{"code": `local rs = game:GetService("RunService") return rs:IsRunning(), rs:IsEdit()`}, &x); err != nil {
		t.Fatal(err)
	}
	if strings.Join(x.Returns, " ") != "true false" {
		t.Errorf("RunService in the playtest: IsRunning, IsEdit = %v", x.Returns)
	}
}

// TestEmulatorPartColorIsStoredAsBytes: Studio keeps a part's Size within its
// bounds and its Color as
// Color3uint8 (the database's serialized type), so a Color3 set there reads back
// rounded to 255ths. A project's Color is compared as Studio holds it: a file with
// more precision than that is no difference, before or after Studio sets the same
// color again.
func TestEmulatorPartColorIsStoredAsBytes(t *testing.T) {
	files := map[string]string{
		"default.project.json": `{ "name": "Colors", "tree": { "$className": "DataModel",
			"Workspace": { "$className": "Workspace", "$ignoreUnknownInstances": true, "Brick": { "$path": "Brick.model.json" } } } }`,
		"Brick.model.json": `{ "className": "Part", "properties": { "Color": [0.1234, 0.5, 1], "Size": [0, 4, 5000] } }`,
	}
	e := startEmulated(t, files, nil)
	mustPlan(t, e.host, nil)
	// Each dimension of a Size is kept between 0.001 and 2048, in Studio and when
	// the project is read.
	if got := mustExec(t, e.host, `workspace.Brick.Size = Vector3.new(0, 4, 5000) local s = workspace.Brick.Size return s.X, s.Z`).Returns; len(got) != 2 || got[0] != "0.001" || got[1] != "2048" {
		t.Errorf("Size after setting (0, 4, 5000) = %v, want 0.001 and 2048", got)
	}
	mustPlan(t, e.host, nil)
	got := mustExec(t, e.host, `workspace.Brick.Color = Color3.new(0.1234, 0.5, 1) return workspace.Brick.Color.R * 255`).Returns[0]
	if got != "31" {
		t.Errorf("Color.R × 255 after setting 0.1234 = %s, want 31 (a byte)", got)
	}
	mustPlan(t, e.host, nil)
	mustExec(t, e.host, `workspace.Brick.Color = Color3.fromRGB(200, 10, 10)`)
	d := mustPlan(t, e.host, map[string]string{"Workspace/Brick": "studio_changed/pull"})
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, e.dir, "Brick.model.json"); !strings.Contains(got, "0.78431374") {
		t.Errorf("Brick.model.json after the pull:\n%s\nwant the byte color 200/255", got)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorLinkedPropertiesReachThePlan, through the real plugin in the
// emulator: a change reported under a linked property's name (a script's Enabled
// where the project sets Disabled; a part's CFrame where it sets Position) still
// reaches the next plan's delta.
func TestEmulatorLinkedPropertiesReachThePlan(t *testing.T) {
	files := map[string]string{
		"default.project.json": `{ "name": "Linked", "tree": { "$className": "DataModel",
			"ServerScriptService": { "$path": "src" },
			"Workspace": { "$className": "Workspace", "$ignoreUnknownInstances": true,
				"Pad": { "$className": "Part", "$properties": { "Anchored": true, "Position": [0, 5, 0] } } } } }`,
		"src/Main.server.luau": "print('hi')\n",
		"src/Main.meta.json":   `{ "properties": { "Disabled": false } }`,
	}
	e := startEmulated(t, files, nil)
	mustPlan(t, e.host, nil)
	mustExec(t, e.host, `game.ServerScriptService.Main.Enabled = false`)
	mustPlan(t, e.host, map[string]string{"ServerScriptService/Main": "studio_changed/pull"})
	mustExec(t, e.host, `game.ServerScriptService.Main.Enabled = true workspace.Pad.CFrame = CFrame.new(1, 5, 0)`)
	mustPlan(t, e.host, map[string]string{"Workspace/Pad": "studio_changed/pull"})
}

// TestModelFileRefsAreNotCompared, through the real plugin in the emulator: a
// reference kept inside a binary model file (a Model's PrimaryPart) names its target
// by the file's referent, which no value the plugin sends can name: it is not a
// difference, and the next plan after the start is empty, with a warning that says
// so (not that Studio's scripts cannot write it: they can).
func TestModelFileRefsAreNotCompared(t *testing.T) {
	car := dom.New("Car", "Model")
	seat := dom.New("Seat", "Seat")
	car.AddChild(seat)
	car.ID, seat.ID = "00000000000000000000000000000001", "00000000000000000000000000000002"
	car.Properties.Set("PrimaryPart", dom.Ref(seat.ID))
	var b bytes.Buffer
	if err := rbxbin.Encode(&b, []*dom.Instance{car}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"default.project.json": `{ "name": "Refs", "tree": { "$className": "DataModel",
			"Workspace": { "$className": "Workspace", "$ignoreUnknownInstances": true, "Car": { "$path": "Car.rbxm" } } } }`,
		"Car.rbxm": b.String(),
	}
	e := startEmulated(t, files, nil)
	d := mustPlan(t, e.host, nil)
	// Its warning says why: a reference, not a property scripts cannot write.
	if w := warningsOf(d); !strings.Contains(w, "Model.PrimaryPart is set by the project (Workspace/Car) and is a reference") || strings.Contains(w, "cannot write it:") {
		t.Errorf("warnings = %q, want PrimaryPart called a reference", d.Warnings)
	}
}

// TestEmulatorPropertyNoOneKnows: a property neither the reflection database nor
// Studio knows (a place from a newer Studio, or a typo in a model file) that the
// project sets is named in a warning and never a difference: Studio reads no value
// for it, and no write could give it one. Without this, the first plan after
// `init --from` such a place held a change that could be neither pushed nor pulled,
// and drift reported it forever.
func TestEmulatorPropertyNoOneKnows(t *testing.T) {
	files := map[string]string{
		"default.project.json": `{"name": "Unknown", "tree": {"$className": "DataModel",
  "Workspace": {"$path": "src/ws"}}}`,
		"src/ws/Mesh.model.json": `{"className": "Part", "properties": {"FooBarUnknown": {"String": "keep me"}, "Anchored": true}}`,
	}
	e := startEmulated(t, files, nil)
	d := mustPlan(t, e.host, nil)
	if w := warningsOf(d); !strings.Contains(w, "Part.FooBarUnknown") || !strings.Contains(w, "Workspace/Mesh") {
		t.Errorf("warnings = %q, want Part.FooBarUnknown at Workspace/Mesh named", d.Warnings)
	}
	drift, err := e.host.Drift(context.Background(), host.DriftRequest{})
	if err != nil || len(drift.Changes) != 0 {
		t.Fatalf("drift = %+v, %v; want none", drift, err)
	}
	// The part's other properties are still Studio's to change.
	mustExec(t, e.host, `workspace.Mesh.Anchored = false`)
	d = mustPlan(t, e.host, map[string]string{"Workspace/Mesh": "studio_changed/pull"})
	if got := d.Changes[0].Fields; len(got) != 1 || got[0] != "Anchored" {
		t.Errorf("fields = %v, want Anchored alone", got)
	}
}

// TestEmulatorNamesAndTerrain: the emulated Studio holds to what Roblox documents.
// An instance name longer than 100 characters is refused ("The name of an instance
// cannot exceed 100 characters"); the Workspace's Terrain cannot be destroyed or
// moved; attribute names may hold periods, hyphens and slashes (Instance:SetAttribute)
// but no other symbol. A file new on disk whose name Studio would refuse is held back
// by the plan (name_too_long), and the apply refuses it without writing anything.
func TestEmulatorNamesAndTerrain(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	x := mustExec(t, e.host, `local p = Instance.new("Part")
		local long = pcall(function() p.Name = string.rep("a", 101) end)
		local ok100 = pcall(function() p.Name = string.rep("a", 100) end)
		local destroyed = pcall(function() workspace.Terrain:Destroy() end)
		local moved = pcall(function() workspace.Terrain.Parent = game.ReplicatedStorage end)
		local dotted = pcall(function() p:SetAttribute("Config.Speed-2/x", 1) end)
		local spaced = pcall(function() p:SetAttribute("a b", 1) end)
		return long, ok100, destroyed, moved, dotted, spaced, workspace.Terrain ~= nil`)
	if got := strings.Join(x.Returns, " "); got != "false true false false true false true" {
		t.Errorf("name of 101, of 100, Terrain destroyed, moved, attribute a.b-c/d, a b, Terrain there = %s; want false true false false true false true", got)
	}

	long := strings.Repeat("L", 101)
	hosttest.Write(t, e.dir, "src/shared/"+long+".luau", "return 1\n")
	d := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Shared/" + long: "name_too_long/"})
	if d.Guards == nil || len(d.Guards.NameTooLong) != 1 || !strings.Contains(warningsOf(d), "name_too_long") {
		t.Errorf("guards %+v, warnings %q", d.Guards, d.Warnings)
	}
	_, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken})
	if ce := errcode.As(err); ce == nil || ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonNameTooLong {
		t.Fatalf("apply = %v, want E_UNRESOLVED name_too_long", err)
	}
	if got := mustExec(t, e.host, `return #game.ReplicatedStorage.Shared:GetChildren()`).Returns[0]; got != "3" {
		t.Errorf("Shared has %s children after the refused apply, want 3", got)
	}
}

// TestEmulatorColorAndBrickColor: a part that sets both Color and BrickColor (in a
// project file node, in a model file) sets one value in Studio: the reflection
// database migrates BrickColor into Color only when Color is not set, so Color is
// used, BrickColor left out with a warning. The first plan is empty (no phantom pull
// rewriting the project file), and Studio holds the project's Color.
func TestEmulatorColorAndBrickColor(t *testing.T) {
	files := map[string]string{
		"default.project.json": `{"name": "Colors", "tree": {"$className": "DataModel",
  "Workspace": {"$className": "Workspace", "$ignoreUnknownInstances": true,
    "Pad": {"$className": "Part", "$properties": {"Color": [0.5, 0.25, 1], "BrickColor": {"BrickColor": 194}}},
    "Models": {"$path": "src/models"}}}}`,
		"src/models/Block.model.json": `{"className": "Part", "properties": {"BrickColor": {"BrickColor": 21}, "Color": {"Color3": [0, 1, 0]}}}`,
	}
	e := startEmulated(t, files, nil)
	d := mustPlan(t, e.host, nil)
	w := warningsOf(d)
	for _, want := range []string{"Workspace.Pad: Part sets both BrickColor and Color", "src/models/Block.model.json: Part sets both BrickColor and Color"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings = %q, want %q", d.Warnings, want)
		}
	}
	x := mustExec(t, e.host, `local c, b = workspace.Pad.Color, workspace.Models.Block.Color
		return math.round(c.R * 255), math.round(c.G * 255), math.round(c.B * 255), math.round(b.G * 255)`)
	if got := strings.Join(x.Returns, " "); got != "128 64 255 255" {
		t.Errorf("Studio's colors = %s, want the project's Color (128 64 255, green 255)", got)
	}
}

// TestEmulatorInt64PastWhatLuauHolds: an int64 near the top of its range (an
// IntValue holding 2^63 - 1, which Studio keeps: IntValue's page says the Properties
// window can store values between 2^53 and 2^63 - 1) reads in Luau as the number 2^63,
// past the int64 range. The plugin reports it as the nearest int64, 2^63 - 1, and an
// int64 past 2^53 by its exact value (Luau writes -2^63 as -9223372036854776000,
// past the range too), so the snapshot is taken and the place is in step with the
// project. A push of it cannot be
// written by a script (the value it would write is 2^63, which overflows: "Attempting to
// store larger numbers causes an integer overflow"), so the apply fails and applies
// nothing, saying why.
func TestEmulatorInt64PastWhatLuauHolds(t *testing.T) {
	proj := func(count string) string {
		return `{ "name": "Ints", "tree": { "$className": "DataModel",
			"ReplicatedStorage": {
				"Big": { "$className": "IntValue", "$properties": { "Value": 9223372036854775807 } },
				"Low": { "$className": "IntValue", "$properties": { "Value": -9223372036854775808 } },
				"Far": { "$className": "IntValue", "$properties": { "Value": 1152921504606847232 } },
				"Count": { "$className": "IntValue", "$properties": { "Value": ` + count + ` } } } } }`
	}
	e := startEmulated(t, map[string]string{"default.project.json": proj("1")}, nil)
	mustPlan(t, e.host, nil)
	if got := mustExec(t, e.host, `return game.ReplicatedStorage.Big.Value == 2^63`).Returns; len(got) != 1 || got[0] != "true" {
		t.Errorf("Big.Value in Luau is 2^63: %v", got)
	}

	hosttest.Write(t, e.dir, "default.project.json", proj("9223372036854775807"))
	// The plan holds it back (int64_not_writable); pushed all the same, the plugin
	// refuses it, and nothing is applied.
	d := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Count": "int64_not_writable/"})
	_, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken,
		Overrides: []apply.Override{{ID: d.Changes[0].ID, Direction: "push"}}})
	if err == nil || !strings.Contains(err.Error(), "Int64") || !strings.Contains(err.Error(), "nothing was applied") {
		t.Errorf("apply of an Int64 of 2^63 - 1 = %v, want a failure that names the Int64", err)
	}
	if got := mustExec(t, e.host, `return game.ReplicatedStorage.Count.Value`).Returns; len(got) != 1 || got[0] != "1" {
		t.Errorf("Count.Value after the failed apply = %v, want 1", got)
	}
}

// TestEmulatorPushIntoAnOpenScript: a push to a script open in the Script Editor goes
// through ScriptEditorService:UpdateSourceAsync, whose callback may not yield (Roblox's
// Engine API reference; the emulator raises if it does): the editor and the Source
// both hold the new text, and the next plan is empty.
func TestEmulatorPushIntoAnOpenScript(t *testing.T) {
	e := startEmulated(t, fidelityProject, func(pf *host.PlaceFile) {
		pf.Drafts = map[string]string{"ServerScriptService/Main": "print('hi')\n"}
	})
	mustPlan(t, e.host, nil)
	hosttest.Write(t, e.dir, "src/server/Main.server.luau", "print('pushed')\n")
	d := mustPlan(t, e.host, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatalf("apply into the open script: %v", err)
	}
	x := mustExec(t, e.host, `local m = game.ServerScriptService.Main
		local ses = game:GetService("ScriptEditorService")
		return ses:FindScriptDocument(m) ~= nil, ses:GetEditorSource(m) == m.Source, m.Source`)
	if got := strings.Join(x.Returns, "|"); got != "true|true|print('pushed')\n" {
		t.Errorf("open, editor text = Source, Source after the push: %q", got)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorCurrentCameraDestroyed: Studio keeps a Camera in the Workspace: "If you
// set this property to nil or to a camera that is not a descendant of the Workspace (or
// the CurrentCamera is otherwise destroyed), a new Camera will be created and assigned"
// (Engine API reference, Workspace.CurrentCamera). A Camera destroyed in Studio comes
// back as a new one: where the project does not declare it, it is the engine's and the
// plan stays empty; where it does, the new one is the project's Camera, changed in
// Studio (its FieldOfView is the default again), not a Camera Studio deleted.
func TestEmulatorCurrentCameraDestroyed(t *testing.T) {
	const destroy = `local old = workspace.CurrentCamera
		old:Destroy()
		task.wait()
		local c = workspace.CurrentCamera
		return c ~= nil and c ~= old, c and c.Parent == workspace, c and c.Name, c and c.FieldOfView`

	e := startEmulated(t, fidelityProject, nil)
	mustPlan(t, e.host, nil)
	if got := strings.Join(mustExec(t, e.host, destroy).Returns, " "); got != "true true Camera 70" {
		t.Errorf("a new CurrentCamera, in the Workspace, named Camera, its FieldOfView: %s", got)
	}
	mustPlan(t, e.host, nil)

	files := map[string]string{
		"default.project.json": `{ "name": "Cam", "tree": { "$className": "DataModel",
			"Workspace": { "$className": "Workspace",
				"Camera": { "$className": "Camera", "$properties": { "FieldOfView": 50 } } } } }`,
	}
	e = startEmulated(t, files, nil)
	mustPlan(t, e.host, nil)
	if got := strings.Join(mustExec(t, e.host, destroy).Returns, " "); got != "true true Camera 70" {
		t.Errorf("a new CurrentCamera, in the Workspace, named Camera, its FieldOfView: %s", got)
	}
	mustPlan(t, e.host, map[string]string{"Workspace/Camera": "studio_changed/pull"})
}

// TestEmulatorUndoOfAnInt64NoScriptWrites: Studio held 2^63 - 1 (read as 2^63 in
// Luau, which no script can write back) when a sync pushed another value; the undo puts
// back what it can, leaves that value with a warning, and does not fail as a whole.
func TestEmulatorUndoOfAnInt64NoScriptWrites(t *testing.T) {
	proj := func(count string) string {
		return `{ "name": "Ints", "tree": { "$className": "DataModel",
			"ReplicatedStorage": {
				"Count": { "$className": "IntValue", "$properties": { "Value": ` + count + ` } } },
			"ServerScriptService": { "$path": "src" } } }`
	}
	e := startEmulated(t, map[string]string{"default.project.json": proj("9223372036854775807"), "src/Main.server.luau": "print(1)\n"}, nil)
	mustPlan(t, e.host, nil)
	hosttest.Write(t, e.dir, "default.project.json", proj("5"))
	hosttest.Write(t, e.dir, "src/Main.server.luau", "print(2)\n")
	d := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Count": "disk_changed/push", "ServerScriptService/Main": "disk_changed/push"})
	ctx := context.Background()
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	res, err := e.host.Undo(ctx, host.UndoRequest{})
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	// (Main's Source put back; nothing claimed for Count)
	if res.StudioOps != 1 || len(res.Studio) != 1 || res.Studio[0].Path != "ServerScriptService/Main" {
		t.Errorf("undo's Studio ops = %d, %+v; want Main's alone", res.StudioOps, res.Studio)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "ReplicatedStorage/Count.Value = 9223372036854775807 in Studio before the sync is not put back")
	}) {
		t.Errorf("undo warnings = %q", res.Warnings)
	}
	got := mustExec(t, e.host, `return game.ReplicatedStorage.Count.Value, game.ServerScriptService.Main.Source`).Returns
	if len(got) != 2 || got[0] != "5" || got[1] != "print(1)\n" {
		t.Errorf("Studio after the undo: %q, want Count left at 5 and Main put back", got)
	}
}
