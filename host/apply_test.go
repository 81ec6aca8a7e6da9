package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/protocol"
)

// world is everything a refusal must leave alone: every project file's hash and
// Studio's whole DataModel.
type world struct {
	Files map[string]string
	Place string
}

func snapshotWorld(t *testing.T, e *hosttest.Env) world {
	t.Helper()
	w := world{Files: map[string]string{}}
	filepath.WalkDir(e.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(e.Dir, p)
		if d.IsDir() {
			w.Files[rel+"/"] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		w.Files[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	b, _ := json.Marshal(e.Plugin.Place())
	w.Place = string(b)
	return w
}

func assertUnchanged(t *testing.T, e *hosttest.Env, before world) {
	t.Helper()
	after := snapshotWorld(t, e)
	if d := cmp.Diff(before.Files, after.Files); d != "" {
		t.Errorf("disk changed (-before +after):\n%s", d)
	}
	if before.Place != after.Place {
		t.Errorf("Studio's DataModel changed:\nbefore %s\nafter  %s", before.Place, after.Place)
	}
}

// studioEdit changes Studio through the plugin protocol, as a person typing in Studio would.
func studioEdit(t *testing.T, e *hosttest.Env, path []string, source string) {
	t.Helper()
	s, err := e.Host.Bridge().Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var snap struct {
		Instances []struct {
			Handle string `json:"handle"`
			Name   string `json:"name"`
		} `json:"instances"`
	}
	if err := s.Call(ctx, "snapshot", map[string]any{"roots": [][]string{path}, "nodes": [][]string{}, "properties": map[string]any{}}, &snap); err != nil {
		t.Fatal(err)
	}
	handle := snap.Instances[len(snap.Instances)-1].Handle
	op := map[string]any{"op": "edit", "handle": handle, "set": map[string]any{"Source": map[string]string{"String": source}}}
	if err := s.Call(ctx, "apply", map[string]any{"txId": "person-" + time.Now().Format("150405.000000"), "ops": []any{op}}, nil); err != nil {
		t.Fatal(err)
	}
}

func mustCode(t *testing.T, err error, want errcode.Code) *errcode.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", want)
	}
	ce := errcode.As(err)
	if ce.Code != want {
		t.Fatalf("error %s (%s), want %s", ce.Code, ce.Message, want)
	}
	if _, ok := ce.Details["reasonCode"]; !ok {
		t.Errorf("%s has no details.reasonCode", want)
	}
	if _, ok := ce.Details["nextActions"]; !ok {
		t.Errorf("%s has no details.nextActions", want)
	}
	return ce
}

// conflicted starts a host where Util was edited on disk and in Studio and Main on disk.
func conflicted(t *testing.T) (*hosttest.Env, *host.PlanData) {
	e := hosttest.Start(t, nil, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = true }\n")
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = true }\n")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('disk')\n")
	d, err := e.Host.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.Unresolved != 1 || d.Summary.Push != 1 {
		t.Fatalf("summary %+v", d.Summary)
	}
	return e, d
}

func unresolvedID(d *host.PlanData) string {
	for _, c := range d.Changes {
		if !c.Resolved() {
			return c.ID
		}
	}
	return ""
}

