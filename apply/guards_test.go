package apply

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// Two changes of one transaction never write one file: refused with
// duplicate_name, naming the other; folders are shared freely; where the file
// system folds case, paths that differ in case are one file.
func TestClaimRefusesASecondWriterOfAFile(t *testing.T) {
	a := &plan.Change{ID: "a", Path: "RS/Foo"}
	b := &plan.Change{ID: "b", Path: "RS/foo"}
	for _, tc := range []struct {
		name     string
		foldCase bool
		second   string
		refused  bool
	}{
		{"same path", false, "src/Foo.luau", true},
		{"paths differing in case, case-sensitive", false, "src/foo.luau", false},
		{"paths differing in case, folding", true, "src/foo.luau", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, w := newPullSet(&State{FoldCase: tc.foldCase}), &work{}
			if err := set.claim(w, a, []project.FileOp{{Path: "src", Dir: true}, {Path: "src/Foo.luau"}}); err != nil {
				t.Fatal(err)
			}
			err := set.claim(w, b, []project.FileOp{{Path: "src", Dir: true}, {Path: tc.second}})
			if !tc.refused {
				if err != nil || len(w.files) != 4 {
					t.Fatalf("claim = %v, files %+v", err, w.files)
				}
				return
			}
			if len(w.files) != 2 {
				t.Errorf("files after the refused claim = %+v, want the first change's alone", w.files)
			}
			ce := errcode.As(err)
			if ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonDuplicateName {
				t.Fatalf("claim = %v", err)
			}
			dups, _ := ce.Details["duplicates"].([]plan.Duplicate)
			if len(dups) != 1 || dups[0].ID != "b" || dups[0].Siblings[0].ID != "a" {
				t.Fatalf("duplicates = %+v", ce.Details["duplicates"])
			}
		})
	}
}

