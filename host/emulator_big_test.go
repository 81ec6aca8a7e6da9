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
