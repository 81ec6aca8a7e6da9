package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/plugin"
)

// TestPluginsFolder resolves Studio's plugins folder for each OS from its
// environment, on any OS: %LOCALAPPDATA%\Roblox\Plugins on Windows,
// ~/Documents/Roblox/Plugins on macOS, and none elsewhere.
func TestPluginsFolder(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		want string // "" = ErrNoPluginsFolder
	}{
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\ana\AppData\Local`}, `C:\Users\ana\AppData\Local\Roblox\Plugins`},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\ana\AppData\Local\`, "USERPROFILE": `D:\other`}, `C:\Users\ana\AppData\Local\Roblox\Plugins`},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\ana`}, `C:\Users\ana\AppData\Local\Roblox\Plugins`},
		{"windows", map[string]string{"HOME": "/home/ana"}, ""},
		{"darwin", map[string]string{"HOME": "/Users/ana"}, "/Users/ana/Documents/Roblox/Plugins"},
		{"darwin", map[string]string{"HOME": "/Users/ana/"}, "/Users/ana/Documents/Roblox/Plugins"},
		{"darwin", map[string]string{"LOCALAPPDATA": `C:\x`}, ""},
		{"linux", map[string]string{"HOME": "/home/ana", "LOCALAPPDATA": "/x"}, ""},
	}
	for _, tt := range tests {
		got, err := plugin.PluginsFolder(tt.goos, func(k string) string { return tt.env[k] })
		switch {
		case tt.want == "" && !errors.Is(err, plugin.ErrNoPluginsFolder):
			t.Errorf("PluginsFolder(%s, %v) = %q, %v; want ErrNoPluginsFolder", tt.goos, tt.env, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("PluginsFolder(%s, %v) = %q, %v; want %q", tt.goos, tt.env, got, err, tt.want)
		}
	}
}

// TestPluginInstallMacOS runs `atlas plugin install` as on macOS (HOME is a temp
// folder): it creates the plugins folder, writes a loadable plugin there, and says
// where, in text and in the envelope.
func TestPluginInstallMacOS(t *testing.T) {
	old := studioOS
	studioOS = "darwin"
	t.Cleanup(func() { studioOS = old })
	home := t.TempDir()
	want := filepath.Join(home, "Documents", "Roblox", "Plugins", plugin.FileName)

	stdout, stderr, code := runAtlas(t, home, "plugin", "install")
	if code != exitOK {
		t.Fatalf("plugin install exited %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "installed "+want) {
		t.Errorf("stdout = %q, want it to name %s", stdout, want)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := rbxmx.Decode(bytes.NewReader(data))
	if err != nil || len(roots) != 1 || roots[0].Name != "Atlas" || roots[0].ClassName != "Script" {
		t.Fatalf("installed plugin = %v, %v; want one Script named Atlas", roots, err)
	}

	// Installing again replaces the file; --json names it.
	stdout, _, code = runAtlas(t, home, "plugin", "install", "--json")
	env := envelopeOf(t, stdout)
	if code != exitOK || env["ok"] != true {
		t.Fatalf("second install: exit %d, %s", code, stdout)
	}
	if got := env["data"].(map[string]any)["output"]; got != want {
		t.Errorf("data.output = %v, want %s", got, want)
	}
}
