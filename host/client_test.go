package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
)

// The client sends each call on a connection of its own: the request arrives whole
// with the secret, the answer is read whether it has a length or is chunked, every
// connection is closed, and cancelling the context ends a call the host is still
// working on.
func TestClientRoundTrip(t *testing.T) {
	var open atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/v1/status":
			// Flushing first makes the answer chunked.
			w.(http.Flusher).Flush()
			fmt.Fprintf(w, `{"ok":true,"data":{"host":{"pid":%d}},"warnings":[%q]}`, len(body), body)
		case "/api/v1/plan":
			<-release
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	defer close(release)
	c := &Client{reg: &Registration{URL: srv.URL}, secret: "s3cret"}

	for i := range 20 {
		var d StatusData
		w, err := c.call(context.Background(), "status", map[string]int{"n": i}, &d)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"n":%d}`, i)
		if d.Host.PID != len(want) || len(w) != 1 || w[0] != want {
			t.Fatalf("call %d: pid %d, warnings %q; want the request body %q echoed", i, d.Host.PID, w, want)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); open.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after 20 calls", open.Load())
		}
	}

	bad := &Client{reg: &Registration{URL: srv.URL}, secret: "wrong"}
	if _, err := bad.call(context.Background(), "status", struct{}{}, nil); errcode.Of(err) != errcode.NoHost || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong secret: %v, want E_NO_HOST naming 401", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.call(ctx, "plan", struct{}{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errcode.Of(err) != errcode.NoHost {
		t.Fatalf("cancelled call: %v, want E_NO_HOST wrapping the context's error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancelled call returned after %v", d)
	}
}
