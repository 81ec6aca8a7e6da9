package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/project"
)

// emuProject is a place project with every kind of file the emulator tests sync:
// scripts of the three classes, an init script, a .txt, a .model.json, Parts with
// properties and a nested folder tree.
var emuProject = map[string]string{
	"default.project.json": `{
  "name": "Emu",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" },
    "StarterPlayer": { "StarterPlayerScripts": { "$path": "src/client" } },
    "Workspace": {
      "Spawn": {
        "$className": "Part",
        "$properties": { "Anchored": true, "Size": [8, 1, 8], "Material": "Neon", "Color": [1, 0.5, 0] }
      },
      "Map": {
        "$className": "Folder",
        "Floor": {
          "$className": "Part",
          "$properties": { "Anchored": false, "Size": [64, 2, 64], "Material": "Grass", "Color": [0.2, 0.6, 0.1] }
        }
      }
    }
  }
}`,
	"src/shared/Util.luau":              "return {}\n",
	"src/shared/Readme.txt":             "read me\n",
	"src/shared/Lib/init.luau":          "return { name = 'Lib' }\n",
	"src/shared/Lib/Deep/Mod.luau":      "return 'deep'\n",
	"src/shared/Lib/Deep/Deeper/X.luau": "return 'x'\n",
	"src/shared/Lamp.model.json": `{
  "className": "Part",
  "properties": { "Anchored": true, "Size": [1, 2, 1], "Material": "SmoothPlastic" },
  "children": [ { "name": "Light", "className": "PointLight" } ]
}`,
	"src/server/Main.server.luau":      "print('hi')\n",
	"src/server/Jobs/Tick.server.luau": "while false do end\n",
	"src/client/Hud.client.luau":       "local hud = {}\nreturn hud\n",
}

// emuEnv is a host on a git repository with the Studio emulator connected to it.
type emuEnv struct {
	dir  string
	loc  *project.Location
	host *host.Host
	emu  *host.Emulator
}

