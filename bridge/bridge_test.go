package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
)

// start serves a bridge server on loopback and returns it with its plugin URL.
func start(t testing.TB, opts bridge.Options) (*bridge.Server, string) {
	t.Helper()
	srv := bridge.NewServer(opts)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { srv.Close() })
	return srv, "ws" + strings.TrimPrefix(ts.URL, "http") + "/plugin"
}

// smallPlace is a place with a script, a folder and a part.
func smallPlace() *bridgetest.Place {
	place, err := bridgetest.LoadPlace(strings.NewReader(`{"placeId":42,"placeName":"Small","root":
		{"name":"Game","className":"DataModel","properties":{},"children":[
			{"name":"ServerScriptService","className":"ServerScriptService","properties":{},"children":[
				{"name":"Main","className":"Script","properties":{"Source":{"String":"print(1)\n"}}}]},
			{"name":"Workspace","className":"Workspace","properties":{},"children":[
				{"name":"Part","className":"Part","properties":{"Anchored":{"Bool":true}}}]}]}}`))
	if err != nil {
		panic(err)
	}
	return place
}

// connect connects a plugin and returns it with its session.
func connect(t testing.TB, srv *bridge.Server, url string, p *bridgetest.Plugin) *bridge.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Connect(ctx, url); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	sess, err := srv.WaitSession(ctx, p.SessionID)
	if err != nil {
		t.Fatalf("WaitSession(%s): %v", p.SessionID, err)
	}
	return sess
}

func newPlugin(id string) *bridgetest.Plugin {
	p := bridgetest.New(smallPlace())
	p.SessionID = id
	return p
}

func wantCode(t *testing.T, err error, want errcode.Code) *errcode.Error {
	t.Helper()
	var e *errcode.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want an *errcode.Error with code %s", err, err, want)
	}
	if e.Code != want {
		t.Fatalf("err code = %s (%v), want %s", e.Code, err, want)
	}
	return e
}

func TestHelloAndSessions(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	a := newPlugin("aaaa")
	a.PluginVersion = "1.2.3"
	connect(t, srv, url, a)
	b := newPlugin("bbbb")
	b.PlaceID, b.PlaceName = 7, "Other"
	connect(t, srv, url, b)

	got := srv.Sessions()
	want := []bridge.SessionInfo{
		{ID: "aaaa", PlaceID: 42, PlaceName: "Small", PluginVersion: "1.2.3", Context: "edit"},
		{ID: "bbbb", PlaceID: 7, PlaceName: "Other", PluginVersion: "0.0.0-test", Context: "edit"},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(bridge.SessionInfo{}, "ConnectedAt")); diff != "" {
		t.Errorf("Sessions() mismatch (-want +got):\n%s", diff)
	}
	if got[0].ConnectedAt.IsZero() || got[1].ConnectedAt.Before(got[0].ConnectedAt) {
		t.Errorf("ConnectedAt = %v, %v; want set and ascending", got[0].ConnectedAt, got[1].ConnectedAt)
	}
}

func TestHelloRefused(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p := newPlugin("old")
	p.Protocol = 2
	err := p.Connect(context.Background(), url)
	if err == nil || !strings.Contains(err.Error(), "bye") || !strings.Contains(err.Error(), "protocol 2") {
		t.Errorf("Connect with protocol 2 = %v, want a bye about the protocol", err)
	}

	// A first frame that is not a hello is refused too.
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteJSON(map[string]any{"type": "response", "id": "r1"}); err != nil {
		t.Fatal(err)
	}
	var bye map[string]any
	if err := ws.ReadJSON(&bye); err != nil || bye["type"] != "bye" {
		t.Errorf("answer to a non-hello = %v, %v; want a bye", bye, err)
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("len(Sessions()) = %d, want 0", n)
	}
}