func TestApplyRefusalsChangeNothing(t *testing.T) {
	ctx := context.Background()
	doApply := func(e *hosttest.Env, req host.ApplyRequest) error {
		_, err := e.Host.Apply(ctx, req)
		return err
	}
	cases := []struct {
		name    string
		prepare func(t *testing.T, e *hosttest.Env, d *host.PlanData)
		run     func(t *testing.T, e *hosttest.Env, d *host.PlanData) error
		want    errcode.Code
	}{
		{name: "no token", want: errcode.ConfirmTokenRequired, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{})
		}},
		{name: "forged token", want: errcode.ConfirmTokenInvalid, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			parts := strings.Split(d.ConfirmToken, ".")
			return doApply(e, host.ApplyRequest{Token: parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))})
		}},
		{name: "token of another project", want: errcode.ConfirmTokenInvalid, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			other, od := conflicted(t)
			_ = other
			return doApply(e, host.ApplyRequest{Token: od.ConfirmToken, SkipUnresolved: true})
		}},
		{name: "garbage override", want: errcode.BadRequest, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "sideways"}}})
		}},
		{name: "override of an unknown id", want: errcode.OverrideUnknownID, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: strings.Repeat("ab", 16), Direction: "push"}}})
		}},
		{name: "unresolved", want: errcode.Unresolved, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken})
		}},
		{name: "override with a stale studioHash", want: errcode.PreconditionFailed, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			h := gitblob.Hash([]byte("something else\n"))
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push", StudioHash: &h}}})
		}},
		{name: "override with wrong expectedProperties", want: errcode.PreconditionFailed, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push",
				ExpectedProperties: map[string]json.RawMessage{"Name": json.RawMessage(`"Nope"`)}}}})
		}},
		{name: "override expecting a Source (its hash is the precondition)", want: errcode.BadRequest, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push",
				ExpectedProperties: map[string]json.RawMessage{"Source": json.RawMessage(`"nope"`)}}}})
		}},
		{name: "override expecting a property the plan does not compare", want: errcode.BadRequest, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push",
				ExpectedProperties: map[string]json.RawMessage{"Disabled": json.RawMessage(`false`)}}}})
		}},
		{name: "override expecting a property the class has not", want: errcode.BadRequest, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push",
				ExpectedProperties: map[string]json.RawMessage{"Nope": json.RawMessage(`1`)}}}})
		}},
		{name: "override expecting a value of another type", want: errcode.BadRequest, run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
			return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: unresolvedID(d), Direction: "push",
				ExpectedProperties: map[string]json.RawMessage{"Disabled": json.RawMessage(`"abc"`)}}}})
		}},
		{name: "studio edit between plan and apply", want: errcode.ConfirmTokenMismatch,
			prepare: func(t *testing.T, e *hosttest.Env, d *host.PlanData) {
				studioEdit(t, e, []string{"ServerScriptService", "Main"}, "print('typed in studio')\n")
			},
			run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
				return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
			}},
		{name: "disk edit between plan and apply", want: errcode.ConfirmTokenMismatch,
			prepare: func(t *testing.T, e *hosttest.Env, d *host.PlanData) {
				hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('edited again')\n")
			},
			run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
				return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
			}},
		{name: "replayed token", want: errcode.ConfirmTokenReplayed,
			prepare: func(t *testing.T, e *hosttest.Env, d *host.PlanData) {
				// Resolve everything by skipping it: the apply succeeds and spends the token
				// without writing, so the same plan is still current.
				if err := doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: skipAll(d)}); err != nil {
					t.Fatal(err)
				}
			},
			run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
				return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, Overrides: skipAll(d)})
			}},
		{name: "expired token", want: errcode.ConfirmTokenExpired,
			prepare: func(t *testing.T, e *hosttest.Env, d *host.PlanData) {
				short, err := e.Host.Plan(ctx, host.PlanRequest{TTL: time.Second})
				if err != nil {
					t.Fatal(err)
				}
				d.ConfirmToken = short.ConfirmToken
				time.Sleep(3500 * time.Millisecond) // past exp + the 2 s leeway
			},
			run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
				return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
			}},
		{name: "plugin disconnects during apply", want: errcode.StudioNotConnected,
			prepare: func(t *testing.T, e *hosttest.Env, d *host.PlanData) { e.Plugin.DropNextRequest("apply") },
			run: func(t *testing.T, e *hosttest.Env, d *host.PlanData) error {
				return doApply(e, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, d := conflicted(t)
			if tc.prepare != nil {
				tc.prepare(t, e, d)
			}
			before := snapshotWorld(t, e)
			err := tc.run(t, e, d)
			mustCode(t, err, tc.want)
			assertUnchanged(t, e, before)
		})
	}
}

func skipAll(d *host.PlanData) []apply.Override {
	var out []apply.Override
	for _, c := range d.Changes {
		out = append(out, apply.Override{ID: c.ID, Direction: "skip"})
	}
	return out
}

func TestMismatchListsWhatMoved(t *testing.T) {
	e, d := conflicted(t)
	hosttest.Write(t, e.Dir, "src/shared/New.luau", "return 1\n")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('again')\n")
	_, err := e.Host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	ce := mustCode(t, err, errcode.ConfirmTokenMismatch)
	// Each moved change is named by id and by path.
	if got := ce.Details["appeared"].([]apply.Moved); len(got) != 1 || got[0].ID == "" || got[0].Path != "ReplicatedStorage/Shared/New" {
		t.Errorf("appeared = %+v, want the new script by id and path", got)
	}
	if got := ce.Details["changed"].([]apply.Moved); len(got) != 1 || got[0].ID == "" || got[0].Path != "ServerScriptService/Main" {
		t.Errorf("changed = %+v, want Main by id and path", got)
	}
}

