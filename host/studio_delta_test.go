package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// deltaProject has full subtrees (ReplicatedStorage/Shared, ServerScriptService),
// nodes only (Workspace with ignoreUnknownInstances), and managed properties of a
// Part and of a value object.
var deltaProject = map[string]string{
	"default.project.json": `{
  "name": "Delta",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "$path": "src/server" },
    "Workspace": {
      "$ignoreUnknownInstances": true,
      "Spawn": { "$className": "Part", "$properties": { "Anchored": true, "Size": [8, 1, 8] } },
      "Setting": { "$className": "StringValue", "$properties": { "Value": "a" } }
    }
  }
}`,
	"src/shared/A.luau":               "return 'a'\n",
	"src/shared/B.luau":               "return 'b'\n",
	"src/shared/Lib/init.luau":        "return {}\n",
	"src/shared/Lib/X.luau":           "return 'x'\n",
	"src/shared/Lib/Deep/Y.luau":      "return 'y'\n",
	"src/server/Main.server.luau":     "print('hi')\n",
	"src/server/Jobs/Run.server.luau": "print('run')\n",
}

var deltaNames = []string{"A", "B", "X", "Lib", "Deep", "Y", "Shared", "Jobs", "New"}

// randomStudioEdit changes the place at random as a person in Studio might: a Source, a
// managed property, a rename (often to a sibling's name), a move, an addition, a
// deletion or a duplicate. It returns what it did.
func randomStudioEdit(r *rand.Rand, root *bridgetest.Node) string {
	type entry struct{ n, parent *bridgetest.Node }
	var all []entry
	var walk func(n, parent *bridgetest.Node, depth int)
	walk = func(n, parent *bridgetest.Node, depth int) {
		if depth >= 2 {
			all = append(all, entry{n, parent})
		}
		for _, c := range n.Children {
			walk(c, n, depth+1)
		}
	}
	walk(root, nil, 0)
	var containers []*bridgetest.Node
	for _, name := range []string{"ReplicatedStorage", "ServerScriptService", "Workspace", "Lighting"} {
		if s := root.Child(name); s != nil {
			containers = append(containers, s)
		}
	}
	for _, e := range all {
		if !e.n.IsScript() || e.n.ClassName == "ModuleScript" {
			containers = append(containers, e.n)
		}
	}
	pick := func() (entry, bool) {
		if len(all) == 0 {
			return entry{}, false
		}
		return all[r.IntN(len(all))], true
	}
	remove := func(e entry) {
		i := slices.Index(e.parent.Children, e.n)
		e.parent.Children = slices.Delete(e.parent.Children, i, i+1)
	}
	within := func(n, ancestor *bridgetest.Node) bool {
		var found bool
		var w func(x *bridgetest.Node)
		w = func(x *bridgetest.Node) {
			if x == n {
				found = true
			}
			for _, c := range x.Children {
				w(c)
			}
		}
		w(ancestor)
		return found
	}
	switch k := r.IntN(8); k {
	case 0, 1:
		var scripts []*bridgetest.Node
		for _, e := range all {
			if e.n.IsScript() {
				scripts = append(scripts, e.n)
			}
		}
		if len(scripts) > 0 {
			s := scripts[r.IntN(len(scripts))]
			s.SetSource(fmt.Sprintf("return %d\n", r.IntN(1000)))
			return "source " + s.Name
		}
	case 2:
		var valued []*bridgetest.Node // Parts and StringValues: managed properties
		for _, e := range all {
			if e.n.ClassName == "Part" || e.n.ClassName == "StringValue" {
				valued = append(valued, e.n)
			}
		}
		if len(valued) == 0 {
			break
		}
		n := valued[r.IntN(len(valued))]
		if n.ClassName == "Part" {
			n.Properties["Anchored"] = json.RawMessage(fmt.Sprintf(`{"Bool":%v}`, r.IntN(2) == 0))
			n.Properties["Size"] = json.RawMessage(fmt.Sprintf(`{"Vector3":[%d,1,8]}`, r.IntN(9)))
			return "props " + n.Name
		}
		n.Properties["Value"] = json.RawMessage(fmt.Sprintf(`{"String":"v%d"}`, r.IntN(9)))
		return "value " + n.Name
	case 3:
		if e, ok := pick(); ok {
			e.n.Name = deltaNames[r.IntN(len(deltaNames))]
			return "rename to " + e.n.Name
		}
	case 4:
		if e, ok := pick(); ok {
			to := containers[r.IntN(len(containers))]
			if within(to, e.n) {
				return "no move"
			}
			remove(e)
			to.Children = append(to.Children, e.n)
			return "move " + e.n.Name + " to " + to.Name
		}
	case 5:
		to := containers[r.IntN(len(containers))]
		n := &bridgetest.Node{Name: deltaNames[r.IntN(len(deltaNames))], ClassName: "Folder", Properties: map[string]json.RawMessage{}}
		if r.IntN(2) == 0 {
			n.ClassName = "ModuleScript"
			n.SetSource("return 'new'\n")
		}
		to.Children = append(to.Children, n)
		return "add " + n.Name + " to " + to.Name
	case 6:
		if e, ok := pick(); ok {
			remove(e)
			return "delete " + e.n.Name
		}
	case 7:
		if e, ok := pick(); ok {
			e.parent.Children = append(e.parent.Children, e.n.Clone())
			return "duplicate " + e.n.Name
		}
	}
	return "nothing"
}