// emulatorPluginDir finds plugin/ with its node modules, failing (never skipping) with
// what to do when node or the modules are missing.
func emulatorPluginDir(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed: the emulator tests run the real plugin under Node.js 20+ (%v)", err)
	}
	// The checkout's plugin/ (after 'npm ci'), so that these tests run its current files.
	checkout, err := filepath.Abs(filepath.Join("..", "plugin"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := host.FindPluginDir(func(k string) string {
		if v := os.Getenv(k); v != "" || k != "ATLAS_PLUGIN_DIR" {
			return v
		}
		return checkout
	})
	if err != nil {
		t.Fatalf("the Studio emulator is not ready: %v (run 'npm ci' in plugin/)", err)
	}
	return dir
}

// startHost starts a host on a committed copy of files.
func startHost(t testing.TB, files map[string]string) (string, *project.Location, *host.Host) {
	t.Helper()
	dir := hosttest.Repo(t, files)
	loc, err := project.Locate(dir, "", func(string) string { return dir })
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Location: loc, StateDir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return dir, loc, h
}

// TestEmulatorInSyncWithHead: the emulator starts with the project built at HEAD, so
// the plan is empty and a snapshot of all of game holds the project's instances,
// classes, sources and property values.
func TestEmulatorInSyncWithHead(t *testing.T) {
	e := startEmulated(t, emuProject, nil)
	mustPlan(t, e.host, nil)

	head := headProject(t, e)
	snap := fullSnapshot(t, e.session(t), propsOf(head.Root))
	studio := snapTree(t, snap)
	if n, want := assertMatches(t, head.Root, studio), head.Root.Count(); n != want {
		t.Errorf("matched %d instances, the project has %d", n, want)
	}
	// The comparison looks at what matters: a few values spelled out.
	if v := studio.Find("Workspace", "Spawn").Properties.Get("Material"); !dom.Equal(v, dom.Enum(288)) {
		t.Errorf("Spawn.Material = %v, want Enum 288 (Neon)", v)
	}
	if v := studio.Find("ReplicatedStorage", "Shared", "Readme").Properties.Get("Value"); !dom.Equal(v, dom.String("read me\n")) {
		t.Errorf("Readme.Value = %v", v)
	}
	if src, _ := studio.Find("ReplicatedStorage", "Shared", "Lib", "Deep", "Deeper", "X").Source(); src != "return 'x'\n" {
		t.Errorf("X.Source = %q", src)
	}
}

// TestEmulatorApplyWithOneFailedPrecondition: an apply of two valid edits (a script's
// Source, a Part's Size and Anchored) and an edit whose sourceSha1 is wrong changes
// nothing in the whole DataModel and answers E_PRECONDITION_FAILED naming only the
// failed op; the valid edits alone then apply, and the same comparison sees them.
func TestEmulatorApplyWithOneFailedPrecondition(t *testing.T) {
	e := startEmulated(t, emuProject, nil)
	s := e.session(t)
	ctx := context.Background()
	props := propsOf(headProject(t, e).Root)

	snap := fullSnapshot(t, s, props)
	before := canonical(t, snap)
	tree := snapTree(t, snap)
	util := tree.Find("ReplicatedStorage", "Shared", "Util")
	main := tree.Find("ServerScriptService", "Main")
	spawn := tree.Find("Workspace", "Spawn")
	wrong := gitblob.Hash([]byte("print('not what Studio has')\n"))
	valid := map[string]any{"op": "edit", "handle": util.Handle,
		"expect": map[string]any{"sourceSha1": gitblob.Hash([]byte("return {}\n"))},
		"set":    map[string]any{"Source": map[string]string{"String": "return { applied = true }\n"}}}
	validPart := map[string]any{"op": "edit", "handle": spawn.Handle,
		"expect": map[string]any{"properties": map[string]any{"Anchored": map[string]bool{"Bool": true}}},
		"set":    map[string]any{"Size": map[string][]float64{"Vector3": {2, 3, 4}}, "Anchored": map[string]bool{"Bool": false}}}
	bad := map[string]any{"op": "edit", "handle": main.Handle,
		"expect": map[string]any{"sourceSha1": wrong},
		"set":    map[string]any{"Source": map[string]string{"String": "print('pushed')\n"}}}

	err := s.Call(ctx, "apply", map[string]any{"txId": "tx-refused", "ops": []any{valid, validPart, bad}}, nil)
	ce := errcode.As(err)
	if err == nil || ce.Code != errcode.PreconditionFailed {
		t.Fatalf("apply with a wrong sourceSha1: %v, want %s", err, errcode.PreconditionFailed)
	}
	var details struct {
		Failures []struct {
			Op       int    `json:"op"`
			Handle   string `json:"handle"`
			Field    string `json:"field"`
			Expected any    `json:"expected"`
			Actual   any    `json:"actual"`
		} `json:"failures"`
	}
	b, _ := json.Marshal(ce.Details)
	if err := json.Unmarshal(b, &details); err != nil {
		t.Fatalf("details %s: %v", b, err)
	}
	if len(details.Failures) != 1 {
		t.Fatalf("details.failures = %s, want exactly the failed op", b)
	}
	f := details.Failures[0]
	if f.Op != 2 || f.Handle != main.Handle || f.Field != "Source" || f.Expected != wrong || f.Actual != gitblob.Hash([]byte("print('hi')\n")) {
		t.Errorf("failure = %+v, want op 2, handle %s, Source, expected %s, actual the hash of Main's source", f, main.Handle, wrong)
	}

	after := canonical(t, fullSnapshot(t, s, props))
	if d := cmp.Diff(before, after); d != "" {
		t.Fatalf("the refused apply changed the DataModel (-before +after):\n%s", d)
	}
	var tx struct {
		TxIDs []string `json:"txIds"`
	}
	if err := s.Call(ctx, "transactions", struct{}{}, &tx); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tx.TxIDs, "tx-refused") {
		t.Errorf("transactions lists the refused apply: %v", tx.TxIDs)
	}
	mustPlan(t, e.host, nil)

	// The same two valid edits on their own apply, and the snapshot shows them: the
	// comparison above would have seen them.
	tree = snapTree(t, fullSnapshot(t, s, props))
	valid["handle"] = tree.Find("ReplicatedStorage", "Shared", "Util").Handle
	validPart["handle"] = tree.Find("Workspace", "Spawn").Handle
	if err := s.Call(ctx, "apply", map[string]any{"txId": "tx-valid", "ops": []any{valid, validPart}}, nil); err != nil {
		t.Fatalf("the valid edits alone: %v", err)
	}
	changed := canonical(t, fullSnapshot(t, s, props))
	var diff []string
	for i := range changed {
		if changed[i] != before[i] {
			diff = append(diff, changed[i])
		}
	}
	if len(changed) != len(before) || len(diff) != 2 ||
		!strings.Contains(diff[0], `Source={"String":"return { applied = true }\n"}`) ||
		!strings.Contains(diff[1], `Anchored={"Bool":false}`) || !strings.Contains(diff[1], `Size={"Vector3":[2,3,4]}`) {
		t.Errorf("after the valid edits, changed lines: %q", diff)
	}
}