// TestMismatchSaysTheBaseMoved: a token refused only because HEAD moved (a commit of
// a file the plan does not see) says so, with both commits.
func TestMismatchSaysTheBaseMoved(t *testing.T) {
	e, d := conflicted(t)
	hosttest.Write(t, e.Dir, "notes.md", "not part of the project\n")
	hosttest.Git(t, e.Dir, "add", "notes.md")
	hosttest.Git(t, e.Dir, "commit", "-qm", "notes")
	_, err := e.Host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	ce := mustCode(t, err, errcode.ConfirmTokenMismatch)
	moved, ok := ce.Details["baseMoved"].(map[string]any)
	head := strings.TrimSpace(hosttest.Git(t, e.Dir, "rev-parse", "HEAD"))
	if !ok || moved["from"] != d.Base.Commit || moved["to"] != head {
		t.Errorf("details.baseMoved = %v, want from %s to %s", ce.Details["baseMoved"], d.Base.Commit, head)
	}
	if !strings.Contains(ce.Message, "base commit moved") {
		t.Errorf("message %q does not say the base moved", ce.Message)
	}
}

func TestDisconnectedApplyRollsBackOnReconnect(t *testing.T) {
	ctx := context.Background()
	e, d := conflicted(t)
	e.Plugin.DropNextRequest("apply")
	before := snapshotWorld(t, e)
	_, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, SkipUnresolved: true})
	mustCode(t, err, errcode.StudioNotConnected)
	st, _ := e.Host.Status(ctx)
	if len(st.Pending) != 1 {
		t.Fatalf("pending transactions = %v, want 1", st.Pending)
	}
	// The plugin comes back: it never applied the transaction, so it is rolled back.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := e.Plugin.Connect(cctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, _ = e.Host.Status(ctx)
		if len(st.Pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still pending after reconnect: %v", st.Pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	assertUnchanged(t, e, before)
	// And a fresh plan applies cleanly.
	d2, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d2.ConfirmToken, SkipUnresolved: true}); err != nil {
		t.Fatal(err)
	}
}

func TestConflictResolvedWithStudioHashThenEmpty(t *testing.T) {
	ctx := context.Background()
	e, d := conflicted(t)
	id := unresolvedID(d)
	s, err := e.Host.Script(ctx, host.ScriptRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: id, Direction: "pull", StudioHash: &s.StudioHash}}}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Util.luau"))
	if string(got) != "return { studio = true }\n" {
		t.Errorf("pulled file = %q", got)
	}
	if src := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); src != "print('disk')\n" {
		t.Errorf("pushed Studio source = %q", src)
	}
	d2, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Changes) != 0 {
		t.Fatalf("plan after apply has %d changes", len(d2.Changes))
	}
}

func TestNewAndDeletedInstancesBothWays(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, func(p *bridgetest.Place) {
		shared := p.Find("ReplicatedStorage", "Shared")
		n := &bridgetest.Node{Name: "FromStudio", ClassName: "ModuleScript", Properties: map[string]json.RawMessage{}}
		n.SetSource("return 'studio'\n")
		shared.Children = append(shared.Children, n)
		// Main deleted in Studio.
		sss := p.Find("ServerScriptService")
		sss.Children = nil
	})
	hosttest.Write(t, e.Dir, "src/shared/FromDisk.luau", "return 'disk'\n")
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, c := range d.Changes {
		reasons[c.Path] = string(c.Reason) + "/" + string(c.Direction)
	}
	want := map[string]string{
		"ReplicatedStorage/Shared/FromDisk":   "new_on_disk/push",
		"ReplicatedStorage/Shared/FromStudio": "new_in_studio/pull",
		"ServerScriptService/Main":            "deleted_in_studio/pull",
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Fatalf("changes (-want +got):\n%s", diff)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(e.Dir, "src/shared/FromStudio.luau")); err != nil || string(b) != "return 'studio'\n" {
		t.Errorf("pulled new script: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.Dir, "src/server/Main.server.luau")); !os.IsNotExist(err) {
		t.Errorf("Main.server.luau still exists after pulling its deletion: %v", err)
	}
	if n := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "FromDisk"); n == nil || n.Source() != "return 'disk'\n" {
		t.Errorf("pushed new script: %+v", n)
	}
	d2, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Changes) != 0 {
		b, _ := json.MarshalIndent(d2.Changes, "", " ")
		t.Fatalf("plan after apply:\n%s", b)
	}
}

