package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/protocol"
)

// Defaults for the zero values of Options (PROTOCOL.md).
const (
	DefaultReadLimit      = protocol.DefaultFrameLimit
	DefaultPartBytes      = protocol.DefaultPartBytes
	DefaultRequestLimit   = 4 * DefaultReadLimit
	DefaultPingInterval   = 15 * time.Second
	DefaultPongWait       = 45 * time.Second
	DefaultRequestTimeout = 60 * time.Second
)

const (
	// helloTimeout bounds the wait for the first frame after an upgrade.
	helloTimeout = 10 * time.Second
	// writeWait bounds one frame write; a peer that cannot take a frame in that
	// time is treated as gone.
	writeWait = 10 * time.Second
)

// Options configure a Server. Zero fields take the defaults above.
type Options struct {
	ReadLimit      int64         // largest frame accepted from a plugin, in bytes
	PartBytes      int           // size long answers and requests are cut to (told in welcome)
	RequestLimit   int64         // largest request sent to a plugin (in requestPart frames), in bytes
	PingInterval   time.Duration // time between WebSocket pings
	PongWait       time.Duration // silence after which a plugin is dropped
	RequestTimeout time.Duration // per Call, unless ctx has an earlier deadline
	HostVersion    string        // sent in welcome
	Project        string        // sent in welcome
	Logger         *slog.Logger  // nil discards
}

// SessionInfo describes one connected Studio session.
type SessionInfo struct {
	ID            string    `json:"id"`
	PlaceID       int64     `json:"placeId"`
	PlaceName     string    `json:"placeName"`
	PluginVersion string    `json:"pluginVersion"`
	ConnectedAt   time.Time `json:"connectedAt"`
	// Context is "edit", or "server"/"client" for a playtest's DataModel; ReadOnly
	// sessions refuse apply. CollaborativeEditing is Team Create's collaborative edit.
	Context              string `json:"context"`
	ReadOnly             bool   `json:"readOnly,omitempty"`
	CollaborativeEditing bool   `json:"collaborativeEditing,omitempty"`
	// PlaceMarker is the place's marker as the hello said (protocol.PlaceMarkerAttribute).
	PlaceMarker string `json:"placeMarker,omitempty"`
	// Capabilities are the optional protocol parts the plugin speaks (its hello's).
	Capabilities []string `json:"capabilities,omitempty"`
}

// Can tells whether the plugin speaks the optional protocol part capability.
func (i SessionInfo) Can(capability string) bool { return slices.Contains(i.Capabilities, capability) }

// Server accepts plugin connections on its ServeHTTP and keeps one Session per
// Studio session id. It is safe for concurrent use.
type Server struct {
	opts     Options
	log      *slog.Logger
	upgrader websocket.Upgrader
	reqID    atomic.Uint64

	mu       sync.Mutex
	closed   bool
	sessions map[string]*Session          // by Studio session id; only live ones
	conns    map[*websocket.Conn]struct{} // every upgraded connection, hello or not
	subs     map[int]chan struct{}
	nextSub  int
	changed  chan struct{} // closed and replaced on every connect and disconnect
	handlers sync.WaitGroup
}

