package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// syncData is atlas_sync's data as a client reads it.
type syncData struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Plan   *struct {
		Changes []planChange `json:"changes"`
	} `json:"plan"`
	Applied *struct {
		Applied []struct {
			ID        string `json:"id"`
			Direction string `json:"direction"`
		} `json:"applied"`
	} `json:"applied"`
	Unresolved []string `json:"unresolved"`
	Failures   []struct {
		ID       string  `json:"id"`
		Field    string  `json:"field"`
		Expected string  `json:"expected"`
		Actual   *string `json:"actual"`
	} `json:"failures"`
}

func syncOf(t *testing.T, e env) syncData {
	t.Helper()
	var d syncData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatalf("atlas_sync data: %v: %s", err, e.Data)
	}
	return d
}

func textOf(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

// conflictAndEdit makes two changes: Util edited on both sides (unresolved) and
// Main edited on disk (push).
func conflictAndEdit(t *testing.T) (*hosttest.Env, *mcp.ClientSession) {
	e, cs := connect(t, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = 1 }\n")
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 1 }\n")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	return e, cs
}

// unchanged fails the test if Studio or disk moved.
func unchanged(t *testing.T, e *hosttest.Env) {
	t.Helper()
	if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return { studio = 1 }\n" {
		t.Errorf("Studio's Util is %q", got)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
		t.Errorf("Studio's Main is %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Util.luau")); string(got) != "return { disk = 1 }\n" {
		t.Errorf("disk's Util is %q", got)
	}
}

func TestAtlasSyncModeDefaultsToStandard(t *testing.T) {
	e, cs := connect(t, nil)
	_, se := call(t, cs, "atlas_sync", map[string]any{})
	if d := syncOf(t, se); !se.OK || d.Status != "empty" || d.Mode != "standard" {
		t.Fatalf("{} in sync: %s", se.Data)
	}
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	asked := false
	e.Plugin.Review = func(json.RawMessage) (any, error) {
		asked = true
		return map[string]any{"decision": "abort", "selections": map[string]string{}}, nil
	}
	res, se := call(t, cs, "atlas_sync", map[string]any{})
	d := syncOf(t, se)
	if !se.OK || d.Status != "success" || d.Mode != "standard" || asked || d.Applied == nil || len(d.Applied.Applied) != 1 {
		t.Fatalf("{} with a disk edit: asked=%v %s", asked, se.Data)
	}
	// The text lists what was applied, as dryrun lists the plan.
	want := "- push Edit ServerScriptService/Main (src/server/Main.server.luau) id=" + d.Applied.Applied[0].ID
	if text := textOf(res); !strings.HasPrefix(text, "Applied 1 change(s) (transaction ") || !strings.Contains(text, want) {
		t.Errorf("text = %s, want it to list %q", text, want)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
		t.Errorf("Studio has %q", got)
	}
}

func TestAtlasSyncFastfailUnresolved(t *testing.T) {
	e, cs := conflictAndEdit(t)
	res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail"})
	d := syncOf(t, se)
	if !res.IsError || se.OK || code(se) != "E_UNRESOLVED" || se.Errors[0].Details["reasonCode"] != "fastfail_unresolved" {
		t.Fatalf("fastfail with a conflict: isError=%v %+v", res.IsError, se.Errors)
	}
	if d.Status != "fastfail_unresolved" || d.Plan == nil || len(d.Plan.Changes) != 2 || len(d.Unresolved) != 1 || len(d.Failures) != 0 {
		t.Fatalf("data: %s", se.Data)
	}
	util := slices.IndexFunc(d.Plan.Changes, func(c planChange) bool { return c.Path == "ReplicatedStorage/Shared/Util" })
	if util < 0 || d.Unresolved[0] != d.Plan.Changes[util].ID {
		t.Fatalf("unresolved %v, plan %s", d.Unresolved, se.Data)
	}
	if ids, _ := se.Errors[0].Details["ids"].([]any); len(ids) != 1 || ids[0] != d.Unresolved[0] {
		t.Errorf("details.ids = %v", se.Errors[0].Details["ids"])
	}
	if text := textOf(res); !strings.Contains(text, "need a direction") || !strings.Contains(text, "ReplicatedStorage/Shared/Util") {
		t.Errorf("text = %s", text)
	}
	unchanged(t, e)
}