// TestEmulatorGetScript reads scripts by path, saved and as the editor's draft.
func TestEmulatorGetScript(t *testing.T) {
	e := startEmulated(t, emuProject, func(pf *host.PlaceFile) {
		pf.Drafts = map[string]string{"ServerScriptService/Main": "print('unsaved')\n"}
	})
	s := e.session(t)
	main := []string{"ServerScriptService", "Main"}

	r, err := getScript(s, map[string]any{"path": main})
	if err != nil {
		t.Fatal(err)
	}
	want := scriptResult{Source: "print('hi')\n", SourceSha1: gitblob.Hash([]byte("print('hi')\n")), ClassName: "Script", Path: main}
	if d := cmp.Diff(want, *r); d != "" {
		t.Errorf("saved Main (-want +got):\n%s", d)
	}
	r, err = getScript(s, map[string]any{"path": main, "draft": true})
	if err != nil {
		t.Fatal(err)
	}
	want = scriptResult{Source: "print('unsaved')\n", SourceSha1: gitblob.Hash([]byte("print('unsaved')\n")), ClassName: "Script", IsDraft: true, Path: main}
	if d := cmp.Diff(want, *r); d != "" {
		t.Errorf("draft of Main (-want +got):\n%s", d)
	}
	// No document open: the draft is the saved text.
	hud := []string{"StarterPlayer", "StarterPlayerScripts", "Hud"}
	r, err = getScript(s, map[string]any{"path": hud, "draft": true})
	if err != nil {
		t.Fatal(err)
	}
	want = scriptResult{Source: "local hud = {}\nreturn hud\n", SourceSha1: gitblob.Hash([]byte("local hud = {}\nreturn hud\n")), ClassName: "LocalScript", Path: hud}
	if d := cmp.Diff(want, *r); d != "" {
		t.Errorf("draft of Hud without a document (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		path []string
		want errcode.Code
	}{
		{[]string{"ServerScriptService", "Nope"}, errcode.NotFound},
		{[]string{"ReplicatedStorage", "Shared", "Readme"}, errcode.NotAScript},
	} {
		if _, err := getScript(s, map[string]any{"path": c.path}); errcode.Of(err) != c.want {
			t.Errorf("getScript %v: %v, want %s", c.path, err, c.want)
		}
	}

	// Through the host: by file, saved and draft; the plan compares saved text only.
	ctx := context.Background()
	sd, err := e.host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Main.server.luau"})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Source != "print('hi')\n" || sd.IsDraft || sd.StudioHash != gitblob.Hash([]byte("print('hi')\n")) || sd.InstancePath != "ServerScriptService/Main" {
		t.Errorf("host Script saved = %+v", sd)
	}
	sd, err = e.host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Main.server.luau", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Source != "print('unsaved')\n" || !sd.IsDraft {
		t.Errorf("host Script draft = %+v", sd)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorExec runs code in the plugin: output captured, values returned, errors
// as data.
func TestEmulatorExec(t *testing.T) {
	e := startEmulated(t, emuProject, nil)
	ctx := context.Background()

	d := mustExec(t, e.host, `print("a", 1) warn("careful") print(game.ServerScriptService.Main.Source) return 1 + 1, "two", nil, true`)
	wantOut := []host.OutputLine{{Level: "output", Text: "a 1"}, {Level: "warning", Text: "careful"}, {Level: "output", Text: "print('hi')\n"}}
	if diff := cmp.Diff(wantOut, d.Output); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"2", "two", "nil", "true"}, d.Returns); diff != "" {
		t.Errorf("returns (-want +got):\n%s", diff)
	}

	d, err := e.host.Exec(ctx, host.ExecRequest{Code: `print("before") error("boom") print("after")`})
	if err != nil {
		t.Fatalf("a runtime error must come back as data, got %v", err)
	}
	if d.Success || !strings.Contains(d.Error, "boom") || len(d.Returns) != 0 {
		t.Errorf("runtime error: %+v", d)
	}
	if len(d.Output) != 2 || d.Output[0] != (host.OutputLine{Level: "output", Text: "before"}) || d.Output[1].Level != "error" || !strings.Contains(d.Output[1].Text, "boom") {
		t.Errorf("runtime error output = %+v", d.Output)
	}

	d, err = e.host.Exec(ctx, host.ExecRequest{Code: `return +`})
	if err != nil {
		t.Fatalf("a compile error must come back as data, got %v", err)
	}
	if d.Success || d.Error == "" {
		t.Errorf("compile error: %+v", d)
	}

	// Output does not leak from one exec into the next; code can yield.
	d = mustExec(t, e.host, `task.wait(0.05) return #game.ReplicatedStorage.Shared:GetChildren()`)
	if len(d.Output) != 0 || len(d.Returns) != 1 || d.Returns[0] != "4" {
		t.Errorf("second exec = %+v, want no output and the 4 children of Shared", d)
	}
}

