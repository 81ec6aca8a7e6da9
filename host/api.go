package host

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/errcode"
)

// maxRequestBytes caps a local API request body.
const maxRequestBytes = 32 << 20

// authorized reports whether an Authorization header value carries the host's
// secret in the Bearer scheme: "Bearer", in any case (RFC 7235 schemes are
// case-insensitive), one or more spaces, then the secret and nothing else. A bare
// secret or another scheme is refused.
func (h *Host) authorized(header string) bool {
	scheme, rest, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	secret := strings.TrimLeft(rest, " ")
	if secret == "" || h.secret == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(secret), []byte(h.secret)) == 1
}

// apiCall is one call of the local API: its route under /api/v1/ and its command in
// the envelope. The routes and the Client's methods both name calls by these.
type apiCall struct{ route, command string }

var (
	callStatus  = apiCall{"status", CommandStatus}
	callPlan    = apiCall{"plan", CommandPlan}
	callApply   = apiCall{"apply", CommandApply}
	callScript  = apiCall{"script", CommandScript}
	callExec    = apiCall{"exec", CommandExec}
	callDrift   = apiCall{"drift", CommandDrift}
	callUndo    = apiCall{"undo", CommandUndo}
	callReview  = apiCall{"review", CommandReview}
	callRecover = apiCall{"recover", CommandRecover}
	callQuery   = apiCall{"query", CommandQuery}
	callLogs    = apiCall{"logs", CommandLogs}
	callState   = apiCall{"state", CommandState}
	callTxs     = apiCall{"transactions", CommandTransactions}
	callTx      = apiCall{"transaction", CommandTransaction}
)

// routes serves the local API: POST /api/v1/<call> with a JSON body, answered with
// the JSON envelope. Every call needs the bearer secret from the state dir.
func (h *Host) routes(mux *http.ServeMux) {
	handle := func(route, command string, call func(ctx context.Context, body []byte) (any, []string, error)) {
		mux.HandleFunc("/api/v1/"+route, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Origin") != "" || !loopbackHost(r.Host) {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			if !h.authorized(r.Header.Get("Authorization")) {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			if r.Method != http.MethodPost {
				http.Error(w, "use POST", http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
			var env *envelope.Envelope
			switch {
			case err != nil:
				env = envelope.Fail(command, errcode.Wrap(errcode.BadRequest, err, "read request"), nil, nil)
			case len(body) > maxRequestBytes:
				env = envelope.Fail(command, errcode.New(errcode.PayloadTooLarge, "request larger than %d bytes", maxRequestBytes), nil, nil)
			default:
				data, warnings, err := call(r.Context(), body)
				if err != nil {
					env = envelope.Fail(command, err, nil, warnings)
				} else {
					env = envelope.OK(command, data, warnings)
				}
			}
			w.Write(env.Marshal())
		})
	}
	handle(callPlaceSnapshot.route, callPlaceSnapshot.command, h.placeSnapshotCall)
	handle(callStatus.route, callStatus.command, func(ctx context.Context, _ []byte) (any, []string, error) {
		d, err := h.Status(ctx)
		return d, nil, err
	})
	handle(callPlan.route, callPlan.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req PlanRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Plan(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		return d, d.Warnings, nil
	})
	handle(callApply.route, callApply.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req ApplyRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Apply(ctx, req)
		if err != nil {
			return d, nil, err
		}
		return d, d.Warnings, nil // (files kept, say: in the envelope's warnings too)
	})
	handle(callScript.route, callScript.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req ScriptRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Script(ctx, req)
		return d, nil, err
	})
	handle(callExec.route, callExec.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req ExecRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Exec(ctx, req)
		return d, nil, err
	})
	handle(callDrift.route, callDrift.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req DriftRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Drift(ctx, req)
		return d, nil, err
	})
	handle(callUndo.route, callUndo.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req UndoRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Undo(ctx, req)
		return d, nil, err
	})
	handle(callRecover.route, callRecover.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req RecoverRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Recover(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		var warnings []string
		if d.Resolved != nil {
			warnings = d.Resolved.Warnings
		}
		return d, warnings, nil
	})
	h.studioRoutes(handle)
	handle(callReview.route, callReview.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req ReviewRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Review(ctx, req)
		return d, nil, err
	})
}