func TestSessionPick(t *testing.T) {
	tests := []struct {
		name     string
		sessions []string
		id       string
		want     errcode.Code // "" means found
	}{
		{"none", nil, "", errcode.StudioNotConnected},
		{"none by id", nil, "aaaa", errcode.StudioNotConnected},
		{"only one", []string{"aaaa"}, "", ""},
		{"one by id", []string{"aaaa"}, "aaaa", ""},
		{"unknown id", []string{"aaaa"}, "cccc", errcode.StudioNotConnected},
		{"two", []string{"aaaa", "bbbb"}, "", errcode.StudioAmbiguous},
		{"two by id", []string{"aaaa", "bbbb"}, "bbbb", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := start(t, bridge.Options{})
			for _, id := range tt.sessions {
				connect(t, srv, url, newPlugin(id))
			}
			sess, err := srv.Session(tt.id)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Session(%q) = %v, want a session", tt.id, err)
				}
				want := tt.id
				if want == "" {
					want = tt.sessions[0]
				}
				if sess.Info().ID != want {
					t.Errorf("Session(%q).Info().ID = %q, want %q", tt.id, sess.Info().ID, want)
				}
				return
			}
			e := wantCode(t, err, tt.want)
			if tt.want == errcode.StudioAmbiguous {
				infos, _ := e.Details["sessions"].([]bridge.SessionInfo)
				var ids []string
				for _, info := range infos {
					ids = append(ids, info.ID)
				}
				if diff := cmp.Diff(tt.sessions, ids); diff != "" {
					t.Errorf("details.sessions mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestWaitSessionAndSubscribe(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	events, unsubscribe := srv.Subscribe()
	defer unsubscribe()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := srv.WaitSession(ctx, "")
	wantCode(t, err, errcode.StudioNotConnected)

	got := make(chan *bridge.Session, 1)
	go func() {
		sess, err := srv.WaitSession(context.Background(), "aaaa")
		if err != nil {
			t.Errorf("WaitSession: %v", err)
		}
		got <- sess
	}()
	p := newPlugin("aaaa")
	connect(t, srv, url, p)
	select {
	case sess := <-got:
		if sess == nil || sess.Info().ID != "aaaa" {
			t.Errorf("WaitSession returned %v, want session aaaa", sess)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitSession did not return after the plugin connected")
	}
	waitEvent(t, events, "connect")

	p.Close()
	waitEvent(t, events, "disconnect")
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("len(Sessions()) after disconnect = %d, want 0", n)
	}
}

func waitEvent(t *testing.T, events <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-events:
	case <-time.After(5 * time.Second):
		t.Fatalf("no notification on %s", what)
	}
}

func TestConcurrentCalls(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p := newPlugin("aaaa")
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "echo" {
			return nil, nil, false
		}
		var in struct{ N int }
		if err := json.Unmarshal(params, &in); err != nil {
			return nil, err, true
		}
		// Answer out of order.
		time.Sleep(time.Duration((in.N*7)%10) * time.Millisecond)
		return map[string]int{"n": in.N * 2}, nil, true
	}
	sess := connect(t, srv, url, p)

	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var out struct{ N int }
			if err := sess.Call(context.Background(), "echo", map[string]int{"n": i}, &out); err != nil {
				t.Errorf("Call(echo %d): %v", i, err)
				return
			}
			if out.N != i*2 {
				t.Errorf("Call(echo %d) = %d, want %d", i, out.N, i*2)
			}
		})
	}
	wg.Wait()
}

