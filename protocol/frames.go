package protocol

import (
	"encoding/json"

	"github.com/atlas-rbx/atlas/errcode"
)

// Version is the protocol version this host speaks (PROTOCOL.md §1).
const Version = 1

// FrameType is a frame's "type".
type FrameType string

// The frame types.
const (
	FrameHello    FrameType = "hello"    // plugin → host, first frame
	FrameWelcome  FrameType = "welcome"  // host → plugin, the hello accepted
	FrameBye      FrameType = "bye"      // host → plugin, the hello refused
	FrameRequest  FrameType = "request"  // host → plugin
	FrameCancel   FrameType = "cancel"   // host → plugin, drop a request
	FrameResponse FrameType = "response" // plugin → host, one per request
	FramePartial  FrameType = "partial"  // plugin → host, part of a result before its response
)

// Hello is the plugin's first frame. New fields are added here, each with a
// comment saying what a plugin that does not send it means.
type Hello struct {
	Type          FrameType `json:"type"`
	Protocol      int       `json:"protocol"`
	PluginVersion string    `json:"pluginVersion"`
	PlaceID       int64     `json:"placeId"`
	PlaceName     string    `json:"placeName"`
	// SessionID is random per plugin start and the same across its reconnects.
	SessionID string `json:"sessionId"`
	// Context is the DataModel the plugin runs in: "edit" (also when absent), or
	// "server"/"client" for a playtest's, which connect read-only.
	Context              string `json:"context"`
	ReadOnly             bool   `json:"readOnly"`
	CollaborativeEditing bool   `json:"collaborativeEditing"`
}

// Welcome accepts a hello.
type Welcome struct {
	Type        FrameType `json:"type"`
	Protocol    int       `json:"protocol"`
	HostVersion string    `json:"hostVersion"`
	Project     string    `json:"project"`
}

// Bye refuses a hello; the host closes the connection after it.
type Bye struct {
	Type   FrameType `json:"type"`
	Reason string    `json:"reason"`
}

// Request asks the plugin to run a method. Params is an object ({} when a method
// takes none).
type Request struct {
	Type   FrameType       `json:"type"`
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Cancel asks the plugin to drop request ID (best effort).
type Cancel struct {
	Type FrameType `json:"type"`
	ID   string    `json:"id"`
}

// Response is the one final answer to request ID: Result when OK, else Error.
type Response struct {
	Type   FrameType `json:"type"`
	ID     string    `json:"id"`
	OK     bool      `json:"ok"`
	Result any       `json:"result,omitempty"`
	Error  *Error    `json:"error,omitempty"`
}

// Partial carries part of request ID's result ahead of its response: the host
// joins the "instances" arrays of the partials, in Seq order, before the
// response's own.
type Partial struct {
	Type   FrameType `json:"type"`
	ID     string    `json:"id"`
	Seq    int       `json:"seq"`
	Result any       `json:"result"`
}

// Error is a refused request.
type Error struct {
	Code    errcode.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}
