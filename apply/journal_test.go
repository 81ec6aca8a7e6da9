package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/casfile"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

func hash(s string) string { return gitblob.Hash([]byte(s)) }

var testPlace = Place{ID: 42, Name: "Test"}

func newJournal(t *testing.T) (*Journal, string) {
	t.Helper()
	return &Journal{Dir: filepath.Join(t.TempDir(), "journal")}, t.TempDir()
}

func prepare(t *testing.T, j *Journal, dir, id string, w *work, studio *dom.Instance, p *plan.Plan) *record {
	t.Helper()
	if p == nil {
		p = &plan.Plan{Hash: "h"}
	}
	r, err := j.Prepare(id, &State{Plan: p, Dir: dir, Studio: studio}, w, testPlace)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Stage(); err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// temps lists the temporary files (casfile's, and write probes) under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".atlas-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestCommitWritesCreatesAndDeletes(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "old.luau", "old\n")
	write(t, dir, "gone.txt", "bye\n")
	r := prepare(t, j, dir, "tx2", &work{files: []project.FileOp{
		{Path: "old.luau", Data: []byte("new\n"), Expect: hash("old\n")},
		{Path: "sub", Dir: true},
		{Path: "sub/new.luau", Data: []byte("made\n")},
		{Path: "gone.txt", Delete: true, Expect: hash("bye\n")},
	}}, nil, nil)
	if err := r.CheckDisk(); err != nil {
		t.Fatal(err)
	}
	if err := r.Preflight(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "old.luau"); got != "old\n" {
		t.Fatalf("staging touched the project: %q", got)
	}
	if err := r.MarkCommitting(); err != nil {
		t.Fatal(err)
	}
	files, warnings, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"old.luau write", "sub mkdir", "sub/new.luau create", "gone.txt delete"}
	for i, f := range files {
		if got := f.Path + " " + f.Action; got != want[i] {
			t.Errorf("files[%d] = %s, want %s", i, got, want[i])
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %v", warnings)
	}
	for path, want := range map[string]string{"old.luau": "new\n", "sub/new.luau": "made\n", "gone.txt": "(none)"} {
		if got := read(t, dir, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	// The pre-images of the overwritten and the deleted file are in the journal;
	// no temporary file is left in the project.
	for _, i := range []int{0, 3} {
		pre, err := os.ReadFile(filepath.Join(r.dir, r.Files[i].Pre))
		if err != nil || gitblob.Hash(pre) != r.Files[i].Expect {
			t.Errorf("pre-image of %s = %q, %v", r.Files[i].Path, pre, err)
		}
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Committing again (a restart finishing it) is harmless.
	if _, _, err := r.Commit(); err != nil {
		t.Fatalf("second commit: %v", err)
	}
}

// A file saved after the disk check and before the commit is kept, with a
// warning: never overwritten, never reported as written.
func TestCommitKeepsAnEditMadeAfterTheCheck(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "planned\n")
	write(t, dir, "b.luau", "planned\n")
	r := prepare(t, j, dir, "tx1", &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("studio\n"), Expect: hash("planned\n")},
		{Path: "b.luau", Delete: true, Expect: hash("planned\n")},
		{Path: "c.luau", Data: []byte("studio\n")},
	}}, nil, nil)
	if err := r.CheckDisk(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.luau", "user\n")
	write(t, dir, "b.luau", "user\n")
	write(t, dir, "c.luau", "user\n")
	files, warnings, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Action != "kept" {
			t.Errorf("%s: action %s, want kept", f.Path, f.Action)
		}
		if got := read(t, dir, f.Path); got != "user\n" {
			t.Errorf("%s = %q: the user's edit was lost", f.Path, got)
		}
	}
	if len(warnings) != 3 {
		t.Errorf("warnings = %v, want one per kept file", warnings)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file the commit kept was never written by the transaction: undo leaves it as the
// user made it and puts back the others (in a later process too: the record keeps
// which files were kept).
func TestUndoLeavesTheFilesACommitKept(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "planned\n")
	write(t, dir, "b.luau", "planned\n")
	r := prepare(t, j, dir, "tx1", &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("studio\n"), Expect: hash("planned\n")},
		{Path: "b.luau", Data: []byte("studio\n"), Expect: hash("planned\n")},
	}}, nil, nil)
	if err := r.CheckDisk(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.luau", "user\n")
	if err := r.MarkStudioSent(); err != nil {
		t.Fatal(err)
	}
	if err := r.MarkCommitting(); err != nil {
		t.Fatal(err)
	}
	files, _, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if files[0].Action != "kept" || files[1].Action != "write" {
		t.Fatalf("commit = %+v, want a.luau kept and b.luau written", files)
	}
	later := &Journal{Dir: j.Dir} // a later process
	res, err := later.Undo(context.Background(), "tx1", nil, nil)
	if err != nil {
		t.Fatalf("undo of a transaction with a kept file: %v", err)
	}
	if got := read(t, dir, "a.luau"); got != "user\n" {
		t.Errorf("a.luau after undo = %q, want the user's edit", got)
	}
	if got := read(t, dir, "b.luau"); got != "planned\n" {
		t.Errorf("b.luau after undo = %q, want its pre-image", got)
	}
	// It says what it left, as it does for a file changed since the transaction.
	var listed []FileChange
	for _, f := range res.Files {
		if f.Path == "a.luau" {
			listed = append(listed, f)
		}
	}
	if len(listed) != 1 || listed[0] != (FileChange{Path: "a.luau", Action: "kept", Reason: KeptNotWritten}) {
		t.Errorf("undo lists the kept a.luau as %+v, want it once, kept (not_written)", listed)
	}
	if res.FilesUndone() != 1 { // b.luau; a.luau was left
		t.Errorf("undo counts %d file(s) undone, want 1", res.FilesUndone())
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "a.luau was left as the user had it by the transaction itself") {
		t.Errorf("undo warnings = %q", res.Warnings)
	}
}

