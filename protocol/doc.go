// Package protocol is the Studio plugin protocol of docs/PROTOCOL.md as Go types:
// the frames, and the params and result of every method. The host (bridge, host,
// apply) and the Go fake plugin (bridge/bridgetest) share them, and a golden test
// pins their JSON to what the document shows.
package protocol
