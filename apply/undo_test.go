package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/protocol"
)

type treeLocator struct{ root *dom.Instance }

func (l treeLocator) Locate(_ context.Context, paths [][]string, _ []bool) ([]*dom.Instance, error) {
	out := make([]*dom.Instance, len(paths))
	for i, p := range paths {
		out[i] = l.root.Find(p...)
	}
	return out, nil
}

// editingStudio applies undo's patch, and meanwhile the user saves a file.
type editingStudio struct {
	during func()
	ops    []protocol.Op
}

func (s *editingStudio) Apply(_ context.Context, _ string, ops []protocol.Op, _ []byte) error {
	s.ops = ops
	s.during()
	return nil
}
func (s *editingStudio) Transactions(context.Context) ([]string, error) { return nil, nil }

// A file edited while undo runs (after its check, before its write) is kept and
// reported, never overwritten; the others go back to their pre-images.
func TestUndoKeepsAnEditMadeWhileItRuns(t *testing.T) {
	f := newStudioFixture(t, "tx12")
	write(t, f.dir, "other.luau", "other old\n")
	// A second file in the same transaction: rebuild the fixture's record with it.
	f.r.Files = append(f.r.Files, journalFile{Path: "other.luau", Expect: hash("other old\n"), NewHash: hash("other new\n")})
	f.r.stageData = append(f.r.stageData, f.r.stageData[0])
	f.r.stageData[1].Path, f.r.stageData[1].Data = "other.luau", []byte("other new\n")
	f.r.Files[1].Pre, f.r.Files[1].PreHash = "pre/1", hash("other old\n")
	write(t, f.r.dir, "pre/1", "other old\n")
	if err := f.r.save(); err != nil {
		t.Fatal(err)
	}
	f.applyInStudio(true)
	if err := f.r.MarkCommitting(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.r.Commit(); err != nil {
		t.Fatal(err)
	}
	studio := &editingStudio{during: func() { write(t, f.dir, "src/Main.server.luau", "user\n") }}
	res, err := f.j.Undo(t.Context(), "", studio, treeLocator{f.studio})
	if err != nil {
		t.Fatal(err)
	}
	if len(studio.ops) != 2 {
		t.Errorf("Studio ops = %d, want the edit reverted and the add removed", len(studio.ops))
	}
	if got := read(t, f.dir, "src/Main.server.luau"); got != "user\n" {
		t.Errorf("the edit made during the undo was lost: %q", got)
	}
	if got := read(t, f.dir, "other.luau"); got != "other old\n" {
		t.Errorf("other.luau = %q, want its pre-image", got)
	}
	actions := map[string]string{}
	for _, fc := range res.Files {
		actions[fc.Path] = fc.Action
	}
	if actions["src/Main.server.luau"] != "kept" || actions["other.luau"] != "restore" {
		t.Errorf("files = %v", res.Files)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "src/Main.server.luau") {
		t.Errorf("warnings = %v", res.Warnings)
	}
	if left := temps(t, f.dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