func TestCheckDiskRefusesMovedFiles(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "changed\n")
	r := prepare(t, j, dir, "tx3", &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("x"), Expect: hash("original\n")},
		{Path: "b.luau", Data: []byte("x")},
	}}, nil, nil)
	write(t, dir, "b.luau", "appeared\n")
	err := r.CheckDisk()
	if errcode.Of(err) != errcode.PreconditionFailed {
		t.Fatalf("CheckDisk = %v, want E_PRECONDITION_FAILED", err)
	}
	if f := errcode.As(err).Details["failures"].([]map[string]any); len(f) != 2 {
		t.Errorf("failures = %v, want 2", f)
	}
}

func TestPreflightRefusesUnwritableFolder(t *testing.T) {
	j, dir := newJournal(t)
	ro := filepath.Join(dir, "ro")
	os.MkdirAll(ro, 0o755)
	r := prepare(t, j, dir, "tx4", &work{files: []project.FileOp{{Path: "ro/a.luau", Data: []byte("x")}}}, nil, nil)
	// A read-only folder: chmod suffices for ordinary users; root ignores modes, so
	// the probe is told what the OS would say.
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	if os.Geteuid() == 0 {
		old := probeWritable
		probeWritable = func(d, name string) error {
			if d == ro {
				return &os.PathError{Op: "open", Path: d, Err: errors.New("read-only file system")}
			}
			return old(d, name)
		}
		defer func() { probeWritable = old }()
	}
	err := r.Preflight()
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

// A path through a symbolic link that leaves the project, or onto a link, is
// refused before Studio is touched.
func TestPreflightRefusesSymlinks(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "x.luau", "outside\n")
	for name, path := range map[string]string{"folder leaving": "out/x.luau", "file link": "link.luau"} {
		t.Run(name, func(t *testing.T) {
			j, dir := newJournal(t)
			if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "x.luau"), filepath.Join(dir, "link.luau")); err != nil {
				t.Fatal(err)
			}
			r := prepare(t, j, dir, "tx5", &work{files: []project.FileOp{{Path: path, Data: []byte("studio\n"), Expect: hash("outside\n")}}}, nil, nil)
			err := r.Preflight()
			if errcode.Of(err) != errcode.ProjectInvalid {
				t.Fatalf("Preflight = %v, want E_PROJECT_INVALID", err)
			}
			if got := read(t, outside, "x.luau"); got != "outside\n" {
				t.Errorf("the file outside changed: %q", got)
			}
		})
	}
}

