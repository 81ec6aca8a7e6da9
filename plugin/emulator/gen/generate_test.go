package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// The committed Data.luau is what the generator writes from the embedded database.
func TestDataUpToDate(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../mock/Data.luau")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("plugin/emulator/mock/Data.luau is out of date: run go generate ./plugin/emulator/gen")
	}
}

func TestGenerateContents(t *testing.T) {
	src, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, want := range []string{
		"C\tTerrain\tBasePart\tN\t",            // not creatable
		"C\tReplicatedStorage\tInstance\tSN\t", // a service
		"MeshId:ContentId:r",                   // read only
		"MaxPlayers:Int32:r",                   // read only
		"Shape:@PartType:w",                    // an enum property
		"archivable>Archivable",                // an alias
		"E\tWebStreamClientType\tRawStream=1;SSE=0;WebSocket=2\n",
		"E\tWebStreamClientState\tClosed=3;Connecting=0;Error=2;Open=1\n",
		"\t{\"Float32\":\"inf\"}\n",             // BillboardGui.MaxDistance and others
		"\t{\"Vector2\":[\"-inf\",\"-inf\"]}\n", // WrapTextureTransfer.UVMinBound
		"Source:String:w",
		"PrimaryPart:Ref/BasePart:w", // a Ref that takes one class
		"Part0:Ref/BasePart:w",
		"CurrentCamera:Ref/Camera:w",
		"C\tObjectValue\tValueBase\t\tValue:Ref:w", // any Instance
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Data.luau lacks %q", want)
		}
	}
	for _, absent := range []string{"WorldPivotData", "Contents:", "MeshID:"} {
		if strings.Contains(s, absent) {
			t.Errorf("Data.luau lists %q, which scripts cannot reach", absent)
		}
	}
}

// Every Ref property scripts can write has its class in refClasses, and every entry of
// refClasses is such a property and names a class of the database.
func TestRefClassesComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range reflection.Classes() {
		c, _ := reflection.LookupClass(name)
		for pn, p := range c.Properties {
			if p.AliasFor != "" || p.Type.Name != "Ref" || access(name, p) != "w" {
				continue
			}
			key := name + "." + pn
			seen[key] = true
			if _, ok := refClasses[key]; !ok {
				t.Errorf("%s: a writable Ref property without its class in refClasses", key)
			}
		}
	}
	for key, cls := range refClasses {
		if !seen[key] {
			t.Errorf("refClasses names %s, not a writable Ref property of the database", key)
		}
		if _, ok := reflection.LookupClass(cls); !ok {
			t.Errorf("refClasses: %s takes %s, not a class of the database", key, cls)
		}
	}
}
