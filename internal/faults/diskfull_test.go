package faults

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/atlas-rbx/atlas/host/hosttest"
)

// A full disk while an apply writes the project: the apply answers E_DISK_FULL
// (reasonCode disk_full), never "Studio has not said whether it applied it"; no
// file is half written and no temporary file is left; the transaction waits,
// saying so, and once there is space `atlas sync recover --finish` writes it.
//
// The project lives on a small tmpfs mounted in a user and mount namespace of
// its own (unshare), so the disk really fills: the test runs itself again in
// that namespace, where the host, the CLI and the emulator it starts see the
// same mount.
func TestFaultDiskFull(t *testing.T) {
	if os.Getenv("ATLAS_FAULT_IN_NAMESPACE") == "" {
		cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount",
			os.Args[0], "-test.run=^TestFaultDiskFull$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "ATLAS_FAULT_IN_NAMESPACE=1", "ATLAS_FAULT_BIN="+atlasBin)
		out, err := cmd.CombinedOutput()
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "_test.go:") {
				t.Log(strings.TrimSpace(line))
			}
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFaultDiskFull")) {
			t.Fatalf("the run in a mount namespace failed: %v\n%s", err, out)
		}
		return
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount a tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	p := newProjIn(t, filepath.Join(mnt, "proj"))
	p.serve()
	big := strings.Repeat("-- a long script edited in Studio\n", 12000) // about 400 KB
	p.emulator(p.place(map[int]string{1: big}))
	token, _ := p.planToken()
	filler := fill(t, mnt, 64<<10)
	res := p.apply(token)
	if res.env.code() != "E_DISK_FULL" || res.env.reason() != "disk_full" {
		t.Fatalf("apply on a full disk: %s %v", outcome(res.env), res.env.Errors)
	}
	if msg := res.env.Errors[0].Message; strings.Contains(msg, "has not said") {
		t.Errorf("message: %q", msg)
	}
	if got := p.read(1); got != "-- S1 as committed\n" {
		t.Errorf("S1 is %d bytes, not its old text", len(got))
	}
	if left := p.temps(); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The project says how to leave: another apply is refused, naming the
	// transaction and what it waits for.
	token2, _ := p.planToken()
	again := p.apply(token2)
	if again.env.reason() != "transaction_pending" || again.env.Errors[0].Details["waiting"] != "disk" {
		t.Fatalf("apply with the transaction open: %s %v", outcome(again.env), again.env.Errors)
	}
	os.Remove(filler)
	if e := p.cli("sync", "recover", "--finish"); !e.OK {
		t.Fatalf("sync recover --finish: %s %v", outcome(e), e.Errors)
	}
	if got := p.read(1); got != big {
		t.Errorf("S1 after recover is %d bytes, want Studio's %d", len(got), len(big))
	}
	if left := p.temps(); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	p.settle("after the full disk")
	t.Logf("full disk during an apply: E_DISK_FULL disk_full, 0 half-written files, 0 temporary files; recovered with sync recover --finish")
}

// newProjIn is newProj in the folder dir.
func newProjIn(t *testing.T, dir string) *proj {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hosttest.Write(t, dir, "default.project.json", `{"name": "Faults", "tree": {"$className": "DataModel",
  "ServerScriptService": {"$path": "src/server"}}}`)
	for i := 1; i <= scripts; i++ {
		hosttest.Write(t, dir, scriptPath(i), fmt.Sprintf("-- S%d as committed\n", i))
	}
	hosttest.Git(t, dir, "init", "-q")
	hosttest.Git(t, dir, "add", "-A")
	hosttest.Git(t, dir, "commit", "-qm", "init")
	return &proj{t: t, dir: dir, state: t.TempDir(), file: filepath.Join(dir, "default.project.json"), port: freePort(t)}
}

// fill writes a file in dir until the disk is full, then frees keep bytes of it,
// and returns its path.
func fill(t *testing.T, dir string, keep int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(max(n-keep, 0)); err != nil {
		t.Fatal(err)
	}
	return path
}
