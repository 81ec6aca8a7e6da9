package host_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// The real plugin, in the emulator, pulls and pushes a 50 MB script: its snapshot
// carries it in a frame of its own under the 64 MiB read limit, and the host sends
// it as requestPart frames that the plugin joins.
func TestEmulatorFiftyMegabyteScript(t *testing.T) {
	ctx := context.Background()
	e := startEmulated(t, hosttest.Project, nil)
	// The line repeated to about 50 MB inside Studio, so that the test's own exec
	// stays small.
	const line = "local value = \"text with \\\"quotes\\\" and \\\\ backslashes\" -- and a comment\n"
	n := 50_000_000/len(line) + 1
	big := strings.Repeat(line, n)

	start := time.Now()
	mustExec(t, e.host, fmt.Sprintf("game.ReplicatedStorage.Shared.Util.Source = string.rep(%q, %d)", line, n))
	d := mustPlan(t, e.host, map[string]string{"ReplicatedStorage/Shared/Util": "studio_changed/pull"})
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, e.dir, "src/shared/Util.luau"); gitblob.Hash([]byte(got)) != gitblob.Hash([]byte(big)) {
		t.Fatalf("pulled Util.luau has %d bytes, want the %d Studio has", len(got), len(big))
	}
	pull := time.Since(start)

	start = time.Now()
	pushed := strings.ReplaceAll(big, "comment", "remark!")
	hosttest.Write(t, e.dir, "src/server/Main.server.luau", pushed)
	d = mustPlan(t, e.host, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	// An empty plan: Studio's Main hashes as the disk's file does.
	mustPlan(t, e.host, nil)
	if got := mustExec(t, e.host, "return #game.ServerScriptService.Main.Source"); got.Returns[0] != fmt.Sprint(len(pushed)) {
		t.Fatalf("Studio's Main has %s bytes, want %d", got.Returns[0], len(pushed))
	}
	t.Logf("50 MB through the real plugin: pull (edit, plan, apply) %s; push (plan, apply, plan) %s",
		pull.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// 200 scripts of 360 KB made in Studio (72 MB, more than one frame holds): the real
// plugin's snapshot comes in partial frames cut by bytes, and they are pulled.
func TestEmulatorTwoHundredBigScripts(t *testing.T) {
	ctx := context.Background()
	e := startEmulated(t, hosttest.Project, nil)
	const line = "local value = \"some text\" -- and a comment to make the line longer\n"
	n := 360_000/len(line) + 1
	mustExec(t, e.host, fmt.Sprintf(`
		local text = string.rep(%q, %d)
		for i = 1, 200 do
			local m = Instance.new("ModuleScript")
			m.Name = string.format("Big%%03d", i)
			m.Source = text .. "-- " .. i .. "\n"
			m.Parent = game.ReplicatedStorage.Shared
		end`, line, n))
	start := time.Now()
	d, err := e.host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Pull != 200 {
		t.Fatalf("plan: %+v", d.Summary)
	}
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, e.dir, "src/shared/Big200.luau"); got != strings.Repeat(line, n)+"-- 200\n" {
		t.Fatalf("Big200.luau has %d bytes", len(got))
	}
	mustPlan(t, e.host, nil)
	t.Logf("200 scripts of 360 KB through the real plugin: plan, pull, plan in %s", time.Since(start).Round(time.Millisecond))
}

// 24 scripts of 130 KB pushed at once (3 MB of ops): the real plugin takes the patch
// staged in pieces (stage, then stage with append) and applies it whole; the plan
// after it is empty.
func TestEmulatorStagesABigPushInPieces(t *testing.T) {
	ctx := context.Background()
	e := startEmulated(t, hosttest.Project, nil)
	mustPlan(t, e.host, nil)
	const line = "local value = \"some text\" -- and a comment to make the line longer\n"
	text := func(i int) string { return strings.Repeat(line, 130_000/len(line)) + fmt.Sprintf("-- %d\n", i) }
	for i := range 24 {
		hosttest.Write(t, e.dir, fmt.Sprintf("src/shared/Pushed%02d.luau", i), text(i))
	}
	d, err := e.host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Push != 24 {
		t.Fatalf("plan: %+v", d.Summary)
	}
	res, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if err != nil {
		t.Fatal(err)
	}
	if res.StudioOps != 24 {
		t.Fatalf("%d Studio ops, want 24", res.StudioOps)
	}
	mustPlan(t, e.host, nil)
	got := mustExec(t, e.host, `local n = 0
		for _, m in game.ReplicatedStorage.Shared:GetChildren() do
			if string.sub(m.Name, 1, 6) == "Pushed" then n += #m.Source end
		end
		return n`)
	want := 0
	for i := range 24 {
		want += len(text(i))
	}
	if got.Returns[0] != fmt.Sprint(want) {
		t.Fatalf("Studio's pushed scripts hold %s bytes, want %d", got.Returns[0], want)
	}
}