// A full disk while the journal is written is E_DISK_FULL (reasonCode
// disk_full), and the record does not linger.
func TestJournalDiskFullIsDiskFull(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "old\n")
	old := writeFile
	writeFile = func(name string, data []byte) error {
		return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
	}
	defer func() { writeFile = old }()
	_, err := j.Prepare("tx6", &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir}, &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("new\n"), Expect: hash("old\n")},
	}}, testPlace)
	if errcode.Of(err) != errcode.DiskFull || errcode.As(err).ReasonCode() != errcode.ReasonDiskFull {
		t.Fatalf("Prepare = %v, want E_DISK_FULL disk_full", err)
	}
	if p, _ := j.Pending(); len(p) != 0 {
		t.Errorf("a failed prepare left an open transaction: %v", p)
	}
}

// A host killed during a commit leaves a file aside (its path empty) and
// another's staged copy: recovery finishes the commit from where it stopped and
// leaves no temporary file.
func TestRecoverFinishesAnInterruptedCommit(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "old a\n")
	write(t, dir, "b.luau", "old b\n")
	r := prepare(t, j, dir, "tx7", &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("new a\n"), Expect: hash("old a\n")},
		{Path: "b.luau", Data: []byte("new b\n"), Expect: hash("old b\n")},
	}}, nil, nil)
	if err := r.MarkCommitting(); err != nil {
		t.Fatal(err)
	}
	// What a kill between casfile's steps leaves: a.luau moved aside, b.luau's new
	// bytes staged beside it.
	if err := os.Rename(filepath.Join(dir, "a.luau"), filepath.Join(dir, ".atlas-tx7-a.luau.pre")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".atlas-tx7-b.luau.new", "new b\n")
	write(t, dir, ".atlas-tx7-probe.new", "")
	done, err := j.Recover(t.Context(), func(Place, string) *Connection { return nil })
	if err != nil || len(done) != 1 || done[0].State != stateCommitted {
		t.Fatalf("Recover = %v, %v; want tx7 committed", done, err)
	}
	if a, b := read(t, dir, "a.luau"), read(t, dir, "b.luau"); a != "new a\n" || b != "new b\n" {
		t.Errorf("files = %q, %q", a, b)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A transaction that never reached Studio (prepared or staged when the host died)
// is rolled back automatically, with its temporary files.
func TestRecoverRollsBackWhatWasNeverSent(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "old\n")
	r := prepare(t, j, dir, "tx8", &work{files: []project.FileOp{{Path: "a.luau", Data: []byte("new\n"), Expect: hash("old\n")}}}, nil, nil)
	write(t, dir, ".atlas-tx8-probe.new", "")
	write(t, dir, ".atlas-tx8-a.luau.new", "new\n")
	done, err := j.Recover(t.Context(), func(Place, string) *Connection { return nil })
	if err != nil || len(done) != 1 || done[0].State != stateAborted {
		t.Fatalf("Recover = %v, %v; want tx8 aborted", done, err)
	}
	if got := read(t, dir, "a.luau"); got != "old\n" {
		t.Errorf("a.luau = %q", got)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(r.dir, r.Files[0].Pre)); err != nil {
		t.Errorf("the pre-image left the journal: %v", err)
	}
}

// studioFixture is a place with one script, a transaction that edits its Source
// and writes its file (a push of a disk edit would write no file; a file makes
// the disk side visible).
type studioFixture struct {
	j      *Journal
	dir    string
	r      *record
	studio *dom.Instance
	main   *dom.Instance
}

