package bridgetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// Plugin is a fake Studio plugin. Set its exported fields before Connect; the place
// it holds changes only through the protocol (apply) and SetDraft.
type Plugin struct {
	SessionID     string // sent in hello; a random one is chosen on the first Connect if empty
	PlaceID       int64
	PlaceName     string
	PluginVersion string // default "0.0.0-test"
	// Context is sent in hello: "" or "edit", or "server"/"client" for a
	// playtest's DataModel, which also says readOnly.
	Context  string
	Protocol int // default 1; set another to test a refused hello

	// Exec runs the code of an exec request. Nil answers success with no output.
	Exec func(code string) (any, error)
	// Review answers a review request. Nil accepts every change's default selection.
	Review func(params json.RawMessage) (any, error)
	// Hook sees every request first; when it reports handled, its result or error is
	// the answer. It runs on the request's own goroutine, so it may block.
	Hook func(method string, params json.RawMessage) (result any, err error, handled bool)
	// OnCancel is called with the request id of every cancel frame received.
	OnCancel func(id string)
	// PlaceMarker is the place's marker (protocol.PlaceMarkerAttribute), sent in
	// hello; markPlace sets it when it is empty.
	PlaceMarker string
	// Stall makes the plugin read every request and never answer it (WebSocket
	// pings are still answered): a Studio that hangs.
	Stall bool
	// FrameLimit, when set, replaces the frame limit the welcome gives (a plugin
	// that sends more than the host reads).
	FrameLimit int
	// NoDelta answers every snapshot whole, as a plugin without deltas does.
	NoDelta bool
	// HashSources makes the plugin hash script sources as it does where Studio's
	// engine hashes (EncodingService): a script whose Source is one of the request's
	// KnownSources comes with its SourceHash instead of its text.
	HashSources bool
	// Stage makes the plugin speak staging (protocol.CapabilityStage and
	// CapabilityStageAppend): it keeps the ops of stage requests for the apply that
	// names them, as the Luau plugin does.
	Stage bool
	// NoStageAppend leaves CapabilityStageAppend out: all of an apply's ops come in
	// one stage request, as with a plugin from before it.
	NoStageAppend bool

	mu          sync.Mutex
	staged      *protocol.ApplyParams // the last stage request's, until an apply takes it
	place       *Place
	parent      map[*Node]*Node      // every node in the place except the root; absent = not in the place
	handles     map[string]*Node     // handles of the last snapshot, plus instances added since
	nextHandle  int                  // handle numbers are never reused, so a stale handle stays stale
	snapshotGen int                  // snapshots taken
	snapshotID  string               // the latest snapshot's id
	sent        map[*Node]sentSource // what the latest snapshot sent of each script
	dirty       bool                 // the place changed since the latest snapshot
	deltaBase   map[*Node]*sentNode  // the latest snapshot, when a delta may follow it
	deltaKey    string               // its request's roots, nodes and properties
	sentWhole   int                  // whole snapshots sent
	sentDeltas  int                  // delta snapshots sent
	txIDs       []string             // applied transactions, newest last, at most maxTx
	drafts      map[*Node]string     // unsaved editor text
	drop        map[string]bool      // methods whose next request drops the connection
	conns       map[*conn]struct{}   // open connections
	last        *conn
	started     time.Time
	partBytes   int                 // from the welcome: the largest partial frame
	frameLimit  int                 // from the welcome: the largest frame the host reads
	parts       map[string][]string // requestPart texts by request id, until complete
	requests    []string            // methods of the requests received, in order
}

// maxTx is how many applied transaction ids the plugin remembers (PROTOCOL.md apply).
const maxTx = 32

// conn is one WebSocket connection of the plugin.
type conn struct {
	ws   *websocket.Conn
	wmu  sync.Mutex
	done chan struct{} // closed when the read loop ends
	err  error         // why it ended; set before done is closed
}

// New returns a plugin holding place (not copied; don't change it afterwards).
func New(place *Place) *Plugin {
	p := &Plugin{
		PlaceID:   place.PlaceID,
		PlaceName: place.PlaceName,
		place:     place,
		parent:    map[*Node]*Node{},
		handles:   map[string]*Node{},
		drafts:    map[*Node]string{},
		drop:      map[string]bool{},
		conns:     map[*conn]struct{}{},
		parts:     map[string][]string{},
		started:   time.Now(),
	}
	p.register(place.Root)
	for path, text := range place.Drafts {
		if n := place.Find(strings.Split(path, "/")...); n != nil {
			p.drafts[n] = text
		}
	}
	return p
}