// NewServer returns a Server with opts, defaults filled in.
func NewServer(opts Options) *Server {
	if opts.ReadLimit <= 0 {
		opts.ReadLimit = DefaultReadLimit
	}
	if opts.PartBytes <= 0 {
		opts.PartBytes = DefaultPartBytes
	}
	if opts.RequestLimit <= 0 {
		opts.RequestLimit = DefaultRequestLimit
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = DefaultPingInterval
	}
	if opts.PongWait <= 0 {
		opts.PongWait = DefaultPongWait
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{
		opts: opts,
		log:  log,
		upgrader: websocket.Upgrader{
			HandshakeTimeout: helloTimeout,
			// ServeHTTP has already refused every request with an Origin.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		sessions: map[string]*Session{},
		conns:    map[*websocket.Conn]struct{}{},
		subs:     map[int]chan struct{}{},
		changed:  make(chan struct{}),
	}
}

// ServeHTTP is the plugin endpoint. It refuses, before upgrading, any request with an
// Origin header (a browser page) or a Host that is not loopback (DNS rebinding), then
// serves the connection until it ends.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := r.Header["Origin"]; ok {
		http.Error(w, "requests from a browser origin are refused", http.StatusForbidden)
		return
	}
	if !loopbackHost(r.Host) {
		http.Error(w, "host must be a loopback address", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "host is shutting down", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		// Upgrade has already answered the request with an HTTP error.
		s.log.Debug("plugin upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		closeConn(conn, websocket.CloseGoingAway, "shutdown")
		return
	}
	s.conns[conn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()

	conn.SetReadLimit(s.opts.ReadLimit)
	sess, err := s.handshake(conn)
	if err != nil {
		s.log.Info("plugin handshake refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	s.serve(sess)
}

// handshake reads the hello, or answers bye and closes; serve sends the welcome.
func (s *Server) handshake(conn *websocket.Conn) (*Session, error) {
	refuse := func(code int, reason string) {
		_ = conn.SetWriteDeadline(time.Now().Add(writeWait))
		_ = conn.WriteJSON(protocol.Bye{Type: protocol.FrameBye, Reason: reason})
		closeConn(conn, code, reason)
	}
	_ = conn.SetReadDeadline(time.Now().Add(helloTimeout))
	_, data, err := conn.ReadMessage()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("read hello: %w", err)
	}
	var h protocol.Hello
	if err := json.Unmarshal(data, &h); err != nil || h.Type != protocol.FrameHello {
		refuse(websocket.ClosePolicyViolation, "expected hello")
		return nil, fmt.Errorf("first frame is not a hello")
	}
	if h.Protocol != protocol.Version {
		reason := fmt.Sprintf("unsupported protocol %d; this host speaks %d", h.Protocol, protocol.Version)
		refuse(websocket.CloseProtocolError, reason)
		return nil, errors.New(reason)
	}
	if h.SessionID == "" {
		refuse(websocket.ClosePolicyViolation, "hello without sessionId")
		return nil, fmt.Errorf("hello without sessionId")
	}
	sess := &Session{
		srv:  s,
		conn: conn,
		info: SessionInfo{
			ID:            h.SessionID,
			PlaceID:       h.PlaceID,
			PlaceName:     h.PlaceName,
			PluginVersion: h.PluginVersion,
			ConnectedAt:   time.Now().Round(0),
			Context:       cmp.Or(h.Context, "edit"),
			ReadOnly:      h.ReadOnly,
			PlaceMarker:   h.PlaceMarker,
			Capabilities:  h.Capabilities,

			CollaborativeEditing: h.CollaborativeEditing,
		},
		pending: map[string]*pending{},
		done:    make(chan struct{}),
	}
	return sess, nil
}

// serve registers sess, replacing an older connection of the same Studio session,
// and reads its frames until it ends.
func (s *Server) serve(sess *Session) {
	id := sess.info.ID
	welcome, err := json.Marshal(protocol.Welcome{
		Type:        protocol.FrameWelcome,
		Protocol:    protocol.Version,
		HostVersion: s.opts.HostVersion,
		Project:     s.opts.Project,
		FrameLimit:  int(s.opts.ReadLimit),
		PartBytes:   s.opts.PartBytes,
	})
	if err != nil {
		sess.close(notConnected(id, "the welcome could not be encoded"), websocket.CloseInternalServerErr, "welcome failed")
		return
	}
	// The welcome is sent only once the session is listed, so a plugin that has its
	// welcome is a session every command finds; the write lock, taken before the
	// session is listed, keeps any request from reaching the plugin before it.
	sess.wmu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sess.wmu.Unlock()
		sess.close(notConnected(id, "the host is shutting down"), websocket.CloseGoingAway, "shutdown")
		return
	}
	old := s.sessions[id]
	s.sessions[id] = sess
	s.notifyLocked()
	s.mu.Unlock()
	err = sess.writeLocked(welcome)
	sess.wmu.Unlock()
	if old != nil {
		old.close(notConnected(id, "the Studio session reconnected; the request was lost"),
			websocket.CloseNormalClosure, "replaced")
	}
	if err != nil {
		sess.close(notConnected(id, "the welcome could not be sent"), websocket.CloseGoingAway, "welcome failed")
	}
	s.log.Info("studio connected", "session", id, "placeId", sess.info.PlaceID,
		"placeName", sess.info.PlaceName, "pluginVersion", sess.info.PluginVersion)

	pinging := make(chan struct{})
	go func() {
		defer close(pinging)
		sess.pingLoop(s.opts.PingInterval)
	}()
	if err == nil {
		err = sess.readLoop(s.opts.PongWait)
	}
	<-pinging // readLoop closed the session, which ends pingLoop

	s.mu.Lock()
	if s.sessions[id] == sess {
		delete(s.sessions, id)
		s.notifyLocked()
	}
	s.mu.Unlock()
	s.log.Info("studio disconnected", "session", id, "err", err)
}

// notifyLocked tells subscribers and waiters that the session set changed.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
	for _, ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Sessions lists the connected sessions, oldest connection first.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.infosLocked()
}

func (s *Server) infosLocked() []SessionInfo {
	infos := make([]SessionInfo, 0, len(s.sessions))
	for _, sess := range s.sessions {
		infos = append(infos, sess.info)
	}
	slices.SortFunc(infos, func(a, b SessionInfo) int {
		if c := a.ConnectedAt.Compare(b.ConnectedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return infos
}

// Limits are the frame limits of the server's connections.
func (s *Server) Limits() (frameLimit int64, partBytes int, requestLimit int64) {
	return s.opts.ReadLimit, s.opts.PartBytes, s.opts.RequestLimit
}

// Session returns the connected session with id, or with id "" the only connected
// one. It fails with E_STUDIO_NOT_CONNECTED when there is none and with
// E_STUDIO_AMBIGUOUS (details.sessions lists them) when "" matches several.
func (s *Server) Session(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pickLocked(id)
}

func (s *Server) pickLocked(id string) (*Session, error) {
	if id != "" {
		if sess, ok := s.sessions[id]; ok {
			return sess, nil
		}
		return nil, errcode.New(errcode.StudioNotConnected, "studio session %s is not connected", id).
			Reason(errcode.ReasonSessionNotConnected, errcode.NextSelectSession, errcode.NextShowStatus).
			With("sessions", s.infosLocked())
	}
	switch len(s.sessions) {
	case 0:
		return nil, errcode.New(errcode.StudioNotConnected, "no Studio session is connected").
			Reason(errcode.ReasonStudioNotConnected, errcode.NextConnectStudio)
	case 1:
		for _, sess := range s.sessions {
			return sess, nil
		}
	}
	return nil, errcode.New(errcode.StudioAmbiguous, "%d Studio sessions are connected; pick one by session id", len(s.sessions)).
		Reason(errcode.ReasonSeveralSessions, errcode.NextSelectSession).
		With("sessions", s.infosLocked())
}

// WaitSession waits until the session with id (with "", any session) is connected
// and returns it as Session would. When ctx ends first it fails with
// E_STUDIO_NOT_CONNECTED.
func (s *Server) WaitSession(ctx context.Context, id string) (*Session, error) {
	for {
		s.mu.Lock()
		sess, err := s.pickLocked(id)
		changed := s.changed
		s.mu.Unlock()
		if err == nil || errcode.Of(err) != errcode.StudioNotConnected {
			return sess, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			e := errcode.As(err)
			e.Err = ctx.Err()
			return nil, e
		}
	}
}

// Subscribe returns a channel that receives a value when a session connects or
// disconnects (a missed value is dropped, not queued), and a func that unsubscribes.
func (s *Server) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = ch
	s.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subs, id)
			s.mu.Unlock()
		})
	}
}

