package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes caps one JSON-RPC message (one line) read by a LineTransport.
const MaxMessageBytes = MaxArgumentBytes + 1<<20

// A LineTransport serves MCP over newline-delimited JSON-RPC on Reader and Writer
// (stdin and stdout for `atlas mcp`). The SDK's IOTransport ends the session on
// the first line that is not a JSON-RPC message; a LineTransport answers such a
// line with a JSON-RPC error instead, as JSON-RPC 2.0 asks, and goes on serving:
//   - a line that is not JSON: -32700 (parse error), id null;
//   - JSON that is not a JSON-RPC 2.0 request, notification or response, a batch
//     (MCP 2025-06-18 and later have none), or a line longer than MaxMessageBytes:
//     -32600 (invalid request), with the request's id when it has a valid one.
//
// Blank lines are skipped. The session ends when Reader reaches its end, once every
// request read before it is answered (the SDK would cancel them).
type LineTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.Writer, incoming: make(chan jsonrpc.Message), closed: make(chan struct{}), done: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, idle: make(chan struct{})}
	close(c.idle)
	go c.readLoop(t.Reader)
	return c, nil
}

type lineConn struct {
	writeMu sync.Mutex
	w       io.Writer

	incoming  chan jsonrpc.Message
	readErr   error         // set before done is closed
	done      chan struct{} // closed when the reader ends
	closed    chan struct{} // closed by Close
	closeOnce sync.Once

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // requests read and not answered yet
	idle    chan struct{}       // closed while none is pending
}

// track notes a request read, untrack its answer.
func (c *lineConn) track(msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.pending) == 0 {
			c.idle = make(chan struct{})
		}
		c.pending[req.ID] = true
	}
}

func (c *lineConn) untrack(msg jsonrpc.Message) {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.pending[resp.ID] {
			delete(c.pending, resp.ID)
			if len(c.pending) == 0 {
				close(c.idle)
			}
		}
	}
}

func (c *lineConn) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		if len(line) > 0 || tooLong {
			if msg := c.decode(line, tooLong); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine reads one line without its end, at most limit bytes of it; the rest of
// a longer line is read and dropped (tooLong).
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+2 { // +2: the line's own \r\n
			tooLong = true
			line = line[:0]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// decode returns the message on a line, or answers the line with a JSON-RPC error
// and returns nil.
func (c *lineConn) decode(line []byte, tooLong bool) jsonrpc.Message {
	switch {
	case tooLong:
		c.writeError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is larger than %d bytes", MaxMessageBytes))
		return nil
	case !json.Valid(line):
		var v any
		err := json.Unmarshal(line, &v)
		c.writeError(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: %v", err))
		return nil
	case line[0] == '[':
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeError(idOf(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err))
		return nil
	}
	return msg
}

// idOf is the id of a message that is not valid JSON-RPC, when it has a valid one
// (a string or a number); otherwise null.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// writeError writes a JSON-RPC error response; a nil id is written as null.
func (c *lineConn) writeError(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// One Write per message, so that lines never interleave.
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		c.track(msg)
		return msg, nil
	case <-c.done:
		if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
			return nil, c.readErr
		}
		// The end of the input ends the session, after the answers to what was read.
		c.mu.Lock()
		idle := c.idle
		c.mu.Unlock()
		select {
		case <-idle:
		case <-c.closed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeLine(b)
	c.untrack(msg)
	return err
}

// Close implements mcp.Connection. The reader is left to end with its input:
// reads of stdin cannot be interrupted portably.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *lineConn) SessionID() string { return "" }
