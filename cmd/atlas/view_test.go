package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// golden compares got with testdata/view/NAME; -update rewrites the file.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "view", name)
	if *updateBuild {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func sp(s string) *string { return &s }

// everyKind is a plan with each kind of change: Studio create, update, delete; disk
// create, update, delete; and the three reasons a change needs a decision.
func everyKind() *host.PlanData {
	return &host.PlanData{
		PlanHash:     "sha256:0123456789abcdef0123456789abcdef",
		ConfirmToken: "TOKEN",
		ExpiresAt:    time.Date(2026, 1, 2, 15, 4, 0, 0, time.Local),
		Base:         host.BaseData{Commit: "89abcdef0123456789abcdef0123456789abcdef", Ref: "refs/heads/main"},
		Session:      host.SessionData{ID: "s1", PlaceName: "Game"},
		Changes: []*plan.Change{
			{ID: "01", Path: "ReplicatedStorage/Shared/New", ClassName: "ModuleScript", PatchType: plan.Add, Direction: plan.Push, Reason: plan.NewOnDisk, FsPath: "src/shared/New.luau", Fields: []string{"Instance"}},
			{ID: "02", Path: "ReplicatedStorage/Shared/Keep", ClassName: "ModuleScript", PatchType: plan.Edit, Direction: plan.Push, Reason: plan.DiskChanged, FsPath: "src/shared/Keep.luau", Fields: []string{"Source"}},
			{ID: "03", Path: "ReplicatedStorage/Shared/Old", ClassName: "ModuleScript", PatchType: plan.Remove, Direction: plan.Push, Reason: plan.DeletedOnDisk, Fields: []string{"Instance"}},
			{ID: "04", Path: "ReplicatedStorage/Shared/Scores", ClassName: "ModuleScript", PatchType: plan.Remove, Direction: plan.Pull, Reason: plan.NewInStudio, Fields: []string{"Instance"}},
			{ID: "05", Path: "Workspace/Pad", ClassName: "Part", PatchType: plan.Edit, Direction: plan.Pull, Reason: plan.StudioChanged, FsPath: "src/Pad.model.json",
				Fields: []string{"Color", "Size"}, Properties: map[string]plan.PropertyDiff{
					"Size":  {Current: dom.Tagged{V: dom.Vector3{12, 1, 12}}, Incoming: dom.Tagged{V: dom.Vector3{4, 1, 4}}, Base: dom.Tagged{V: dom.Vector3{4, 1, 4}}},
					"Color": {Current: dom.Tagged{V: dom.Color3{1, 0, 0}}, Incoming: dom.Tagged{V: dom.Color3{0.5, 0.5, 0.5}}, Base: dom.Tagged{V: dom.Color3{0.5, 0.5, 0.5}}},
				}},
			{ID: "06", Path: "ServerScriptService/Gone", ClassName: "Script", PatchType: plan.Add, Direction: plan.Pull, Reason: plan.DeletedInStudio, FsPath: "src/server/Gone.server.luau", Fields: []string{"Instance"}, Descendants: 2},
			{ID: "07", Path: "ReplicatedStorage/Shared/Util", ClassName: "ModuleScript", PatchType: plan.Edit, Reason: plan.BothChanged, FsPath: "src/shared/Util.luau", Fields: []string{"Source"}},
			{ID: "08", Path: "ReplicatedStorage/Shared/Conflict", ClassName: "ModuleScript", PatchType: plan.Remove, Reason: plan.DeleteEditConflict, FsPath: "src/shared/Conflict.luau", Fields: []string{"Instance"}},
			{ID: "09", Path: "ReplicatedStorage/Shared/Twin", ClassName: "ModuleScript", PatchType: plan.Edit, Reason: plan.NoBase, FsPath: "src/shared/Twin.luau", Fields: []string{"Source"}},
			{ID: "10", Path: "Lighting", ClassName: "Lighting", PatchType: plan.Edit, Reason: plan.BothChanged, Fields: []string{"ClockTime"},
				Properties: map[string]plan.PropertyDiff{"ClockTime": {Current: dom.Tagged{V: dom.Float32(6)}, Incoming: dom.Tagged{V: dom.Float32(14.5)}, Base: dom.Tagged{V: dom.Float32(12)}}}},
			{ID: "11", Path: "Workspace/SpawnPad", ClassName: "SpawnLocation", PatchType: plan.Edit, Direction: plan.Pull, Reason: plan.StudioChanged, Fields: []string{"Anchored"},
				Properties: map[string]plan.PropertyDiff{"Anchored": {Current: dom.Tagged{V: dom.Bool(false)}, Incoming: dom.Tagged{V: dom.Bool(true)}, Base: dom.Tagged{V: dom.Bool(true)}}}},
		},
		Files: map[string]string{"04": "src/shared/Scores.luau", "11": "default.project.json"},
		Sources: map[string]host.ChangeSources{
			"02": {Disk: sp("return \"keep v2\"\n"), Studio: sp("return \"keep\"\n"), Base: sp("return \"keep\"\n")},
			"07": {Disk: sp("local x = 1\nreturn x\n"), Studio: sp("local x = 2\nreturn x\n")},
		},
	}
}

func TestRenderPlan(t *testing.T) {
	tests := []struct {
		name string
		d    *host.PlanData
		v    planView
	}{
		{"plan-every-kind.txt", everyKind(), planView{token: true}},
		{"plan-every-kind-color.txt", everyKind(), planView{token: true, style: style{on: true}}},
		{"plan-diff.txt", everyKind(), planView{diff: true}},
		{"plan-choices.txt", everyKind(), planView{choices: map[string]plan.Direction{"07": plan.Pull, "08": plan.Skip, "09": plan.Push, "10": plan.Push}}},
		{"plan-empty.txt", &host.PlanData{PlanHash: "sha256:0123456789abcdef", Session: host.SessionData{ID: "s1", PlaceName: "Game"}}, planView{token: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			renderPlan(&b, tt.d, tt.v)
			golden(t, tt.name, b.String())
		})
	}
}

func TestRenderPlanWithoutColourHasNoEscapes(t *testing.T) {
	var b bytes.Buffer
	renderPlan(&b, everyKind(), planView{token: true, diff: true})
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("renderPlan without colour wrote an escape:\n%q", b.String())
	}
}