// TestAtlasSyncFailedPreconditions: in fastfail mode, an override whose
// precondition fails leaves its change unresolved, and the result lists each
// failure with what was expected and what is there.
func TestAtlasSyncFailedPreconditions(t *testing.T) {
	e, cs := connect(t, func(p *bridgetest.Place) {
		p.Find("Workspace", "Spawn").Properties["Anchored"] = json.RawMessage(`{"Bool":false}`)
	})
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	ids := map[string]planChange{}
	for _, c := range p.Changes {
		ids[c.Path] = c
	}
	main, spawn := ids["ServerScriptService/Main"], ids["Workspace/Spawn"]
	if main.ID == "" || spawn.ID == "" || main.StudioHash == nil || *main.Direction != "push" || *spawn.Direction != "pull" {
		t.Fatalf("plan: %s", pe.Data)
	}
	wrong := strings.Repeat("0", 40)
	res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": []map[string]any{
		{"id": main.ID, "direction": "push", "studioHash": wrong, "diskHash": *main.DiskHash},
		{"id": spawn.ID, "direction": "push", "expectedProperties": map[string]any{"Anchored": true}},
	}})
	d := syncOf(t, se)
	if !res.IsError || code(se) != "E_UNRESOLVED" || se.Errors[0].Details["reasonCode"] != "fastfail_unresolved" || d.Status != "fastfail_unresolved" {
		t.Fatalf("failed preconditions: isError=%v %+v %s", res.IsError, se.Errors, se.Data)
	}
	want := []string{main.ID, spawn.ID}
	slices.Sort(want)
	if !slices.Equal(d.Unresolved, want) {
		t.Errorf("unresolved %v, want %v", d.Unresolved, want)
	}
	got := map[string]string{}
	for _, f := range d.Failures {
		actual := "null"
		if f.Actual != nil {
			actual = *f.Actual
		}
		got[f.ID+" "+f.Field] = f.Expected + " → " + actual
	}
	wantFailures := map[string]string{
		main.ID + " studioHash":           wrong + " → " + *main.StudioHash,
		spawn.ID + " properties.Anchored": `{"Bool":true} → {"Bool":false}`,
	}
	if len(got) != len(wantFailures) {
		t.Errorf("failures %v, want %v", got, wantFailures)
	}
	for k, v := range wantFailures {
		if got[k] != v {
			t.Errorf("failure %s: %q, want %q", k, got[k], v)
		}
	}
	if f, _ := se.Errors[0].Details["failures"].([]any); len(f) != 2 {
		t.Errorf("details.failures = %v", se.Errors[0].Details["failures"])
	}
	if text := textOf(res); !strings.Contains(text, "id="+main.ID+" studioHash expected "+wrong) {
		t.Errorf("text does not list the failure: %s", text)
	}
	if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('hi')\n" {
		t.Errorf("Studio's Main is %q", got)
	}
	if got := string(e.Plugin.Place().Find("Workspace", "Spawn").Properties["Anchored"]); got != `{"Bool":false}` {
		t.Errorf("Studio's Anchored is %s", got)
	}

	// A property the plan does not compare (the project does not set it) cannot be
	// checked: the request is refused, not the precondition.
	res, se = call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": []map[string]any{
		{"id": spawn.ID, "direction": "push", "expectedProperties": map[string]any{"Transparency": 0}},
	}})
	if !res.IsError || code(se) != "E_BAD_REQUEST" || se.Errors[0].Details["reasonCode"] != "bad_override" ||
		!strings.Contains(fmt.Sprint(se.Errors[0].Details["invalid"]), "does not compare Transparency") {
		t.Fatalf("expecting an unmanaged property: %+v", se.Errors)
	}

	// With the hashes and values that are there (Name and ClassName included), the
	// same call applies.
	res, se = call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": []map[string]any{
		{"id": main.ID, "direction": "push", "studioHash": *main.StudioHash},
		{"id": spawn.ID, "direction": "push", "expectedProperties": map[string]any{"Anchored": false, "Name": map[string]any{"String": "Spawn"}, "ClassName": "Part"}},
	}})
	if d := syncOf(t, se); res.IsError || d.Status != "success" || len(d.Applied.Applied) != 2 || len(d.Failures) != 0 {
		t.Fatalf("right preconditions: %+v %s", se.Errors, se.Data)
	}
	if got := string(e.Plugin.Place().Find("Workspace", "Spawn").Properties["Anchored"]); got != `{"Bool":true}` {
		t.Errorf("Studio's Anchored is %s after the push", got)
	}
}