// Close closes every connection with close code 1000 and reason "shutdown", fails
// their pending calls with E_STUDIO_NOT_CONNECTED, refuses new ones and waits for
// the connection handlers to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	sessions := make([]*Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	var early []*websocket.Conn
	for c := range s.conns {
		early = append(early, c)
	}
	s.mu.Unlock()

	for _, sess := range sessions {
		sess.close(notConnected(sess.info.ID, "the host is shutting down"), websocket.CloseNormalClosure, "shutdown")
	}
	for _, c := range early {
		// Connections still in their handshake; closing twice is harmless.
		closeConn(c, websocket.CloseNormalClosure, "shutdown")
	}
	s.handlers.Wait()
	return nil
}

func (s *Server) requestID() string {
	return fmt.Sprintf("r%d", s.reqID.Add(1))
}

// loopbackHost reports whether a Host header names a loopback address: 127.0.0.0/8,
// ::1 or localhost, with or without a port.
func loopbackHost(host string) bool {
	if host == "" {
		return false
	}
	h := host
	if name, _, err := net.SplitHostPort(host); err == nil {
		h = name
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	return addr.Unmap().IsLoopback()
}

// closeConn sends a close frame (best effort) and closes the connection.
func closeConn(conn *websocket.Conn, code int, reason string) {
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	conn.Close()
}

func notConnected(id, why string) *errcode.Error {
	return errcode.New(errcode.StudioNotConnected, "studio session %s disconnected: %s", id, why).
		Reason(errcode.ReasonStudioDisconnected, errcode.NextConnectStudio, errcode.NextRetry)
}