type instance struct {
	Handle     string                     `json:"handle"`
	Parent     *string                    `json:"parent"`
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// preorder lists the names of n and its descendants, parents first.
func preorder(n *bridgetest.Node) []string {
	names := []string{n.Name}
	for _, c := range n.Children {
		names = append(names, preorder(c)...)
	}
	return names
}

func TestSnapshotChunks(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	place := bridgetest.GeneratePlace(100, 5000, 100)
	sess := connect(t, srv, url, bridgetest.New(place))

	var got struct {
		Instances []instance `json:"instances"`
	}
	params := map[string]any{"roots": [][]string{{}}, "chunkSize": 2000}
	if err := sess.Call(context.Background(), "snapshot", params, &got); err != nil {
		t.Fatalf("Call(snapshot): %v", err)
	}
	var names []string
	seen := map[string]bool{}
	for i, inst := range got.Instances {
		names = append(names, inst.Name)
		if seen[inst.Handle] {
			t.Fatalf("instance %d: handle %s sent twice", i, inst.Handle)
		}
		if (inst.Parent == nil) != (i == 0) || (inst.Parent != nil && !seen[*inst.Parent]) {
			t.Fatalf("instance %d (%s): parent %v not sent before it", i, inst.Name, inst.Parent)
		}
		seen[inst.Handle] = true
	}
	if diff := cmp.Diff(preorder(place.Root), names); diff != "" {
		t.Errorf("snapshot names mismatch (-want +got):\n%s", diff)
	}
	if len(names) != 5000 {
		t.Errorf("len(instances) = %d, want 5000", len(names))
	}
}

// rawPlugin is a hand-driven peer: it says hello and gives the test the raw frames.
func rawPlugin(t *testing.T, srv *bridge.Server, url, id string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	hello := map[string]any{"type": "hello", "protocol": 1, "pluginVersion": "raw", "sessionId": id}
	if err := ws.WriteJSON(hello); err != nil {
		t.Fatal(err)
	}
	var welcome map[string]any
	if err := ws.ReadJSON(&welcome); err != nil || welcome["type"] != "welcome" {
		t.Fatalf("answer to hello = %v, %v; want welcome", welcome, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := srv.WaitSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestPartialsJoinedInSeqOrder(t *testing.T) {
	type snapshot struct {
		Instances []int `json:"instances"`
		More      bool  `json:"more"`
	}
	tests := []struct {
		name   string
		result func() any
		want   any
	}{
		{"into a map", func() any { return &map[string]any{} },
			&map[string]any{"instances": []any{1.0, 2.0, 3.0, 4.0, 5.0}, "more": true}},
		{"into a struct", func() any { return &snapshot{} },
			&snapshot{Instances: []int{1, 2, 3, 4, 5}, More: true}},
		{"into raw JSON", func() any { return &json.RawMessage{} }, nil}, // compared decoded, below
	}
	frames := []string{
		`{"type":"partial","id":%q,"seq":1,"result":{"instances":[3,4]}}`,
		`{"type":"partial","seq":0,"result":{"instances":[1, 2] },"id":%q}`,
		`{"type":"partial","id":%q,"seq":2,"result":{"instances":[]}}`,
		`{"type":"response","id":%q,"ok":true,"result":{"more":true,"instances":[5]}}`,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := start(t, bridge.Options{})
			ws := rawPlugin(t, srv, url, "raw")
			go func() {
				var req struct{ ID string }
				if err := ws.ReadJSON(&req); err != nil {
					return
				}
				for _, f := range frames {
					ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, f, req.ID))
				}
			}()
			sess, err := srv.Session("raw")
			if err != nil {
				t.Fatal(err)
			}
			got := tt.result()
			if err := sess.Call(context.Background(), "snapshot", nil, got); err != nil {
				t.Fatalf("Call: %v", err)
			}
			if raw, ok := got.(*json.RawMessage); ok {
				var v map[string]any
				if err := json.Unmarshal(*raw, &v); err != nil {
					t.Fatalf("result %s: %v", *raw, err)
				}
				got, tt.want = &v, &map[string]any{"instances": []any{1.0, 2.0, 3.0, 4.0, 5.0}, "more": true}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPluginError(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p := newPlugin("aaaa")
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "fail" {
			return nil, nil, false
		}
		return nil, errcode.New(errcode.NotFound, "no instance has handle h9").With("handle", "h9"), true
	}
	sess := connect(t, srv, url, p)

	err := sess.Call(context.Background(), "fail", nil, nil)
	e := wantCode(t, err, errcode.NotFound)
	if e.Message != "no instance has handle h9" {
		t.Errorf("message = %q, want the plugin's", e.Message)
	}
	if diff := cmp.Diff(map[string]any{"handle": "h9"}, e.Details); diff != "" {
		t.Errorf("details mismatch (-want +got):\n%s", diff)
	}

	err = sess.Call(context.Background(), "noSuchMethod", nil, nil)
	wantCode(t, err, errcode.BadRequest)
}

// blockingPlugin answers "slow" only when release is closed and reports cancels.
func blockingPlugin(id string) (p *bridgetest.Plugin, release chan struct{}, cancels chan string) {
	p = newPlugin(id)
	release = make(chan struct{})
	cancels = make(chan string, 10)
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "slow" {
			return nil, nil, false
		}
		<-release
		return map[string]any{}, nil, true
	}
	p.OnCancel = func(id string) { cancels <- id }
	return p, release, cancels
}

func TestCallTimeout(t *testing.T) {
	tests := []struct {
		name     string
		opts     bridge.Options
		ctx      func() (context.Context, context.CancelFunc)
		wantCode errcode.Code // "" means context.Canceled
	}{
		{"ctx deadline", bridge.Options{}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, errcode.StudioTimeout},
		{"request timeout when ctx has no deadline", bridge.Options{RequestTimeout: 100 * time.Millisecond}, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, errcode.StudioTimeout},
		{"cancelled", bridge.Options{}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := start(t, tt.opts)
			p, release, cancels := blockingPlugin("aaaa")
			defer close(release)
			sess := connect(t, srv, url, p)

			ctx, cancel := tt.ctx()
			defer cancel()
			err := sess.Call(ctx, "slow", nil, nil)
			if tt.wantCode == "" {
				if !errors.Is(err, context.Canceled) || errcode.Of(err) == errcode.StudioTimeout {
					t.Fatalf("Call = %v, want context.Canceled", err)
				}
			} else {
				wantCode(t, err, tt.wantCode)
			}
			select {
			case <-cancels:
			case <-time.After(5 * time.Second):
				t.Fatal("the plugin got no cancel frame")
			}
			// The session is still usable.
			if err := sess.Call(context.Background(), "ping", nil, nil); err != nil {
				t.Errorf("Call(ping) after a timeout: %v", err)
			}
		})
	}
}

func TestDisconnectMidRequest(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p := newPlugin("aaaa")
	sess := connect(t, srv, url, p)
	p.DropNextRequest("snapshot")
	err := sess.Call(context.Background(), "snapshot", map[string]any{"roots": [][]string{{}}}, nil)
	wantCode(t, err, errcode.StudioNotConnected)
	select {
	case <-sess.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("session not done after the plugin dropped")
	}
	wantCode(t, sess.Call(context.Background(), "ping", nil, nil), errcode.StudioNotConnected)
}

// An answer larger than the host's frame limit is refused by the plugin, which
// the welcome told the limit: the call fails, the connection lives on.
func TestPayloadTooLargeRefusedByThePlugin(t *testing.T) {
	srv, url := start(t, bridge.Options{ReadLimit: 4096})
	p := newPlugin("aaaa")
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "big" {
			return nil, nil, false
		}
		return map[string]string{"text": strings.Repeat("x", 10000)}, nil, true
	}
	sess := connect(t, srv, url, p)

	err := sess.Call(context.Background(), "big", nil, nil)
	wantCode(t, err, errcode.PayloadTooLarge)
	if err := sess.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatalf("ping after a refused answer: %v", err)
	}
}