// register records the parents of n's descendants.
func (p *Plugin) register(n *Node) {
	for _, c := range n.Children {
		p.parent[c] = n
		p.register(c)
	}
}

// unregister forgets n's descendants and n.
func (p *Plugin) unregister(n *Node) {
	for _, c := range n.Children {
		p.unregister(c)
	}
	delete(p.parent, n)
}

// alive reports whether n is in the place.
func (p *Plugin) alive(n *Node) bool {
	return n == p.place.Root || p.parent[n] != nil
}

// Place returns a deep copy of the plugin's place, with the drafts of the scripts
// still in it.
func (p *Plugin) Place() *Place {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.place.Clone()
	c.Drafts = nil
	for n, text := range p.drafts {
		if p.alive(n) {
			if c.Drafts == nil {
				c.Drafts = map[string]string{}
			}
			c.Drafts[strings.Join(p.path(n), "/")] = text
		}
	}
	return c
}

// SetStall makes the plugin stop (or go back to) answering requests, as Stall does.
func (p *Plugin) SetStall(stall bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Stall = stall
}

// SetDraft gives the script at path unsaved editor text, as if open in Studio.
func (p *Plugin) SetDraft(path []string, source string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.place.Find(path...)
	if n == nil {
		return fmt.Errorf("set draft: %v not found", path)
	}
	p.drafts[n] = source
	return nil
}

// SetSource replaces the saved Source of the script at path, as a person editing it
// in Studio would.
func (p *Plugin) SetSource(path []string, source string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.place.Find(path...)
	if n == nil || !n.IsScript() {
		return fmt.Errorf("set source: no script at %v", path)
	}
	n.SetSource(source)
	p.dirty = true
	return nil
}

// Edit changes the place as a person in Studio would: fn may rename nodes, set
// their properties and sources, and add, remove or move children anywhere under
// root. The next snapshot may be a delta that tells these changes.
func (p *Plugin) Edit(fn func(root *Node)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn(p.place.Root)
	p.parent = map[*Node]*Node{}
	p.register(p.place.Root)
	p.dirty = true
}

// Snapshots returns how many whole and delta snapshots the plugin sent.
func (p *Plugin) Snapshots() (whole, deltas int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sentWhole, p.sentDeltas
}

// DropNextRequest makes the plugin close its connection, without a close frame or an
// answer, when the next request for method arrives.
func (p *Plugin) DropNextRequest(method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop[method] = true
}

// Connect dials url (ws://127.0.0.1:PORT/plugin), says hello and waits for welcome.
// Calling it again while connected opens a second connection with the same session
// id, as a plugin does that believes its connection died.
func (p *Plugin) Connect(ctx context.Context, url string) error {
	p.mu.Lock()
	// Changes may have been missed while disconnected: no delta off an earlier snapshot.
	p.deltaBase = nil
	if p.SessionID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		p.SessionID = hex.EncodeToString(b[:])
	}
	version := p.Protocol
	if version == 0 {
		version = protocol.Version
	}
	pluginVersion := p.PluginVersion
	if pluginVersion == "" {
		pluginVersion = "0.0.0-test"
	}
	hello := protocol.Hello{
		Type: protocol.FrameHello, Protocol: version, PluginVersion: pluginVersion,
		PlaceID: p.PlaceID, PlaceName: p.PlaceName, SessionID: p.SessionID, PlaceMarker: p.PlaceMarker,
		Context: p.Context, ReadOnly: p.Context != "" && p.Context != "edit",
	}
	if p.Stage {
		hello.Capabilities = []string{protocol.CapabilityStage, protocol.CapabilityStageAppend}
		if p.NoStageAppend {
			hello.Capabilities = hello.Capabilities[:1]
		}
	}
	p.mu.Unlock()

	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := dialer.DialContext(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return fmt.Errorf("connect %s: %s: %w", url, resp.Status, err)
		}
		return fmt.Errorf("connect %s: %w", url, err)
	}
	c := &conn{ws: ws, done: make(chan struct{})}
	if err := c.send(hello); err != nil {
		ws.Close()
		return fmt.Errorf("connect %s: %w", url, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = ws.SetReadDeadline(deadline)
	var answer struct {
		protocol.Welcome
		Reason string `json:"reason"` // a bye says why
	}
	if err := ws.ReadJSON(&answer); err != nil {
		ws.Close()
		return fmt.Errorf("connect %s: read welcome: %w", url, err)
	}
	if answer.Type != protocol.FrameWelcome {
		ws.Close()
		return fmt.Errorf("connect %s: host answered %s: %s", url, answer.Type, answer.Reason)
	}
	_ = ws.SetReadDeadline(time.Time{})

	p.mu.Lock()
	p.partBytes, p.frameLimit = answer.PartBytes, answer.FrameLimit
	if p.partBytes <= 0 {
		p.partBytes = protocol.DefaultPartBytes
	}
	if p.frameLimit <= 0 {
		p.frameLimit = protocol.DefaultFrameLimit
	}
	if p.FrameLimit > 0 {
		p.frameLimit = p.FrameLimit
	}
	p.conns[c] = struct{}{}
	p.last = c
	p.mu.Unlock()
	go p.readLoop(c)
	return nil
}

// Close closes every connection with a normal close frame.
func (p *Plugin) Close() error {
	p.mu.Lock()
	conns := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, "plugin closed"), time.Now().Add(time.Second))
		c.ws.Close()
		<-c.done
	}
	return nil
}

