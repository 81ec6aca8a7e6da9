// Package mcpserver exposes Atlas to AI agents as MCP tools: thin adapters over the
// same engine calls the CLI uses. Every result's structured content is the JSON
// envelope, and its text carries the same data.
package mcpserver
