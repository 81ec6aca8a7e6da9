package host

import (
	"errors"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/protocol"
)

// A delta that sets a property of an instance whose ancestor an earlier delta
// removed (its handle may linger in the cache's index) is not patched onto the
// removed subtree: it does not fit the tree, and the whole snapshot is asked for.
func TestDeltaOnRemovedSubtreeIsStale(t *testing.T) {
	rec := func(handle, parent, name string) protocol.SnapshotInstance {
		w := protocol.SnapshotInstance{Handle: handle, Name: name, ClassName: "Folder", Properties: protocol.Values{}}
		if parent != "" {
			w.Parent = &parent
		}
		return w
	}
	whole := &protocol.SnapshotResult{Instances: []protocol.SnapshotInstance{
		rec("h0", "", "game"), rec("h1", "h0", "A"), rec("h2", "h1", "B"), rec("h3", "h2", "C"), rec("h4", "h0", "D"),
	}}
	tree, err := buildTree(whole, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]*dom.Instance{}
	tree.Walk(func(x *dom.Instance) bool { index[x.Handle] = x; return true })

	// A goes, with B and C under it.
	removed, _, index, err := applyDelta(tree, index, &protocol.SnapshotResult{Delta: true, Removed: []string{"h1"},
		Children: map[string][]string{"h0": {"h4"}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if removed.FindChild("A") != nil {
		t.Fatal("A is still in the tree")
	}
	// C, under the removed B, gets a property.
	c := rec("h3", "h2", "C")
	c.Properties["Name"] = []byte(`{"String":"C"}`)
	got, _, _, err := applyDelta(removed, index, &protocol.SnapshotResult{Delta: true, Instances: []protocol.SnapshotInstance{c}}, nil, nil)
	if !errors.Is(err, errStaleReuse) {
		t.Fatalf("applyDelta = %v, %v; want errStaleReuse", got, err)
	}

	// A property of D, which is in the tree, is patched, sharing the rest.
	d := rec("h4", "h0", "D")
	d.Properties["Value"] = []byte(`{"String":"x"}`)
	patched, touched, _, err := applyDelta(removed, index, &protocol.SnapshotResult{Delta: true, Instances: []protocol.SnapshotInstance{d}}, nil, nil)
	if err != nil || patched == nil || len(touched) != 1 {
		t.Fatalf("applyDelta = %v, %v, %v", patched, touched, err)
	}
	if patched == removed || patched.FindChild("D") == removed.FindChild("D") {
		t.Error("the root and D were not copied")
	}
	if removed.FindChild("D").Properties.Get("Value") != nil {
		t.Error("the tree before the delta changed")
	}
}
