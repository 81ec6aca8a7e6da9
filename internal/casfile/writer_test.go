package casfile_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A writer edits the target file the way users' tools do, in this process (a
// goroutine) or in another one (this test binary started as a writer).

// The kinds of edit a writer makes.
const (
	inPlace   = "inplace"   // open the existing file truncating it, write, close (fails if absent)
	atomic    = "atomic"    // write a temp file and rename it over the path (editors' "safe save")
	remove    = "remove"    // delete the file (fails if absent)
	createNew = "create"    // create the file exclusively (fails if present)
	openHeld  = "open"      // open the existing file and keep the handle
	writeHeld = "writeheld" // truncate and write through the held handle, then close it
)

// action is one edit. content must not hold tabs or newlines.
type action struct {
	kind, path, content string
	// delay is how long an inPlace edit keeps the file open between truncating
	// and writing, to widen the windows a swap can fall into.
	delay time.Duration
	// lock, when set, is a lock file every writer holds while it edits, so that
	// edits of several writers have one order (seq) even across processes.
	lock string
}

// outcome is what a writer reports of one action.
type outcome struct {
	ok  bool
	seq int // the edit's place in the order of all writers' edits (with lock)
}

type writer interface {
	do(a action) outcome
	close()
}

// editor performs actions; it holds at most one open handle (openHeld).
type editor struct {
	held *os.File
}

func (e *editor) perform(a action) outcome {
	if a.lock != "" {
		var o outcome
		o.seq = withSeq(a.lock, func() { o.ok = e.edit(a) })
		return o
	}
	return outcome{ok: e.edit(a)}
}

func (e *editor) edit(a action) bool {
	switch a.kind {
	case inPlace:
		f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return false
		}
		if a.delay > 0 {
			time.Sleep(a.delay)
		}
		_, err = f.Write([]byte(a.content))
		return f.Close() == nil && err == nil
	case atomic:
		tmp := filepath.Join(filepath.Dir(a.path), fmt.Sprintf(".w-%d-%d", os.Getpid(), time.Now().UnixNano()))
		if err := os.WriteFile(tmp, []byte(a.content), 0o644); err != nil {
			return false
		}
		if err := os.Rename(tmp, a.path); err != nil {
			os.Remove(tmp)
			return false
		}
		return true
	case remove:
		return os.Remove(a.path) == nil
	case createNew:
		f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return false
		}
		_, err = f.Write([]byte(a.content))
		return f.Close() == nil && err == nil
	case openHeld:
		f, err := os.OpenFile(a.path, os.O_WRONLY, 0)
		if err != nil {
			return false
		}
		e.held = f
		return true
	case writeHeld:
		f := e.held
		e.held = nil
		if f == nil {
			return false
		}
		err := f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt([]byte(a.content), 0)
		}
		return f.Close() == nil && err == nil
	}
	panic("unknown action " + a.kind)
}

// goWriter runs its edits on a goroutine of its own.
type goWriter struct {
	in  chan action
	out chan outcome
}

func newGoWriter() *goWriter {
	w := &goWriter{in: make(chan action), out: make(chan outcome)}
	go func() {
		var e editor
		for a := range w.in {
			w.out <- e.perform(a)
		}
		close(w.out)
	}()
	return w
}

func (w *goWriter) do(a action) outcome { w.in <- a; return <-w.out }
func (w *goWriter) close()              { close(w.in); <-w.out }

// procWriter runs its edits in a separate process: this test binary, started
// with writerEnv set, reading one action a line on stdin.
type procWriter struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	mu  sync.Mutex
}

const writerEnv = "CASFILE_TEST_WRITER"

func newProcWriter(t testing.TB) *procWriter {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), writerEnv+"=1")
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
	w := &procWriter{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(w.close)
	return w
}

func (w *procWriter) do(a action) outcome {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.in, "%s\t%s\t%s\t%d\t%s\n", a.kind, a.path, a.content, a.delay, a.lock)
	if !w.out.Scan() {
		panic("writer process stopped: " + fmt.Sprint(w.out.Err()))
	}
	f := strings.Fields(w.out.Text())
	seq, _ := strconv.Atoi(f[1])
	return outcome{ok: f[0] == "ok", seq: seq}
}

func (w *procWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.in != nil {
		w.in.Close()
		w.cmd.Wait()
		w.in = nil
	}
}

// writerMain is the writer process: it performs the actions it reads.
func writerMain() {
	var e editor
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Split(in.Text(), "\t")
		delay, _ := strconv.ParseInt(f[3], 10, 64)
		o := e.perform(action{kind: f[0], path: f[1], content: f[2], delay: time.Duration(delay), lock: f[4]})
		word := "fail"
		if o.ok {
			word = "ok"
		}
		fmt.Printf("%s %d\n", word, o.seq)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(writerEnv) != "" {
		writerMain()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