func TestUndoPutsBothSidesBack(t *testing.T) {
	ctx := context.Background()
	e, d := conflicted(t)
	id := unresolvedID(d)
	before := snapshotWorld(t, e)
	s, err := e.Host.Script(ctx, host.ScriptRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Write(t, e.Dir, "src/shared/New.luau", "return 'new'\n")
	d, err = e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: []apply.Override{{ID: id, Direction: "pull", StudioHash: &s.StudioHash}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "New"); n == nil {
		t.Fatal("the new script was not pushed")
	}
	u, err := e.Host.Undo(ctx, host.UndoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if u.TxID != res.TxID || u.StudioOps != 2 {
		t.Errorf("undo = %+v, want tx %s with 2 Studio ops", u, res.TxID)
	}
	os.Remove(filepath.Join(e.Dir, "src/shared/New.luau"))
	assertUnchanged(t, e, before)
	// Undone once; a second undo has nothing left.
	_, err = e.Host.Undo(ctx, host.UndoRequest{})
	mustCode(t, err, errcode.NotFound)
}

// pushedMain starts a host and syncs an edit of Main made on disk ("print('v2')").
func pushedMain(t *testing.T) (*hosttest.Env, *host.ApplyData) {
	t.Helper()
	e := hosttest.Start(t, nil, nil)
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	d, err := e.Host.Plan(context.Background(), host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Host.Apply(context.Background(), host.ApplyRequest{Token: d.ConfirmToken})
	if err != nil {
		t.Fatal(err)
	}
	return e, res
}

func TestUndoRefusesWhenThingsMoved(t *testing.T) {
	ctx := context.Background()
	e, res := pushedMain(t)
	studioEdit(t, e, []string{"ServerScriptService", "Main"}, "print('typed after the sync')\n")
	before := snapshotWorld(t, e)
	_, err := e.Host.Undo(ctx, host.UndoRequest{})
	ce := mustCode(t, err, errcode.PreconditionFailed)
	assertUnchanged(t, e, before)
	// The same refusal as a file changed since: changed_since, naming the transaction.
	if ce.ReasonCode() != errcode.ReasonChangedSince || ce.Details["txId"] == nil {
		t.Errorf("refusal = %s %v, want changed_since with the txId", ce.ReasonCode(), ce.Details)
	}
	// The message names what changed, for a person who reads no JSON.
	if !strings.Contains(ce.Message, "ServerScriptService/Main") {
		t.Errorf("refusal message %q does not name ServerScriptService/Main", ce.Message)
	}
	// Studio's refusal names the change and its path, not only the plugin's handle.
	b, _ := json.Marshal(ce.Details["failures"])
	var failures []struct{ ID, Path string }
	if err := json.Unmarshal(b, &failures); err != nil || len(failures) != 1 || failures[0].ID != res.Applied[0].ID || failures[0].Path != "ServerScriptService/Main" {
		t.Errorf("details.failures = %s, want Main's change by id and path", b)
	}
}

// stageCall is one stage or apply request a staging plugin received.
type stageCall struct {
	method  string
	params  protocol.ApplyParams
	journal bool // the transaction's journal record was on disk when it came
}

// startStaging starts a host whose plugin stages (protocol.CapabilityStage), with Main
// edited on disk, and records the stage and apply requests; hook, when set, may
// answer a request in the plugin's place.
func startStaging(t *testing.T, hook func(method string, p protocol.ApplyParams) (any, error, bool), opts func(*host.Options), more ...func(*bridgetest.Plugin)) (*hosttest.Env, func() []stageCall) {
	t.Helper()
	var mu sync.Mutex
	var calls []stageCall
	var journal string
	e := hosttest.StartWith(t, hosttest.Config{Options: opts, Plugin: func(p *bridgetest.Plugin) {
		p.Stage = true
		for _, f := range more {
			f(p)
		}
		p.Hook = func(method string, raw json.RawMessage) (any, error, bool) {
			if method != protocol.MethodStage && method != protocol.MethodApply {
				return nil, nil, false
			}
			var in protocol.ApplyParams
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Errorf("%s params: %v", method, err)
			}
			_, err := os.Stat(filepath.Join(journal, in.TxID, "journal.json"))
			mu.Lock()
			calls = append(calls, stageCall{method: method, params: in, journal: err == nil})
			mu.Unlock()
			if hook != nil {
				return hook(method, in)
			}
			return nil, nil, false
		}
	}})
	journal = filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "journal")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('staged')\n")
	return e, func() []stageCall {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
}

func planAndApply(t *testing.T, e *hosttest.Env) (*host.ApplyData, error) {
	t.Helper()
	ctx := context.Background()
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
}

func mainSource(e *hosttest.Env) string {
	return e.Plugin.Place().Find("ServerScriptService", "Main").Source()
}

// A plugin that stages gets the ops in a stage request, then an apply that names them
// by txId, sent only once the journal record is on disk.
func TestApplyStagesOpsThenAppliesThemByTxID(t *testing.T) {
	e, calls := startStaging(t, nil, nil)
	res, err := planAndApply(t, e)
	if err != nil {
		t.Fatal(err)
	}
	got := calls()
	if len(got) != 2 || got[0].method != protocol.MethodStage || got[1].method != protocol.MethodApply {
		t.Fatalf("requests = %+v, want stage then apply", got)
	}
	stage, apply := got[0].params, got[1].params
	if stage.TxID != res.TxID || len(stage.Ops) != 1 || stage.Ops[0].Op != protocol.OpEdit {
		t.Errorf("stage = %+v, want the transaction %s's one edit", stage, res.TxID)
	}
	if apply.TxID != res.TxID || !apply.Staged || len(apply.Ops) != 0 {
		t.Errorf("apply = %+v, want the staged ops of %s by txId alone", apply, res.TxID)
	}
	if !got[1].journal {
		t.Errorf("the apply came before the journal record was written")
	}
	if src := mainSource(e); src != "print('staged')\n" {
		t.Errorf("Studio's Main = %q, want the disk's", src)
	}
}

// A stage that fails, and a Studio that lost what was staged, leave the apply to send
// the ops whole: the transaction still lands, once.
func TestApplySendsOpsWhenStagingFails(t *testing.T) {
	for _, c := range []struct {
		name string
		hook func(string, protocol.ApplyParams) (any, error, bool)
		want []string
	}{
		{"stage refused", func(method string, _ protocol.ApplyParams) (any, error, bool) {
			if method == protocol.MethodStage {
				return nil, errcode.New(errcode.Internal, "out of memory"), true
			}
			return nil, nil, false
		}, []string{"stage", "apply"}},
		{"stage lost", func(method string, p protocol.ApplyParams) (any, error, bool) {
			if method == protocol.MethodStage {
				// Answered, but not kept: the staged apply finds nothing.
				return protocol.StageResult{TxID: p.TxID, Ops: len(p.Ops)}, nil, true
			}
			return nil, nil, false
		}, []string{"stage", "apply staged", "apply"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, calls := startStaging(t, c.hook, nil)
			if _, err := planAndApply(t, e); err != nil {
				t.Fatal(err)
			}
			var methods []string
			for _, call := range calls() {
				m := call.method
				if call.params.Staged {
					m += " staged"
				} else if m == protocol.MethodApply && len(call.params.Ops) != 1 {
					t.Errorf("the apply sent %d ops, want 1", len(call.params.Ops))
				}
				methods = append(methods, m)
			}
			if !slices.Equal(methods, c.want) {
				t.Errorf("requests = %v, want %v", methods, c.want)
			}
			if src := mainSource(e); src != "print('staged')\n" {
				t.Errorf("Studio's Main = %q, want the disk's", src)
			}
		})
	}
}

// A big apply is staged in pieces of about apply.StagePieceBytes, the pieces after the
// first with append, and applied by txId with the count of its ops; a piece that went
// missing leaves the count short, so the staged apply applies nothing and the ops go
// whole; a plugin without stageAppend gets them all in one stage request.
func TestApplyStagesABigPatchInPieces(t *testing.T) {
	big := func(i int) string {
		return fmt.Sprintf("-- %d\n", i) + strings.Repeat("print('a line of a big script')\n", apply.StagePieceBytes/3/32)
	}
	const scripts = 7 // each a third of a piece: three pieces
	for _, c := range []struct {
		name string
		hook func(string, protocol.ApplyParams) (any, error, bool)
		more func(*bridgetest.Plugin)
		want []string
	}{
		{"in pieces", nil, nil, []string{"stage 3", "stage append 3", "stage append 1", "apply staged 7"}},
		{"a piece lost", func(method string, p protocol.ApplyParams) (any, error, bool) {
			if method == protocol.MethodStage && p.Append && len(p.Ops) == 1 {
				// Answered, but not kept.
				return protocol.StageResult{TxID: p.TxID, Ops: 7}, nil, true
			}
			return nil, nil, false
		}, nil, []string{"stage 3", "stage append 3", "stage append 1", "apply staged 7", "apply 7"}},
		{"no stageAppend", nil, func(p *bridgetest.Plugin) { p.NoStageAppend = true }, []string{"stage 7", "apply staged 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var more []func(*bridgetest.Plugin)
			if c.more != nil {
				more = append(more, c.more)
			}
			e, calls := startStaging(t, c.hook, nil, more...)
			hosttest.Write(t, e.Dir, "src/server/Main.server.luau", big(0))
			for i := 1; i < scripts; i++ {
				hosttest.Write(t, e.Dir, fmt.Sprintf("src/shared/Big%d.luau", i), big(i))
			}
			res, err := planAndApply(t, e)
			if err != nil {
				t.Fatal(err)
			}
			if res.StudioOps != scripts {
				t.Fatalf("%d Studio ops, want %d", res.StudioOps, scripts)
			}
			var got []string
			for _, call := range calls() {
				m := call.method
				if call.params.Append {
					m += " append"
				}
				n := len(call.params.Ops)
				if call.params.Staged {
					m += " staged"
					n = call.params.OpCount
				}
				got = append(got, fmt.Sprintf("%s %d", m, n))
				if call.method == protocol.MethodApply && !call.journal {
					t.Errorf("an apply came before the journal record was written")
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("requests = %v, want %v", got, c.want)
			}
			if src := mainSource(e); src != big(0) {
				t.Errorf("Studio's Main is not the disk's (%d bytes, want %d)", len(src), len(big(0)))
			}
			for i := 1; i < scripts; i++ {
				x := e.Plugin.Place().Find("ReplicatedStorage", "Shared", fmt.Sprintf("Big%d", i))
				if x == nil || x.Source() != big(i) {
					t.Errorf("Studio's Big%d is not the disk's", i)
				}
			}
		})
	}
}

// Staged ops are not applied when the journal cannot be written: Studio and disk stay
// as they were, and no apply is sent.
func TestStagedOpsAreNotAppliedWhenTheJournalFails(t *testing.T) {
	e, calls := startStaging(t, nil, nil)
	before := snapshotWorld(t, e)
	journal := filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "journal")
	if err := os.RemoveAll(journal); err != nil {
		t.Fatal(err)
	}
	// A file where the journal's folder goes: no record can be made, even by root.
	if err := os.WriteFile(journal, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := planAndApply(t, e); err == nil {
		t.Fatal("the apply succeeded without a journal")
	}
	assertUnchanged(t, e, before)
	for _, c := range calls() {
		if c.method == protocol.MethodApply {
			t.Errorf("an apply was sent without a journal: %+v", c.params)
		}
	}
	// With the journal back, a new plan applies.
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	if _, err := planAndApply(t, e); err != nil {
		t.Fatal(err)
	}
	if src := mainSource(e); src != "print('staged')\n" {
		t.Errorf("Studio's Main = %q, want the disk's", src)
	}
}

// A Studio that does not take the staged ops in time gets no apply: the transaction is
// aborted (a stage writes nothing), with E_STUDIO_TIMEOUT, and nothing stays open.
func TestApplyAbortsWhenTheStageTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e, calls := startStaging(t, func(method string, _ protocol.ApplyParams) (any, error, bool) {
		if method == protocol.MethodStage {
			<-release // a Studio that hangs on it
			return nil, errcode.New(errcode.Internal, "too late"), true
		}
		return nil, nil, false
	}, func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond })
	before := snapshotWorld(t, e)
	_, err := planAndApply(t, e)
	if errcode.Of(err) != errcode.StudioTimeout {
		t.Fatalf("apply = %v, want E_STUDIO_TIMEOUT", err)
	}
	assertUnchanged(t, e, before)
	st, err := e.Host.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pending) != 0 {
		t.Errorf("open transactions after the stage timed out: %+v", st.Pending)
	}
	for _, c := range calls() {
		if c.method == protocol.MethodApply {
			t.Errorf("an apply was sent after the stage timed out: %+v", c.params)
		}
	}
}