func newStudioFixture(t *testing.T, id string) *studioFixture {
	t.Helper()
	j, dir := newJournal(t)
	write(t, dir, "src/Main.server.luau", "disk\n")
	root := dom.New("game", "DataModel")
	root.Handle = "h0"
	sss := dom.New("ServerScriptService", "ServerScriptService")
	sss.Handle = "h1"
	main := dom.New("Main", "Script")
	main.Handle = "h2"
	main.Properties.Set("Source", dom.String("old\n"))
	main.SourceHash = hash("old\n")
	root.AddChild(sss)
	sss.AddChild(main)
	ops := []protocol.Op{
		{Op: protocol.OpEdit, Handle: "h2", Expect: &protocol.Expect{SourceSha1: hash("old\n")},
			Set: protocol.Values{"Source": dom.MustMarshal(dom.String("new\n"))}, ChangeID: "c1"},
		{Op: protocol.OpAdd, Parent: "h1", ChangeID: "c2",
			Instance: &protocol.NewInstance{Name: "Added", ClassName: "Folder", Properties: protocol.Values{}}},
	}
	p := &plan.Plan{Hash: "h", Changes: []*plan.Change{{ID: "c1", Path: "ServerScriptService/Main", Studio: main}}}
	r := prepare(t, j, dir, id, &work{ops: ops, files: []project.FileOp{
		{Path: "src/Main.server.luau", Data: []byte("new\n"), Expect: hash("disk\n")},
	}}, root, p)
	if err := r.MarkStudioSent(); err != nil {
		t.Fatal(err)
	}
	return &studioFixture{j: j, dir: dir, r: r, studio: root, main: main}
}

// applyInStudio makes the fixture's place what the patch leaves (both ops, or only
// the edit).
func (f *studioFixture) applyInStudio(both bool) {
	f.main.Properties.Set("Source", dom.String("new\n"))
	f.main.SourceHash = hash("new\n")
	if both {
		added := dom.New("Added", "Folder")
		f.studio.FindChild("ServerScriptService").AddChild(added)
	}
}

type treeProber struct{ root *dom.Instance }

func (p treeProber) Probe(_ context.Context, paths [][]string, _ map[string]map[string]string) ([][]*dom.Instance, error) {
	out := make([][]*dom.Instance, len(paths))
	for i, path := range paths {
		if x := p.root.Find(path...); x != nil {
			out[i] = []*dom.Instance{x}
		}
	}
	return out, nil
}

func (f *studioFixture) connector(sessionID string) Connector {
	return func(place Place, _ string) *Connection {
		if !place.Same(testPlace) {
			return nil
		}
		return &Connection{SessionID: sessionID, Prober: treeProber{f.studio}}
	}
}

// Recovery decides by what Studio holds, whatever the session: all after →
// commit, all before → roll back, mixed → wait for a person; no Studio of the
// place → wait for it.
func TestRecoverByWhatStudioHolds(t *testing.T) {
	cases := []struct {
		name        string
		studio      func(f *studioFixture)
		connected   bool
		wantState   string
		wantWaiting string
		wantFile    string
	}{
		{"after", func(f *studioFixture) { f.applyInStudio(true) }, true, stateCommitted, "", "new\n"},
		{"before", func(f *studioFixture) {}, true, stateAborted, "", "disk\n"},
		{"mixed", func(f *studioFixture) { f.applyInStudio(false) }, true, stateStudioSent, WaitDecision, "disk\n"},
		{"not connected", func(f *studioFixture) { f.applyInStudio(true) }, false, stateStudioSent, WaitStudio, "disk\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newStudioFixture(t, "tx9")
			c.studio(f)
			connect := f.connector("a-new-session")
			if !c.connected {
				connect = func(Place, string) *Connection { return nil }
			}
			if _, err := f.j.Recover(t.Context(), connect); err != nil {
				t.Fatal(err)
			}
			recs, _ := f.j.records(false)
			if len(recs) != 1 || recs[0].State != c.wantState || recs[0].Waiting != c.wantWaiting {
				t.Fatalf("record = %+v, want state %s waiting %q", recs[0], c.wantState, c.wantWaiting)
			}
			if got := read(t, f.dir, "src/Main.server.luau"); got != c.wantFile {
				t.Errorf("file = %q, want %q", got, c.wantFile)
			}
			if left := temps(t, f.dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
			p, _ := f.j.Pending()
			if open := len(p) == 1; open != (c.wantState == stateStudioSent) {
				t.Errorf("pending = %v", p)
			}
		})
	}
}