func decode(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(dst); err != nil {
		return errcode.Wrap(errcode.BadRequest, err, "bad request").Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	return nil
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client talks to a running host over the local API. It implements Engine.
type Client struct {
	stateDir, projectFile string

	mu     sync.Mutex
	reg    *Registration
	secret string
}

// Dial finds the running host of a project through the state dir.
func Dial(stateDir, projectFile string) (*Client, error) {
	dir := ProjectStateDir(stateDir, projectFile)
	noHost := func(why string) error {
		return errcode.New(errcode.NoHost, "no Atlas host is running for %s (%s)", projectFile, why).
			Reason(errcode.ReasonNoHost, errcode.NextStartHost)
	}
	reg, err := readRegistration(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, noHost("not registered")
		}
		return nil, noHost(err.Error())
	}
	if !processAlive(reg.PID) {
		return nil, noHost(fmt.Sprintf("pid %d is gone", reg.PID))
	}
	secret, err := readSecret(dir)
	if err != nil {
		return nil, noHost(err.Error())
	}
	return &Client{stateDir: stateDir, projectFile: projectFile, reg: reg, secret: secret}, nil
}

// Registration is the host's registration.
func (c *Client) Registration() *Registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reg
}

// redial looks the project's host up again after a call to the one at url could not
// connect (so sent nothing): a host started since (the one at url stopped) takes
// the calls from then on. It reports whether there is such a host.
func (c *Client) redial(url string) bool {
	fresh, err := Dial(c.stateDir, c.projectFile)
	if err != nil || fresh.reg.URL == url {
		return false
	}
	c.mu.Lock()
	c.reg, c.secret = fresh.reg, fresh.secret
	c.mu.Unlock()
	return true
}

