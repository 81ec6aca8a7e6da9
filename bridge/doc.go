// Package bridge is the host end of the Studio plugin protocol (docs/PROTOCOL.md): a
// WebSocket server for plugin sessions, request/response correlation and the limits
// that keep a local port safe from browsers and oversized frames. It is the only
// package that speaks WebSocket; bridgetest is a Go plugin to test against.
package bridge