// sync recover resolves a mixed transaction on a person's word: finish writes
// the files, abort leaves them and reports what Studio still holds.
func TestResolveFinishAndAbort(t *testing.T) {
	for _, action := range []string{ActionFinish, ActionAbort} {
		t.Run(action, func(t *testing.T) {
			f := newStudioFixture(t, "tx10")
			f.applyInStudio(false)
			connect := f.connector("s")
			f.j.Recover(t.Context(), connect)
			shown, err := f.j.Resolve(t.Context(), "", "", connect)
			if err != nil {
				t.Fatal(err)
			}
			if len(shown.Transactions) != 1 || shown.Transactions[0].Studio != SideMixed || shown.Transactions[0].Waiting != WaitDecision {
				t.Fatalf("shown = %+v", shown.Transactions)
			}
			// Paths are shown in order, whatever the order of the patch's ops.
			var paths []string
			for _, s := range shown.Transactions[0].Instances {
				paths = append(paths, s.Path)
			}
			if want := []string{"ServerScriptService/Added", "ServerScriptService/Main"}; !slices.Equal(paths, want) {
				t.Errorf("instances shown = %v, want %v", paths, want)
			}
			res, err := f.j.Resolve(t.Context(), "", action, connect)
			if err != nil {
				t.Fatal(err)
			}
			want, wantFile := stateCommitted, "new\n"
			if action == ActionAbort {
				want, wantFile = stateAborted, "disk\n"
				sides := fmt.Sprint(res.Resolved.Studio)
				if !strings.Contains(sides, "ServerScriptService/Main edit after") || !strings.Contains(sides, "ServerScriptService/Added add before") {
					t.Errorf("studio = %s, want Main at after and Added at before", sides)
				}
			}
			if res.Resolved.State != want || len(res.Transactions) != 0 {
				t.Errorf("resolved = %+v, open = %v", res.Resolved, res.Transactions)
			}
			if got := read(t, f.dir, "src/Main.server.luau"); got != wantFile {
				t.Errorf("file = %q, want %q", got, wantFile)
			}
			if _, err := f.j.Resolve(t.Context(), "", action, connect); errcode.As(err).ReasonCode() != errcode.ReasonNoOpenTransaction {
				t.Errorf("a second resolve = %v, want no_open_transaction", err)
			}
		})
	}
}

