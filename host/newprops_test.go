package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// TestNewInStudioKeepsItsProperties, through the real plugin in the emulator:
// instances made in Studio are pulled with every property a file can hold, their
// attributes and their tags, though no file of the project sets those for their
// class (the snapshot does not read them): an IntValue's Value, a StringValue's
// attribute, a Part's size and a tag. After the pull the next plan is empty (the
// files hold what Studio holds), and a change Studio makes to one of them since is
// a pull of its own. A change made between the plan and its apply refuses the apply.
func TestNewInStudioKeepsItsProperties(t *testing.T) {
	e := startEmulated(t, deltaProject, nil)
	h, ctx := e.host, context.Background()
	mustPlan(t, h, nil)
	mustExec(t, h, `local shared = game.ReplicatedStorage.Shared
		local v = Instance.new("IntValue") v.Name = "Score" v.Value = 5 v.Parent = shared
		local n = Instance.new("StringValue") n.Name = "Note" n.Value = "x" n:SetAttribute("K", 3) n.Parent = shared
		local p = Instance.new("Part") p.Name = "Pad" p.Size = Vector3.new(8, 1, 8) p.Anchored = true
		game:GetService("CollectionService"):AddTag(p, "Bouncy") p.Parent = shared`)
	d := mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/Score": "new_in_studio/pull",
		"ReplicatedStorage/Shared/Note":  "new_in_studio/pull",
		"ReplicatedStorage/Shared/Pad":   "new_in_studio/pull",
	})

	// Studio changes Score's Value between the plan and its apply: refused.
	mustExec(t, h, `game.ReplicatedStorage.Shared.Score.Value = 6`)
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); errcode.Of(err) != errcode.ConfirmTokenMismatch {
		t.Fatalf("apply after Studio changed Score's Value = %v, want E_CONFIRM_TOKEN_MISMATCH", err)
	}
	d = mustPlan(t, h, map[string]string{
		"ReplicatedStorage/Shared/Score": "new_in_studio/pull",
		"ReplicatedStorage/Shared/Note":  "new_in_studio/pull",
		"ReplicatedStorage/Shared/Pad":   "new_in_studio/pull",
	})
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken}); err != nil {
		t.Fatal(err)
	}
	score := readFile(t, e.dir, "src/shared/Score.model.json")
	if !strings.Contains(score, `"Value": {"Int64": 6}`) {
		t.Errorf("Score.model.json = %s, want its Value 6", score)
	}
	note := readFile(t, e.dir, "src/shared/Note.meta.json")
	if !strings.Contains(note, `"K": {"Float64": 3}`) {
		t.Errorf("Note.meta.json = %s, want its attribute K", note)
	}
	pad := readFile(t, e.dir, "src/shared/Pad.model.json")
	for _, want := range []string{`"Anchored": {"Bool": true}`, `"Size": {"Vector3": [8, 1, 8]}`, `"Tags": {"Tags": ["Bouncy"]}`} {
		if !strings.Contains(pad, want) {
			t.Errorf("Pad.model.json lacks %s:\n%s", want, pad)
		}
	}
	// A default is not written: a new part's Color is the class's (Studio reads it as
	// floats, the database has it as bytes).
	if strings.Contains(pad, `"Color"`) {
		t.Errorf("Pad.model.json holds the default Color:\n%s", pad)
	}
	mustPlan(t, h, nil)

	// Managed from now on.
	hosttest.Git(t, e.dir, "add", "-A")
	hosttest.Git(t, e.dir, "commit", "-qm", "pulled")
	mustExec(t, h, `game.ReplicatedStorage.Shared.Score.Value = 7`)
	mustPlan(t, h, map[string]string{"ReplicatedStorage/Shared/Score": "studio_changed/pull"})
}