// A plugin that sends a frame over the read limit anyway is cut off with close
// 1009, and its call fails with E_PAYLOAD_TOO_LARGE.
func TestPayloadTooLarge(t *testing.T) {
	srv, url := start(t, bridge.Options{ReadLimit: 4096})
	p := newPlugin("aaaa")
	p.FrameLimit = 1 << 20
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "big" {
			return nil, nil, false
		}
		return map[string]string{"text": strings.Repeat("x", 10000)}, nil, true
	}
	sess := connect(t, srv, url, p)

	err := sess.Call(context.Background(), "big", nil, nil)
	wantCode(t, err, errcode.PayloadTooLarge)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Wait(ctx); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Errorf("plugin connection ended with %v, want close 1009", err)
	}
}

func TestUpgradeChecks(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   int
	}{
		{"plain", nil, http.StatusSwitchingProtocols},
		{"origin", http.Header{"Origin": {"http://evil.example.com"}}, http.StatusForbidden},
		{"null origin", http.Header{"Origin": {"null"}}, http.StatusForbidden},
		{"empty origin", http.Header{"Origin": {""}}, http.StatusForbidden},
		{"foreign host", http.Header{"Host": {"evil.example.com"}}, http.StatusForbidden},
		{"foreign host with port", http.Header{"Host": {"evil.example.com:1234"}}, http.StatusForbidden},
		{"loopback lookalike", http.Header{"Host": {"127.0.0.1.evil.example.com"}}, http.StatusForbidden},
		{"private address", http.Header{"Host": {"192.168.1.5:1234"}}, http.StatusForbidden},
		{"localhost with port", http.Header{"Host": {"localhost:1234"}}, http.StatusSwitchingProtocols},
		{"localhost", http.Header{"Host": {"localhost"}}, http.StatusSwitchingProtocols},
		{"127/8", http.Header{"Host": {"127.0.0.2:80"}}, http.StatusSwitchingProtocols},
		{"ipv6 loopback", http.Header{"Host": {"[::1]:1234"}}, http.StatusSwitchingProtocols},
		{"ipv6 loopback without port", http.Header{"Host": {"[::1]"}}, http.StatusSwitchingProtocols},
	}
	_, url := start(t, bridge.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, resp, err := websocket.DefaultDialer.Dial(url, tt.header)
			if ws != nil {
				defer ws.Close()
			}
			if resp == nil {
				t.Fatalf("Dial: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Errorf("upgrade status = %d, want %d (err %v)", resp.StatusCode, tt.want, err)
			}
		})
	}
}