// TestEmulatorSyncRoundTrip syncs both ways through the real plugin: a disk edit
// pushed, a Studio edit pulled, a conflict resolved with the Studio text's hash, new
// scripts and deletions on each side, and an empty plan after each apply.
func TestEmulatorSyncRoundTrip(t *testing.T) {
	e := startEmulated(t, emuProject, nil)
	ctx := context.Background()
	s := e.session(t)
	doApply := func(d *host.PlanData, overrides ...apply.Override) *host.ApplyData {
		t.Helper()
		res, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: overrides})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		return res
	}
	studioSource := func(path ...string) string {
		t.Helper()
		r, err := getScript(s, map[string]any{"path": path})
		if err != nil {
			t.Fatalf("getScript %v: %v", path, err)
		}
		return r.Source
	}

	// 1. A disk edit of a script and of a Part's properties is pushed.
	hosttest.Write(t, e.dir, "src/server/Main.server.luau", "print('from disk')\n")
	proj := strings.Replace(emuProject["default.project.json"], `"Size": [8, 1, 8], "Material": "Neon"`, `"Size": [4, 1, 6], "Material": "Brick"`, 1)
	hosttest.Write(t, e.dir, "default.project.json", proj)
	d := mustPlan(t, e.host, map[string]string{"ServerScriptService/Main": "disk_changed/push", "Workspace/Spawn": "disk_changed/push"})
	doApply(d)
	if got := studioSource("ServerScriptService", "Main"); got != "print('from disk')\n" {
		t.Errorf("Studio Main after push = %q", got)
	}
	x := mustExec(t, e.host, `local p = workspace.Spawn return p.Size.X, p.Size.Z, p.Material.Name, p.Anchored`)
	if diff := cmp.Diff([]string{"4", "6", "Brick", "true"}, x.Returns); diff != "" {
		t.Errorf("Spawn after push (-want +got):\n%s", diff)
	}
	mustPlan(t, e.host, nil)

	// 2. A Studio edit is pulled.
	mustExec(t, e.host, `game.ReplicatedStorage.Shared.Util.Source = "return { studio = true }\n"`)
	d = mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Shared/Util": "studio_changed/pull"})
	doApply(d)
	if got := readFile(t, e.dir, "src/shared/Util.luau"); got != "return { studio = true }\n" {
		t.Errorf("Util.luau after pull = %q", got)
	}
	mustPlan(t, e.host, nil)

	// 3. Both sides edit Hud: unresolved until an override names the Studio text it saw.
	hosttest.Write(t, e.dir, "src/client/Hud.client.luau", "-- disk\n")
	mustExec(t, e.host, `game.StarterPlayer.StarterPlayerScripts.Hud.Source = "-- studio\n"`)
	d = mustPlan(t, e.host, map[string]string{"StarterPlayer/StarterPlayerScripts/Hud": "both_changed/"})
	id := d.Changes[0].ID
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); errcode.Of(err) != errcode.Unresolved {
		t.Fatalf("apply without an override: %v, want %s", err, errcode.Unresolved)
	}
	sd, err := e.host.Script(ctx, host.ScriptRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Source != "-- studio\n" || sd.StudioHash != gitblob.Hash([]byte("-- studio\n")) {
		t.Fatalf("Script of the conflict = %+v", sd)
	}
	stale := gitblob.Hash([]byte("local hud = {}\nreturn hud\n"))
	d = mustPlan(t, e.host, map[string]string{"StarterPlayer/StarterPlayerScripts/Hud": "both_changed/"})
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: id, Direction: "push", StudioHash: &stale}}}); errcode.Of(err) != errcode.PreconditionFailed {
		t.Fatalf("override with a stale studioHash: %v, want %s", err, errcode.PreconditionFailed)
	}
	if got := studioSource("StarterPlayer", "StarterPlayerScripts", "Hud"); got != "-- studio\n" {
		t.Fatalf("the refused override changed Studio: %q", got)
	}
	d = mustPlan(t, e.host, map[string]string{"StarterPlayer/StarterPlayerScripts/Hud": "both_changed/"})
	upper := strings.ToUpper(sd.StudioHash) // the same hash, its hex digits in upper case
	doApply(d, apply.Override{ID: id, Direction: "push", StudioHash: &upper})
	if got := studioSource("StarterPlayer", "StarterPlayerScripts", "Hud"); got != "-- disk\n" {
		t.Errorf("Studio Hud after the override = %q", got)
	}
	if got := readFile(t, e.dir, "src/client/Hud.client.luau"); got != "-- disk\n" {
		t.Errorf("Hud.client.luau after the push = %q", got)
	}
	mustPlan(t, e.host, nil)

	// 4. A script new on each side, and a deletion on each side.
	hosttest.Write(t, e.dir, "src/shared/FromDisk.luau", "return 'disk'\n")
	if err := os.Remove(filepath.Join(e.dir, "src/shared/Lib/Deep/Mod.luau")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, e.host, `
		local m = Instance.new("ModuleScript")
		m.Name = "FromStudio"
		m.Source = "return 'studio'\n"
		m.Parent = game.ReplicatedStorage.Shared
		game.ServerScriptService.Jobs.Tick:Destroy()`)
	d = mustPlan(t, e.host, map[string]string{
		"ReplicatedStorage/Shared/FromDisk":     "new_on_disk/push",
		"ReplicatedStorage/Shared/FromStudio":   "new_in_studio/pull",
		"ReplicatedStorage/Shared/Lib/Deep/Mod": "deleted_on_disk/push",
		"ServerScriptService/Jobs/Tick":         "deleted_in_studio/pull",
	})
	res := doApply(d)
	if len(res.Applied) != 4 {
		t.Errorf("applied %d changes, want 4: %+v", len(res.Applied), res.Applied)
	}
	if got := studioSource("ReplicatedStorage", "Shared", "FromDisk"); got != "return 'disk'\n" {
		t.Errorf("Studio FromDisk = %q", got)
	}
	if _, err := getScript(s, map[string]any{"path": []string{"ReplicatedStorage", "Shared", "Lib", "Deep", "Mod"}}); errcode.Of(err) != errcode.NotFound {
		t.Errorf("Mod in Studio after pushing its deletion: %v", err)
	}
	if got := readFile(t, e.dir, "src/shared/FromStudio.luau"); got != "return 'studio'\n" {
		t.Errorf("FromStudio.luau = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "src/server/Jobs/Tick.server.luau")); !os.IsNotExist(err) {
		t.Errorf("Tick.server.luau after pulling its deletion: %v", err)
	}
	mustPlan(t, e.host, nil)

	// Committed, the working tree is the new base, and Studio holds the project as
	// it is on disk. (Not as committed: pulling Tick's deletion left src/server/Jobs
	// an empty folder, which Studio keeps as an empty Folder and git does not store.)
	hosttest.Git(t, e.dir, "add", "-A")
	hosttest.Git(t, e.dir, "commit", "-qm", "synced")
	mustPlan(t, e.host, nil)
	disk, err := project.LoadDisk(e.loc)
	if err != nil {
		t.Fatal(err)
	}
	assertMatches(t, disk.Root, snapTree(t, fullSnapshot(t, s, propsOf(disk.Root))))
}

