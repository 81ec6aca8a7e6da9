// Package plugin holds the Atlas Studio plugin (Luau sources in src/, embedded here) and
// packages it as a Roblox model file: a Script "Atlas" (src/Main.server.luau) whose
// ModuleScript children are the other modules, as Studio loads local plugins.
//
// It also carries the Studio emulator (emulator/, the real plugin on a mock DataModel
// under Node.js) with its pinned npm packages (npm/), and unpacks them into the user's
// cache folder on first use, so that a binary alone runs `atlas demo` and `--emulate`.
package plugin