// TestAtlasSyncOverrideResolvesConflict: fastfail applies when overrides resolve
// every change.
func TestAtlasSyncOverrideResolvesConflict(t *testing.T) {
	e, cs := conflictAndEdit(t)
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	var overrides []map[string]any
	for _, c := range p.Changes {
		if c.Direction == nil {
			overrides = append(overrides, map[string]any{"id": c.ID, "direction": "pull", "studioHash": *c.StudioHash})
		}
	}
	_, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": overrides})
	if d := syncOf(t, se); !se.OK || d.Status != "success" || len(d.Applied.Applied) != 2 {
		t.Fatalf("fastfail with overrides: %+v %s", se.Errors, se.Data)
	}
	if got, _ := os.ReadFile(filepath.Join(e.Dir, "src/shared/Util.luau")); string(got) != "return { studio = 1 }\n" {
		t.Errorf("disk's Util is %q after the pull", got)
	}
}

// TestAtlasSyncReviewShowsFailedOverridesUnresolved: in standard and manual mode
// a change whose override's precondition fails goes to the person unresolved.
func TestAtlasSyncReviewShowsFailedOverridesUnresolved(t *testing.T) {
	for _, mode := range []string{"standard", "manual"} {
		t.Run(mode, func(t *testing.T) {
			e, cs := connect(t, nil)
			hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
			id := dom.ChildID(dom.ChildID(dom.RootID, "ServerScriptService", 0), "Main", 0)
			var shown struct {
				Changes []struct {
					ID               string  `json:"id"`
					Direction        *string `json:"direction"`
					DefaultSelection *string `json:"defaultSelection"`
				} `json:"changes"`
			}
			e.Plugin.Review = func(params json.RawMessage) (any, error) {
				json.Unmarshal(params, &shown)
				return map[string]any{"decision": "accept", "selections": map[string]string{id: "push"}}, nil
			}
			res, se := call(t, cs, "atlas_sync", map[string]any{"mode": mode, "overrides": []map[string]any{
				{"id": id, "direction": "push", "studioHash": strings.Repeat("0", 40)},
			}})
			d := syncOf(t, se)
			if !se.OK || d.Status != "success" || len(d.Failures) != 1 || d.Failures[0].Field != "studioHash" || d.Failures[0].ID != id {
				t.Fatalf("%s: %+v %s", mode, se.Errors, se.Data)
			}
			// An agent reading the summary or the warnings learns its override was
			// not carried out, though the status is success.
			summary := textOf(res)
			if !strings.HasPrefix(summary, "1 override(s) were not carried out") || !strings.Contains(summary, "id="+id+" studioHash") {
				t.Errorf("%s: summary %q, want the failed override first", mode, summary)
			}
			if !strings.Contains(strings.Join(se.Warnings, "\n"), "override(s) were not carried out") {
				t.Errorf("%s: warnings %q", mode, se.Warnings)
			}
			if len(shown.Changes) != 1 || shown.Changes[0].ID != id || shown.Changes[0].Direction != nil || shown.Changes[0].DefaultSelection != nil {
				t.Fatalf("the review showed %+v, want the change unresolved", shown.Changes)
			}
			if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
				t.Errorf("the person's push was not applied: %q", got)
			}
		})
	}
}

// TestNullHashIsNoCheck: an override may copy a plan's null hash; it checks nothing.
func TestNullHashIsNoCheck(t *testing.T) {
	e, cs := connect(t, nil)
	hosttest.Write(t, e.Dir, "src/server/New.server.luau", "print('new')\n")
	_, pe := call(t, cs, "sync_plan", map[string]any{})
	var p planData
	json.Unmarshal(pe.Data, &p)
	if len(p.Changes) != 1 || p.Changes[0].StudioHash != nil {
		t.Fatalf("plan: %s", pe.Data)
	}
	_, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": p.ConfirmToken, "yes": true,
		"overrides": []map[string]any{{"id": p.Changes[0].ID, "direction": "push", "studioHash": nil, "diskHash": p.Changes[0].DiskHash}}})
	if !ae.OK {
		t.Fatalf("apply with a null studioHash: %+v", ae.Errors)
	}
	if e.Plugin.Place().Find("ServerScriptService", "New") == nil {
		t.Error("the new script is not in Studio")
	}
}