func (c *Client) call(ctx context.Context, route string, req, dst any) ([]string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "encode request")
	}
	if len(body) > maxRequestBytes {
		// The host's answer, refused here: it would refuse the request before reading
		// all of it, and the reset of the connection could come before its answer.
		return nil, errcode.New(errcode.PayloadTooLarge, "request larger than %d bytes", maxRequestBytes)
	}
	c.mu.Lock()
	url, secret := c.reg.URL, c.secret
	c.mu.Unlock()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/"+route, bytes.NewReader(body))
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "build request")
	}
	hr.Header.Set("Authorization", "Bearer "+secret)
	hr.Header.Set("Content-Type", "application/json")
	resp, err := roundTrip(ctx, hr)
	var op *net.OpError
	if err != nil && errors.As(err, &op) && op.Op == "dial" && ctx.Err() == nil && c.redial(url) {
		// Nothing reached the host that stopped; the one running now answers.
		return c.call(ctx, route, req, dst)
	}
	sent := err == nil || !errors.As(err, &op) || op.Op != "dial"
	if err != nil {
		if sent && ctx.Err() == nil && mutatingRoutes[route] {
			return nil, outcomeUnknown(route, url, err)
		}
		return nil, errcode.Wrap(errcode.NoHost, err, "cannot reach the Atlas host at "+url).
			Reason(errcode.ReasonNoHost, errcode.NextStartHost)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() == nil && mutatingRoutes[route] {
			return nil, outcomeUnknown(route, url, err)
		}
		return nil, errcode.Wrap(errcode.NoHost, err, "read host answer")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errcode.New(errcode.NoHost, "host answered %s", resp.Status).Reason(errcode.ReasonNoHost, errcode.NextRestartHost)
	}
	var env struct {
		OK       bool               `json:"ok"`
		Data     json.RawMessage    `json:"data"`
		Warnings []string           `json:"warnings"`
		Errors   []envelope.Problem `json:"errors"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "decode host answer")
	}
	if !env.OK {
		if len(env.Errors) == 0 {
			return env.Warnings, errcode.New(errcode.Internal, "host failed without an error")
		}
		p := env.Errors[0]
		return env.Warnings, &errcode.Error{Code: p.Code, Message: p.Message, Details: p.Details}
	}
	if dst != nil {
		if err := json.Unmarshal(env.Data, dst); err != nil {
			return env.Warnings, errcode.Wrap(errcode.Internal, err, "decode host data")
		}
	}
	return env.Warnings, nil
}

// mutatingRoutes are the calls that change the project or Studio in a transaction:
// once the host has one, losing it leaves their outcome unknown.
var mutatingRoutes = map[string]bool{callApply.route: true, callUndo.route: true, callRecover.route: true}

// outcomeUnknown is the error of a mutating call whose host went away (killed, or
// crashed) after the request reached it, before it answered: the transaction may
// have been committed, or be open for the next host to finish or roll back. It is
// not "no host" (start one and try again): the same apply again could be refused
// behind that transaction, or do twice what was done.
func outcomeUnknown(route, url string, err error) error {
	return errcode.Wrap(errcode.NoHost, err, fmt.Sprintf("the Atlas host at %s went away after it received the %s, before it answered: whether it was done is unknown", url, route)).
		Reason(errcode.ReasonOutcomeUnknown, errcode.NextRestartHost, errcode.NextShowStatus, errcode.NextResolveTransaction).
		With("call", route)
}

// roundTrip sends one request on a connection of its own, closed with the answer's
// body. A CLI command makes one call; net/http's Transport would pass it between
// three goroutines (dial, write, read), about 0.9 ms of a 10 ms `atlas sync plan` on
// two busy cores. Clients that make many calls (`atlas mcp` in front of a running
// host, a wait for a host to start) open a connection for each: on loopback that
// costs little, and no proxy applies. Cancelling ctx ends a call at any point, as
// with net/http. A host that answers before it has read the whole request (a
// refusal) may close the connection under the write; its answer is read if it can
// still be.
func roundTrip(ctx context.Context, hr *http.Request) (*http.Response, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hr.URL.Host)
	if err != nil {
		return nil, err
	}
	// A deadline in the past makes the connection's pending and later reads and
	// writes fail at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	hr.Close = true
	werr := hr.Write(conn)
	resp, err := http.ReadResponse(bufio.NewReader(conn), hr)
	if err != nil {
		if werr != nil {
			err = werr
		}
		return fail(err)
	}
	resp.Body = &connBody{ReadCloser: resp.Body, ctx: ctx, conn: conn, stop: stop}
	return resp, nil
}

// connBody is an answer's body; closing it closes its connection.
type connBody struct {
	io.ReadCloser
	ctx  context.Context
	conn net.Conn
	stop func() bool
}

func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	return n, err
}

func (b *connBody) Close() error {
	b.stop()
	_ = b.ReadCloser.Close()
	return b.conn.Close()
}

func (c *Client) Status(ctx context.Context) (*StatusData, error) {
	var d StatusData
	_, err := c.call(ctx, callStatus.route, struct{}{}, &d)
	return &d, err
}

func (c *Client) Plan(ctx context.Context, req PlanRequest) (*PlanData, error) {
	var d PlanData
	w, err := c.call(ctx, callPlan.route, req, &d)
	d.Warnings = w
	return &d, err
}

// PlanJSON is Plan with the plan as the host encoded it, for a caller that passes it
// on as it is (the CLI's --json) rather than reads it.
func (c *Client) PlanJSON(ctx context.Context, req PlanRequest) (json.RawMessage, []string, error) {
	var raw json.RawMessage
	w, err := c.call(ctx, callPlan.route, req, &raw)
	return raw, w, err
}

func (c *Client) Apply(ctx context.Context, req ApplyRequest) (*ApplyData, error) {
	var d ApplyData
	_, err := c.call(ctx, callApply.route, req, &d)
	return &d, err
}

func (c *Client) Script(ctx context.Context, req ScriptRequest) (*ScriptData, error) {
	var d ScriptData
	_, err := c.call(ctx, callScript.route, req, &d)
	return &d, err
}

func (c *Client) Exec(ctx context.Context, req ExecRequest) (*ExecData, error) {
	var d ExecData
	_, err := c.call(ctx, callExec.route, req, &d)
	return &d, err
}

func (c *Client) Drift(ctx context.Context, req DriftRequest) (*DriftData, error) {
	var d DriftData
	_, err := c.call(ctx, callDrift.route, req, &d)
	return &d, err
}

func (c *Client) Review(ctx context.Context, req ReviewRequest) (*ReviewData, error) {
	var d ReviewData
	_, err := c.call(ctx, callReview.route, req, &d)
	return &d, err
}

func (c *Client) Undo(ctx context.Context, req UndoRequest) (*apply.UndoResult, error) {
	var d apply.UndoResult
	_, err := c.call(ctx, callUndo.route, req, &d)
	return &d, err
}

func (c *Client) Recover(ctx context.Context, req RecoverRequest) (*apply.RecoverResult, error) {
	var d apply.RecoverResult
	_, err := c.call(ctx, callRecover.route, req, &d)
	return &d, err
}

var _ Engine = (*Client)(nil)

// waitReady polls the host until it answers, for callers that just started one.
func waitReady(ctx context.Context, c *Client) error {
	for {
		if _, err := c.Status(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
