package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

type env struct {
	dir    string
	host   *host.Host
	plugin *bridgetest.Plugin
}

func setup(t *testing.T, mutate func(*bridgetest.Place)) *env {
	e := hosttest.Start(t, nil, mutate)
	return &env{dir: e.Dir, host: e.Host, plugin: e.Plugin}
}

func write(t *testing.T, dir, rel, content string) { hosttest.Write(t, dir, rel, content) }

func TestInSyncPlanIsEmpty(t *testing.T) {
	e := setup(t, nil)
	d, err := e.host.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 0 {
		b, _ := json.MarshalIndent(d.Changes, "", " ")
		t.Fatalf("plan of a place equal to HEAD has %d changes:\n%s", len(d.Changes), b)
	}
}

func TestPushDiskEditThenEmpty(t *testing.T) {
	e := setup(t, nil)
	ctx := context.Background()
	write(t, e.dir, "src/server/Main.server.luau", "print('changed')\n")
	d, err := e.host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Direction != "push" || d.Changes[0].Reason != "disk_changed" {
		b, _ := json.MarshalIndent(d.Changes, "", " ")
		t.Fatalf("want one push disk_changed, got:\n%s", b)
	}
	res, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 1 {
		t.Fatalf("applied %d", len(res.Applied))
	}
	if got := e.plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('changed')\n" {
		t.Fatalf("Studio source = %q", got)
	}
	d2, err := e.host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Changes) != 0 {
		t.Fatalf("next plan has %d changes", len(d2.Changes))
	}
	_, err = e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	if errcode.Of(err) != errcode.ConfirmTokenReplayed && errcode.Of(err) != errcode.ConfirmTokenMismatch {
		t.Fatalf("replay: %v (%s)", err, errcode.Of(err))
	}
}

func TestPullStudioEdit(t *testing.T) {
	e := setup(t, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = true }\n")
	})
	ctx := context.Background()
	d, err := e.host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Direction != "pull" {
		b, _ := json.MarshalIndent(d.Changes, "", " ")
		t.Fatalf("want one pull, got:\n%s", b)
	}
	if _, err := e.host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(e.dir, "src/shared/Util.luau"))
	if string(got) != "return { studio = true }\n" {
		t.Fatalf("disk = %q", got)
	}
}
