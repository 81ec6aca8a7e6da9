package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// The CLI's `sync plan --json` prints the plan as the host encoded it (PlanJSON),
// where it used to decode it into PlanData and encode it again. The two give the
// same bytes: the plan's types go through JSON and back unchanged, for a plan with a
// push, a conflict, a pull, property values, a new instance and the sources (--diff).
func TestPlanJSONIsPlanDataEncoded(t *testing.T) {
	e := hosttest.Start(t, nil, func(p *bridgetest.Place) {
		p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = true, s = \"<&>\\u{e9}\" }\n")
		spawn := p.Find("Workspace", "Spawn")
		spawn.Properties["Size"] = json.RawMessage(`{"Vector3":[4,0.5,2.25]}`)
		spawn.Properties["Color"] = json.RawMessage(`{"Color3":[0.1,0.2,0.30000001192092896]}`)
		spawn.Children = append(spawn.Children, &bridgetest.Node{Name: "Glow", ClassName: "PointLight",
			Properties: map[string]json.RawMessage{"Brightness": json.RawMessage(`{"Float32":2.5}`), "Enabled": json.RawMessage(`{"Bool":false}`)}})
	})
	hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return { disk = true }\n")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('disk \\t <tab>')\n")
	cl, err := host.Dial(e.StateDir, e.Location.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, sources := range []bool{false, true} {
		raw, warnings, err := cl.PlanJSON(context.Background(), host.PlanRequest{Sources: sources})
		if err != nil {
			t.Fatal(err)
		}
		var d host.PlanData
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		if d.Summary.Push == 0 || d.Summary.Pull == 0 || d.Summary.Unresolved == 0 || sources != (len(d.Sources) > 0) {
			t.Fatalf("sources %v: summary %+v, %d sources; want a push, a pull, a conflict", sources, d.Summary, len(d.Sources))
		}
		again, err := json.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, raw) {
			t.Fatalf("sources %v: PlanData encoded again differs from the host's encoding:\n%s\n%s", sources, raw, again)
		}
		if warnings == nil {
			t.Fatalf("warnings are nil, want the envelope's list")
		}
	}
}
