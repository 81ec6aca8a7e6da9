// Package syncflow is the one-step sync: plan, ask a person when one must decide,
// plan again, and apply. The CLI's `atlas sync` (the person answers at the terminal)
// and MCP's atlas_sync (the person answers in Studio's review panel) both run it.
package syncflow
