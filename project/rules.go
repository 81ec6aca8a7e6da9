package project

import (
	"fmt"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

func isService(name string) bool { return reflection.IsService(name) }

// use is what a file becomes (a syncRules "use" value).
type use string

const (
	useServerScript       use = "serverScript"
	useClientScript       use = "clientScript"
	useModuleScript       use = "moduleScript"
	usePluginScript       use = "pluginScript"
	useLegacyServerScript use = "legacyServerScript"
	useLegacyClientScript use = "legacyClientScript"
	useRunContextServer   use = "runContextServerScript"
	useRunContextClient   use = "runContextClientScript"
	useJSON               use = "json"
	useJSONModel          use = "jsonModel"
	useTOML               use = "toml"
	useYAML               use = "yaml"
	useCSV                use = "csv"
	useText               use = "text"
	useRbxm               use = "rbxm"
	useRbxmx              use = "rbxmx"
	useProject            use = "project"
	useIgnore             use = "ignore"
)

var knownUses = map[use]bool{
	useServerScript: true, useClientScript: true, useModuleScript: true, usePluginScript: true,
	useLegacyServerScript: true, useLegacyClientScript: true, useRunContextServer: true,
	useRunContextClient: true, useJSON: true, useJSONModel: true, useTOML: true, useYAML: true,
	useCSV: true, useText: true, useRbxm: true, useRbxmx: true, useProject: true, useIgnore: true,
}

type rawSyncRule struct {
	Pattern *string `json:"pattern"`
	Use     *string `json:"use"`
	Exclude *string `json:"exclude"`
	Suffix  *string `json:"suffix"`
}

type syncRule struct {
	pattern, exclude *glob
	use              use
	suffix           string
	hasSuffix        bool
}

func (r rawSyncRule) compile() (syncRule, error) {
	if r.Pattern == nil || r.Use == nil {
		return syncRule{}, fmt.Errorf("a sync rule needs \"pattern\" and \"use\"")
	}
	u := use(*r.Use)
	if !knownUses[u] {
		return syncRule{}, fmt.Errorf("unknown use %q", *r.Use)
	}
	g, err := compileGlob(*r.Pattern)
	if err != nil {
		return syncRule{}, err
	}
	sr := syncRule{pattern: g, use: u}
	if r.Exclude != nil {
		if sr.exclude, err = compileGlob(*r.Exclude); err != nil {
			return syncRule{}, err
		}
	}
	if r.Suffix != nil {
		sr.suffix, sr.hasSuffix = *r.Suffix, true
	}
	return sr, nil
}

// defaultRule is one of Rojo's built-in rules, matched on the file name's ending.
type defaultRule struct {
	suffixes []string
	use      use
	// except are endings that do not match (a .meta.json is not a JSON module).
	except []string
}

var defaultRules = []defaultRule{
	{suffixes: []string{".server.lua", ".server.luau"}, use: useServerScript},
	{suffixes: []string{".client.lua", ".client.luau"}, use: useClientScript},
	{suffixes: []string{".plugin.lua", ".plugin.luau"}, use: usePluginScript},
	{suffixes: []string{".lua", ".luau"}, use: useModuleScript},
	{suffixes: []string{".project.json", ".project.jsonc"}, use: useProject},
	{suffixes: []string{".model.json", ".model.jsonc"}, use: useJSONModel},
	{suffixes: []string{".json", ".jsonc"}, use: useJSON, except: []string{".meta.json", ".meta.jsonc"}},
	{suffixes: []string{".toml"}, use: useTOML},
	{suffixes: []string{".csv"}, use: useCSV},
	{suffixes: []string{".txt"}, use: useText},
	{suffixes: []string{".rbxmx"}, use: useRbxmx},
	{suffixes: []string{".rbxm"}, use: useRbxm},
	{suffixes: []string{".yml", ".yaml"}, use: useYAML},
}

// classify picks the rule for the file at fs path p (relative path rel to the
// project folder): user sync rules first, then the defaults. It returns the use and
// the instance name; ok is false when no rule matches.
func classify(ctx *context, p string) (u use, name string, ok bool) {
	base := path.Base(p)
	rel, _ := relTo(ctx.projectDir, p)
	for _, r := range ctx.syncRules {
		if !r.pattern.match(rel) || (r.exclude != nil && r.exclude.match(rel)) {
			continue
		}
		if r.hasSuffix {
			name = base
			if strings.HasSuffix(base, r.suffix) && len(base) > len(r.suffix) {
				name = strings.TrimSuffix(base, r.suffix)
			}
		} else {
			name = stem(base)
		}
		return r.use, name, true
	}
	for _, r := range defaultRules {
		if hasAnySuffix(base, r.except) {
			continue
		}
		for _, s := range r.suffixes {
			if strings.HasSuffix(base, s) {
				switch r.use {
				case useProject:
					return r.use, stripProjectSuffix(base), true
				case useTOML, useCSV, useText, useRbxmx, useRbxm, useYAML:
					return r.use, stem(base), true
				}
				return r.use, strings.TrimSuffix(base, s), true
			}
		}
	}
	return "", "", false
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// stem removes the last extension only: foo.spec.lua → foo.spec.
func stem(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// scriptClass gives the class and RunContext (-1 = none) of a script use.
func scriptClass(u use, emitLegacy bool) (class string, runContext int, ok bool) {
	switch u {
	case useServerScript:
		if emitLegacy {
			return "Script", 0, true
		}
		return "Script", 1, true
	case useClientScript:
		if emitLegacy {
			return "LocalScript", -1, true
		}
		return "Script", 2, true
	case usePluginScript:
		return "Script", 3, true
	case useModuleScript:
		return "ModuleScript", -1, true
	case useLegacyServerScript:
		return "Script", 0, true
	case useLegacyClientScript:
		return "LocalScript", -1, true
	case useRunContextServer:
		return "Script", 1, true
	case useRunContextClient:
		return "Script", 2, true
	}
	return "", 0, false
}

// initFiles are the init file names, in probing order.
var initFiles = []struct {
	name string
	use  use
}{
	{"init.luau", useModuleScript}, {"init.lua", useModuleScript},
	{"init.server.luau", useServerScript}, {"init.server.lua", useServerScript},
	{"init.client.luau", useClientScript}, {"init.client.lua", useClientScript},
	{"init.plugin.lua", usePluginScript}, {"init.plugin.luau", usePluginScript},
	{"init.csv", useCSV},
}

// rojoInitOrder is the order in which Rojo lists a folder's init files among its
// relevant paths (Rojo's dir middleware), which differs from the probing order.
var rojoInitOrder = []string{
	"init.lua", "init.luau", "init.server.lua", "init.server.luau", "init.client.lua",
	"init.client.luau", "init.plugin.lua", "init.plugin.luau", "init.csv",
}

func isInitName(name string) bool {
	for _, f := range initFiles {
		if f.name == name {
			return true
		}
	}
	return false
}
