package bridge

import "encoding/json"

// SnapshotParams is a snapshot request (docs/PROTOCOL.md "snapshot").
type SnapshotParams struct {
	// Roots are paths sent with all their descendants; Nodes without them.
	Roots [][]string `json:"roots"`
	Nodes [][]string `json:"nodes"`
	// Properties are the properties to read by exact class name, each with its type
	// ("Vector3", or "Enum:Material").
	Properties map[string]map[string]string `json:"properties"`
	ChunkSize  int                          `json:"chunkSize,omitempty"`
	// Reuse names the previous snapshot whose sources the host still holds.
	Reuse string `json:"reuse,omitempty"`
	// AllowUnchanged lets the plugin answer Unchanged when nothing it watches
	// changed since the snapshot named by Reuse (asked with the same parameters).
	AllowUnchanged bool `json:"allowUnchanged,omitempty"`
}

// SnapshotInstance is one instance of a snapshot.
type SnapshotInstance struct {
	Handle     string                     `json:"handle"`
	Parent     *string                    `json:"parent"`
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Properties map[string]json.RawMessage `json:"properties"`
	// SourceFrom is set, and Source left out, when the script's Source is unchanged
	// since the snapshot named by the request's Reuse: it is the script's handle there.
	SourceFrom string `json:"sourceFrom,omitempty"`
}

// SnapshotResult is a snapshot's answer (its partial frames joined).
type SnapshotResult struct {
	Instances  []SnapshotInstance `json:"instances"`
	SnapshotID string             `json:"snapshotId"`
	// Unchanged means nothing changed since the snapshot SnapshotID: Instances is
	// empty and that snapshot (and its handles) still stands.
	Unchanged bool `json:"unchanged,omitempty"`
}
