package bridgetest_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
)

func TestLoadPlaceRoundTrip(t *testing.T) {
	place := testPlace(t)
	data, err := json.Marshal(place)
	if err != nil {
		t.Fatal(err)
	}
	again, err := bridgetest.LoadPlace(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("LoadPlace(Marshal(place)): %v", err)
	}
	if diff := cmp.Diff(place, again, cmp.Transformer("compact", compactJSON)); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	if got := place.Find("ServerScriptService", "Main").Source(); got != "print(1)\n" {
		t.Errorf("Find(ServerScriptService, Main).Source() = %q, want the first Main's", got)
	}
	if place.Drafts["ReplicatedStorage/Shared/Util"] == "" {
		t.Errorf("Drafts = %v, want Util's draft", place.Drafts)
	}
	if place.Find("Nowhere") != nil || place.Find() != place.Root {
		t.Error("Find: want nil for a missing path and the root for no names")
	}
}

func TestLoadPlaceErrors(t *testing.T) {
	tests := []struct{ name, json string }{
		{"not json", `{`},
		{"no root", `{"placeId":1}`},
		{"no class", `{"root":{"name":"Game","className":"DataModel","children":[{"name":"X"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := bridgetest.LoadPlace(strings.NewReader(tt.json)); err == nil {
				t.Errorf("LoadPlace(%s) = nil error, want one", tt.json)
			}
		})
	}
}

func TestGeneratePlace(t *testing.T) {
	tests := []struct{ scripts, instances, sourceBytes int }{
		{0, 10, 0},
		{100, 1000, 500},
		{200, 5000, 4000},
	}
	for _, tt := range tests {
		place := bridgetest.GeneratePlace(tt.scripts, tt.instances, tt.sourceBytes)
		var count, scripts int
		var walk func(n *bridgetest.Node)
		walk = func(n *bridgetest.Node) {
			count++
			if n.IsScript() {
				scripts++
				if src := n.Source(); len(src) < tt.sourceBytes || len(src) > tt.sourceBytes+400 {
					t.Errorf("GeneratePlace%v: %s has %d bytes of source, want about %d", tt, n.Name, len(src), tt.sourceBytes)
				}
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(place.Root)
		if scripts != tt.scripts || count < tt.instances || count > tt.instances+tt.instances/10+10 {
			t.Errorf("GeneratePlace%v: %d scripts in %d instances", tt, scripts, count)
		}
		// Compared as JSON: cmp walks byte slices one reflected element at a time.
		a, _ := json.Marshal(place)
		b, _ := json.Marshal(bridgetest.GeneratePlace(tt.scripts, tt.instances, tt.sourceBytes))
		if !bytes.Equal(a, b) {
			t.Errorf("GeneratePlace%v is not deterministic", tt)
		}
	}
}