// TestStudioMovedDuringApplyNamesTheChange: Studio changes a script between the
// apply's recompute and the plugin's apply; the plugin refuses the patch by its own
// op index and handle, and the error names the change too (id and path), which a
// caller can act on.
func TestStudioMovedDuringApplyNamesTheChange(t *testing.T) {
	e := hosttest.StartWith(t, hosttest.Config{Plugin: func(p *bridgetest.Plugin) {
		p.Hook = func(method string, _ json.RawMessage) (any, error, bool) {
			if method == protocol.MethodApply {
				p.Edit(func(root *bridgetest.Node) {
					root.Child("ServerScriptService").Child("Main").SetSource("print('typed in studio meanwhile')\n")
				})
			}
			return nil, nil, false
		}
	}})
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('pushed')\n")
	ctx := context.Background()
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 {
		t.Fatalf("plan has %d changes, want the edit of Main", len(d.Changes))
	}
	_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
	ce := errcode.As(err)
	if ce.Code != errcode.PreconditionFailed || ce.ReasonCode() != errcode.ReasonStudioMoved {
		t.Fatalf("apply: %v, want %s (%s)", err, errcode.PreconditionFailed, errcode.ReasonStudioMoved)
	}
	b, _ := json.Marshal(ce.Details["failures"])
	var failures []struct {
		ID, Path, Handle, Field string
		Op                      int
	}
	if err := json.Unmarshal(b, &failures); err != nil || len(failures) != 1 {
		t.Fatalf("details.failures = %s (%v), want one", b, err)
	}
	if f := failures[0]; f.ID != d.Changes[0].ID || f.Path != "ServerScriptService/Main" || f.Field != "Source" || f.Handle == "" {
		t.Errorf("failure = %+v, want id %s, path ServerScriptService/Main, field Source and the plugin's handle", f, d.Changes[0].ID)
	}
	if got, err := os.ReadFile(filepath.Join(e.Dir, "src/server/Main.server.luau")); err != nil || string(got) != "print('pushed')\n" {
		t.Errorf("disk changed: %q %v", got, err)
	}
}