// TestEmulatorKilledDuringRequest: the emulator dies (SIGKILL, no close frame) while
// an exec waits inside the plugin; the call fails with E_STUDIO_NOT_CONNECTED at once,
// not when the code would have finished or the request timed out.
func TestEmulatorKilledDuringRequest(t *testing.T) {
	pluginDir := emulatorPluginDir(t)
	_, _, h := startHost(t, emuProject)
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	place := filepath.Join(t.TempDir(), "place.json")
	if err := host.WritePlace(place, pf); err != nil {
		t.Fatal(err)
	}
	// Started here rather than with host.StartEmulator, to have its process to kill.
	cmd := exec.Command("node", filepath.Join(pluginDir, "emulator", "run.mjs"), "--url", h.PluginURL(), "--place", place)
	cmd.Dir = pluginDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := h.Bridge().WaitSession(ctx, "")
	if err != nil {
		t.Fatalf("the emulator did not connect: %v", err)
	}

	type outcome struct {
		d   *host.ExecData
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		d, err := h.Exec(ctx, host.ExecRequest{Code: `task.wait(5) return "finished"`})
		done <- outcome{d, err}
	}()
	// The plugin handles frames in order and runs each request until it yields: once
	// a ping sent after the exec is answered, the exec is waiting inside task.wait.
	if err := s.Call(ctx, "ping", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		t.Fatalf("exec ended before the emulator was killed: %+v %v", o.d, o.err)
	default:
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if code := errcode.Of(o.err); code != errcode.StudioNotConnected {
			t.Fatalf("exec when the emulator died: %+v %v (%s), want %s", o.d, o.err, code, errcode.StudioNotConnected)
		}
		if waited := time.Since(killed); waited > 3*time.Second {
			t.Errorf("the failure came %v after the kill", waited)
		}
	case <-time.After(4 * time.Second):
		t.Fatalf("exec still waiting 4 s after the emulator was killed\n%s", stderr.String())
	}
	// The session leaves the list just after its calls fail.
	for deadline := time.Now().Add(2 * time.Second); len(h.Bridge().Sessions()) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions 2 s after the kill", len(h.Bridge().Sessions()))
		}
	}
	if _, err := h.Exec(context.Background(), host.ExecRequest{Code: "return 1"}); errcode.Of(err) != errcode.StudioNotConnected {
		t.Errorf("exec with no Studio: %v, want %s", err, errcode.StudioNotConnected)
	}
}

