package mcpserver

import "github.com/google/jsonschema-go/jsonschema"

// ClosedOutputSchemas returns each tool's output schema with every struct closed
// (additionalProperties: false), for checking results against.
func ClosedOutputSchemas() map[string]*jsonschema.Schema {
	_, reg := newServer(nil, "test")
	out := map[string]*jsonschema.Schema{}
	for _, r := range reg {
		out[r.name] = r.closedOutput
	}
	return out
}
