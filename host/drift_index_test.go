package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// The staged files of a drift request come from the index file it names: the one
// git hands a pre-commit hook in GIT_INDEX_FILE, a temporary index for "git commit
// -a" and "git commit <paths>". Here in a linked work tree, with a hook that keeps
// a copy of that index and refuses the commit.
func TestDriftReadsTheCommitsIndexFile(t *testing.T) {
	ctx := context.Background()
	main := hosttest.Repo(t, hosttest.Project)
	wt := filepath.Join(t.TempDir(), "wt")
	hosttest.Git(t, main, "worktree", "add", "-q", "-b", "side", wt)
	if r, err := filepath.EvalSymlinks(wt); err == nil {
		wt = r
	}
	hosttest.Write(t, main, ".git/hooks/pre-commit", "#!/bin/sh\ncp \"$GIT_INDEX_FILE\" \"$(git rev-parse --absolute-git-dir)/hook-index\"\nexit 1\n")
	if err := os.Chmod(filepath.Join(main, ".git/hooks/pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitDir := strings.TrimSpace(hosttest.Git(t, wt, "rev-parse", "--absolute-git-dir"))
	hookIndex := filepath.Join(gitDir, "hook-index")

	e := hosttest.StartWith(t, hosttest.Config{Dir: wt, Mutate: func(p *bridgetest.Place) {
		p.Find("ServerScriptService", "Main").SetSource("print('studio')\n")
	}})
	hosttest.Write(t, wt, "src/server/Main.server.luau", "print('disk')\n")
	hosttest.Write(t, wt, "src/shared/Util.luau", "return { disk = true }\n")

	// commit runs git commit with args, which the hook refuses, and asks for drift
	// in the index it was given.
	commit := func(args ...string) *host.DriftData {
		t.Helper()
		os.Remove(hookIndex)
		if out, err := hosttest.GitErr(wt, append([]string{"commit", "-qm", "x"}, args...)...); err == nil {
			t.Fatalf("git commit %v went through the hook: %s", args, out)
		}
		d, err := e.Host.Drift(ctx, host.DriftRequest{Staged: true, IndexFile: hookIndex})
		if err != nil {
			t.Fatalf("drift of git commit %v: %v", args, err)
		}
		return d
	}
	for _, args := range [][]string{{"-a"}, {"src/server/Main.server.luau"}} {
		d := commit(args...)
		if len(d.Changes) != 1 || d.Changes[0].Path != "ServerScriptService/Main" || len(d.Blocking) != 1 {
			t.Errorf("git commit %v: changes %+v, blocking %v; want Main blocking", args, d.Changes, d.Blocking)
		}
	}
	if d := commit("src/shared/Util.luau"); len(d.Changes) != 1 || len(d.Blocking) != 0 {
		t.Errorf("git commit of Util: changes %+v, blocking %v; want Main's drift, not blocking", d.Changes, d.Blocking)
	}
	// The work tree's own index stages nothing: without the index file, nothing blocks.
	if d, err := e.Host.Drift(ctx, host.DriftRequest{Staged: true}); err != nil || len(d.Blocking) != 0 {
		t.Errorf("drift of the repository's index: %v, %+v; want nothing blocking", err, d)
	}
	// The common git folder's files are the repository's too.
	if _, err := e.Host.Drift(ctx, host.DriftRequest{Staged: true, IndexFile: filepath.Join(main, ".git", "index")}); err != nil {
		t.Errorf("drift of the main work tree's index: %v", err)
	}
}

// A drift request names no file outside the repository's git folder for the host
// to read.
func TestDriftRefusesAnIndexFileOutsideTheGitFolder(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	gitDir := filepath.Join(e.Dir, ".git")
	outside := filepath.Join(t.TempDir(), "index")
	data, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{outside, filepath.Join(e.Dir, "index")} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(gitDir, "linked-index")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		outside,
		filepath.Join(e.Dir, "index"),          // the work tree is not the git folder
		filepath.Join(gitDir, "linked-index"),  // a link out of it
		filepath.Join(gitDir, "..", "index"),   // a way out of it
		filepath.Join(gitDir, "missing-index"), // no such file
		gitDir,                                 // not a file
		".git/index",                           // not absolute
	} {
		_, err := e.Host.Drift(context.Background(), host.DriftRequest{Staged: true, IndexFile: p})
		if errcode.Of(err) != errcode.BadRequest || errcode.As(err).ReasonCode() != errcode.ReasonBadIndexFile {
			t.Errorf("drift with index file %s: %v, want E_BAD_REQUEST bad_index_file", p, err)
		}
	}
	if _, err := e.Host.Drift(context.Background(), host.DriftRequest{Staged: true, IndexFile: filepath.Join(gitDir, "index")}); err != nil {
		t.Errorf("drift with the repository's index named: %v", err)
	}
}