// dumpTree writes a tree as a whole snapshot gives it: ids, names, classes, values
// and Source hashes in child order (handles differ from one plugin to another).
func dumpTree(t *dom.Instance) string {
	var b strings.Builder
	t.Walk(func(x *dom.Instance) bool {
		fmt.Fprintf(&b, "%s|%s|%s|%s", x.ID, x.Name, x.ClassName, x.SourceHash)
		names := x.PropertyNames()
		sort.Strings(names)
		for _, n := range names {
			if n == "Source" && x.SourceHash != "" {
				continue // held or let go (texts.go): the hash is the text
			}
			v, _ := dom.Marshal(x.Properties.Get(n))
			fmt.Fprintf(&b, "|%s=%s", n, v)
		}
		b.WriteString("\n")
		return true
	})
	return b.String()
}

// TestStudioDeltaEqualsWholeSnapshot runs random Studio edits on a place held by a
// fake plugin that answers with deltas, and the same place held by one that
// answers whole, each with its host: after every edit both hosts hold the same
// Studio tree, and their plans have the same hash and changes.
func TestStudioDeltaEqualsWholeSnapshot(t *testing.T) {
	// One session id for both: it is part of the plan hash.
	const session = "0123456789abcdef0123456789abcdef"
	a := hosttest.StartWith(t, hosttest.Config{Files: deltaProject, Plugin: func(p *bridgetest.Plugin) { p.SessionID = session }})
	b := hosttest.StartWith(t, hosttest.Config{Files: deltaProject, Plugin: func(p *bridgetest.Plugin) {
		p.SessionID = session
		p.NoDelta = true
	}})
	ctx := context.Background()
	plan := func(h *host.Host) (*host.PlanData, string) {
		t.Helper()
		d, err := h.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := json.Marshal(d.Changes)
		return d, string(c)
	}
	plan(a.Host)
	r := rand.New(rand.NewPCG(13, 1))
	rounds, mismatches := 0, 0
	for i := range 400 {
		var did []string
		a.Plugin.Edit(func(root *bridgetest.Node) {
			for range 1 + r.IntN(3) {
				did = append(did, randomStudioEdit(r, root))
			}
		})
		copyPlace := a.Plugin.Place()
		b.Plugin.Edit(func(root *bridgetest.Node) { *root = *copyPlace.Root })
		da, ca := plan(a.Host)
		db, cb := plan(b.Host)
		rounds++
		ta, tb := dumpTree(a.Host.CachedStudioTree()), dumpTree(b.Host.CachedStudioTree())
		if da.Base.Commit != db.Base.Commit {
			t.Fatalf("the two repositories have different commits: %s, %s", da.Base.Commit, db.Base.Commit)
		}
		if ta != tb || da.PlanHash != db.PlanHash || ca != cb {
			mismatches++
			t.Errorf("round %d (%v): delta and whole differ\ntree equal %v, hash %s vs %s\ndelta tree:\n%s\nwhole tree:\n%s\nchanges:\n%s\n%s",
				i, did, ta == tb, da.PlanHash, db.PlanHash, ta, tb, ca, cb)
			break
		}
	}
	whole, deltas := a.Plugin.Snapshots()
	t.Logf("%d rounds, %d mismatches (%d deltas, %d whole snapshots)", rounds, mismatches, deltas, whole)
	if deltas < rounds/2 {
		t.Fatalf("only %d of %d snapshots were deltas", deltas, rounds)
	}
}

