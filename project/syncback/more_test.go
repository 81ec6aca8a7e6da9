package syncback

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/project"
)

func fileMap(res *Result) map[string]string {
	m := map[string]string{}
	for _, f := range res.Files {
		m[f.Path] = string(f.Data)
	}
	return m
}

func TestExtractOptionsAndEdges(t *testing.T) {
	place := inst("Game", "DataModel", nil,
		inst("ServerStorage", "ServerStorage", nil, inst("A", "Folder", nil), inst("A", "Folder", nil)),
		inst("ReplicatedStorage", "ReplicatedStorage", nil,
			inst("Ptr", "ObjectValue", nil),
			inst("Target", "Part", nil),
			inst("Dup", "Folder", nil, inst("Ptr2", "ObjectValue", nil), inst("Target2", "Part", nil))),
		inst("Players", "Players", nil),
	)
	place.AssignIDs()
	rs := place.FindChild("ReplicatedStorage")
	rs.FindChild("Ptr").Properties.Set("Value", dom.Ref(rs.FindChild("Target").ID))
	dup := rs.FindChild("Dup")
	dup.FindChild("Ptr2").Properties.Set("Value", dom.Ref(dup.FindChild("Target2").ID))
	dup.AddChild(inst("Target2", "Part", nil)) // dup becomes a model file, keeping its ref

	res, err := Extract(place, Options{Services: []string{"ServerStorage", "ReplicatedStorage", "Teams"}})
	if err != nil {
		t.Fatal(err)
	}
	files := fileMap(res)
	if _, ok := files["src/ServerStorage.rbxm"]; !ok {
		t.Errorf("ServerStorage with two children named A is not a model file: %v", res.Files)
	}
	if !strings.Contains(files[ProjectFile], `"$path": "src/ServerStorage.rbxm"`) {
		t.Errorf("project file:\n%s", files[ProjectFile])
	}
	if _, ok := files["src/ReplicatedStorage/Dup.rbxm"]; !ok {
		t.Errorf("Dup is not a model file")
	}
	if len(res.DroppedRefs) != 1 || res.DroppedRefs[0] != "ReplicatedStorage/Ptr.Value" {
		t.Errorf("DroppedRefs = %v, want only ReplicatedStorage/Ptr.Value (Dup's ref stays in its model)", res.DroppedRefs)
	}
	want := map[string]bool{"Players" + NotSynced: true, "Teams (not in the place)": true}
	for _, s := range res.Skipped {
		delete(want, s)
	}
	if len(want) != 0 {
		t.Errorf("Skipped = %v, missing %v", res.Skipped, want)
	}
	if strings.Contains(files[ProjectFile], "Players") {
		t.Error("Players is in the project")
	}
	dir := writeResult(t, res)
	p, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Root.Find("ServerStorage"); got == nil || len(got.Children) != 2 {
		t.Errorf("ServerStorage loaded as %+v", got)
	}
	d := p.Root.Find("ReplicatedStorage", "Dup")
	if d == nil || d.FindChild("Ptr2").Properties.Get("Value") != dom.Ref(d.FindChild("Target2").ID) {
		t.Errorf("the ref inside Dup.rbxm does not point at Target2")
	}
}

func TestExtractModelAndValueForms(t *testing.T) {
	root := inst("Kit", "Model", dom.Properties{"Attributes": dom.Attributes{"Level": dom.Float64(2), "RBX_X": dom.Bool(true)}},
		inst("Count", "IntValue", dom.Properties{"Value": dom.Int64(1337)}),
		inst("Cfg", "Configuration", dom.Properties{"Tags": dom.Tags{"a"}}),
	)
	res, err := ExtractModel([]*dom.Instance{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := fileMap(res)
	for path, want := range map[string]string{
		ProjectFile:              "{\n  \"name\": \"Kit\",\n  \"tree\": {\n    \"$className\": \"Model\",\n    \"$attributes\": {\n      \"Level\": 2.0\n    },\n    \"$path\": \"src\"\n  }\n}\n",
		"src/Count.model.json":   "{\n  \"className\": \"IntValue\",\n  \"properties\": {\n    \"Value\": 1337.0\n  }\n}\n",
		"src/Cfg/init.meta.json": "{\n  \"properties\": {\n    \"Tags\": [\n      \"a\"\n    ]\n  },\n  \"className\": \"Configuration\"\n}\n",
	} {
		if files[path] != want {
			t.Errorf("%s =\n%s\nwant\n%s", path, files[path], want)
		}
	}
	dir := writeResult(t, res)
	p, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root.ClassName != "Model" || p.Root.Find("Count").Properties.Get("Value") != dom.Int64(1337) {
		t.Errorf("loaded %s %v", p.Root.ClassName, p.Root.Find("Count").Properties)
	}
}

// A legacy content property that files still hold and the database migrates when
// read (Sound.SoundId to AudioContent) is content: written, and read back. Read-only
// ones too (MeshPart.MeshId), into the binary model file.
func TestExtractKeepsLegacyContent(t *testing.T) {
	root := inst("Kit", "Model", nil,
		inst("Boom", "Sound", dom.Properties{"SoundId": dom.ContentId("rbxassetid://111"), "Volume": dom.Float32(0.7)}),
		inst("Mesh", "MeshPart", dom.Properties{"MeshId": dom.ContentId("rbxassetid://222")}),
	)
	res, err := ExtractModel([]*dom.Instance{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeResult(t, res)
	p, err := project.Load(os.DirFS(dir), ".", project.Options{DirName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Root.Find("Boom").Properties.Get("SoundId"); got != dom.ContentId("rbxassetid://111") {
		t.Errorf("Boom.SoundId read back as %v (files %v)", got, slices.Collect(maps.Keys(fileMap(res))))
	}
	if got := p.Root.Find("Mesh").Properties.Get("MeshId"); got != dom.ContentId("rbxassetid://222") {
		t.Errorf("Mesh.MeshId read back as %v", got)
	}
}
