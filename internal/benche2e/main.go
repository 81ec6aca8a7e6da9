package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/atlas-rbx/atlas/internal/benchgen"
)

func main() {
	sizes := flag.String("sizes", "1k,10k", "project sizes in scripts: 1k, 10k, 50k")
	runs := flag.Int("runs", 5, "timed runs per row (the median is shown)")
	cycles := flag.Int("cycles", 20, "plan and apply cycles before the second RSS reading")
	bin := flag.String("atlas", "", "the atlas binary (default: built from ./cmd/atlas)")
	flag.Parse()
	if err := run(strings.Split(*sizes, ","), *runs, *cycles, *bin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
}

func run(sizes []string, runs, cycles int, bin string, out io.Writer) error {
	work, err := os.MkdirTemp("", "atlas-bench-e2e-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if bin == "" {
		bin = filepath.Join(work, "atlas")
		// Built as the release archives are, static (CGO_ENABLED=0) and -trimpath, but
		// with its symbols (-ldflags "-s -w" changes no timing measured here).
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/atlas")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("build atlas (run from the repository's root): %v\n%s", err, b)
		}
	}
	for _, size := range sizes {
		scripts, err := parseSize(size)
		if err != nil {
			return err
		}
		b := &bench{bin: bin, runs: runs, cycles: cycles, dir: filepath.Join(work, size), state: filepath.Join(work, size+"-state")}
		t, err := b.measure(scripts)
		if err != nil {
			return fmt.Errorf("%s: %w", size, err)
		}
		t.print(out, size)
	}
	return nil
}

func parseSize(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "k"))
	if err != nil || n <= 0 || !strings.HasSuffix(s, "k") {
		return 0, fmt.Errorf("size %q: want a number of thousands of scripts, like 10k", s)
	}
	return n * 1000, nil
}

// bench is one project and its host.
type bench struct {
	bin         string
	runs        int
	cycles      int
	dir, state  string
	gen         *benchgen.Project
	serve       *exec.Cmd
	serveStderr bytes.Buffer
}

// row is one measured line: a median and the yardstick it is compared with.
type row struct {
	name      string
	value     time.Duration
	yardstick string // "status", "hash-object" or ""
	note      string
}

type table struct {
	gen         *benchgen.Project
	status, hob time.Duration
	rows        []row
	rss         []string
}