// TestAtlasSyncFastfailUnwritable: a change made in Studio that no file can hold (a
// name no file can have) is held back by the plan, and fastfail lists it with why
// (details.unwritable), pointing to an override or a skip, not to get_script.
func TestAtlasSyncFastfailUnwritable(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Edit(func(root *bridgetest.Node) {
		shared := root.Child("ReplicatedStorage").Child("Shared")
		shared.Children = append(shared.Children, &bridgetest.Node{Name: "a:b", ClassName: "Folder", Properties: map[string]json.RawMessage{}})
	})
	res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail"})
	if !res.IsError || code(se) != "E_UNRESOLVED" || se.Errors[0].Details["reasonCode"] != "fastfail_unresolved" {
		t.Fatalf("fastfail with an unwritable pull: isError=%v %+v", res.IsError, se.Errors)
	}
	det := se.Errors[0].Details
	held, _ := det["unwritable"].([]any)
	if len(held) != 1 {
		t.Fatalf("details.unwritable = %v, want the folder", det["unwritable"])
	}
	if u, _ := held[0].(map[string]any); u["reason"] != "unsafe_name" || u["path"] != "ReplicatedStorage/Shared/a:b" || !strings.Contains(fmt.Sprint(u["message"]), "rename the instance in Studio") {
		t.Errorf("details.unwritable[0] = %v", held[0])
	}
	if next := fmt.Sprint(det["nextActions"]); next != "[pass_override skip_unresolved]" {
		t.Errorf("nextActions = %s, want pass_override, skip_unresolved", next)
	}
	if _, err := os.Stat(filepath.Join(e.Dir, "src/shared/a:b")); err == nil {
		t.Error("the folder was written")
	}
}

// atlas_sync fastfail with same-named siblings changed in Studio, and a pull asked for
// one of them: no override pulls them; the refusal says why, names the siblings, and
// points to renaming them in Studio (not to reading the script, which changes nothing).
func TestAtlasSyncFastfailDuplicates(t *testing.T) {
	e, cs := connect(t, nil)
	e.Plugin.Edit(func(root *bridgetest.Node) {
		shared := root.Child("ReplicatedStorage").Child("Shared")
		twin := shared.Child("Util").Clone()
		twin.SetSource("return 'twin'\n")
		shared.Children = append(shared.Children, twin)
	})
	plan, se := call(t, cs, "sync_plan", map[string]any{})
	if plan.IsError {
		t.Fatalf("sync_plan: %+v", se.Errors)
	}
	var data struct {
		Changes []struct{ ID, Reason string } `json:"changes"`
	}
	if err := json.Unmarshal(se.Data, &data); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ch := range data.Changes {
		if ch.Reason == "duplicate_name" {
			ids = append(ids, ch.ID)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no duplicate_name change in %s", se.Data)
	}
	res, se := call(t, cs, "atlas_sync", map[string]any{"mode": "fastfail", "overrides": []map[string]any{{"id": ids[0], "direction": "pull"}}})
	if !res.IsError || code(se) != "E_UNRESOLVED" {
		t.Fatalf("fastfail with duplicates: isError=%v %+v", res.IsError, se.Errors)
	}
	det := se.Errors[0].Details
	if !strings.Contains(se.Errors[0].Message, "share their name") || det["duplicates"] == nil {
		t.Errorf("refusal = %q %v, want the same-named siblings said", se.Errors[0].Message, det)
	}
	if next := fmt.Sprint(det["nextActions"]); next != "[rename_in_studio skip_unresolved]" {
		t.Errorf("nextActions = %s, want rename_in_studio, skip_unresolved", next)
	}
}

// TestAtlasSyncSpendsItsToken: a confirm token applies once. The plan atlas_sync
// hands back carries the token it applied with, so sync_apply with it is refused as
// replayed (E_CONFIRM_TOKEN_REPLAYED), with nothing written, whether the sync applied
// by itself or after the person's review, and even when the review left every
// change as it was (the plan did not move, so only the ledger refuses it). A call
// that applied nothing (dryrun, a rejected review) spends no token: sync_apply with
// it applies.
func TestAtlasSyncSpendsItsToken(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		conflict   bool   // Util edited on both sides: standard asks the person
		review     string // the person's decision; "" never asked
		sel        string // the direction the person gives every change shown
		spent      bool
	}{
		{name: "standard applies by itself", mode: "standard", spent: true},
		{name: "standard after a review", mode: "standard", conflict: true, review: "accept", sel: "push", spent: true},
		{name: "standard after a review that skipped everything", mode: "standard", conflict: true, review: "accept", sel: "skip", spent: true},
		{name: "manual", mode: "manual", review: "accept", sel: "push", spent: true},
		{name: "manual that skipped everything", mode: "manual", review: "accept", sel: "skip", spent: true},
		{name: "fastfail", mode: "fastfail", spent: true},
		{name: "manual rejected", mode: "manual", review: "abort"},
		{name: "dryrun", mode: "dryrun"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *hosttest.Env
			var cs *mcp.ClientSession
			if tc.conflict {
				e, cs = conflictAndEdit(t)
			} else {
				e, cs = connect(t, nil)
				hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('v2')\n")
			}
			asked := ""
			e.Plugin.Review = func(params json.RawMessage) (any, error) {
				var shown struct {
					Changes []struct {
						ID string `json:"id"`
					} `json:"changes"`
				}
				json.Unmarshal(params, &shown)
				sel := map[string]string{}
				for _, c := range shown.Changes {
					if tc.sel != "" {
						sel[c.ID] = tc.sel
					}
				}
				asked = tc.review
				return map[string]any{"decision": tc.review, "selections": sel}, nil
			}
			_, se := call(t, cs, "atlas_sync", map[string]any{"mode": tc.mode})
			var d struct {
				Status string `json:"status"`
				Plan   struct {
					ConfirmToken string `json:"confirmToken"`
				} `json:"plan"`
			}
			if err := json.Unmarshal(se.Data, &d); err != nil || !se.OK || d.Plan.ConfirmToken == "" {
				t.Fatalf("atlas_sync: %+v %s", se.Errors, se.Data)
			}
			if asked != tc.review {
				t.Fatalf("the person was asked %q, want %q", asked, tc.review)
			}
			studioMain := e.Plugin.Place().Find("ServerScriptService", "Main").Source()
			_, ae := call(t, cs, "sync_apply", map[string]any{"confirmToken": d.Plan.ConfirmToken, "yes": true, "skipUnresolved": true})
			if !tc.spent {
				if !ae.OK {
					t.Fatalf("status %s: sync_apply with the token it did not apply with: %+v", d.Status, ae.Errors)
				}
				if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != "print('v2')\n" {
					t.Errorf("Studio's Main is %q after sync_apply", got)
				}
				return
			}
			if d.Status != "success" || code(ae) != "E_CONFIRM_TOKEN_REPLAYED" {
				t.Fatalf("status %s: sync_apply with the token atlas_sync applied with: %s %+v %s", d.Status, code(ae), ae.Errors, ae.Data)
			}
			if got := e.Plugin.Place().Find("ServerScriptService", "Main").Source(); got != studioMain {
				t.Errorf("the refused replay changed Studio's Main: %q, was %q", got, studioMain)
			}
		})
	}
}

