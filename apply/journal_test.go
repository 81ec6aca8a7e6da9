package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

func newRecord(t *testing.T, files []project.FileOp) (*record, string) {
	t.Helper()
	dir := t.TempDir()
	j := &Journal{Dir: filepath.Join(t.TempDir(), "journal")}
	st := &State{Plan: &plan.Plan{Hash: "sha256:x"}, Dir: dir}
	r, err := j.Prepare("tx1", st, &work{files: files})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func TestCommitWritesCreatesAndDeletes(t *testing.T) {
	r, dir := newRecord(t, nil)
	os.WriteFile(filepath.Join(dir, "old.luau"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("bye\n"), 0o644)
	r2, err := r.j.Prepare("tx2", &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir}, &work{files: []project.FileOp{
		{Path: "old.luau", Data: []byte("new\n"), Expect: gitblob.Hash([]byte("old\n"))},
		{Path: "sub/new.luau", Data: []byte("made\n")},
		{Path: "gone.txt", Delete: true, Expect: gitblob.Hash([]byte("bye\n"))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Stage(); err != nil {
		t.Fatal(err)
	}
	if err := r2.CheckDisk(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.luau")); string(b) != "old\n" {
		t.Fatalf("staging touched the project: %q", b)
	}
	if _, err := r2.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"old.luau": "new\n", "sub/new.luau": "made\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, path)); string(b) != want {
			t.Errorf("%s = %q, want %q", path, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gone.txt still there: %v", err)
	}
	// The pre-image of the overwritten file is kept in the journal.
	pre, err := os.ReadFile(filepath.Join(r2.dir, r2.Files[0].Pre))
	if err != nil || string(pre) != "old\n" {
		t.Errorf("pre-image = %q, %v", pre, err)
	}
	// Committing again (a restart finishing it) is harmless.
	if _, err := r2.Commit(); err != nil {
		t.Fatalf("second commit: %v", err)
	}
}

func TestCheckDiskRefusesMovedFiles(t *testing.T) {
	r, dir := newRecord(t, nil)
	os.WriteFile(filepath.Join(dir, "a.luau"), []byte("changed\n"), 0o644)
	r2, err := r.j.Prepare("tx3", &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir}, &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("x"), Expect: gitblob.Hash([]byte("original\n"))},
		{Path: "b.luau", Data: []byte("x")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b.luau"), []byte("appeared\n"), 0o644)
	err = r2.CheckDisk()
	if errcode.Of(err) != errcode.PreconditionFailed {
		t.Fatalf("CheckDisk = %v, want E_PRECONDITION_FAILED", err)
	}
	if f := errcode.As(err).Details["failures"].([]map[string]any); len(f) != 2 {
		t.Errorf("failures = %v, want 2", f)
	}
}

func TestPreflightRefusesUnwritableFolder(t *testing.T) {
	r, dir := newRecord(t, nil)
	ro := filepath.Join(dir, "ro")
	os.MkdirAll(ro, 0o755)
	r2, err := r.j.Prepare("tx4", &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir}, &work{files: []project.FileOp{
		{Path: "ro/a.luau", Data: []byte("x")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// A read-only folder: chmod suffices for ordinary users; root ignores modes, so
	// the probe is told what the OS would say.
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	if os.Geteuid() == 0 {
		old := probeWritable
		probeWritable = func(d string) error {
			if d == ro {
				return &os.PathError{Op: "open", Path: d, Err: errors.New("read-only file system")}
			}
			return old(d)
		}
		defer func() { probeWritable = old }()
	}
	err = r2.Preflight()
	if errcode.Of(err) != errcode.PreconditionFailed {
		t.Fatalf("Preflight = %v, want E_PRECONDITION_FAILED", err)
	}
	if errcode.As(err).Details["reasonCode"] != "disk_not_writable" {
		t.Errorf("reasonCode = %v", errcode.As(err).Details["reasonCode"])
	}
	if entries, _ := os.ReadDir(ro); len(entries) != 0 {
		t.Errorf("preflight left files behind: %v", entries)
	}
}

func TestRecoverCommitsAppliedAndDropsTheRest(t *testing.T) {
	dir := t.TempDir()
	j := &Journal{Dir: filepath.Join(t.TempDir(), "journal")}
	mk := func(id, path string) *record {
		r, err := j.Prepare(id, &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir}, &work{files: []project.FileOp{{Path: path, Data: []byte(id)}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Stage(); err != nil {
			t.Fatal(err)
		}
		if err := r.MarkStudioSent(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	mk("applied", "a.txt")
	mk("lost", "b.txt")
	done, err := j.Recover(t.Context(), func(string) Studio { return fakeStudio{applied: []string{"applied"}} })
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Fatalf("recovered %v", done)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "applied" {
		t.Errorf("the applied transaction was not finished: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lost transaction wrote disk: %v", err)
	}
	if p, _ := j.Pending(); len(p) != 0 {
		t.Errorf("pending after recovery: %v", p)
	}
}

type fakeStudio struct{ applied []string }

func (f fakeStudio) Apply(context.Context, string, []protocol.Op) error { return nil }
func (f fakeStudio) Transactions(context.Context) ([]string, error) {
	return f.applied, nil
}

func TestPruneKeepsTheNewestFinished(t *testing.T) {
	dir := t.TempDir()
	j := &Journal{Dir: filepath.Join(t.TempDir(), "journal")}
	for i := 0; i < keepFinished+5; i++ {
		r, err := j.Prepare(fmt.Sprintf("tx%03d", i), &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir},
			&work{files: []project.FileOp{{Path: "a.txt", Data: []byte(fmt.Sprint(i)), Expect: ""}}})
		if err != nil {
			t.Fatal(err)
		}
		r.CreatedAt = r.CreatedAt.Add(time.Duration(i) * time.Millisecond)
		r.saveState()
		if err := r.Stage(); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "a.txt"))
		if _, err := r.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := j.records(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != keepFinished || recs[0].TxID != "tx005" {
		t.Fatalf("kept %d records starting at %s, want %d from tx005", len(recs), recs[0].TxID, keepFinished)
	}
}