// emuEdit is Luau that makes random Studio edits in the emulator's DataModel, from a
// seed: Sources, managed properties, renames to sibling names, moves, additions,
// deletions (Destroy, or Parent = nil as Studio's delete does) and duplicates.
const emuEdit = `
local state = %d * 7919 + 17
local function int(lo, hi)
	state = (state * 1103515245 + 12345) %% 2147483648
	return lo + (state // 65536) %% (hi - lo + 1)
end
local NAMES = { "A", "B", "X", "Lib", "Deep", "Y", "Shared", "Jobs", "New" }
for _ = 1, int(1, 3) do
	local all = {}
	for _, service in { "ReplicatedStorage", "ServerScriptService", "Workspace", "Lighting" } do
		for _, d in game:GetService(service):GetDescendants() do
			if not d:IsA("Camera") and not d:IsA("Terrain") then
				table.insert(all, d)
			end
		end
	end
	local containers = { game:GetService("ReplicatedStorage"), game:GetService("ServerScriptService"), workspace, game:GetService("Lighting") }
	for _, d in all do
		if d:IsA("Folder") or d:IsA("ModuleScript") then
			table.insert(containers, d)
		end
	end
	local k = int(1, 8)
	local x = all[int(1, #all)]
	if k <= 2 then
		local scripts = {}
		for _, d in all do
			if d:IsA("LuaSourceContainer") then table.insert(scripts, d) end
		end
		if #scripts > 0 then scripts[int(1, #scripts)].Source = "return " .. int(1, 1000) .. "\n" end
	elseif k == 3 then
		local spawn = workspace:FindFirstChild("Spawn")
		if spawn and spawn:IsA("Part") then
			spawn.Anchored = int(0, 1) == 1
			spawn.Size = Vector3.new(int(1, 9), 1, 8)
		end
		local setting = workspace:FindFirstChild("Setting")
		if setting and setting:IsA("StringValue") then setting.Value = "v" .. int(1, 9) end
	elseif k == 4 and x then
		x.Name = NAMES[int(1, #NAMES)]
	elseif k == 5 and x then
		local to = containers[int(1, #containers)]
		if to ~= x and not to:IsDescendantOf(x) then x.Parent = to end
	elseif k == 6 then
		local to = containers[int(1, #containers)]
		local n = Instance.new(if int(0, 1) == 1 then "Folder" else "ModuleScript")
		n.Name = NAMES[int(1, #NAMES)]
		if n:IsA("ModuleScript") then n.Source = "return 'new'\n" end
		n.Parent = to
	elseif k == 7 and x then
		if int(0, 1) == 1 then x:Destroy() else x.Parent = nil end
	elseif k == 8 and x then
		local c = x:Clone()
		if c then c.Parent = x.Parent end
	end
end
`

// A Play/Stop in the emulator's DataModel: the plugin's next snapshot is whole.
const emuPlayStop = `
local rs = game:GetService("RunService")
rs.RunState = Enum.RunState.Running
rs.RunState = Enum.RunState.Stopped
`

// TestStudioDeltaEqualsWholeSnapshotEmulated makes random Studio edits in the
// emulator (the real plugin), and every third round an apply by Atlas first: after
// each, the host plans off a delta, then, after a
// Play/Stop that makes the plugin answer whole, off a whole snapshot; both give the
// same Studio tree, plan hash and changes.
func TestStudioDeltaEqualsWholeSnapshotEmulated(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h := e.host
	ctx := context.Background()
	plan := func() (*host.PlanData, string, string) {
		t.Helper()
		d, err := h.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := json.Marshal(d.Changes)
		return d, string(c), dumpTree(h.CachedStudioTree())
	}
	plan()
	rounds, mismatches, applies, studioOps := 0, 0, 0, 0
	for i := range 150 {
		if i%3 == 0 {
			// Atlas's own apply (the pushes: a new script, an edit of the one before,
			// and what the random edits took from the project), whose writes the
			// next delta must hold. The
			// rest is skipped: random edits make pulls Atlas refuses (same names).
			hosttest.Write(t, e.dir, fmt.Sprintf("src/server/P%d.luau", i), "return 'new'\n")
			if i > 0 {
				hosttest.Write(t, e.dir, fmt.Sprintf("src/server/P%d.luau", i-3), fmt.Sprintf("return 'disk %d'\n", i))
			}
			d, _, _ := plan()
			var skip []apply.Override
			for _, c := range d.Changes {
				if c.Direction != "push" {
					skip = append(skip, apply.Override{ID: c.ID, Direction: "skip"})
				}
			}
			res, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: skip})
			if err != nil {
				t.Fatalf("round %d: apply: %v", i, err)
			}
			applies++
			studioOps += res.StudioOps
		}
		mustExec(t, h, fmt.Sprintf(emuEdit, i+1))
		before := h.StudioDeltas()
		da, ca, ta := plan()
		if h.StudioDeltas() != before+1 {
			t.Fatalf("round %d: the plan after an edit did not use a delta", i)
		}
		mustExec(t, h, emuPlayStop)
		db, cb, tb := plan()
		if h.StudioDeltas() != before+1 {
			t.Fatalf("round %d: the plan after a Play/Stop used a delta", i)
		}
		rounds++
		if ta != tb || da.PlanHash != db.PlanHash || ca != cb {
			mismatches++
			t.Errorf("round %d: delta and whole differ\ntree equal %v, hash %s vs %s\ndelta tree:\n%s\nwhole tree:\n%s\nchanges:\n%s\n%s",
				i, ta == tb, da.PlanHash, db.PlanHash, ta, tb, ca, cb)
			break
		}
	}
	t.Logf("%d rounds, %d mismatches, %d applies (%d Studio ops)", rounds, mismatches, applies, studioOps)
	if studioOps < applies {
		t.Errorf("the applies wrote %d ops to Studio, fewer than one each", studioOps)
	}
}

