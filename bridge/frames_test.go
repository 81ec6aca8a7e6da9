package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/protocol"
)

// A request larger than the part size travels as requestPart frames, cut between
// UTF-8 sequences, and reaches the plugin whole.
func TestBigRequestTravelsInParts(t *testing.T) {
	srv, url := start(t, bridge.Options{PartBytes: 1000})
	p := newPlugin("aaaa")
	var got string
	p.Hook = func(method string, params json.RawMessage) (any, error, bool) {
		if method != "echo" {
			return nil, nil, false
		}
		var in struct{ Text string }
		if err := json.Unmarshal(params, &in); err != nil {
			return nil, err, true
		}
		got = in.Text
		return map[string]int{"length": len(in.Text)}, nil, true
	}
	sess := connect(t, srv, url, p)
	// Multi-byte characters land on the cuts, quotes and backslashes are escaped twice.
	text := strings.Repeat("é\"日本\\🎉 ", 2000)
	var res struct{ Length int }
	if err := sess.Call(context.Background(), "echo", map[string]string{"text": text}, &res); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got != text || res.Length != len(text) {
		t.Fatalf("the plugin received %d bytes (equal: %v), want the %d sent", len(got), got == text, len(text))
	}
	if err := sess.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatalf("a small call after a big one: %v", err)
	}
}

// A request over the request limit is refused before anything is sent, and the
// session goes on.
func TestRequestOverTheLimitIsNotSent(t *testing.T) {
	srv, url := start(t, bridge.Options{PartBytes: 1000, RequestLimit: 10000})
	p := newPlugin("aaaa")
	sess := connect(t, srv, url, p)
	err := sess.Call(context.Background(), "echo", map[string]string{"text": strings.Repeat("x", 20000)}, nil)
	e := wantCode(t, err, errcode.PayloadTooLarge)
	if e.ReasonCode() != errcode.ReasonPayloadTooLarge || fmt.Sprint(e.NextActions()) != "[send_less]" {
		t.Errorf("reason %s, next %v", e.ReasonCode(), e.NextActions())
	}
	if err := sess.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatalf("ping after the refusal: %v", err)
	}
	for _, m := range p.Requests() {
		if m == "echo" {
			t.Fatal("the plugin received the refused request")
		}
	}
}

// Snapshot partials are bounded by bytes as well as by count: a place of big
// scripts arrives in many frames, each under the read limit, and whole.
func TestSnapshotPartialsAreBoundedByBytes(t *testing.T) {
	const scripts, size = 40, 3000
	root := `{"name":"Game","className":"DataModel","properties":{},"children":[{"name":"ServerScriptService","className":"ServerScriptService","properties":{},"children":[`
	for i := range scripts {
		if i > 0 {
			root += ","
		}
		src, _ := json.Marshal(strings.Repeat(fmt.Sprint(i%10), size))
		root += fmt.Sprintf(`{"name":"S%d","className":"ModuleScript","properties":{"Source":{"String":%s}}}`, i, src)
	}
	root += `]}]}`
	place, err := bridgetest.LoadPlace(strings.NewReader(`{"placeId":1,"placeName":"Big","root":` + root + `}`))
	if err != nil {
		t.Fatal(err)
	}
	// Every script fits in a frame; all of them together need many.
	srv, url := start(t, bridge.Options{ReadLimit: 16 << 10, PartBytes: 8 << 10})
	p := bridgetest.New(place)
	sess := connect(t, srv, url, p)
	res, err := sess.Snapshot(context.Background(), protocol.SnapshotParams{Roots: [][]string{{}}, Nodes: [][]string{}, Properties: map[string]map[string]string{}})
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if n := len(res.Instances); n != scripts+2 {
		t.Fatalf("snapshot has %d instances, want %d", n, scripts+2)
	}
	for i, inst := range res.Instances[2:] {
		if inst.Name != fmt.Sprintf("S%d", i) || len(inst.Properties["Source"]) < size {
			t.Fatalf("instance %d = %s with %d bytes of Source", i, inst.Name, len(inst.Properties["Source"]))
		}
	}

	// One script larger than a frame can hold: refused, and the session lives.
	big, _ := json.Marshal(strings.Repeat("y", 20<<10))
	p2, err := bridgetest.LoadPlace(strings.NewReader(`{"placeId":1,"placeName":"Big","root":{"name":"Game","className":"DataModel","properties":{},"children":[{"name":"Huge","className":"Script","properties":{"Source":{"String":` + string(big) + `}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	q := bridgetest.New(p2)
	q.SessionID = "bbbb"
	qs := connect(t, srv, url, q)
	_, err = qs.Snapshot(context.Background(), protocol.SnapshotParams{Roots: [][]string{{}}, Nodes: [][]string{}, Properties: map[string]map[string]string{}})
	e := wantCode(t, err, errcode.PayloadTooLarge)
	if e.Details["path"] != "Huge" {
		t.Errorf("details = %v, want the path of the script", e.Details)
	}
	if err := qs.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatalf("ping after the refusal: %v", err)
	}
}