// Wait waits until the latest connection ends and returns why: a
// *websocket.CloseError when the host closed it with a close frame.
func (p *Plugin) Wait(ctx context.Context) error {
	p.mu.Lock()
	c := p.last
	p.mu.Unlock()
	if c == nil {
		return errors.New("not connected")
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send writes v as one text frame.
func (c *conn) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	return c.sendRaw(data)
}

// sendRaw writes data as one text frame.
func (c *conn) sendRaw(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

func (p *Plugin) readLoop(c *conn) {
	var err error
	defer func() {
		c.ws.Close()
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		c.err = err
		close(c.done)
	}()
	for {
		var data []byte
		_, data, err = c.ws.ReadMessage()
		if err != nil {
			return
		}
		var f protocol.Request // a cancel is a request without method
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		if f.Type == protocol.FrameRequestPart {
			whole, ok := p.joinPart(data)
			if !ok {
				continue
			}
			if json.Unmarshal(whole, &f) != nil {
				continue
			}
		}
		switch f.Type {
		case protocol.FrameRequest:
			p.mu.Lock()
			p.requests = append(p.requests, f.Method)
			stall := p.Stall
			p.mu.Unlock()
			if stall {
				continue
			}
			p.mu.Lock()
			drop := p.drop[f.Method]
			delete(p.drop, f.Method)
			p.mu.Unlock()
			if drop {
				c.ws.Close()
				continue // the next read fails
			}
			// Requests are answered concurrently, so a blocked Hook or Review holds
			// up only its own request.
			go p.answer(c, f)
		case protocol.FrameCancel:
			p.mu.Lock()
			delete(p.parts, f.ID)
			p.mu.Unlock()
			if p.OnCancel != nil {
				p.OnCancel(f.ID)
			}
		}
	}
}

// joinPart keeps a requestPart frame and returns the whole request once every
// part of it has come.
func (p *Plugin) joinPart(data []byte) ([]byte, bool) {
	var part protocol.RequestPart
	if json.Unmarshal(data, &part) != nil || part.Count <= 0 || part.Seq < 0 || part.Seq >= part.Count {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := p.parts[part.ID]
	if parts == nil {
		parts = make([]string, part.Count)
	}
	if len(parts) != part.Count {
		delete(p.parts, part.ID)
		return nil, false
	}
	parts[part.Seq] = part.Data
	p.parts[part.ID] = parts
	for _, s := range parts {
		if s == "" {
			return nil, false
		}
	}
	delete(p.parts, part.ID)
	return []byte(strings.Join(parts, "")), true
}

// Requests lists the methods of the requests the plugin received, in order.
func (p *Plugin) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// answer handles one request and sends its partials and final response. No frame
// it sends is larger than the host's frame limit: an answer that would be is
// refused with E_PAYLOAD_TOO_LARGE, as the plugin does.
func (p *Plugin) answer(c *conn, req protocol.Request) {
	partial := func(seq int, result any) error {
		return c.send(protocol.Partial{Type: protocol.FramePartial, ID: req.ID, Seq: seq, Result: result})
	}
	result, err := p.handle(req.Method, req.Params, partial)
	if err == nil {
		frame, merr := json.Marshal(protocol.Response{Type: protocol.FrameResponse, ID: req.ID, OK: true, Result: result})
		p.mu.Lock()
		limit := p.frameLimit
		p.mu.Unlock()
		switch {
		case merr != nil:
			err = errcode.Wrap(errcode.Internal, merr, "encode the answer")
		case len(frame) > limit:
			err = tooLarge(req.Method, len(frame), limit)
		default:
			_ = c.sendRaw(frame)
			return
		}
	}
	e := errcode.As(err)
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	_ = c.send(protocol.Response{Type: protocol.FrameResponse, ID: req.ID,
		Error: &protocol.Error{Code: e.Code, Message: e.Message, Details: details}})
}

// tooLarge is the refusal of an answer that does not fit in a frame.
func tooLarge(what string, size, limit int) *errcode.Error {
	return errcode.New(errcode.PayloadTooLarge, "%s: %d bytes do not fit in one frame of at most %d bytes", what, size, limit).
		With("bytes", size).With("limit", limit)
}

// handle answers one method call.
func (p *Plugin) handle(method string, params json.RawMessage, partial func(seq int, result any) error) (any, error) {
	if p.Hook != nil {
		if result, err, handled := p.Hook(method, params); handled {
			return result, err
		}
	}
	switch method {
	case protocol.MethodSnapshot:
		return p.snapshot(params, partial)
	case protocol.MethodApply:
		return p.apply(params)
	case protocol.MethodStage:
		if !p.Stage {
			return nil, errcode.New(errcode.BadRequest, "unknown method %s", method)
		}
		return p.stage(params)
	case protocol.MethodTransactions:
		p.mu.Lock()
		defer p.mu.Unlock()
		return protocol.TransactionsResult{TxIDs: append([]string{}, p.txIDs...)}, nil
	case protocol.MethodGetScript:
		return p.getScript(params)
	case protocol.MethodExec:
		var in protocol.ExecParams
		if err := json.Unmarshal(params, &in); err != nil {
			return nil, badRequest(err)
		}
		if p.Exec != nil {
			return p.Exec(in.Code)
		}
		return protocol.ExecResult{Success: true, Output: []protocol.OutputLine{}, Returns: []string{}}, nil
	case protocol.MethodReview:
		if p.Review != nil {
			return p.Review(params)
		}
		return acceptDefaults(params)
	case protocol.MethodPing:
		return protocol.PingResult{Time: time.Since(p.started).Seconds()}, nil
	case protocol.MethodMarkPlace:
		var in protocol.MarkPlaceParams
		if err := json.Unmarshal(params, &in); err != nil {
			return nil, badRequest(err)
		}
		if !validMarker(in.Marker) {
			return nil, errcode.New(errcode.BadRequest, "marker must be 32 hex digits")
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.PlaceMarker == "" {
			p.PlaceMarker = in.Marker
			p.dirty = true
		}
		return protocol.MarkPlaceResult{Marker: p.PlaceMarker}, nil
	}
	return nil, errcode.New(errcode.BadRequest, "unknown method %q", method)
}

func badRequest(err error) error {
	return errcode.Wrap(errcode.BadRequest, err, "bad params")
}

// acceptDefaults answers a review by accepting each change's default selection.
func acceptDefaults(params json.RawMessage) (any, error) {
	var in protocol.ReviewParams
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, badRequest(err)
	}
	selections := map[string]plan.Direction{}
	for _, c := range in.Changes {
		switch {
		case c.DefaultSelection != "":
			selections[c.ID] = c.DefaultSelection
		case c.Direction == plan.Push || c.Direction == plan.Pull:
			selections[c.ID] = c.Direction
		default:
			selections[c.ID] = plan.Skip
		}
	}
	return protocol.ReviewResult{Decision: protocol.Accept, Selections: selections}, nil
}

// validMarker reports whether m is 32 lower-case hex digits.
func validMarker(m string) bool {
	if len(m) != 32 {
		return false
	}
	for _, r := range m {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// Marker returns the place's marker (as markPlace left it).
func (p *Plugin) Marker() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.PlaceMarker
}
