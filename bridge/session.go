package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/protocol"
)

// Session is one plugin connection. When it ends (the plugin disconnects, reconnects
// with the same session id, or the server closes) every pending and later Call fails
// with E_STUDIO_NOT_CONNECTED; look the session up again with Server.Session.
type Session struct {
	srv  *Server
	conn *websocket.Conn
	info SessionInfo // set before the session is shared; never changes
	wmu  sync.Mutex  // serializes frame writes on conn

	mu       sync.Mutex
	pending  map[string]*pending // calls waiting for their final response, by request id
	closeErr *errcode.Error      // why the session ended; set once; callers get copies
	done     chan struct{}
}

// pending is one call in flight. The read loop owns it while it is in the session's
// pending map; whoever removes it from the map completes it and closes done. The read
// loop decodes partials and the final result into result as they arrive, so a frame
// is never copied; a Call that gives up waits for a decode already under way.
type pending struct {
	method string
	result any       // the caller's, decoded into when the final response comes
	parts  collector // gathers partial frames
	err    error     // the plugin's error, a decode error, or why the session ended
	done   chan struct{}
}

// Info describes the session.
func (s *Session) Info() SessionInfo { return s.info }

// Limits are the frame limits of the session's server (Server.Limits).
func (s *Session) Limits() (frameLimit int64, partBytes int, requestLimit int64) {
	return s.srv.Limits()
}

// Done is closed when the connection has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Call sends a request for method with params (nil sends {}) and decodes the final
// result into result (nil ignores it). The "instances" arrays of partial frames are
// joined, in seq order, before those of the final result. A plugin error comes back as
// an *errcode.Error with the plugin's code, message and details. When ctx ends the
// plugin is sent a cancel; a deadline gives E_STUDIO_TIMEOUT, a cancellation ctx.Err().
// The server's RequestTimeout applies when ctx has no deadline of its own (a review,
// which waits for a person, passes a long one).
func (s *Session) Call(ctx context.Context, method string, params any, result any) error {
	timeout := s.srv.opts.RequestTimeout
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	id := s.srv.requestID()
	frame, err := requestFrame(id, method, params)
	if err != nil {
		return err
	}
	if limit := s.srv.opts.RequestLimit; int64(len(frame)) > limit {
		// Refused before anything is sent: the plugin never sees it.
		return errcode.New(errcode.PayloadTooLarge, "the %s request is %d bytes, more than the %d byte limit of a request to Studio; nothing was sent",
			method, len(frame), limit).Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess).
			With("method", method).With("bytes", len(frame)).With("limit", limit)
	}
	p := &pending{method: method, result: result, parts: newCollector(result), done: make(chan struct{})}
	s.mu.Lock()
	if s.closeErr != nil {
		err := clone(s.closeErr)
		s.mu.Unlock()
		return err
	}
	s.pending[id] = p
	s.mu.Unlock()

	if err := s.writeRequest(id, frame); err != nil {
		if s.take(id) != nil {
			s.close(notConnected(s.info.ID, "sending the request failed"), 0, "")
			return errcode.Wrap(errcode.StudioNotConnected, err, fmt.Sprintf("send %s to studio session %s", method, s.info.ID))
		}
		<-p.done
		return p.err
	}

	select {
	case <-p.done:
	case <-ctx.Done():
		if s.take(id) == nil {
			// The answer (or the end of the session) won the race.
			<-p.done
			break
		}
		// Best effort: the call has already failed for the caller.
		_ = s.write(protocol.Cancel{Type: protocol.FrameCancel, ID: id})
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e := &errcode.Error{
				Code:    errcode.StudioTimeout,
				Message: fmt.Sprintf("studio session %s did not answer %s in time", s.info.ID, method),
				Details: map[string]any{"method": method, "requestId": id},
				Err:     ctx.Err(),
			}
			return e.Reason(errcode.ReasonStudioTimeout, errcode.NextRetry, errcode.NextShowStatus)
		}
		return fmt.Errorf("studio %s: %w", method, ctx.Err())
	}

	return p.err
}