// TestAtlasSyncUnsavedEditorText: atlas_sync over a script whose Script Editor holds
// unsaved text returns Studio's refusal as it is (studio_unsaved_edit, save_in_studio),
// in standard and fastfail: no override of the caller's failed, and the person is not
// asked about a change no decision of theirs can carry out.
func TestAtlasSyncUnsavedEditorText(t *testing.T) {
	for _, mode := range []string{"standard", "fastfail"} {
		t.Run(mode, func(t *testing.T) {
			e, cs := connect(t, nil)
			if err := e.Plugin.SetDraft([]string{"ReplicatedStorage", "Shared", "Util"}, "return { typing = true }\n"); err != nil {
				t.Fatal(err)
			}
			hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = 2 }\n")
			asked := false
			e.Plugin.Review = func(json.RawMessage) (any, error) {
				asked = true
				return map[string]any{"decision": "accept"}, nil
			}
			res, se := call(t, cs, "atlas_sync", map[string]any{"mode": mode})
			if !res.IsError || code(se) != "E_PRECONDITION_FAILED" || se.Errors[0].Details["reasonCode"] != "studio_unsaved_edit" {
				t.Fatalf("atlas_sync %s: isError=%v %+v", mode, res.IsError, se.Errors)
			}
			next, _ := se.Errors[0].Details["nextActions"].([]any)
			if len(next) == 0 || next[0] != "save_in_studio" || asked {
				t.Errorf("nextActions %v, person asked %v", next, asked)
			}
			if got := e.Plugin.Place().Find("ReplicatedStorage", "Shared", "Util").Source(); got != "return {}\n" {
				t.Errorf("Util in Studio = %q", got)
			}
		})
	}
}
