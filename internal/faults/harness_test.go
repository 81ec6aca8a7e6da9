package faults

// The harness: the atlas binary (built once), projects in git repositories, hosts
// and emulators as real processes, the CLI as the public contract.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// atlasBin is the atlas binary every test runs, built once by TestMain.
var atlasBin string

func TestMain(m *testing.M) {
	if bin := os.Getenv("ATLAS_FAULT_BIN"); bin != "" {
		atlasBin = bin // a child run (TestFaultDiskFull's namespace) reuses the build
		os.Exit(m.Run())
	}
	tmp, err := os.MkdirTemp("", "atlas-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	atlasBin = filepath.Join(tmp, "atlas")
	build := exec.Command("go", "build", "-o", atlasBin, "github.com/atlas-rbx/atlas/cmd/atlas")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// rounds is how many times each race runs: ATLAS_FAULT_ROUNDS (make faults sets
// 50), else short.
func rounds(t *testing.T, short int) int {
	if s := os.Getenv("ATLAS_FAULT_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ATLAS_FAULT_ROUNDS=%q is not a positive number", s)
		}
		return n
	}
	return short
}

// scripts is how many scripts the test project has: src/server/S1 … S<scripts>.
const scripts = 6

func scriptPath(i int) string { return fmt.Sprintf("src/server/S%d.server.luau", i) }

// proj is a project in a git repository with its own state folder.
type proj struct {
	t     *testing.T
	dir   string
	state string
	file  string // the project file, as hosts register it
	port  int
}