// After Atlas's own apply the plugin answers a delta that holds the apply's writes;
// after an undo it answers whole, and an edit after that is a delta again; a new path
// in the project (other snapshot parameters) is answered whole too.
func TestStudioDeltaFallbacksEmulated(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h := e.host
	ctx := context.Background()
	plan := planOf(t, h)
	expectDelta := func(what string, want bool) {
		t.Helper()
		before := h.StudioDeltas()
		plan()
		if got := h.StudioDeltas() == before+1; got != want {
			t.Fatalf("%s: delta %v, want %v", what, got, want)
		}
	}
	plan()
	mustExec(t, h, `game.ReplicatedStorage.Shared.A.Source = "return 1\n"`)
	expectDelta("a Studio edit", true)

	hosttest.Write(t, e.dir, "src/shared/B.luau", "return 'pushed'\n")
	d := plan()
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	expectDelta("Atlas's apply", true)
	if d := plan(); len(d.Changes) != 0 {
		t.Fatalf("after the apply and its delta, the plan still has %d changes", len(d.Changes))
	}
	mustExec(t, h, `game.ReplicatedStorage.Shared.A.Source = "return 2\n"`)
	expectDelta("an edit after the apply", true)

	mustExec(t, h, `game:GetService("ChangeHistoryService"):Undo()`)
	expectDelta("an undo", false)

	hosttest.Write(t, e.dir, "src/shared/C.luau", "return 'c'\n")
	expectDelta("a new script on disk (another request)", false)
	mustExec(t, h, `game.ReplicatedStorage.Shared.A.Source = "return 3\n"`)
	expectDelta("an edit after it", true)
}

// The fake plugin answers whole after a reconnect, and a delta after an apply.
func TestStudioDeltaFallbacksFake(t *testing.T) {
	e := hosttest.StartWith(t, hosttest.Config{Files: deltaProject})
	ctx := context.Background()
	plan := func() *host.PlanData {
		t.Helper()
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	deltas := func() int { _, n := e.Plugin.Snapshots(); return n }
	plan()
	edit := func(src string) {
		e.Plugin.Edit(func(root *bridgetest.Node) {
			root.Child("ServerScriptService").Child("Main").SetSource(src)
		})
	}
	edit("print(1)\n")
	n := deltas()
	plan()
	if deltas() != n+1 {
		t.Fatal("the plan after an edit did not get a delta")
	}
	e.Plugin.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := e.Plugin.Connect(cctx, e.Host.PluginURL()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Host.Bridge().WaitSession(cctx, ""); err != nil {
		t.Fatal(err)
	}
	edit("print(2)\n")
	n = deltas()
	plan()
	if deltas() != n {
		t.Fatal("the plan after a reconnect got a delta")
	}
	hosttest.Write(t, e.Dir, "src/shared/A.luau", "return 'pushed'\n")
	d := plan()
	if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	n = deltas()
	if d := plan(); len(d.Changes) != 0 {
		t.Fatalf("the plan after the apply has %d changes", len(d.Changes))
	}
	if deltas() != n+1 {
		t.Fatal("the plan after an apply did not get a delta")
	}
}
