// Package host is Atlas's long-lived engine: it owns the project, the git base, the
// Studio sessions and the local API, serializes mutating commands, and offers the
// same engine calls to the CLI (over the local API) and to the MCP server.
package host