func newProj(t *testing.T) *proj {
	files := map[string]string{
		"default.project.json": `{"name": "Faults", "tree": {"$className": "DataModel",
  "ServerScriptService": {"$path": "src/server"}}}`,
	}
	for i := 1; i <= scripts; i++ {
		files[scriptPath(i)] = fmt.Sprintf("-- S%d as committed\n", i)
	}
	dir := hosttest.Repo(t, files)
	return &proj{t: t, dir: dir, state: t.TempDir(), file: filepath.Join(dir, "default.project.json"), port: freePort(t)}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (p *proj) env() []string {
	return append(os.Environ(), "ATLAS_STATE_DIR="+p.state, "NO_COLOR=1")
}

// envelope is the JSON envelope of a CLI command.
type envelope struct {
	OK     bool            `json:"ok"`
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"errors"`
}

func (e envelope) code() string {
	if len(e.Errors) == 0 {
		return ""
	}
	return e.Errors[0].Code
}

func (e envelope) reason() string {
	if len(e.Errors) == 0 {
		return ""
	}
	s, _ := e.Errors[0].Details["reasonCode"].(string)
	return s
}

// cli runs `atlas args… --json` in the project and decodes its envelope.
func (p *proj) cli(args ...string) envelope {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, atlasBin, append(args, "--json")...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	var e envelope
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		p.t.Fatalf("atlas %v: no envelope (%v)\nstdout: %s\nstderr: %s", args, err, out.String(), errOut.String())
	}
	return e
}

// client is the local API of the running host, for set-up and checks.
func (p *proj) client() *host.Client {
	p.t.Helper()
	c, err := host.Dial(p.state, p.file)
	if err != nil {
		p.t.Fatalf("no host: %v", err)
	}
	return c
}

// proc is a child process whose stderr is kept.
type proc struct {
	cmd    *exec.Cmd
	done   chan struct{}
	stderr hosttest.SyncBuffer
	err    error
}

func (pr *proc) output() string { return pr.stderr.String() }

func start(t *testing.T, dir string, env []string, name string, args ...string) *proc {
	t.Helper()
	pr := &proc{cmd: exec.Command(name, args...), done: make(chan struct{})}
	pr.cmd.Dir, pr.cmd.Env = dir, env
	pr.cmd.Stderr = &pr.stderr
	if err := pr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		pr.err = pr.cmd.Wait()
		close(pr.done)
	}()
	t.Cleanup(pr.kill)
	return pr
}

// kill ends the process with SIGKILL and waits for it.
func (pr *proc) kill() {
	select {
	case <-pr.done:
		return
	default:
	}
	_ = pr.cmd.Process.Signal(syscall.SIGKILL)
	<-pr.done
}

func (pr *proc) exited() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// serve starts `atlas serve` on the project's port and waits until it answers.
func (p *proj) serve() *proc {
	p.t.Helper()
	pr := start(p.t, p.dir, p.env(), atlasBin, "serve", "--port", strconv.Itoa(p.port))
	p.waitFor("the host to answer", func() bool {
		if pr.exited() {
			p.t.Fatalf("atlas serve exited: %v\n%s", pr.err, pr.output())
		}
		c, err := host.Dial(p.state, p.file)
		if err != nil {
			return false
		}
		st, err := c.Status(context.Background())
		return err == nil && st.Host.PID == pr.cmd.Process.Pid
	})
	return pr
}

// pluginDir is the checkout's plugin folder (after npm ci), whose emulator runs.
func pluginDir(t *testing.T) string {
	t.Helper()
	checkout, err := filepath.Abs(filepath.Join("..", "..", "plugin"))
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

// emulator starts Studio (the emulator, a process of its own: it outlives a
// killed host and reconnects to the next) from a place file, with a new session
// id, and waits until it is connected. Flags are the emulator's (--keep: it
// outlives a host that stops, too, as Studio does).
func (p *proj) emulator(place string, flags ...string) *proc {
	p.t.Helper()
	dir := pluginDir(p.t)
	args := append([]string{filepath.Join(dir, "emulator", "run.mjs"),
		"--url", fmt.Sprintf("ws://127.0.0.1:%d/plugin", p.port), "--place", place}, flags...)
	pr := start(p.t, dir, os.Environ(), "node", args...)
	p.waitFor("the emulator to connect", func() bool {
		if pr.exited() {
			p.t.Fatalf("the emulator exited: %v\n%s", pr.err, pr.output())
		}
		return strings.Contains(pr.output(), "emulator: connected")
	})
	return pr
}

// waitSession waits until a Studio session is connected to the running host.
func (p *proj) waitSession() {
	p.t.Helper()
	p.waitFor("a Studio session", func() bool {
		c, err := host.Dial(p.state, p.file)
		if err != nil {
			return false
		}
		st, err := c.Status(context.Background())
		return err == nil && len(st.Sessions) > 0
	})
}

func (p *proj) waitFor(what string, ok func() bool) {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// place writes the emulator's place for the project as it is on disk now, with
// scripts' sources replaced as given (index → source), and returns its path. It
// carries the marker of the project's last synced place, as that place saved does.
func (p *proj) place(sources map[int]string) string {
	p.t.Helper()
	loc, err := project.Locate(p.dir, "", func(string) string { return "" })
	if err != nil {
		p.t.Fatal(err)
	}
	pr, err := project.LoadDisk(loc)
	if err != nil {
		p.t.Fatal(err)
	}
	pf := host.PlaceFromTree(pr.Root, pr.Name)
	// The place as Studio saved it since the last sync, which marked it: a Studio
	// started again from it is the same place.
	var last host.PlaceRecord
	if b, err := os.ReadFile(filepath.Join(host.ProjectStateDir(p.state, p.file), "place.json")); err == nil && json.Unmarshal(b, &last) == nil && last.Marker != "" {
		pf.Root.Children = append(pf.Root.Children, &host.PlaceNode{Name: "ServerStorage", ClassName: "ServerStorage",
			Properties: dom.Properties{"Attributes": dom.Attributes{protocol.PlaceMarkerAttribute: dom.String(last.Marker)}}})
	}
	for i, src := range sources {
		n := pf.Root.Find("ServerScriptService", fmt.Sprintf("S%d", i))
		if n == nil {
			p.t.Fatalf("no S%d in the place", i)
		}
		n.Properties["Source"] = dom.String(src)
	}
	path := filepath.Join(p.t.TempDir(), "place.json")
	if err := host.WritePlace(path, pf); err != nil {
		p.t.Fatal(err)
	}
	return path
}

func (p *proj) read(i int) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, scriptPath(i)))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

// write saves a script as editors that save atomically do: a temporary file
// renamed over it.
func (p *proj) write(i int, content string) {
	path := filepath.Join(p.dir, scriptPath(i))
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".editor-%d-%d", i, rand.Int()))
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		p.t.Error(err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		p.t.Error(err)
	}
}

// studioSource is a script's Source in the connected Studio.
func (p *proj) studioSource(i int) string {
	p.t.Helper()
	d, err := p.client().Script(context.Background(), host.ScriptRequest{FsPath: scriptPath(i)})
	if err != nil {
		p.t.Fatalf("read S%d in Studio: %v", i, err)
	}
	return d.Source
}

// setStudio sets scripts' Source in Studio, as a person typing there would.
func (p *proj) setStudio(sources map[int]string) {
	p.t.Helper()
	var code strings.Builder
	for i, src := range sources {
		fmt.Fprintf(&code, "game:GetService(\"ServerScriptService\"):FindFirstChild(\"S%d\").Source = [==[\n%s]==]\n", i, src)
	}
	d, err := p.client().Exec(context.Background(), host.ExecRequest{Code: code.String()})
	if err != nil || !d.Success {
		p.t.Fatalf("edit Studio: %v %+v", err, d)
	}
}

// commit records the project's files as the new base.
func (p *proj) commit(msg string) {
	p.t.Helper()
	hosttest.Git(p.t, p.dir, "add", "-A")
	hosttest.Git(p.t, p.dir, "commit", "-qm", msg, "--allow-empty")
}

// temps lists Atlas's temporary files in the project.
func (p *proj) temps() []string {
	var out []string
	filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".atlas-") {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// planToken plans through the CLI and returns the confirm token and the number of
// changes.
func (p *proj) planToken() (string, int) {
	p.t.Helper()
	e := p.cli("sync", "plan")
	if !e.OK {
		p.t.Fatalf("plan: %s %s", e.code(), e.reason())
	}
	var d struct {
		ConfirmToken string            `json:"confirmToken"`
		Changes      []json.RawMessage `json:"changes"`
	}
	json.Unmarshal(e.Data, &d)
	return d.ConfirmToken, len(d.Changes)
}

// settle makes disk and Studio agree (a plan and its apply, every change in its
// default direction) and commits the result as the new base: the start of a
// round. It fails when the project is blocked.
func (p *proj) settle(msg string) {
	p.t.Helper()
	token, n := p.planToken()
	if n > 0 {
		if e := p.cli("sync", "apply", "--token", token, "--skip-unresolved"); !e.OK {
			p.t.Fatalf("blocked: apply after the round: %s %s %s", e.code(), e.reason(), e.Errors[0].Message)
		}
	}
	p.commit(msg)
}

// applyResult is what an apply through the CLI answered.
type applyResult struct {
	env   envelope
	files map[string]string // path → action
}

func (p *proj) apply(token string) applyResult {
	e := p.cli("sync", "apply", "--token", token)
	r := applyResult{env: e, files: map[string]string{}}
	if e.OK {
		var d struct {
			Files []struct{ Path, Action string } `json:"files"`
		}
		json.Unmarshal(e.Data, &d)
		for _, f := range d.Files {
			r.files[f.Path] = f.Action
		}
	}
	return r
}

// outcome names an envelope's result for the tallies: ok, or CODE/reason.
func outcome(e envelope) string {
	if e.OK {
		return "ok"
	}
	return e.code() + "/" + e.reason()
}

func jsonUnmarshal(b []byte, v any) { _ = json.Unmarshal(b, v) }

// hostDial returns the pid of the host answering for the project.
func hostDial(p *proj) (int, error) {
	c, err := host.Dial(p.state, p.file)
	if err != nil {
		return 0, err
	}
	st, err := c.Status(context.Background())
	if err != nil {
		return 0, err
	}
	return st.Host.PID, nil
}
