//go:build unix

package faults

import (
	"slices"
	"syscall"
	"testing"
	"time"
)

// A host killed (SIGKILL) while it holds an apply, undo or recover: the CLI says the
// outcome is unknown (E_NO_HOST, reasonCode outcome_unknown, with restart_host,
// show_status and resolve_transaction), not that no host runs (start one and try
// again): the request reached the host, whose transaction the next host finishes or
// rolls back. A read-only call the host dies under stays no_host.
//
// Studio (the emulator) is stopped with SIGSTOP while the command runs, so the host
// holds the request, waiting for Studio, when it is killed.
func TestFaultHostKilledHoldingRequest(t *testing.T) {
	p := newProj(t)
	hostProc := p.serve()
	studio := p.emulator(p.place(nil))
	// A committed apply, for the undo.
	p.write(1, "-- S1 edited on disk, to undo\n")
	token, _ := p.planToken()
	if r := p.apply(token); !r.env.OK {
		t.Fatalf("apply: %s", outcome(r.env))
	}
	p.write(2, "-- S2 edited on disk\n")
	token, _ = p.planToken()

	for _, c := range []struct {
		name   string
		args   []string
		reason string
	}{
		{"sync apply", []string{"sync", "apply", "--token", token}, "outcome_unknown"},
		{"sync undo", []string{"sync", "undo"}, "outcome_unknown"},
		{"sync plan (read-only)", []string{"sync", "plan"}, "no_host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stop(t, studio.cmd.Process.Pid)
			done := make(chan envelope, 1)
			go func() { done <- p.cli(c.args...) }()
			// The request has reached the host, which waits for Studio.
			time.Sleep(1500 * time.Millisecond)
			select {
			case e := <-done:
				t.Fatalf("atlas %v answered before the host was killed: %s", c.args, outcome(e))
			default:
			}
			hostProc.kill()
			e := <-done
			cont(t, studio.cmd.Process.Pid)
			if e.OK || e.code() != "E_NO_HOST" || e.reason() != c.reason {
				t.Errorf("atlas %v with its host killed: %s %v, want E_NO_HOST/%s", c.args, outcome(e), e.Errors, c.reason)
			}
			next := nextActions(e)
			if c.reason == "outcome_unknown" {
				for _, want := range []string{"restart_host", "show_status", "resolve_transaction"} {
					if !slices.Contains(next, want) {
						t.Errorf("nextActions %v lack %s", next, want)
					}
				}
			} else if !slices.Contains(next, "start_host") {
				t.Errorf("nextActions %v lack start_host", next)
			}
			hostProc = p.serve()
			p.waitSession()
			p.resolve(0)
		})
	}
}

func nextActions(e envelope) []string {
	if len(e.Errors) == 0 {
		return nil
	}
	var out []string
	l, _ := e.Errors[0].Details["nextActions"].([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// stop freezes a process (SIGSTOP) until cont; the test's end lets it go on.
func stop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
}

func cont(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}
