// Package envelope is the JSON envelope every --json output and every MCP result
// carries: {"schemaVersion":1,"ok":…,"command":…,"data":…,"warnings":[…],"errors":[…]}.
// Of[T] is the same envelope with typed data, whose JSON Schema MCP tools publish.
package envelope
