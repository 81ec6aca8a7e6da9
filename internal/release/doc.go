// Command release builds Atlas's release archives (`make release`): for each target a
// .tar.gz (a .zip for Windows) holding the binary, LICENSE, the rbx-dom licence,
// README.md and the Studio plugin Atlas.rbxmx, plus a SHA-256 checksums file. Entries
// are sorted and carry one fixed time, so the same commit gives the same bytes.
package main