// take removes the pending call id and returns it, or nil when it is gone already.
func (s *Session) take(id string) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending[id]
	delete(s.pending, id)
	return p
}

// writeRequest sends a request frame: as it is, or, when it is larger than the
// part size, as requestPart frames that each carry a piece of its text (cut between
// UTF-8 sequences, so that each piece is a valid JSON string).
func (s *Session) writeRequest(id string, frame []byte) error {
	size := s.srv.opts.PartBytes
	if len(frame) <= size {
		return s.writeRaw(frame)
	}
	var cuts []int
	for at := 0; at < len(frame); {
		end := min(at+size, len(frame))
		for end < len(frame) && end > at+1 && !utf8.RuneStart(frame[end]) {
			end--
		}
		cuts = append(cuts, end)
		at = end
	}
	at := 0
	var buf []byte
	for seq, end := range cuts {
		buf = appendRequestPart(buf[:0], protocol.RequestPart{Type: protocol.FrameRequestPart, ID: id, Seq: seq, Count: len(cuts)}, frame[at:end])
		if err := s.writeRaw(buf); err != nil {
			return err
		}
		at = end
	}
	return nil
}

// appendRequestPart appends the JSON of part with data as its Data, as json.Marshal
// writes it, escaping data in one pass.
func appendRequestPart(b []byte, part protocol.RequestPart, data []byte) []byte {
	b = append(b, `{"type":`...)
	b = protocol.AppendString(b, string(part.Type))
	b = append(b, `,"id":`...)
	b = protocol.AppendString(b, part.ID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, int64(part.Seq), 10)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(part.Count), 10)
	b = append(b, `,"data":`...)
	b = protocol.AppendString(b, string(data))
	return append(b, '}')
}

// write sends v as one text frame.
func (s *Session) write(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	return s.writeRaw(data)
}

// writeRaw sends data as one text frame.
func (s *Session) writeRaw(data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(data)
}

// writeLocked sends data as one text frame; the caller holds wmu.
func (s *Session) writeLocked(data []byte) error {
	if err := s.conn.SetWriteDeadline(time.Now().Add(writeWait)); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	if err := s.conn.WriteMessage(websocket.TextMessage, data); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// close ends the session once: pending calls fail with why, a close frame with code
// and reason is sent when code is not 0, and the connection is closed.
func (s *Session) close(why *errcode.Error, code int, reason string) {
	s.mu.Lock()
	if s.closeErr != nil {
		s.mu.Unlock()
		return
	}
	s.closeErr = why
	calls := s.pending
	s.pending = map[string]*pending{}
	s.mu.Unlock()

	// Leave the server's list before failing the calls, so whoever sees a call fail
	// for a lost Studio also sees the session gone.
	s.srv.mu.Lock()
	if s.srv.sessions[s.info.ID] == s {
		delete(s.srv.sessions, s.info.ID)
		s.srv.notifyLocked()
	}
	s.srv.mu.Unlock()

	for _, p := range calls {
		p.err = clone(why)
		close(p.done)
	}
	if code != 0 {
		closeConn(s.conn, code, reason)
	} else {
		s.conn.Close()
	}
	close(s.done)
}

// readLoop reads frames until the connection fails, then closes the session. Any
// frame or pong proves the plugin alive for another pongWait.
func (s *Session) readLoop(pongWait time.Duration) error {
	alive := func() error { return s.conn.SetReadDeadline(time.Now().Add(pongWait)) }
	_ = alive()
	s.conn.SetPongHandler(func(string) error { return alive() })
	// One buffer for every frame: dispatch copies out what it keeps.
	var buf bytes.Buffer
	for {
		err := s.readFrame(&buf)
		if err != nil {
			s.close(s.readFailure(err), 0, "")
			return err
		}
		_ = alive()
		s.dispatch(buf.Bytes())
		if buf.Cap() > idleBuffer && s.idle() {
			buf = bytes.Buffer{}
		}
	}
}

// idleBuffer is the largest frame buffer kept while no call is pending (a snapshot's
// biggest frames, 2,000 scripts of 4 KB, fit); while calls are, the buffer is kept
// whatever its size, so a stream of big partials reuses it.
const idleBuffer = 16 << 20

// idle reports whether no call is pending.
func (s *Session) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) == 0
}