// An undo writes only into the place its transaction was applied to: another Studio
// session (another place, with the same paths) is refused, and nothing moves there.
func TestUndoRefusesAnotherPlace(t *testing.T) {
	ctx := context.Background()
	e, res := pushedMain(t)
	// A second Studio with another place whose script holds what the apply wrote.
	other := bridgetest.New(e.Plugin.Place().Clone())
	other.PlaceName = "Other"
	other.PlaceMarker = "0123456789abcdef0123456789abcdef"
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := other.Connect(cctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if _, err := e.Host.Bridge().WaitSession(cctx, other.SessionID); err != nil {
		t.Fatal(err)
	}

	// Two sessions and none named: the undo says so, with the sessions listed.
	_, err := e.Host.Undo(ctx, host.UndoRequest{})
	ce := mustCode(t, err, errcode.StudioAmbiguous)
	if ce.Details["sessions"] == nil {
		t.Errorf("ambiguous undo details = %v, want the sessions", ce.Details)
	}
	_, err = e.Host.Undo(ctx, host.UndoRequest{SessionID: other.SessionID})
	ce = mustCode(t, err, errcode.PreconditionFailed)
	if ce.ReasonCode() != errcode.ReasonOtherPlace {
		t.Errorf("undo in another place: reason %s, want %s", ce.ReasonCode(), errcode.ReasonOtherPlace)
	}
	if got := other.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
		t.Errorf("the other place's script = %q, want it untouched", got)
	}
	// The transaction is still there to undo in its own place.
	u, err := e.Host.Undo(ctx, host.UndoRequest{SessionID: e.Plugin.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if u.TxID != res.TxID {
		t.Errorf("undo = %s, want %s", u.TxID, res.TxID)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got == "print('v2')\n" {
		t.Errorf("the transaction's own place was not undone: %q", got)
	}
}

// A session id that is not connected is no_studio, pointing to the sessions that are
// (and only to them, while one is).
func TestUnknownSessionPointsToTheConnectedOnes(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	_, err := e.Host.Plan(context.Background(), host.PlanRequest{SessionID: "deadbeefdeadbeefdeadbeefdeadbeef"})
	ce := mustCode(t, err, errcode.StudioNotConnected)
	next, _ := ce.Details["nextActions"].([]string)
	if ce.ReasonCode() != errcode.ReasonNoStudio || len(next) != 1 || next[0] != string(errcode.NextSelectSession) {
		t.Errorf("refusal = %s %v, want no_studio with select_session alone (a Studio is connected: opening one is no way out)", ce.ReasonCode(), ce.Details["nextActions"])
	}
	if ce.Details["sessions"] == nil {
		t.Errorf("details = %v, want the connected sessions", ce.Details)
	}
}

// A base revision asked for by name must give a base: one that names no commit, or
// a project in no repository, is bad_revision; without --base, no repository is a
// plan with every difference unresolved.
func TestNamedBaseMustExist(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	_, err := e.Host.Plan(ctx, host.PlanRequest{Base: "nonexistent"})
	if ce := mustCode(t, err, errcode.NotFound); ce.ReasonCode() != errcode.ReasonBadRevision {
		t.Errorf("--base nonexistent: %s, want bad_revision", ce.ReasonCode())
	}

	dir := t.TempDir()
	for name, text := range hosttest.Project {
		hosttest.Write(t, dir, name, text)
	}
	bare := hosttest.StartWith(t, hosttest.Config{Dir: dir})
	if _, err := bare.Host.Plan(ctx, host.PlanRequest{}); err != nil {
		t.Fatalf("a plan without a repository: %v", err)
	}
	_, err = bare.Host.Plan(ctx, host.PlanRequest{Base: "deadbeef"})
	if ce := mustCode(t, err, errcode.NotFound); ce.ReasonCode() != errcode.ReasonBadRevision {
		t.Errorf("--base without a repository: %s, want bad_revision", ce.ReasonCode())
	}
}

// An undo that makes a deleted file again gives it its mode back (an executable bit
// git tracks, permissions a person set).
func TestUndoRestoresADeletedFilesMode(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, func(p *bridgetest.Place) {
		shared := p.Find("ReplicatedStorage", "Shared")
		shared.Children = nil // Util deleted in Studio
	})
	file := filepath.Join(e.Dir, "src/shared/Util.luau")
	if err := os.Chmod(file, 0o750); err != nil {
		t.Fatal(err)
	}
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var over []apply.Override
	for _, c := range d.Changes {
		if c.Path == "ReplicatedStorage/Shared/Util" {
			over = append(over, apply.Override{ID: c.ID, Direction: "pull"})
		}
	}
	if len(over) != 1 {
		t.Fatalf("no change for Util in %+v", d.Changes)
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: over, SkipUnresolved: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the pull did not delete Util.luau: %v", err)
	}
	if _, err := e.Host.Undo(ctx, host.UndoRequest{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o750 {
		t.Errorf("Util.luau came back with mode %v, want -rwxr-x---", info.Mode().Perm())
	}
}

// An undo does not rebuild what its transaction removed from Studio: it lists it in
// manual and says so in a warning, for an agent that reads no docs.
func TestUndoListsWhatItCannotRebuild(t *testing.T) {
	ctx := context.Background()
	e := hosttest.Start(t, nil, nil)
	if err := os.Remove(filepath.Join(e.Dir, "src/shared/Util.luau")); err != nil {
		t.Fatal(err)
	}
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var over []apply.Override
	for _, c := range d.Changes {
		over = append(over, apply.Override{ID: c.ID, Direction: "push"})
	}
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: over}); err != nil {
		t.Fatal(err)
	}
	u, err := e.Host.Undo(ctx, host.UndoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Manual) != 1 || u.Manual[0] != "ReplicatedStorage/Shared/Util" {
		t.Errorf("manual = %v, want Util", u.Manual)
	}
	if !strings.Contains(strings.Join(u.Warnings, "\n"), "not rebuilt by an undo") {
		t.Errorf("warnings = %q, want what was not rebuilt said", u.Warnings)
	}
}
