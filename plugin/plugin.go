package plugin

import (
	"embed"
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
)

// files is everything of this folder that a binary carries: the plugin's sources, and
// the emulator with its npm packages (emulator.go).
//
//go:embed src/*.luau emulator/run.mjs emulator/runtime.mjs emulator/pack.mjs emulator/mock/*.luau npm/*.tgz npm/*.LICENSE*
var files embed.FS

// FileName is the plugin file's name in Studio's plugins folder.
const FileName = "Atlas.rbxmx"

// Model returns the plugin as an instance tree.
func Model() (*dom.Instance, error) {
	entries, err := fs.ReadDir(files, "src")
	if err != nil {
		return nil, err
	}
	main, err := fs.ReadFile(files, "src/Main.server.luau")
	if err != nil {
		return nil, errors.New("plugin: src/Main.server.luau is missing")
	}
	root := dom.New("Atlas", "Script")
	root.Properties.Set("Source", dom.String(main))
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if n := e.Name(); n != "Main.server.luau" && strings.HasSuffix(n, ".luau") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := fs.ReadFile(files, "src/"+n)
		if err != nil {
			return nil, err
		}
		m := dom.New(strings.TrimSuffix(n, ".luau"), "ModuleScript")
		m.Properties.Set("Source", dom.String(b))
		root.AddChild(m)
	}
	root.AssignIDs()
	return root, nil
}

// Build writes the plugin as an .rbxmx model.
func Build(w io.Writer) error {
	m, err := Model()
	if err != nil {
		return err
	}
	return rbxmx.Encode(w, []*dom.Instance{m})
}

// ErrNoPluginsFolder means Studio's plugins folder is unknown on this OS.
var ErrNoPluginsFolder = errors.New("Roblox Studio runs on Windows and macOS; there is no plugins folder here")

// PluginsFolder is where Studio loads local plugins from on goos (runtime.GOOS in
// use; any OS in tests): %LOCALAPPDATA%\Roblox\Plugins on Windows,
// ~/Documents/Roblox/Plugins on macOS. The path uses goos's separator.
func PluginsFolder(goos string, getenv func(string) string) (string, error) {
	switch goos {
	case "windows":
		base := getenv("LOCALAPPDATA")
		if base == "" && getenv("USERPROFILE") != "" {
			base = joinFor(goos, getenv("USERPROFILE"), "AppData", "Local")
		}
		if base != "" {
			return joinFor(goos, base, "Roblox", "Plugins"), nil
		}
	case "darwin":
		if h := getenv("HOME"); h != "" {
			return joinFor(goos, h, "Documents", "Roblox", "Plugins"), nil
		}
	}
	return "", ErrNoPluginsFolder
}

// joinFor joins path elements with goos's separator, so a Windows path can be
// resolved (and tested) on any OS.
func joinFor(goos, base string, elems ...string) string {
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	base = strings.TrimRight(base, `/\`)
	return base + sep + strings.Join(elems, sep)
}