// TestPluginUpgradeRefused: an upgrade to /plugin from a browser page (any Origin
// header) or through a name that is not loopback (DNS rebinding) is refused with 403
// before any WebSocket exists, while the emulator stays connected; the same request
// from a local client upgrades.
func TestPluginUpgradeRefused(t *testing.T) {
	e := startEmulated(t, emuProject, nil)
	addr := "127.0.0.1:" + strconv.Itoa(e.host.Port())
	upgrade := func(hostHeader string, extra ...string) (int, string) {
		t.Helper()
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		req := "GET /plugin HTTP/1.1\r\nHost: " + hostHeader + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
		for _, h := range extra {
			req += h + "\r\n"
		}
		if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("read the answer: %v", err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Upgrade")
	}
	cases := []struct {
		name  string
		host  string
		extra []string
		want  int
	}{
		{"origin", addr, []string{"Origin: https://evil.example"}, http.StatusForbidden},
		{"null origin", addr, []string{"Origin: null"}, http.StatusForbidden},
		{"empty origin", addr, []string{"Origin:"}, http.StatusForbidden},
		{"loopback origin", addr, []string{"Origin: http://127.0.0.1:" + strconv.Itoa(e.host.Port())}, http.StatusForbidden},
		{"rebound host", "evil.example:1234", nil, http.StatusForbidden},
		{"rebound host without port", "evil.example", nil, http.StatusForbidden},
		{"loopback-looking name", "127.0.0.1.evil.example:1234", nil, http.StatusForbidden},
		{"localhost subdomain", "localhost.evil.example", nil, http.StatusForbidden},
		{"both", "evil.example:1234", []string{"Origin: https://evil.example"}, http.StatusForbidden},
		{"local client", addr, nil, http.StatusSwitchingProtocols},
		{"localhost", "localhost:" + strconv.Itoa(e.host.Port()), nil, http.StatusSwitchingProtocols},
		{"ipv6 loopback", "[::1]:" + strconv.Itoa(e.host.Port()), nil, http.StatusSwitchingProtocols},
	}
	for _, c := range cases {
		status, up := upgrade(c.host, c.extra...)
		if status != c.want {
			t.Errorf("%s (Host %s, %v): status %d, want %d", c.name, c.host, c.extra, status, c.want)
		}
		if c.want == http.StatusForbidden && up != "" {
			t.Errorf("%s: a refusal carries Upgrade: %s", c.name, up)
		}
	}
	// The refused attempts neither replaced nor disturbed the emulator's session.
	if n := len(e.host.Bridge().Sessions()); n != 1 {
		t.Errorf("%d sessions after the attempts, want the emulator's", n)
	}
	d := mustExec(t, e.host, `return "still here"`)
	if len(d.Returns) != 1 || d.Returns[0] != "still here" {
		t.Errorf("exec after the attempts = %+v", d)
	}
}

// TestEmulatorPullsANewStringValueWhole: a StringValue made in Studio, in a project
// with no .txt file (so no StringValue sets a Value on disk), is pulled into a .txt
// file holding its Value, and the next plan is empty.
func TestEmulatorPullsANewStringValueWhole(t *testing.T) {
	e := startEmulated(t, map[string]string{
		"default.project.json": `{"name": "P", "tree": {"$className": "DataModel",
			"ReplicatedStorage": {"$className": "ReplicatedStorage", "Lib": {"$path": "src"}}}}`,
		"src/A.luau": "return 1\n",
	}, nil)
	mustExec(t, e.host, `local v = Instance.new("StringValue"); v.Name = "Note"; v.Value = "hello"; v.Parent = game.ReplicatedStorage.Lib`)
	d := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Lib/Note": "new_in_studio/pull"})
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, e.dir, "src/Note.txt"); got != "hello" {
		t.Errorf("src/Note.txt = %q, want the Value Studio holds", got)
	}
	mustPlan(t, e.host, nil)
	// Studio's Value changed: a pull of the text, not nothing.
	mustExec(t, e.host, `game.ReplicatedStorage.Lib.Note.Value = "bye"`)
	mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Lib/Note": "no_base/"})
}

