// Package bridgetest is a Go Studio plugin for tests: it holds an in-memory place,
// connects to a bridge over a real WebSocket, says hello and answers the methods of
// docs/PROTOCOL.md (snapshot, apply, transactions, getScript, exec, review, ping).
// GeneratePlace makes large deterministic places for benchmarks.
package bridgetest