func TestPingKeepsQuietConnectionAlive(t *testing.T) {
	// Many pings over the quiet second; the pong deadline leaves room for a busy machine.
	srv, url := start(t, bridge.Options{PingInterval: 20 * time.Millisecond, PongWait: time.Second})
	sess := connect(t, srv, url, newPlugin("aaaa"))
	select {
	case <-sess.Done():
		t.Fatal("a plugin that answers pings was dropped")
	case <-time.After(1500 * time.Millisecond):
	}
	if err := sess.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Errorf("Call(ping): %v", err)
	}
}

func TestPingDropsSilentPeer(t *testing.T) {
	srv, url := start(t, bridge.Options{PingInterval: 20 * time.Millisecond, PongWait: 100 * time.Millisecond})
	ws := rawPlugin(t, srv, url, "mute")
	ws.SetPingHandler(func(string) error { return nil }) // never pong
	sess, err := srv.Session("mute")
	if err != nil {
		t.Fatal(err)
	}
	readErr := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				readErr <- err
				return
			}
		}
	}()
	select {
	case <-sess.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a peer that never pongs was not dropped")
	}
	select {
	case <-readErr:
	case <-time.After(5 * time.Second):
		t.Fatal("the peer's connection stayed open")
	}
	wantCode(t, sess.Call(context.Background(), "ping", nil, nil), errcode.StudioNotConnected)
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("len(Sessions()) = %d, want 0", n)
	}
}

func TestReconnectReplaces(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p, release, _ := blockingPlugin("aaaa")
	defer close(release)
	old := connect(t, srv, url, p)

	callErr := make(chan error, 1)
	go func() { callErr <- old.Call(context.Background(), "slow", nil, nil) }()
	time.Sleep(50 * time.Millisecond) // let the request reach the plugin

	if err := p.Connect(context.Background(), url); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	select {
	case err := <-callErr:
		wantCode(t, err, errcode.StudioNotConnected)
	case <-time.After(5 * time.Second):
		t.Fatal("the pending call on the replaced connection did not fail")
	}
	select {
	case <-old.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the replaced session is not done")
	}

	cur, err := srv.Session("")
	if err != nil {
		t.Fatalf("Session(\"\") after reconnect: %v", err)
	}
	if cur == old {
		t.Error("Session(\"\") is still the replaced connection")
	}
	if n := len(srv.Sessions()); n != 1 {
		t.Errorf("len(Sessions()) = %d, want 1", n)
	}
	if err := cur.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Errorf("Call(ping) on the new connection: %v", err)
	}
}

func TestCloseSendsShutdown(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	p := newPlugin("aaaa")
	sess := connect(t, srv, url, p)
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := p.Wait(ctx)
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure || ce.Text != "shutdown" {
		t.Errorf("plugin connection ended with %v, want close 1000 \"shutdown\"", err)
	}
	wantCode(t, sess.Call(context.Background(), "ping", nil, nil), errcode.StudioNotConnected)
	if err := p.Connect(ctx, url); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("Connect after Close = %v, want 503", err)
	}
}
