package protocol

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

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
	// FrameRequestPart carries a piece of a request's text, host → plugin, when the
	// request is larger than the welcome's partBytes (PROTOCOL.md §2).
	FrameRequestPart FrameType = "requestPart"
)

// The frame size limits (PROTOCOL.md §2), unless the welcome says otherwise.
const (
	// DefaultFrameLimit is the largest frame the host reads; the plugin never sends
	// a larger one, and refuses with E_PAYLOAD_TOO_LARGE what would not fit.
	DefaultFrameLimit = 64 << 20
	// DefaultPartBytes is the size the frames of a long answer or request are cut
	// to: partial frames hold instances up to about this many bytes, and a request
	// larger than it travels as requestPart frames of at most this many.
	DefaultPartBytes = 4 << 20
	// FrameOverhead is what the plugin keeps free in a frame for the envelope
	// around an instance (InstanceLimit).
	FrameOverhead = 64 << 10
)

// InstanceLimit is the largest instance record (a script with its Source, as
// JSON) a snapshot can carry with frames of at most frameLimit bytes: frameLimit
// less FrameOverhead, or less an eighth of it for a frame limit under 512 KiB.
func InstanceLimit(frameLimit int) int {
	return frameLimit - min(FrameOverhead, frameLimit/8)
}

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
	// PlaceMarker is the place's marker (PlaceMarkerAttribute of ServerStorage),
	// absent when the place has none (a plugin that does not send it: none).
	PlaceMarker string `json:"placeMarker,omitempty"`
	// Capabilities are the optional parts of the protocol the plugin speaks
	// (CapabilityStage); a plugin that sends none speaks none of them.
	Capabilities []string `json:"capabilities,omitempty"`
}

// Welcome accepts a hello.
type Welcome struct {
	Type        FrameType `json:"type"`
	Protocol    int       `json:"protocol"`
	HostVersion string    `json:"hostVersion"`
	Project     string    `json:"project"`
	// FrameLimit is the largest frame the host reads (DefaultFrameLimit when
	// absent); PartBytes the size to cut long answers to (DefaultPartBytes when
	// absent), and the largest requestPart the host sends.
	FrameLimit int `json:"frameLimit,omitempty"`
	PartBytes  int `json:"partBytes,omitempty"`
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

// RequestPart is piece Seq (from 0) of Count of a request frame's JSON text. The
// plugin joins the Data of the Count parts of ID in Seq order and handles the text
// as the request frame it is; a cancel of ID drops the parts received.
type RequestPart struct {
	Type  FrameType `json:"type"`
	ID    string    `json:"id"`
	Seq   int       `json:"seq"`
	Count int       `json:"count"`
	Data  string    `json:"data"`
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

// SourceLen is the size of a script's Source in a snapshot record, as the plugin
// encodes it: a JSON string that escapes '"', '\\' and control characters (two
// bytes for \b \f \n \r \t, six for the other C0 characters and DEL) and keeps every
// other byte; or, for text that is not UTF-8, {"base64":"…"}.
func SourceLen(s string) int {
	if !utf8.ValidString(s) {
		return len(`{"base64":""}`) + base64.StdEncoding.EncodedLen(len(s))
	}
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == 0x7f:
			n += 5
		}
	}
	return n
}
