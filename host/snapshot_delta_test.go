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

// A script's editorSha1 comes with its record: a whole snapshot sets it, a delta
// that sends the script again sets or clears it (patched or copied), and the tree
// before the delta keeps its own; a state file keeps it across a host restart.
func TestEditorSha1ThroughDeltas(t *testing.T) {
	rec := func(handle, parent, name, editor string) protocol.SnapshotInstance {
		w := protocol.SnapshotInstance{Handle: handle, Name: name, ClassName: "Script", Properties: protocol.Values{
			"Source": []byte(`{"String":"print(1)\n"}`)}, EditorSha1: editor}
		if parent != "" {
			w.Parent = &parent
		} else {
			w.ClassName = "DataModel"
			w.Properties = protocol.Values{}
		}
		return w
	}
	const sha = "0123456789012345678901234567890123456789"
	whole := &protocol.SnapshotResult{Instances: []protocol.SnapshotInstance{
		rec("h0", "", "game", ""), rec("h1", "h0", "Main", sha), rec("h2", "h0", "Other", ""),
	}}
	tree, err := buildTree(whole, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.FindChild("Main").EditorSha1(); got != sha {
		t.Fatalf("whole snapshot: Main's editorSha1 = %q", got)
	}
	if tree.FindChild("Other").EditorSha1() != "" {
		t.Fatal("Other has an editorSha1")
	}
	index, _ := indexTree(tree)

	// Main again without it (its document closed): patched.
	patched, _, index2, err := applyDelta(tree, index, &protocol.SnapshotResult{Delta: true,
		Instances: []protocol.SnapshotInstance{rec("h1", "h0", "Main", "")}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if patched.FindChild("Main").EditorSha1() != "" || tree.FindChild("Main").EditorSha1() != sha {
		t.Fatalf("patched: %q, before: %q", patched.FindChild("Main").EditorSha1(), tree.FindChild("Main").EditorSha1())
	}
	// Other with it, and a new instance (a copied tree): set on Other only.
	copied, _, _, err := applyDelta(patched, index2, &protocol.SnapshotResult{Delta: true,
		Instances: []protocol.SnapshotInstance{rec("h2", "h0", "Other", sha), rec("h3", "h0", "New", "")},
		Children:  map[string][]string{"h0": {"h1", "h2", "h3"}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if copied.FindChild("Other").EditorSha1() != sha || copied.FindChild("Main").EditorSha1() != "" || patched.FindChild("Other").EditorSha1() != "" {
		t.Fatal("the copied delta's editorSha1s are wrong, or the tree before it changed")
	}

	// Kept across a restart.
	path := t.TempDir() + "/studio.snapshot"
	c := newStudioCache()
	c.tree, c.session, c.snapshotID = copied, "s", "id"
	if err := c.save(path); err != nil {
		t.Fatal(err)
	}
	r := newStudioCache()
	if err := r.restore(path); err != nil {
		t.Fatal(err)
	}
	if r.tree.FindChild("Other").EditorSha1() != sha || r.tree.FindChild("Main").EditorSha1() != "" {
		t.Fatal("the restored tree lost its editorSha1")
	}
}
