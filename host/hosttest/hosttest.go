// Package hosttest starts a real host on loopback for tests, on a real git repository
// made in a temp dir, with the Go fake plugin connected over a real WebSocket.
package hosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
)

// Project is a small place project used by default.
var Project = map[string]string{
	"default.project.json": `{
  "name": "Demo",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" },
    "Workspace": { "Spawn": { "$className": "Part", "$properties": { "Anchored": true, "Size": [8, 1, 8] } } }
  }
}`,
	"src/shared/Util.luau":        "return {}\n",
	"src/server/Main.server.luau": "print('hi')\n",
}

// Env is a running host with a fake plugin.
type Env struct {
	Dir      string
	StateDir string
	Host     *host.Host
	Plugin   *bridgetest.Plugin
	Location *project.Location
}

// Git runs git in dir with a config independent of the machine's.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitEnv(t, dir, nil, args...)
}

// GitErr runs git in dir as Git does, returning its output and error instead of
// failing the test (for commands expected to fail, such as a merge that stops on
// a conflict).
func GitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func gitEnv(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Write writes a file under dir, creating folders.
func Write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Repo writes files into a new temp dir and commits them, at a fixed date: the same
// files give the same commit.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		Write(t, dir, n, files[n])
	}
	Git(t, dir, "init", "-q")
	Git(t, dir, "add", "-A")
	date := "2020-01-01T00:00:00Z"
	gitEnv(t, dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-qm", "init")
	return dir
}

// Start runs a host for a committed copy of files (Project when nil) and connects a
// fake plugin whose place is the project at HEAD, changed by mutate.
func Start(t testing.TB, files map[string]string, mutate func(*bridgetest.Place)) *Env {
	t.Helper()
	return StartWith(t, Config{Files: files, Mutate: mutate})
}

// Config is what StartWith starts: Start's files and mutate, and hooks that set the
// host's options and the fake plugin's fields before it connects.
type Config struct {
	// Dir and StateDir, when set, are an existing project (files are then not
	// written) and the state dir to use; by default both are new temp dirs.
	Dir, StateDir string
	Files         map[string]string
	Mutate        func(*bridgetest.Place)
	Options       func(*host.Options)
	Plugin        func(*bridgetest.Plugin)
}

// StartWith is Start with a Config.
func StartWith(t testing.TB, cfg Config) *Env {
	t.Helper()
	files, mutate := cfg.Files, cfg.Mutate
	if files == nil {
		files = Project
	}
	dir, state := cfg.Dir, cfg.StateDir
	if dir == "" {
		dir = Repo(t, files)
	}
	if state == "" {
		state = t.TempDir()
	}
	loc, err := project.Locate(dir, "", func(string) string { return dir })
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: dir, StateDir: state, Location: loc}
	opts := host.Options{Location: loc, StateDir: e.StateDir, Version: "test"}
	if cfg.Options != nil {
		cfg.Options(&opts)
	}
	h, err := host.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	e.Host = h
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
	e.Plugin = bridgetest.New(place)
	if cfg.Plugin != nil {
		cfg.Plugin(e.Plugin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Plugin.Connect(ctx, h.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Plugin.Close() })
	if _, err := h.Bridge().WaitSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	return e
}

// SyncBuffer is a bytes.Buffer that a process or a goroutine may write while the test
// reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
