package bridgetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// GeneratePlace makes a deterministic place of about instances instances, scripts of
// them scripts of about sourceBytes bytes of Luau each: ModuleScripts under
// ReplicatedStorage, Scripts under ServerScriptService and LocalScripts under
// StarterPlayer.StarterPlayerScripts, in folders of 50, and Parts with a few
// properties in Models of 100 under Workspace for the rest.
func GeneratePlace(scripts, instances, sourceBytes int) *Place {
	rng := rand.New(rand.NewPCG(1, uint64(scripts)<<32|uint64(sourceBytes)))
	game := node("Game", "DataModel")
	workspace := node("Workspace", "Workspace")
	replicated := node("ReplicatedStorage", "ReplicatedStorage")
	server := node("ServerScriptService", "ServerScriptService")
	player := node("StarterPlayer", "StarterPlayer")
	playerScripts := node("StarterPlayerScripts", "StarterPlayerScripts")
	player.Children = []*Node{playerScripts}
	game.Children = []*Node{workspace, replicated, server, player}
	count := 6

	const perFolder = 50
	modules, locals := scripts*6/10, scripts/10
	servers := scripts - modules - locals
	addScripts := func(parent *Node, class string, n int) {
		var folder *Node
		for i := range n {
			if i%perFolder == 0 {
				folder = node(fmt.Sprintf("Folder%03d", i/perFolder), "Folder")
				parent.Children = append(parent.Children, folder)
				count++
			}
			name := fmt.Sprintf("%s%05d", class, i)
			s := node(name, class)
			s.SetSource(luau(rng, name, sourceBytes))
			if class == "Script" {
				s.Properties["RunContext"] = tagged("Enum", 0)
			}
			folder.Children = append(folder.Children, s)
			count++
		}
	}
	addScripts(replicated, "ModuleScript", modules)
	addScripts(server, "Script", servers)
	addScripts(playerScripts, "LocalScript", locals)

	const perModel = 100
	var model *Node
	for i := 0; count < instances; i++ {
		if i%perModel == 0 {
			model = node(fmt.Sprintf("Model%04d", i/perModel), "Model")
			workspace.Children = append(workspace.Children, model)
			count++
			if count >= instances {
				break
			}
		}
		part := node(fmt.Sprintf("Part%d", i%perModel), "Part")
		part.Properties["Anchored"] = tagged("Bool", rng.IntN(2) == 0)
		part.Properties["Size"] = tagged("Vector3", []float64{float64(1 + rng.IntN(8)), 1, float64(1 + rng.IntN(8))})
		part.Properties["Position"] = tagged("Vector3", []float64{float64(rng.IntN(1000)) / 4, 0.5, float64(rng.IntN(1000)) / 4})
		part.Properties["Material"] = tagged("Enum", []int{256, 512, 816, 1088}[rng.IntN(4)])
		part.Properties["Color"] = tagged("Color3", []float64{rng.Float64(), rng.Float64(), rng.Float64()})
		model.Children = append(model.Children, part)
		count++
	}
	return &Place{PlaceID: 0, PlaceName: "Generated", Root: game}
}

func node(name, class string) *Node {
	return &Node{Name: name, ClassName: class, Properties: map[string]json.RawMessage{}}
}

var luauWords = []string{"player", "value", "count", "state", "config", "target", "result", "index", "item", "data"}

// luau returns about size bytes of Luau-looking text.
func luau(rng *rand.Rand, name string, size int) string {
	var b strings.Builder
	b.Grow(size + 200)
	fmt.Fprintf(&b, "--!strict\n-- %s\nlocal %s = {}\n\n", name, name)
	for i := 0; b.Len() < size; i++ {
		w := luauWords[rng.IntN(len(luauWords))]
		v := luauWords[rng.IntN(len(luauWords))]
		fmt.Fprintf(&b, "function %s.%s%d(%s: number, %s: {any}): number\n", name, w, i, v, w)
		fmt.Fprintf(&b, "\tlocal total = %s * %d\n", v, rng.IntN(1000))
		fmt.Fprintf(&b, "\tfor i, x in %s do\n\t\tif typeof(x) == \"number\" then\n\t\t\ttotal += x * i\n\t\tend\n\tend\n", w)
		fmt.Fprintf(&b, "\treturn total -- %s\nend\n\n", strings.Repeat(w[:2], 1+rng.IntN(6)))
	}
	fmt.Fprintf(&b, "return %s\n", name)
	return b.String()
}
