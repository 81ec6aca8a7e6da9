package plan

import (
	"testing"

	"github.com/atlas-rbx/atlas/dom"
)

// A memo reuses the results of subtrees whose disk and Studio instances are the
// same as in the previous Compute, and only while the base is the same tree; the
// plan is the one Compute gives without it, and the guards' changes to a plan do
// not reach the memo.
func TestMemoReusesOnlyWhatIsTheSame(t *testing.T) {
	disk, studio, base := tree(v2, "script"), tree(v1, "script"), tree(v1, "script")
	in := Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c", SessionID: "s", Memo: &Memo{}}
	first := Compute(in)
	if got := in.Memo.Stats(); got.Reused != 0 || got.Compared == 0 {
		t.Fatalf("first compute: %+v, want everything compared", got)
	}
	first.Changes[0].Direction = Pull // as a guard or a caller might
	again := Compute(in)
	if got := in.Memo.Stats(); got.Reused != 1 || got.Compared != 0 {
		t.Errorf("same trees: %+v, want the root's result reused", got)
	}
	want := Compute(Input{Disk: disk, Studio: studio, Base: base, BaseCommit: "c", SessionID: "s"})
	if again.Hash != want.Hash || again.Changes[0].Direction != Push {
		t.Errorf("memo plan %s (direction %q), want %s (push)", again.Hash, again.Changes[0].Direction, want.Hash)
	}

	// Another base tree with the same content: nothing is reused.
	in.Base = tree(v1, "script")
	Compute(in)
	if got := in.Memo.Stats(); got.Reused != 0 {
		t.Errorf("new base: %+v, want nothing reused", got)
	}

	// A new Studio root that shares ServerScriptService: that subtree is reused.
	root := *studio
	root.Children = append([]*dom.Instance(nil), studio.Children...)
	in.Studio = &root
	if p := Compute(in); p.Hash != want.Hash {
		t.Errorf("shared subtree: hash %s, want %s", p.Hash, want.Hash)
	}
	if got := in.Memo.Stats(); got.Reused != 1 || got.Compared != 1 {
		t.Errorf("new Studio root: %+v, want its child's result reused and the root compared", got)
	}
}