func (b *bench) measure(scripts int) (*table, error) {
	o := benchgen.Budget
	o.Packages = scripts / (o.Subfolders * o.Scripts)
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, err
	}
	gen, err := benchgen.Write(b.dir, o)
	if err != nil {
		return nil, err
	}
	b.gen = gen
	t := &table{gen: gen}
	paths := strings.Join(gen.Files, "\n") + "\n"
	t.hob = median(b.runs, func() (time.Duration, error) {
		return timed(func() error {
			cmd := exec.Command("git", "hash-object", "--stdin-paths")
			cmd.Dir, cmd.Stdin, cmd.Stdout = b.dir, strings.NewReader(paths), io.Discard
			return cmd.Run()
		})
	})

	// serve --emulate to the first plan answered, as on a new machine: each run is a
	// new host and emulator with an empty state dir, and the last one stays for the
	// rows below. The generated files (and their git objects, hundreds of megabytes
	// at 10k) are written back to the disk first: a project a person serves is on the
	// disk already, and the kernel's writeback would otherwise run during the
	// measurement. (Best effort: without sync(1) it is skipped.)
	defer b.stopServe()
	var firsts []time.Duration
	for k := range b.runs {
		if k > 0 {
			b.stopServe()
			if err := os.RemoveAll(b.state); err != nil {
				return nil, err
			}
		}
		_ = exec.Command("sync").Run()
		start := time.Now()
		if err := b.startServe(); err != nil {
			return nil, err
		}
		if err := b.waitPlan(5 * time.Minute); err != nil {
			return nil, err
		}
		firsts = append(firsts, time.Since(start))
	}
	t.rows = append(t.rows, row{name: "serve --emulate → first plan answered", value: medianOf(firsts)})
	// A plan that loaded the whole disk and snapshot gives their garbage back just
	// after its answer (a forced collection, 70-80 ms at 10k on a quiet machine): the
	// RSS is read a second later, well before the host's idle trim (2 s).
	time.Sleep(time.Second)
	rss, err := b.rss()
	if err != nil {
		return nil, err
	}
	t.rss = append(t.rss, fmt.Sprintf("host RSS after the first plan: %.0f MB, %.1f× the source bytes (%.1f MB of scripts, %.1f MB of files)",
		float64(rss)/1e6, float64(rss)/float64(gen.Bytes), float64(gen.Source)/1e6, float64(gen.Bytes)/1e6))

	// git status and the plan, run in turns so that both see the same machine. One git
	// status first refreshes the index's stat data (a new index has racily clean
	// entries, whose files git reads again on every status until it does), as in a
	// working repository. Four times the runs: a 1k project's rows take milliseconds.
	status := func() error { _, err := benchgen.Git(b.dir, "status", "--porcelain"); return err }
	if err := status(); err != nil {
		return nil, err
	}
	var statuses, plans []time.Duration
	for range 4*b.runs + 1 {
		for _, m := range []struct {
			fn  func() error
			out *[]time.Duration
		}{{status, &statuses}, {b.plan, &plans}} {
			d, err := timed(m.fn)
			if err != nil {
				return nil, err
			}
			*m.out = append(*m.out, d)
		}
	}
	t.status = medianOf(statuses)
	t.rows = append(t.rows, row{name: "plan, nothing changed", yardstick: "status", value: medianOf(plans)})

	edit := filepath.Join(b.dir, filepath.FromSlash(gen.Edits[0]))
	orig, err := os.ReadFile(edit)
	if err != nil {
		return nil, err
	}
	i := 0
	t.rows = append(t.rows, row{name: "plan after 1 disk edit", yardstick: "status",
		value: median(b.runs, func() (time.Duration, error) {
			i++
			if err := os.WriteFile(edit, append(append([]byte(nil), orig...), fmt.Sprintf("-- %d\n", i)...), 0o644); err != nil {
				return 0, err
			}
			return timed(b.plan)
		})})
	if err := os.WriteFile(edit, orig, 0o644); err != nil {
		return nil, err
	}
	if err := b.applyAll(); err != nil {
		return nil, err
	}

	// A Studio edit: the second script of the first subfolder, by exec (not timed).
	studioPath := instancePath(gen.Edits[0], "Script1")
	t.rows = append(t.rows, row{name: "plan after 1 Studio edit", yardstick: "status",
		value: median(b.runs, func() (time.Duration, error) {
			i++
			code := fmt.Sprintf("%s.Source = %s.Source .. %q", studioPath, studioPath, fmt.Sprintf("-- studio %d\n", i))
			if _, err := b.atlas("studio", "exec", "--code", code, "--json"); err != nil {
				return 0, err
			}
			return timed(b.plan)
		})})

	// An apply of up to 1,000 pushed edits: Studio first takes the disk again (the
	// Studio edits above are pulled back, not timed), then 1,000 files change.
	if err := b.applyAll(); err != nil {
		return nil, err
	}
	n := min(1000, len(gen.Edits))
	originals := make([][]byte, n)
	for k, f := range gen.Edits[:n] {
		if originals[k], err = os.ReadFile(filepath.Join(b.dir, filepath.FromSlash(f))); err != nil {
			return nil, err
		}
	}
	t.rows = append(t.rows, row{name: fmt.Sprintf("apply of %d pushed script edits", n),
		value: median(b.runs, func() (time.Duration, error) {
			i++
			for k, f := range gen.Edits[:n] {
				data := append(append([]byte(nil), originals[k]...), fmt.Sprintf("-- push %d\n", i)...)
				if err := os.WriteFile(filepath.Join(b.dir, filepath.FromSlash(f)), data, 0o644); err != nil {
					return 0, err
				}
			}
			token, err := b.token()
			if err != nil {
				return 0, err
			}
			d, err := timed(func() error { _, err := b.atlas("sync", "apply", "--token", token, "--json"); return err })
			if err != nil {
				return 0, err
			}
			return d, b.commit()
		})})

	for range b.cycles {
		i++
		if err := os.WriteFile(edit, append(append([]byte(nil), orig...), fmt.Sprintf("-- cycle %d\n", i)...), 0o644); err != nil {
			return nil, err
		}
		if err := b.applyAll(); err != nil {
			return nil, err
		}
	}
	if rss, err = b.rss(); err != nil {
		return nil, err
	}
	// The host gives back what a burst of work freed once it has been idle for 2 s; the
	// collection that does it takes a moment more (a second at 50k), so the RSS is read
	// after 4 s, until it settles. (Read from 2 s, two readings could both come before
	// the collection and settle on the RSS of before it.)
	time.Sleep(4 * time.Second)
	idle, err := b.settledRSS()
	if err != nil {
		return nil, err
	}
	t.rss = append(t.rss, fmt.Sprintf("host RSS after %d more plan and apply cycles: %.0f MB, %.1f× the source bytes; %.0f MB, %.1f×, once idle",
		b.cycles, float64(rss)/1e6, float64(rss)/float64(gen.Bytes), float64(idle)/1e6, float64(idle)/float64(gen.Bytes)))

	// A restarted host on the unchanged project: its first plan once Studio is back.
	d, err := b.restart()
	if err != nil {
		return nil, err
	}
	t.rows = append(t.rows, row{name: "restarted host and emulator, first plan once Studio is back", value: d, yardstick: "hash-object", note: "one run"})

	// A restarted host with Studio left open, as when a person restarts `atlas serve`:
	// the emulator runs on its own (`atlas studio emulate`), and its plugin reconnects
	// to the next host, which asks for a delta off the snapshot the host before kept.
	b.stopServe()
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	emu := exec.Command(b.bin, "studio", "emulate", "--port", port)
	emu.Dir, emu.Env = b.dir, b.env()
	var emuStderr bytes.Buffer
	emu.Stderr = &emuStderr
	if err := emu.Start(); err != nil {
		return nil, err
	}
	defer stop(emu)
	if err := b.startServe("--port", port); err != nil {
		return nil, err
	}
	if err := b.waitSession(5 * time.Minute); err != nil {
		return nil, fmt.Errorf("%w\nemulator: %s", err, emuStderr.String())
	}
	if err := b.plan(); err != nil {
		return nil, err
	}
	var kept []time.Duration
	for range b.runs {
		d, err := b.restart("--port", port)
		if err != nil {
			return nil, err
		}
		kept = append(kept, d)
	}
	t.rows = append(t.rows, row{name: "restarted host, Studio left open: first plan once Studio is back", value: medianOf(kept), yardstick: "hash-object"})
	return t, nil
}

