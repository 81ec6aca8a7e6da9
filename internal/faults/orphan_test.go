//go:build unix

package faults

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// "SIGKILL of the atlas process running the emulator leaves no Studio behind": the
// emulator (Node) that `atlas studio emulate` or `atlas serve --emulate` starts
// stops within seconds of its parent's SIGKILL, and its session leaves the host.
// An emulator that outlived its parent stayed connected to the host, and to every
// later one, as a second Studio (sync plan: E_STUDIO_AMBIGUOUS).
func TestFaultEmulatorParentKilled(t *testing.T) {
	t.Run("studio emulate", func(t *testing.T) {
		p := newProj(t)
		p.serve()
		env := append(p.env(), "ATLAS_PLUGIN_DIR="+pluginDir(t))
		em := start(t, p.dir, env, atlasBin, "studio", "emulate", "--port", strconv.Itoa(p.port))
		p.waitFor("the emulator's session", func() bool {
			if em.exited() {
				t.Fatalf("atlas studio emulate exited: %v\n%s", em.err, em.output())
			}
			return len(p.sessions()) == 1
		})
		node := emulatorChild(t, em.cmd.Process.Pid)
		em.kill()
		waitGone(t, node)
		p.waitFor("the session to leave the host", func() bool { return len(p.sessions()) == 0 })
	})
	t.Run("serve --emulate", func(t *testing.T) {
		p := newProj(t)
		env := append(p.env(), "ATLAS_PLUGIN_DIR="+pluginDir(t))
		srv := start(t, p.dir, env, atlasBin, "serve", "--emulate", "--port", strconv.Itoa(p.port))
		p.waitFor("the emulator's session", func() bool {
			if srv.exited() {
				t.Fatalf("atlas serve --emulate exited: %v\n%s", srv.err, srv.output())
			}
			return len(p.sessions()) == 1
		})
		node := emulatorChild(t, srv.cmd.Process.Pid)
		// Once connected and idle: the emulator then writes nothing a closed stderr
		// pipe would stop it on.
		time.Sleep(2 * time.Second)
		srv.kill()
		waitGone(t, node)
	})
}

// sessions lists the Studio sessions `atlas status` shows (none without a host).
func (p *proj) sessions() []json.RawMessage {
	p.t.Helper()
	e := p.cli("status")
	var d struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Sessions
}

// emulatorChild is the pid of the Node emulator parent started; if the test ends
// with it still running, it is killed.
func emulatorChild(t *testing.T, parent int) int {
	t.Helper()
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,args=").Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != strconv.Itoa(parent) || !strings.Contains(line, "run.mjs") {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		return pid
	}
	t.Fatalf("no emulator among the children of %d:\n%s", parent, out)
	return 0
}

// alive reports whether pid runs (a zombie no one has reaped yet does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z") && strings.TrimSpace(string(out)) != ""
}

// waitGone fails unless pid exits within a few seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the emulator (pid %d) still runs 5 s after its parent's SIGKILL", pid)
		}
	}
}