// TestEmulatorDeletionsNoFileCanCarry: instances deleted in Studio that a project
// file declares, or that live inside a model file, are not offered as pulls (the
// apply could not remove a file for them): the plan leaves them unresolved with
// their reason and lists them in its guards; pushed, they are back in Studio.
func TestEmulatorDeletionsNoFileCanCarry(t *testing.T) {
	e := startEmulated(t, map[string]string{
		"default.project.json": `{"name": "P", "tree": {"$className": "DataModel",
			"ReplicatedStorage": {"$className": "ReplicatedStorage", "Lib": {"$path": "src"}},
			"Workspace": {"$className": "Workspace", "Floor": {"$className": "Part", "$properties": {"Anchored": true}}}}}`,
		"src/A.luau":          "return 1\n",
		"src/Tool.model.json": `{"className": "Folder", "children": [{"name": "Handle", "className": "Part"}]}`,
	}, nil)
	mustExec(t, e.host, `workspace.Floor:Destroy(); game.ReplicatedStorage.Lib.Tool.Handle:Destroy()`)
	d := mustPlan(t, e.host, map[string]string{
		"Workspace/Floor":                   "project_node/",
		"ReplicatedStorage/Lib/Tool/Handle": "in_model_file/",
	})
	if d.Guards == nil || len(d.Guards.CannotPull) != 2 {
		t.Fatalf("guards = %+v, want the two deletions in cannotPull", d.Guards)
	}
	var overrides []apply.Override
	for _, c := range d.Changes {
		overrides = append(overrides, apply.Override{ID: c.ID, Direction: "push"})
	}
	if _, err := e.host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken, Overrides: overrides}); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, e.host, nil)
}

// TestEmulatorApplyRefusesUnsavedEditorText: a push to a script whose Script Editor
// holds unsaved text (the plan compares the saved Source) is refused by the plugin,
// and the refusal says why and what to do, since planning again gives the same plan.
// Nothing is written on either side, and skipping the change lets the rest through.
func TestEmulatorApplyRefusesUnsavedEditorText(t *testing.T) {
	e := startEmulated(t, emuProject, func(pf *host.PlaceFile) {
		pf.Drafts = map[string]string{"ServerScriptService/Main": "print('unsaved')\n"}
	})
	ctx := context.Background()
	hosttest.Write(t, e.dir, "src/server/Main.server.luau", "print('from disk')\n")
	hosttest.Write(t, e.dir, "src/shared/Util.luau", "return { pushed = true }\n")
	p := mustPlan(t, e.host, map[string]string{
		"ServerScriptService/Main":      "disk_changed/push",
		"ReplicatedStorage/Shared/Util": "disk_changed/push",
	})
	for round := range 2 { // the same refusal after planning again
		_, err := e.host.Apply(ctx, host.ApplyRequest{Token: p.ConfirmToken})
		ce := errcode.As(err)
		if ce == nil || ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonStudioUnsavedEdit ||
			!slices.Equal(ce.NextActions(), []errcode.NextAction{errcode.NextSaveInStudio, errcode.NextPassOverride}) ||
			!strings.Contains(ce.Message, "ServerScriptService/Main") {
			t.Fatalf("round %d: apply over unsaved editor text: %v (reason %q, next %v)", round, err, ce.ReasonCode(), ce.NextActions())
		}
		p = mustPlan(t, e.host, map[string]string{
			"ServerScriptService/Main":      "disk_changed/push",
			"ReplicatedStorage/Shared/Util": "disk_changed/push",
		})
	}
	d := mustExec(t, e.host, `return game.ServerScriptService.Main.Source, game.ReplicatedStorage.Shared.Util.Source`)
	if !slices.Equal(d.Returns, []string{"print('hi')\n", "return {}\n"}) {
		t.Fatalf("Studio after the refusals: %q", d.Returns)
	}
	var mainID string
	for _, c := range p.Changes {
		if c.Path == "ServerScriptService/Main" {
			mainID = c.ID
		}
	}
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: p.ConfirmToken,
		Overrides: []apply.Override{{ID: mainID, Direction: "skip"}}}); err != nil {
		t.Fatalf("apply skipping the script with unsaved text: %v", err)
	}
	d = mustExec(t, e.host, `return game.ServerScriptService.Main.Source, game.ReplicatedStorage.Shared.Util.Source`)
	if !slices.Equal(d.Returns, []string{"print('hi')\n", "return { pushed = true }\n"}) {
		t.Fatalf("Studio after the apply that skipped Main: %q", d.Returns)
	}
}

