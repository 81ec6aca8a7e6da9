package host

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// A kept snapshot whose editor texts name a handle its tree does not hold is refused,
// and the cache stays as it was: a file that cannot be used changes nothing.
func TestRestoreOfABadFileChangesNothing(t *testing.T) {
	tree := &dom.Instance{Name: "Game", ClassName: "DataModel", Handle: "h1"}
	tree.AddChild(&dom.Instance{Name: "Main", ClassName: "Script", Handle: "h2"})
	var e dom.Encoder
	e.Text("session")
	e.Text("snap-1")
	e.Text("{}")
	if err := e.Instance(tree); err != nil {
		t.Fatal(err)
	}
	e.Uvarint(1)
	e.Text("h9") // no instance has it
	e.Text("0123456789012345678901234567890123456789")
	path := filepath.Join(t.TempDir(), studioStateFile)
	if err := statefile.Write(path, studioStateKind, studioStateVersion, e.Bytes()); err != nil {
		t.Fatal(err)
	}
	c := newStudioCache()
	c.session, c.snapshotID = "before", "snap-0"
	if err := c.restore(path); !errors.Is(err, dom.ErrCorrupt) {
		t.Fatalf("restore = %v, want ErrCorrupt", err)
	}
	if c.session != "before" || c.snapshotID != "snap-0" || c.tree != nil || c.index != nil || c.restored {
		t.Errorf("the cache changed: session %q, snapshot %q, tree %v, restored %v", c.session, c.snapshotID, c.tree != nil, c.restored)
	}
}
