package host_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

func TestSessionSelection(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	second := bridgetest.New(e.Plugin.Place())
	second.PlaceName = "Second"
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := second.Connect(cctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for deadline := time.Now().Add(5 * time.Second); len(e.Host.Bridge().Sessions()) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("second session never registered")
		}
	}
	_, err := e.Host.Plan(ctx, host.PlanRequest{})
	ce := mustCode(t, err, errcode.StudioAmbiguous)
	if ce.Details["sessions"] == nil {
		t.Errorf("E_STUDIO_AMBIGUOUS lists no sessions: %v", ce.Details)
	}
	d, err := e.Host.Plan(ctx, host.PlanRequest{SessionID: second.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.ID != second.SessionID || d.Session.PlaceName != "Second" {
		t.Errorf("plan session = %+v", d.Session)
	}
	// A token is bound to its session: applying it against the other one is refused.
	_, err = e.Host.Apply(ctx, host.ApplyRequest{SessionID: e.Plugin.SessionID, Token: d.ConfirmToken})
	mustCode(t, err, errcode.ConfirmTokenInvalid)
	// Given no session, an apply takes the token's: no E_STUDIO_AMBIGUOUS.
	d, err = e.Host.Plan(ctx, host.PlanRequest{SessionID: second.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	if err != nil {
		t.Fatalf("apply with the token's session: %v", err)
	}
	if a.Session.ID != second.SessionID {
		t.Errorf("apply used session %s, want the token's %s", a.Session.ID, second.SessionID)
	}
	_, err = e.Host.Plan(ctx, host.PlanRequest{SessionID: "nope"})
	mustCode(t, err, errcode.StudioNotConnected)
}

func TestNoStudio(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	e.Plugin.Close()
	for deadline := time.Now().Add(5 * time.Second); len(e.Host.Bridge().Sessions()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("session never went away")
		}
	}
	ctx := context.Background()
	_, err := e.Host.Plan(ctx, host.PlanRequest{})
	mustCode(t, err, errcode.StudioNotConnected)
	d, err := e.Host.Drift(ctx, host.DriftRequest{})
	if err != nil || d.Connected || d.Drift {
		t.Fatalf("drift without Studio = %+v, %v", d, err)
	}
	_, err = e.Host.Exec(ctx, host.ExecRequest{Code: "print(1)"})
	mustCode(t, err, errcode.StudioNotConnected)
}

func TestScriptDraftAndNotFound(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	if err := e.Plugin.SetDraft([]string{"ServerScriptService", "Main"}, "print('unsaved')\n"); err != nil {
		t.Fatal(err)
	}
	saved, err := e.Host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Main.server.luau"})
	if err != nil {
		t.Fatal(err)
	}
	if saved.Source != "print('hi')\n" || saved.IsDraft || saved.InstancePath != "ServerScriptService/Main" {
		t.Errorf("saved = %+v", saved)
	}
	draft, err := e.Host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Main.server.luau", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if draft.Source != "print('unsaved')\n" || !draft.IsDraft {
		t.Errorf("draft = %+v", draft)
	}
	_, err = e.Host.Script(ctx, host.ScriptRequest{FsPath: "../outside.luau"})
	mustCode(t, err, errcode.NotFound)
	_, err = e.Host.Script(ctx, host.ScriptRequest{FsPath: "src/server/Missing.luau"})
	mustCode(t, err, errcode.NotFound)
}

func TestConcurrentApplyIsBusy(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method == "apply" {
			close(entered)
			<-release
		}
		return nil, nil, false
	}
	first := make(chan error, 1)
	go func() {
		_, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
		first <- err
	}()
	<-entered
	_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	mustCode(t, err, errcode.Busy)
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first apply failed: %v", err)
	}
}

// A plan asked while an apply runs waits: its snapshot would replace the handles the
// apply's patch is using.
func TestPlanWaitsForARunningApply(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	entered := make(chan struct{})
	e.Plugin.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		switch method {
		case "apply":
			note("apply")
			close(entered)
			time.Sleep(300 * time.Millisecond) // the plan below is asked meanwhile
			note("apply-done")
		case "snapshot":
			note("snapshot")
		}
		return nil, nil, false
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
		done <- err
	}()
	<-entered
	if _, err := e.Host.Plan(ctx, host.PlanRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("apply: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, ev := range events {
		if ev == "apply" && (i+1 >= len(events) || events[i+1] != "apply-done") {
			t.Fatalf("a snapshot ran inside the apply: %v", events)
		}
	}
}