// TestEmulatorRemoveRefusesUnsavedEditorTextInside: removing a folder takes the scripts
// in it, so a script inside with unsaved Script Editor text refuses the removal as a
// write to it would (the draft is not lost with its folder).
func TestEmulatorRemoveRefusesUnsavedEditorTextInside(t *testing.T) {
	e := startEmulated(t, emuProject, func(pf *host.PlaceFile) {
		pf.Drafts = map[string]string{"ReplicatedStorage/Shared/Lib/Deep/Deeper/X": "return 'unsaved x'\n"}
	})
	ctx := context.Background()
	if err := os.RemoveAll(filepath.Join(e.dir, "src", "shared", "Lib", "Deep")); err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Shared/Lib/Deep": "deleted_on_disk/push"})
	// The plan says so first, naming the script inside.
	if !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "ReplicatedStorage/Shared/Lib/Deep/Deeper/X: Studio's Script Editor holds unsaved text")
	}) {
		t.Errorf("plan warnings %q name no unsaved text in Deep", p.Warnings)
	}
	_, err := e.host.Apply(ctx, host.ApplyRequest{Token: p.ConfirmToken})
	ce := errcode.As(err)
	if ce == nil || ce.ReasonCode() != errcode.ReasonStudioUnsavedEdit ||
		!strings.Contains(ce.Message, "ReplicatedStorage/Shared/Lib/Deep/Deeper/X") ||
		!slices.Equal(stringsOf(ce.Details["ids"]), []string{p.Changes[0].ID}) {
		t.Fatalf("removal of a folder holding unsaved editor text: %v (reason %q, details %v)", err, ce.ReasonCode(), ce.Details)
	}
	d := mustExec(t, e.host, `return game.ReplicatedStorage.Shared.Lib.Deep.Deeper.X.Source`)
	if !slices.Equal(d.Returns, []string{"return 'x'\n"}) {
		t.Fatalf("Studio after the refusal: %q", d.Returns)
	}
}

// stringsOf reads a details list of strings, as set or as decoded from JSON.
func stringsOf(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, x := range l {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// editorWarnings returns the plan's warnings about Script Editor text.
func editorWarnings(d *host.PlanData) []string {
	var out []string
	for _, w := range d.Warnings {
		if strings.Contains(w, "Script Editor") {
			out = append(out, w)
		}
	}
	return out
}

// A script whose open Script Editor document holds unsaved text is named by the
// plan's warnings when a change would write it (the apply would be refused); the
// changes, their directions and the plan hash are the same as without the text.
// Once the document is closed, the next snapshot (a delta) carries the script again
// and the warning is gone.
func TestEmulatorPlanWarnsOfUnsavedEditorText(t *testing.T) {
	e := startEmulated(t, emuProject, func(pf *host.PlaceFile) {
		pf.Drafts = map[string]string{"ServerScriptService/Main": "print('unsaved')\n"}
	})
	ctx := context.Background()
	want := map[string]string{
		"ServerScriptService/Main":      "disk_changed/push",
		"ReplicatedStorage/Shared/Util": "disk_changed/push",
	}
	// Nothing would write Main: no warning.
	if w := editorWarnings(mustPlan(t, e.host, nil)); len(w) != 0 {
		t.Fatalf("warnings with no change to the script: %q", w)
	}
	hosttest.Write(t, e.dir, "src/server/Main.server.luau", "print('from disk')\n")
	hosttest.Write(t, e.dir, "src/shared/Util.luau", "return { pushed = true }\n")
	p := mustPlan(t, e.host, want)
	w := editorWarnings(p)
	if len(w) != 1 || !strings.HasPrefix(w[0], "ServerScriptService/Main: ") || !strings.Contains(w[0], "atlas script get --draft") {
		t.Fatalf("plan warnings = %q, want one naming ServerScriptService/Main", p.Warnings)
	}
	// The apply is refused, as the warning said.
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: p.ConfirmToken}); errcode.As(err).ReasonCode() != errcode.ReasonStudioUnsavedEdit {
		t.Fatalf("apply over the unsaved text: %v", err)
	}
	// Closed in Studio (the text was not saved; no collaborative draft is kept).
	mustExec(t, e.host, `local SES = game:GetService("ScriptEditorService")
return SES:FindScriptDocument(game.ServerScriptService.Main):CloseAsync()`)
	after := mustPlan(t, e.host, want)
	if w := editorWarnings(after); len(w) != 0 {
		t.Fatalf("warnings after the document was closed: %q", w)
	}
	if after.PlanHash != p.PlanHash {
		t.Fatalf("plan hash %s with the warning, %s without: the warning changed the plan", p.PlanHash, after.PlanHash)
	}
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: after.ConfirmToken}); err != nil {
		t.Fatalf("apply after the document was closed: %v", err)
	}
}
