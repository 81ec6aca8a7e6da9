package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// luauText is about n bytes of Luau-looking text, quotes and escapes included.
func luauText(n int, tag string) string {
	var b strings.Builder
	b.Grow(n + 64)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "local v%d = \"%s\\t%d\" -- line %d of a generated module\n", i, tag, i, i)
	}
	return b.String()
}

// A 50 MB script is pulled from Studio and pushed to it, in frames under the read
// limit both ways (the Go fake plugin; plugin/tests/emulator.test.mjs does it with
// the real plugin).
func TestFiftyMegabyteScript(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	big := luauText(50_000_000, "studio")

	// Pull: Studio has the big text.
	start := time.Now()
	studioEdit(t, e, []string{"ReplicatedStorage", "Shared", "Util"}, big)
	d := mustPlan(t, e.Host, map[string]string{"ReplicatedStorage/Shared/Util": "studio_changed/pull"})
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(e.Dir, "src/shared/Util.luau"))
	if err != nil || gitblob.Hash(got) != gitblob.Hash([]byte(big)) {
		t.Fatalf("pulled Util.luau: %d bytes, %v", len(got), err)
	}
	t.Logf("50 MB pull (Studio edit, plan, apply): %s", time.Since(start).Round(time.Millisecond))

	// Push: disk has another big text.
	start = time.Now()
	pushed := luauText(50_000_000, "disk")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", pushed)
	d = mustPlan(t, e.Host, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if src := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); src != pushed {
		t.Fatalf("Studio's Main after the push: %d bytes, want %d", len(src), len(pushed))
	}
	mustPlan(t, e.Host, nil)
	t.Logf("50 MB push (plan, apply, plan): %s", time.Since(start).Round(time.Millisecond))
}

// A script more than a frame can carry: refused (E_PAYLOAD_TOO_LARGE, send_less)
// with nothing changed, whichever side has it, and the next plan works. (A host
// with a 1 MiB frame limit stands in for the default 64 MiB one.)
func TestScriptOverTheFrameLimit(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{Options: func(o *host.Options) { o.FrameLimit = 1 << 20 }})
	fits, huge := luauText(900_000, "fits"), luauText(1_200_000, "huge")

	// Fits: pushed in requestPart frames, read back in one.
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", fits)
	d := mustPlan(t, e.Host, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, e.Host, nil)

	// Too big to push: refused before anything is sent, no transaction left open.
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", huge)
	// (Studio still holds the text the last apply wrote: disk's edit, a push.)
	d = mustPlan(t, e.Host, map[string]string{"ServerScriptService/Main": "disk_changed/push"})
	before := snapshotWorld(t, e)
	_, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken,
		Overrides: []apply.Override{{ID: d.Changes[0].ID, Direction: plan.Push}}})
	if ce := mustCode(t, err, errcode.PayloadTooLarge); fmt.Sprint(ce.NextActions()) != "[send_less]" {
		t.Errorf("next actions %v", ce.NextActions())
	}
	assertUnchanged(t, e, before)
	if st, _ := e.Host.Status(ctx); len(st.Pending) != 0 {
		t.Fatalf("the refused push left a transaction open: %+v", st.Pending)
	}
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", fits)
	mustPlan(t, e.Host, nil)

	// Too big to snapshot: the plan is refused, naming the script; the connection
	// lives, and once the script is smaller again plans work.
	if err := e.Plugin.SetSource([]string{"ReplicatedStorage", "Shared", "Util"}, huge); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, err = e.Host.Plan(ctx, host.PlanRequest{})
		if ce := mustCode(t, err, errcode.PayloadTooLarge); ce.Details["path"] != "ReplicatedStorage/Shared/Util" {
			t.Errorf("details %v", ce.Details)
		}
	}
	if err := e.Plugin.SetSource([]string{"ReplicatedStorage", "Shared", "Util"}, "return {}\n"); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, e.Host, nil)
}

// 200 scripts of 360 KB (72 MB in all, more than one frame may hold): plans work,
// their snapshot arriving in partial frames cut by bytes, and so do a pull and a
// push of all of them, the push as one request in requestPart frames.
func TestTwoHundredBigScripts(t *testing.T) {
	ctx := context.Background()
	e := hosttest.StartWith(t, hosttest.Config{Mutate: func(p *bridgetest.Place) {
		shared := p.Find("ReplicatedStorage", "Shared")
		for i := range 200 {
			n := &bridgetest.Node{Name: fmt.Sprintf("Big%03d", i), ClassName: "ModuleScript", Properties: map[string]json.RawMessage{}}
			n.SetSource(luauText(360_000, fmt.Sprint("studio", i)))
			shared.Children = append(shared.Children, n)
		}
	}})
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Pull != 200 {
		t.Fatalf("plan: %+v", d.Summary)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		hosttest.Write(t, e.Dir, fmt.Sprintf("src/shared/Big%03d.luau", i), luauText(360_000, fmt.Sprint("disk", i)))
	}
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Unresolved != 200 { // disk and Studio both differ from the commit
		t.Fatalf("plan: %+v", d.Summary)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: pushAll(d)}); err != nil {
		t.Fatal(err)
	}
	mustPlan(t, e.Host, nil)
	if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Big199").Source(); got != luauText(360_000, "disk199") {
		t.Fatalf("Big199 in Studio has %d bytes", len(got))
	}
}

// pushAll chooses push for every change of d.
func pushAll(d *host.PlanData) []apply.Override {
	var ovs []apply.Override
	for _, c := range d.Changes {
		ovs = append(ovs, apply.Override{ID: c.ID, Direction: plan.Push})
	}
	return ovs
}