// Aborting a transaction caught mid-commit puts back every file it wrote (by
// compare-and-swap) and the one it had moved aside; a file edited since stays.
func TestAbortMidCommitRestoresFiles(t *testing.T) {
	j, dir := newJournal(t)
	write(t, dir, "a.luau", "old a\n")
	write(t, dir, "b.luau", "old b\n")
	write(t, dir, "c.luau", "old c\n")
	r := prepare(t, j, dir, "tx11", &work{files: []project.FileOp{
		{Path: "a.luau", Data: []byte("new a\n"), Expect: hash("old a\n")},
		{Path: "b.luau", Data: []byte("new b\n"), Expect: hash("old b\n")},
		{Path: "c.luau", Data: []byte("new c\n"), Expect: hash("old c\n")},
		{Path: "d.luau", Data: []byte("new d\n")},
	}}, nil, nil)
	r.MarkCommitting()
	root, err := casfile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"a.luau", "c.luau"} {
		if _, err := root.Replace(name, hash("old "+name[:1]+"\n"), []byte("new "+name[:1]+"\n"), casfile.Options{Tag: "tx11"}); err != nil {
			t.Fatal(err)
		}
	}
	root.Create("d.luau", []byte("new d\n"), casfile.Options{Tag: "tx11"})
	os.Rename(filepath.Join(dir, "b.luau"), filepath.Join(dir, ".atlas-tx11-b.luau.pre"))
	write(t, dir, "c.luau", "user c\n")
	res, err := j.Resolve(t.Context(), "tx11", ActionAbort, func(Place, string) *Connection { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"a.luau": "old a\n", "b.luau": "old b\n", "c.luau": "user c\n", "d.luau": "(none)"} {
		if got := read(t, dir, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if len(res.Resolved.Warnings) != 1 || !strings.Contains(res.Resolved.Warnings[0], "c.luau") {
		t.Errorf("warnings = %v, want c.luau kept", res.Resolved.Warnings)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestResolveNeedsATransaction(t *testing.T) {
	j, dir := newJournal(t)
	for _, id := range []string{"tx1", "tx2"} {
		r := prepare(t, j, dir, id, &work{files: []project.FileOp{{Path: id, Data: []byte("x")}}}, nil, nil)
		r.MarkStudioSent()
	}
	none := func(Place, string) *Connection { return nil }
	_, err := j.Resolve(t.Context(), "", ActionFinish, none)
	if ce := errcode.As(err); ce.ReasonCode() != errcode.ReasonSeveralTransactions || len(ce.Details["txIds"].([]string)) != 2 {
		t.Errorf("several open, none named: %v", err)
	}
	if _, err := j.Resolve(t.Context(), "tx3", ActionFinish, none); errcode.Of(err) != errcode.NotFound {
		t.Errorf("an unknown transaction: %v", err)
	}
	if _, err := j.Resolve(t.Context(), "tx1", "later", none); errcode.Of(err) != errcode.BadRequest {
		t.Errorf("an unknown action: %v", err)
	}
}

func TestPruneKeepsTheNewestFinished(t *testing.T) {
	j, dir := newJournal(t)
	for i := 0; i < keepFinished+5; i++ {
		r, err := j.Prepare(fmt.Sprintf("tx%03d", i), &State{Plan: &plan.Plan{Hash: "h"}, Dir: dir},
			&work{files: []project.FileOp{{Path: "a.txt", Data: []byte(fmt.Sprint(i)), Expect: ""}}}, testPlace)
		if err != nil {
			t.Fatal(err)
		}
		r.CreatedAt = r.CreatedAt.Add(time.Duration(i) * time.Millisecond)
		r.saveState()
		if err := r.Stage(); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "a.txt"))
		if _, _, err := r.Commit(); err != nil {
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

// TestRecordEncode: a record with its ops encoded once reads back as json.Marshal
// of the record does, whatever its strings hold.
func TestRecordEncode(t *testing.T) {
	ops := []protocol.Op{
		{Op: protocol.OpEdit, Handle: "h1", Expect: &protocol.Expect{SourceSha1: strings.Repeat("a", 40)},
			Set: protocol.Values{"Source": json.RawMessage(`{"String":"print(\"<ops>\")\n"}`)}, ChangeID: "c1"},
		{Op: protocol.OpAdd, Parent: "h2", Instance: &protocol.NewInstance{Name: `,"ops":null,`, ClassName: "Folder", Properties: protocol.Values{}, Children: []*protocol.NewInstance{}}},
	}
	encoded, err := protocol.EncodeOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	src := "print(\"\u2028 <&>\")\n\t\f\x00 é"
	for _, path := range []string{"src/a.luau", `src/,"ops":null,"studioPreImages":null,.luau`} {
		r := &record{TxID: "tx", State: statePrepared, PlanHash: "sha256:x", ProjectDir: "/p", Ops: ops, opsJSON: encoded,
			Files: []journalFile{{Path: path, New: "new/0"}}, Checks: []instanceCheck{},
			StudioPre: []studioPreImage{
				{ChangeID: "c1", Handle: "h1", Path: "A/<B>", ClassName: "Script", Source: &src, Properties: dom.Properties{"Disabled": dom.Bool(true)}},
				{ChangeID: "c2", Handle: "h2", Path: `,"ops":null,"studioPreImages":null,`, ClassName: "Folder", Properties: dom.Properties{}},
			}}
		got, err := r.encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("encode gave no JSON: %v\n%s", err, got)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("path %q: encode\n%s\njson.Marshal\n%s", path, got, want)
		}
	}
}