// Two pulls that edit one file (two nodes of a project file) write it once, with
// both edits, guarded by its bytes before either; later reads see the first edit.
func TestClaimMergesEditsOfOneFile(t *testing.T) {
	a := &plan.Change{ID: "a", Path: "Lighting"}
	b := &plan.Change{ID: "b", Path: "Workspace/Marker"}
	set, w := newPullSet(&State{FS: fstest.MapFS{"default.project.json": {Data: []byte("v0")}}}), &work{}
	if err := set.claim(w, a, []project.FileOp{{Path: "default.project.json", Data: []byte("v1"), Expect: "h0"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := fs.ReadFile(set.fsys, "default.project.json"); string(got) != "v1" {
		t.Fatalf("the second pull reads %q, want the first one's edit", got)
	}
	if err := set.claim(w, b, []project.FileOp{{Path: "default.project.json", Data: []byte("v2"), Expect: "h1"}}); err != nil {
		t.Fatal(err)
	}
	if len(w.files) != 1 || string(w.files[0].Data) != "v2" || w.files[0].Expect != "h0" {
		t.Fatalf("files = %+v, want one write of v2 expecting h0", w.files)
	}
	// A deletion of the file by a third change is still refused.
	c := &plan.Change{ID: "c", Path: "Other"}
	if err := set.claim(w, c, []project.FileOp{{Path: "default.project.json", Delete: true, Expect: "h2"}}); errcode.As(err).ReasonCode() != errcode.ReasonDuplicateName {
		t.Errorf("a deletion of the edited file: %v, want duplicate_name", err)
	}
}

// The blob ids checksOf records for what Studio will hold come from the disk
// scripts' SourceHash: they must be the ids of the very Sources the ops write,
// CRLF files (whose Source is their text with LF) included, for an edit, an add and
// a class change.
func TestBuildHashesWhatItWrites(t *testing.T) {
	fsys := fstest.MapFS{
		"default.project.json":      {Data: []byte(`{"name":"P","tree":{"$className":"DataModel","RS":{"$className":"Folder","$path":"src"}}}`)},
		"src/Edited.luau":           {Data: []byte("local a = 1\r\nreturn a\r\n")},
		"src/Added.luau":            {Data: []byte("return 'new'\n")},
		"src/Reclassed.server.luau": {Data: []byte("print('x')\r\n")},
	}
	p, err := project.Load(fsys, "default.project.json", project.Options{})
	if err != nil {
		t.Fatal(err)
	}
	disk := p.Root.Index()
	find := func(name string) *dom.Instance {
		for _, x := range disk {
			if x.Name == name {
				return x
			}
		}
		t.Fatalf("no %s on disk", name)
		return nil
	}
	studio := dom.New("game", "DataModel")
	studio.Handle = "h0"
	rs := dom.New("RS", "Folder")
	rs.ID, rs.Handle = find("RS").ID, "h1"
	studio.AddChild(rs)
	old := func(name, class string, handle string) *dom.Instance {
		x := dom.New(name, class)
		x.ID, x.Handle = find(name).ID, handle
		x.Properties.Set("Source", dom.String("old\n"))
		x.SourceHash = gitblob.Hash([]byte("old\n"))
		rs.AddChild(x)
		return x
	}
	edited, reclassed := old("Edited", "ModuleScript", "h2"), old("Reclassed", "ModuleScript", "h3")
	changes := []*plan.Change{
		{ID: "e", Path: "RS/Edited", PatchType: plan.Edit, Fields: []string{"Source"}, Disk: find("Edited"), Studio: edited},
		{ID: "a", Path: "RS/Added", PatchType: plan.Add, Disk: find("Added")},
		{ID: "r", Path: "RS/Reclassed", PatchType: plan.Edit, Fields: []string{"ClassName", "Source"}, Disk: find("Reclassed"), Studio: reclassed},
	}
	var actions []action
	for _, c := range changes {
		actions = append(actions, action{change: c, dir: plan.Push})
	}
	w, err := build(&State{Project: p, Studio: studio}, actions)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for i, op := range w.ops {
		raw := op.Set["Source"]
		if op.Instance != nil {
			raw = op.Instance.Properties["Source"]
		}
		src, ok := sourceOf(raw)
		if !ok {
			if _, noted := w.sourceHashes[i]; noted {
				t.Errorf("op %d writes no Source, yet has a hash", i)
			}
			continue
		}
		written++
		if got, want := w.sourceHashes[i], gitblob.Hash([]byte(src)); got != want {
			t.Errorf("op %d (%s %s): hash %s, want %s of %q", i, op.Op, op.ChangeID, got, want, src)
		}
	}
	if written != 3 {
		t.Fatalf("%d ops write a Source, want 3: %+v", written, w.ops)
	}
}

// TestOverrideExpectations: Name and ClassName are checked against the instance, a
// property Studio has no value for fails with a null actual (not the text "null"),
// and a property the plan does not compare, or a Source, is a malformed request.
func TestOverrideExpectations(t *testing.T) {
	studio := &dom.Instance{ID: "p", Name: "Brick", ClassName: "Part", Properties: dom.PropsOf(dom.Properties{"Anchored": dom.Bool(true)})}
	disk := &dom.Instance{ID: "p", Name: "Brick", ClassName: "Part", Properties: dom.PropsOf(dom.Properties{"Anchored": dom.Bool(false), "Color": dom.Color3{1, 0, 0}})}
	c := &plan.Change{ID: "p", ClassName: "Part", Studio: studio, Disk: disk}
	p := &plan.Plan{Changes: []*plan.Change{c}}
	ok := Override{ID: "p", ExpectedProperties: map[string]json.RawMessage{
		"Name": json.RawMessage(`"Brick"`), "ClassName": json.RawMessage(`"Part"`), "Anchored": json.RawMessage(`true`)}}
	if bad := malformedExpectations(p, []Override{ok}); len(bad) != 0 {
		t.Fatalf("malformed = %v", bad)
	}
	if f := checkOverride(c, ok); len(f) != 0 {
		t.Errorf("failures with the values Studio has = %v", f)
	}
	wrong := Override{ID: "p", ExpectedProperties: map[string]json.RawMessage{
		"Name": json.RawMessage(`"Other"`), "Color": json.RawMessage(`{"Color3":[1,0,0]}`)}}
	f := checkOverride(c, wrong)
	if len(f) != 2 || f[0]["field"] != "properties.Color" || f[0]["actual"] != nil || f[1]["field"] != "properties.Name" || f[1]["actual"] != `{"String":"Brick"}` {
		t.Errorf("failures = %v, want Color with a null actual and Name with Brick", f)
	}
	// A value of another type than Studio's is malformed, never a precondition.
	if bad := malformedExpectations(p, []Override{{ID: "p", ExpectedProperties: map[string]json.RawMessage{"Anchored": json.RawMessage(`{"Float32":1}`)}}}); len(bad) != 1 {
		t.Errorf("Anchored expected as a Float32: malformed = %v, want it refused", bad)
	}
	// null expects no value: it holds where Studio has none, and fails where it has one.
	absent := Override{ID: "p", ExpectedProperties: map[string]json.RawMessage{"Color": json.RawMessage(`null`), "Anchored": json.RawMessage(`null`)}}
	if bad := malformedExpectations(p, []Override{absent}); len(bad) != 0 {
		t.Fatalf("null expectations: malformed = %v", bad)
	}
	if f := checkOverride(c, absent); len(f) != 1 || f[0]["field"] != "properties.Anchored" || f[0]["expected"] != "null" || f[0]["actual"] != `{"Bool":true}` {
		t.Errorf("null expectations: failures = %v, want Anchored's alone", f)
	}
	for _, name := range []string{"Transparency", "Source"} {
		bad := malformedExpectations(p, []Override{{ID: "p", ExpectedProperties: map[string]json.RawMessage{name: json.RawMessage(`0`)}}})
		if len(bad) != 1 || bad[0]["property"] != name {
			t.Errorf("expecting %s: malformed = %v, want it refused", name, bad)
		}
	}
}

// A refusal with Script Editor failures only is studio_unsaved_edit; mixed with other
// failures, the other reason stands and saving the scripts is one more next action.
func TestWithEditorReason(t *testing.T) {
	editor := map[string]any{"op": 0.0, "field": "Source", "editor": true, "id": "a", "path": "P/Main"}
	moved := map[string]any{"op": 1.0, "field": "Descendants", "id": "b", "path": "P/Folder"}
	only := withEditorReason(errcode.New(errcode.PreconditionFailed, "1 preconditions failed").
		Reason(errcode.ReasonStudioMoved, errcode.NextReplan).With("failures", []any{editor}))
	if ce := errcode.As(only); ce.ReasonCode() != errcode.ReasonStudioUnsavedEdit ||
		!slices.Equal(ce.NextActions(), []errcode.NextAction{errcode.NextSaveInStudio, errcode.NextPassOverride}) ||
		!strings.Contains(ce.Message, "P/Main") {
		t.Errorf("editor only: %v %v %v", ce, ce.ReasonCode(), ce.NextActions())
	}
	mixed := withEditorReason(errcode.New(errcode.PreconditionFailed, "2 preconditions failed").
		Reason(errcode.ReasonRemoveLosesChildren, errcode.NextPassOverride, errcode.NextReplan).With("failures", []any{editor, moved}))
	if ce := errcode.As(mixed); ce.ReasonCode() != errcode.ReasonRemoveLosesChildren ||
		!slices.Equal(ce.NextActions(), []errcode.NextAction{errcode.NextPassOverride, errcode.NextReplan, errcode.NextSaveInStudio}) ||
		!strings.Contains(ce.Message, "P/Main") {
		t.Errorf("mixed: %v %v %v", ce, ce.ReasonCode(), ce.NextActions())
	}
}
