package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
)

const testProject = `{
  "name": "Demo",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" },
    "Workspace": { "Spawn": { "$className": "Part", "$properties": { "Anchored": true, "Size": [8, 1, 8] } } }
  }
}`

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

type env struct {
	dir    string
	host   *host.Host
	plugin *bridgetest.Plugin
}

func setup(t *testing.T, mutate func(*bridgetest.Place)) *env {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "default.project.json", testProject)
	write(t, dir, "src/shared/Util.luau", "return {}\n")
	write(t, dir, "src/server/Main.server.luau", "print('hi')\n")
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "init")
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
	pf, err := h.InitialPlace()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pf)
	place, err := bridgetest.LoadPlace(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(place)
	}
	p := bridgetest.New(place)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Connect(ctx, h.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, err := h.Bridge().WaitSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, host: h, plugin: p}
}

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
	var _ = apply.Override{}
}