func (s *Session) readFrame(buf *bytes.Buffer) error {
	buf.Reset()
	_, r, err := s.conn.NextReader()
	if err != nil {
		return err
	}
	_, err = buf.ReadFrom(r)
	return err
}

func (s *Session) readFailure(err error) *errcode.Error {
	if errors.Is(err, websocket.ErrReadLimit) {
		return errcode.New(errcode.PayloadTooLarge,
			"studio session %s sent a frame larger than the %d byte read limit; the connection was closed",
			s.info.ID, s.srv.opts.ReadLimit).
			Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess)
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return notConnected(s.info.ID, "the plugin stopped answering pings")
	}
	return notConnected(s.info.ID, "the connection closed")
}

// dispatch routes one plugin frame to its pending call. data is reused afterwards.
func (s *Session) dispatch(data []byte) {
	f, err := scanFrame(data)
	if err != nil {
		s.srv.log.Warn("studio sent a frame that is not a JSON object", "session", s.info.ID, "err", err)
		return
	}
	switch f.Type {
	case protocol.FramePartial:
		s.mu.Lock()
		p := s.pending[f.ID]
		s.mu.Unlock()
		if p == nil {
			return // a cancelled call
		}
		// Only this goroutine touches p.parts while p is pending.
		if err := p.parts.add(f.Seq, f.Result); err != nil && s.take(f.ID) != nil {
			p.err = errcode.Wrap(errcode.Internal, err, "studio sent a bad partial result")
			close(p.done)
		}
	case protocol.FrameResponse:
		p := s.take(f.ID)
		if p == nil {
			return // a cancelled call
		}
		if f.OK {
			if err := p.parts.finish(f.Result, p.result); err != nil {
				p.err = errcode.Wrap(errcode.Internal, err, fmt.Sprintf("decode studio %s result", p.method))
			}
		} else {
			var e *protocol.Error
			if len(f.Error) > 0 {
				if err := json.Unmarshal(f.Error, &e); err != nil {
					e = &protocol.Error{Message: "studio sent an error that is not JSON: " + err.Error()}
				}
			}
			p.err = pluginError(e)
		}
		close(p.done)
	default:
		s.srv.log.Debug("studio sent an unexpected frame", "session", s.info.ID, "type", f.Type)
	}
}

// pluginError turns the error of a response into an *errcode.Error.
func pluginError(e *protocol.Error) *errcode.Error {
	if e == nil || e.Code == "" {
		msg := "studio answered with an error and no code"
		if e != nil && e.Message != "" {
			msg = e.Message
		}
		return &errcode.Error{Code: errcode.Internal, Message: msg}
	}
	msg := e.Message
	if msg == "" {
		msg = string(e.Code)
	}
	ce := &errcode.Error{Code: e.Code, Message: msg, Details: e.Details}
	if ce.Code == errcode.PayloadTooLarge && ce.ReasonCode() == "" {
		// The plugin refused to send what does not fit in a frame.
		ce.Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess)
	}
	return ce
}

// pingLoop pings the plugin every interval until the session ends. A failed ping
// write ends the session; a missing pong ends it through the read deadline.
func (s *Session) pingLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			if err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				s.close(notConnected(s.info.ID, "pinging the plugin failed"), 0, "")
				return
			}
		}
	}
}

// clone copies e, so that callers who add details do not share them.
func clone(e *errcode.Error) *errcode.Error {
	c := *e
	c.Details = maps.Clone(e.Details)
	return &c
}