// restart stops the host, starts it again with args (see startServe), waits for a
// Studio session and times the first plan.
func (b *bench) restart(args ...string) (time.Duration, error) {
	b.stopServe()
	if err := b.startServe(args...); err != nil {
		return 0, err
	}
	if err := b.waitSession(5 * time.Minute); err != nil {
		return 0, err
	}
	return timed(b.plan)
}

// freePort returns a port on 127.0.0.1 nobody listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// stop ends a process with SIGTERM, and SIGKILL after 30 s.
func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// instancePath turns a generated script's file into the Luau path of a sibling
// script: src/shared/pkg000/sub0/Script0.luau → game.ReplicatedStorage.pkg000.sub0.<name>.
func instancePath(file, name string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Dir(file)), "/")
	service := map[string]string{"shared": "game.ReplicatedStorage", "server": "game.ServerScriptService",
		"client": "game.StarterPlayer.StarterPlayerScripts"}[parts[1]]
	return service + "." + strings.Join(parts[2:], ".") + "." + name
}

func (b *bench) env() []string {
	return append(os.Environ(), "ATLAS_STATE_DIR="+b.state, "NO_COLOR=1")
}

func (b *bench) atlas(args ...string) ([]byte, error) {
	cmd := exec.Command(b.bin, args...)
	cmd.Dir, cmd.Env = b.dir, b.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("atlas %s: %v: %s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func (b *bench) plan() error {
	_, err := b.atlas("sync", "plan", "--json")
	return err
}

// token plans and returns the plan's confirm token.
func (b *bench) token() (string, error) {
	out, err := b.atlas("sync", "plan", "--json")
	if err != nil {
		return "", err
	}
	var env struct {
		Data struct {
			ConfirmToken string `json:"confirmToken"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Data.ConfirmToken == "" {
		return "", fmt.Errorf("no confirm token in %s", out)
	}
	return env.Data.ConfirmToken, nil
}

// applyAll plans and applies every change as the plan directs it, then commits, as
// a person would: disk, Studio and HEAD are equal after.
func (b *bench) applyAll() error {
	token, err := b.token()
	if err != nil {
		return err
	}
	if _, err = b.atlas("sync", "apply", "--token", token, "--json"); err != nil {
		return err
	}
	return b.commit()
}

// commit records the project as it is, so that the next changes are one-sided.
func (b *bench) commit() error {
	if _, err := benchgen.Git(b.dir, "add", "-A"); err != nil {
		return err
	}
	_, err := benchgen.Git(b.dir, "commit", "-q", "--no-verify", "--allow-empty", "-m", "bench")
	return err
}

// startServe starts `atlas serve` with args, by default --emulate --port 0.
func (b *bench) startServe(args ...string) error {
	if len(args) == 0 {
		args = []string{"--emulate", "--port", "0"}
	}
	b.serve = exec.Command(b.bin, append(append([]string{"serve"}, args...), "--log-format", "text")...)
	b.serve.Dir, b.serve.Env = b.dir, b.env()
	b.serveStderr.Reset()
	b.serve.Stderr = &b.serveStderr
	return b.serve.Start()
}

func (b *bench) stopServe() {
	if b.serve == nil {
		return
	}
	stop(b.serve)
	b.serve = nil
}

// waitPlan plans until a plan is answered.
func (b *bench) waitPlan(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := b.plan()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no plan within %s: %w\nhost: %s", limit, err, b.serveStderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSession waits until the host lists a Studio session.
func (b *bench) waitSession(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if out, err := b.atlas("status", "--json"); err == nil && bytes.Contains(out, []byte(`"sessions":[{`)) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("no Studio session")
}

// settledRSS reads the host's RSS every 500 ms until two readings in a row are within
// 1% of each other, for at most 10 s.
func (b *bench) settledRSS() (int64, error) {
	last, err := b.rss()
	for deadline := time.Now().Add(10 * time.Second); err == nil && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		var now int64
		if now, err = b.rss(); err == nil {
			if d := now - last; d*100 <= last && -d*100 <= last {
				return now, nil
			}
			last = now
		}
	}
	return last, err
}

// rss is the host's resident set size, from /proc (Linux).
func (b *bench) rss() (int64, error) {
	out, err := b.atlas("status", "--json")
	if err != nil {
		return 0, err
	}
	var env struct {
		Data struct {
			Host struct {
				PID int `json:"pid"`
			} `json:"host"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Data.Host.PID == 0 {
		return 0, fmt.Errorf("no host pid in %s", out)
	}
	return vmRSS(env.Data.Host.PID)
}

func vmRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("RSS is read from /proc (Linux only): %w", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS line")
}
