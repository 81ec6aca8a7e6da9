package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// A script committed with CRLF line endings has the same Source as its LF text, so
// a Studio edit of it is studio_changed (pull), not both_changed: the base's hash
// is the Source hash, not the hash of the committed bytes.
func TestCRLFBaseScript(t *testing.T) {
	files := maps.Clone(hosttest.Project)
	files["src/shared/Util.luau"] = "local M = {}\r\nreturn M\r\n"
	e := hosttest.Start(t, files, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return 'studio'\n")
	})
	d, err := e.Host.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Reason != plan.StudioChanged || d.Changes[0].Direction != plan.Pull {
		t.Fatalf("plan of a Studio edit of a CRLF script = %s, want one studio_changed pull", changeList(d))
	}
}

// A host started before the repository exists finds it on a later plan.
func TestBaseFoundAfterGitInit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, data := range hosttest.Project {
		hosttest.Write(t, dir, name, data)
	}
	loc, err := project.Locate(dir, "", func(string) string { return dir })
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Location: loc, StateDir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
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
	place.Find("ReplicatedStorage", "Shared", "Util").SetSource("return 'studio'\n")
	p := bridgetest.New(place)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Connect(cctx, h.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, err := h.Bridge().WaitSession(cctx, ""); err != nil {
		t.Fatal(err)
	}

	before, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if before.Base.Commit != "" || len(before.Changes) != 1 || before.Changes[0].Reason != plan.NoBase {
		t.Fatalf("plan without a repository: base %q, changes %s; want no base, one no_base change", before.Base.Commit, changeList(before))
	}
	hosttest.Git(t, dir, "init", "-q")
	hosttest.Git(t, dir, "add", "-A")
	hosttest.Git(t, dir, "commit", "-qm", "init")
	after, err := h.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Base.Commit == "" || len(after.Changes) != 1 || after.Changes[0].Reason != plan.StudioChanged {
		t.Fatalf("plan after git init: base %q, changes %s; want a base and one studio_changed change", after.Base.Commit, changeList(after))
	}
}

func changeList(d *host.PlanData) string {
	b, _ := json.Marshal(d.Changes)
	return string(b)
}
