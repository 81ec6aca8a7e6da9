package hostlock_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/hostlock"
)

// childEnv makes the test binary a host-lock child (see childMain).
const childEnv = "HOSTLOCK_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		childMain(dir)
		return
	}
	os.Exit(m.Run())
}

// childMain is a host in miniature: it prints "ready", waits for a line on
// stdin, tries the lock of dir with the port given on that line, prints the
// result as JSON, then holds the lock until stdin closes.
func childMain(dir string) {
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready")
	if !in.Scan() {
		os.Exit(2)
	}
	port, _ := strconv.Atoi(in.Text())
	l, err := hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid(), Port: port, StartedAt: time.Now()})
	json.NewEncoder(os.Stdout).Encode(outcomeOf(err))
	for in.Scan() {
	}
	if l != nil {
		l.Close()
	}
	os.Exit(0)
}

// outcome is what one Acquire said.
type outcome struct {
	OK     bool   `json:"ok"`
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Port   int    `json:"port,omitempty"`
}

func outcomeOf(err error) outcome {
	if err == nil {
		return outcome{OK: true}
	}
	e := errcode.As(err)
	o := outcome{Code: string(e.Code)}
	o.Reason, _ = e.Details["reasonCode"].(string)
	o.PID, _ = e.Details["pid"].(int)
	o.Port, _ = e.Details["port"].(int)
	return o
}

func acquire(t *testing.T, dir string, port int) *hostlock.Lock {
	t.Helper()
	l, err := hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid(), Port: port, StartedAt: time.Now()})
	if err != nil {
		t.Fatalf("Acquire = %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestSecondHandleIsBusyUntilClose(t *testing.T) {
	dir := t.TempDir()
	first := acquire(t, dir, 0)

	_, err := hostlock.Acquire(dir, hostlock.Holder{PID: 99999, Port: 2})
	want := outcome{Code: string(errcode.Busy), Reason: string(hostlock.ReasonCode), PID: os.Getpid(), Port: 0}
	if diff := cmp.Diff(want, outcomeOf(err)); diff != "" {
		t.Errorf("second Acquire before SetPort (-want +got):\n%s", diff)
	}

	if err := first.SetPort(4321); err != nil {
		t.Fatalf("SetPort = %v", err)
	}
	_, err = hostlock.Acquire(dir, hostlock.Holder{PID: 99999, Port: 2})
	want.Port = 4321
	if diff := cmp.Diff(want, outcomeOf(err)); diff != "" {
		t.Errorf("second Acquire after SetPort (-want +got):\n%s", diff)
	}
	if h, ok, err := hostlock.Read(dir); err != nil || !ok || h.PID != os.Getpid() || h.Port != 4321 {
		t.Errorf("Read = %+v, %v, %v; want pid %d port 4321", h, ok, err, os.Getpid())
	}

	if err := first.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := first.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, ok, err := hostlock.Read(dir); err != nil || ok {
		t.Errorf("Read after Close = %v, %v; want no holder", ok, err)
	}
	second := acquire(t, dir, 7)
	if got := second.Holder().Port; got != 7 {
		t.Errorf("Holder().Port = %d, want 7", got)
	}
}

func TestGoroutinesRace(t *testing.T) {
	const n = 8
	for round := range 20 {
		dir := t.TempDir()
		locks := make([]*hostlock.Lock, n)
		outcomes := make([]outcome, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				l, err := hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid(), Port: 1000 + i})
				locks[i], outcomes[i] = l, outcomeOf(err)
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, o := range outcomes {
			if o.OK {
				if winner >= 0 {
					t.Fatalf("round %d: goroutines %d and %d both hold the lock", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody got the lock: %+v", round, outcomes)
		}
		for i, o := range outcomes {
			want := outcome{Code: string(errcode.Busy), Reason: string(hostlock.ReasonCode), PID: os.Getpid(), Port: 1000 + winner}
			if i != winner && o != want {
				t.Errorf("round %d: goroutine %d = %+v, want %+v", round, i, o, want)
			}
		}
		locks[winner].Close()
	}
}

// child is a host-lock child process.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() { c.in.Close(); c.cmd.Process.Kill(); c.cmd.Wait() })
	if line := c.line(t); line != "ready" {
		t.Fatalf("child said %q, want ready", line)
	}
	return c
}

func (c *child) line(t *testing.T) string {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("child %d stopped: %v", c.cmd.Process.Pid, c.out.Err())
	}
	return c.out.Text()
}

// try tells the child to take the lock with port and returns what it got.
func (c *child) try(t *testing.T, port int) outcome {
	t.Helper()
	fmt.Fprintf(c.in, "%d\n", port)
	var o outcome
	if err := json.Unmarshal([]byte(c.line(t)), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestProcessesStartedTogether starts two host processes, lets both try the
// lock at the same moment, and checks that exactly one runs and the other names
// it. Rounds: HOSTLOCK_ROUNDS, else 20 (5 with -short).
func TestProcessesStartedTogether(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	if n, err := strconv.Atoi(os.Getenv("HOSTLOCK_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	oneRan := 0
	for round := range rounds {
		dir := t.TempDir()
		a, b := startChild(t, dir), startChild(t, dir)
		// Both are waiting on stdin: release them back to back.
		fmt.Fprintf(a.in, "%d\n", 1001)
		fmt.Fprintf(b.in, "%d\n", 1002)
		var oa, ob outcome
		for _, p := range []struct {
			c *child
			o *outcome
		}{{a, &oa}, {b, &ob}} {
			if err := json.Unmarshal([]byte(p.c.line(t)), p.o); err != nil {
				t.Fatal(err)
			}
		}
		winner, lo, winPort := a, ob, 1001
		if ob.OK {
			winner, lo, winPort = b, oa, 1002
		}
		want := outcome{Code: string(errcode.Busy), Reason: string(hostlock.ReasonCode), PID: winner.cmd.Process.Pid, Port: winPort}
		if oa.OK == ob.OK || lo != want {
			t.Errorf("round %d: first %+v, second %+v; want exactly one ok and the other %+v", round, oa, ob, want)
			continue
		}
		oneRan++
		a.in.Close()
		b.in.Close()
		a.cmd.Wait()
		b.cmd.Wait()
	}
	t.Logf("two hosts started together × %d: exactly one ran in %d", rounds, oneRan)
}

// TestKilledHolderReleases kills a holder with SIGKILL (TerminateProcess on
// Windows): no Close runs, and the OS must let the lock go.
func TestKilledHolderReleases(t *testing.T) {
	for round := range 3 {
		dir := t.TempDir()
		holder := startChild(t, dir)
		if o := holder.try(t, 2000+round); !o.OK {
			t.Fatalf("round %d: child Acquire = %+v", round, o)
		}
		_, err := hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid(), Port: 1})
		if o := outcomeOf(err); o.Code != string(errcode.Busy) || o.PID != holder.cmd.Process.Pid {
			t.Fatalf("round %d: Acquire while the child holds = %+v, want E_BUSY naming pid %d", round, o, holder.cmd.Process.Pid)
		}
		if err := holder.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		holder.cmd.Wait()
		l, err := hostlock.Acquire(dir, hostlock.Holder{PID: os.Getpid(), Port: 3})
		if err != nil {
			t.Fatalf("round %d: Acquire after the holder was killed = %v", round, err)
		}
		if h, ok, _ := hostlock.Read(dir); !ok || h.PID != os.Getpid() || h.Port != 3 {
			t.Errorf("round %d: Read = %+v, %v; want this process on port 3", round, h, ok)
		}
		l.Close()
	}
}