func TestEffectOf(t *testing.T) {
	tests := []struct {
		dir  plan.Direction
		pt   plan.PatchType
		want effect
	}{
		{plan.Push, plan.Add, effect{sideStudio, "create", "A/B"}},
		{plan.Push, plan.Edit, effect{sideStudio, "update", "A/B"}},
		{plan.Push, plan.Remove, effect{sideStudio, "delete", "A/B"}},
		{plan.Pull, plan.Add, effect{sideDisk, "delete", "b.luau"}},
		{plan.Pull, plan.Edit, effect{sideDisk, "update", "b.luau"}},
		{plan.Pull, plan.Remove, effect{sideDisk, "create", "b.luau"}},
		{plan.Skip, plan.Edit, effect{sideSkip, "", "b.luau"}},
		{"", plan.Edit, effect{sideDecision, "", "b.luau"}},
	}
	for _, tt := range tests {
		if got := effectOf(tt.dir, tt.pt, "A/B", "b.luau"); got != tt.want {
			t.Errorf("effectOf(%q, %s) = %+v, want %+v", tt.dir, tt.pt, got, tt.want)
		}
	}
	// Without a file, disk effects name the instance.
	if got := effectOf(plan.Pull, plan.Edit, "A/B", ""); got.target != "A/B" {
		t.Errorf("effectOf without fsPath names %q, want A/B", got.target)
	}
}

func TestReasonText(t *testing.T) {
	base := host.BaseData{Commit: "89abcdef0123456789abcdef", Ref: "refs/heads/main"}
	tests := []struct {
		reason plan.Reason
		pt     plan.PatchType
		base   host.BaseData
		want   string
	}{
		{plan.DiskChanged, plan.Edit, base, "changed on disk since main"},
		{plan.StudioChanged, plan.Edit, base, "changed in Studio since main"},
		{plan.BothChanged, plan.Edit, base, "changed on both sides since main"},
		{plan.NewOnDisk, plan.Add, base, "new on disk"},
		{plan.NewInStudio, plan.Remove, base, "new in Studio"},
		{plan.DeletedOnDisk, plan.Remove, base, "deleted on disk"},
		{plan.DeletedInStudio, plan.Add, base, "deleted in Studio"},
		{plan.DeleteEditConflict, plan.Add, base, "deleted in Studio, changed on disk since main"},
		{plan.DeleteEditConflict, plan.Remove, base, "deleted on disk, changed in Studio since main"},
		{plan.NoBase, plan.Edit, base, "on both sides, not in main"},
		{plan.NoBase, plan.Edit, host.BaseData{}, "no base commit to compare with"},
		{plan.DiskChanged, plan.Edit, host.BaseData{Commit: "89abcdef0123456789abcdef", Ref: "HEAD"}, "changed on disk since 89abcdef0123"},
		{"novel_reason", plan.Edit, base, "novel_reason"},
	}
	for _, tt := range tests {
		if got := reasonText(&plan.Change{Reason: tt.reason, PatchType: tt.pt}, tt.base); got != tt.want {
			t.Errorf("reasonText(%s, %s) = %q, want %q", tt.reason, tt.pt, got, tt.want)
		}
	}
}

func TestValueText(t *testing.T) {
	cf := dom.IdentityCFrame
	cf.Position = [3]float32{1, 2.5, 3}
	turned := cf
	turned.Orientation[0] = [3]float32{0, 0, 1}
	tests := []struct {
		v    dom.Value
		want string
	}{
		{nil, "(none)"},
		{dom.Bool(true), "true"},
		{dom.String("hi \"you\""), `"hi \"you\""`},
		{dom.Float32(0.1), "0.1"},
		{dom.Float64(1.0 / 3), "0.3333333333333333"},
		{dom.Int32(-7), "-7"},
		{dom.Int64(1 << 40), "1099511627776"},
		{dom.Vector3{0, 5, 0}, "0, 5, 0"},
		{dom.Vector2{1.5, -2}, "1.5, -2"},
		{dom.Vector3int16{1, 2, 3}, "1, 2, 3"},
		{dom.Color3{1, 0.5, 0}, "RGB 255, 128, 0"},
		{dom.Color3uint8{1, 2, 3}, "RGB 1, 2, 3"},
		{dom.UDim2{{Scale: 0.5, Offset: 10}, {Scale: 1, Offset: -4}}, "{0.5, 10}, {1, -4}"},
		{cf, "at 1, 2.5, 3"},
		{turned, "at 1, 2.5, 3, rotated"},
		{dom.Enum(2), "enum 2"},
		{dom.EnumItem{EnumType: "Material", Value: 256}, "Enum.Material 256"},
		{dom.BrickColor(194), "BrickColor 194"},
		{dom.Tags{"a", "b"}, "a, b"},
		{dom.Tags{}, "no tags"},
		{dom.Attributes{"b": dom.Bool(false), "a": dom.Int32(1)}, "{a = 1, b = false}"},
		{dom.NumberRange{1, 2}, "1, 2"},
		{dom.Ref("00000000000000000000000000000000"), `{"Ref":"00000000000000000000000000000000"}`},
		{dom.String(strings.Repeat("x", 100)), `"` + strings.Repeat("x", 58) + "…"},
	}
	for _, tt := range tests {
		if got := valueText(tt.v); got != tt.want {
			t.Errorf("valueText(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestCountLine(t *testing.T) {
	tests := []struct {
		studio, disk, decide, skip int
		want                       string
	}{
		{1, 0, 0, 0, "1 change: 1 in Studio"},
		{2, 3, 1, 0, "6 changes: 2 in Studio, 3 on disk, 1 needs your decision"},
		{0, 0, 2, 1, "3 changes: 2 need your decision, 1 left as it is"},
	}
	for _, tt := range tests {
		if got := countLine(tt.studio, tt.disk, tt.decide, tt.skip); got != tt.want {
			t.Errorf("countLine(%d, %d, %d, %d) = %q, want %q", tt.studio, tt.disk, tt.decide, tt.skip, got, tt.want)
		}
	}
}

func TestRenderApplyAndUndo(t *testing.T) {
	d := &host.ApplyData{Result: apply.Result{
		TxID: "tx1", StudioOps: 2,
		Applied: []apply.Applied{
			{ID: "02", Path: "ReplicatedStorage/Shared/Keep", PatchType: plan.Edit, Direction: plan.Push},
			{ID: "01", Path: "ReplicatedStorage/Shared/New", PatchType: plan.Add, Direction: plan.Push},
			{ID: "04", Path: "ReplicatedStorage/Shared/Scores", PatchType: plan.Remove, Direction: plan.Pull},
			{ID: "05", Path: "Workspace/Pad", PatchType: plan.Edit, Direction: plan.Pull, FsPath: "default.project.json"},
		},
		Files: []apply.FileChange{
			{Path: "src/shared/Scores", Action: "mkdir"}, {Path: "src/shared/Scores/init.luau", Action: "create"},
			{Path: "default.project.json", Action: "write"}, {Path: "src/shared/Gone.luau", Action: "delete"},
			{Path: "src/shared/Busy.luau", Action: "kept"},
		},
		Skipped: []string{"07", "08"},
	}}
	var b bytes.Buffer
	renderApply(&b, d, style{})
	b.WriteString("--- undo\n")
	renderUndo(&b, &apply.UndoResult{TxID: "tx1", StudioOps: 2,
		Studio: []apply.StudioChange{{Path: "ReplicatedStorage/Shared/Keep", Action: "restore", Properties: []string{"Source"}},
			{Path: "ReplicatedStorage/Shared/New", Action: "delete"}},
		Files: []apply.FileChange{{Path: "a.luau", Action: "restore"}, {Path: "src/shared/Scores", Action: "rmdir"},
			{Path: "b.luau", Action: "kept", Reason: "changed"}},
		Manual: []string{"Workspace/Pad"}}, style{})
	golden(t, "apply.txt", b.String())
}

// BenchmarkRenderPlan10k renders a plan of 10,000 script edits, each side.
func BenchmarkRenderPlan10k(b *testing.B) {
	d := everyKind()
	d.Changes = nil
	for i := range 10_000 {
		dir := plan.Push
		if i%2 == 1 {
			dir = plan.Pull
		}
		name := "M" + strconv.Itoa(i)
		d.Changes = append(d.Changes, &plan.Change{ID: strconv.Itoa(i), Path: "ReplicatedStorage/Shared/" + name, ClassName: "ModuleScript",
			PatchType: plan.Edit, Direction: dir, Reason: plan.DiskChanged, FsPath: "src/shared/" + name + ".luau", Fields: []string{"Source"}})
	}
	b.ReportAllocs()
	for b.Loop() {
		renderPlan(io.Discard, d, planView{token: true})
	}
}
