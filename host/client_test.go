package host

import (
	"bufio"
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
// with the secret, the answer is read whether it has a length or is chunked, a wrong
// secret is named, and a request over the host's limit is refused without sending it.
func TestClientRoundTrip(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		// Flushing first makes the answer chunked.
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, `{"ok":true,"data":{"host":{"pid":%d}},"warnings":[%q]}`, len(body), body)
	}))
	defer srv.Close()
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

	bad := &Client{reg: &Registration{URL: srv.URL}, secret: "wrong"}
	if _, err := bad.call(context.Background(), "status", struct{}{}, nil); errcode.Of(err) != errcode.NoHost || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong secret: %v, want E_NO_HOST naming 401", err)
	}

	before := requests.Load()
	big := strings.Repeat("x", maxRequestBytes)
	if _, err := c.call(context.Background(), "status", big, nil); errcode.Of(err) != errcode.PayloadTooLarge {
		t.Fatalf("request over the limit: %v, want E_PAYLOAD_TOO_LARGE", err)
	}
	if n := requests.Load() - before; n != 0 {
		t.Fatalf("the request over the limit was sent (%d requests)", n)
	}
}

// rawHost is a host that answers by hand on a listener of its own: each connection's
// request is read to its end and answer is called with the connection.
func rawHost(t *testing.T, answer func(c net.Conn, r *http.Request)) *Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, r.Body)
				answer(c, r)
			}()
		}
	}()
	return &Client{reg: &Registration{URL: "http://" + ln.Addr().String()}, secret: "s"}
}

// The client closes its connection itself once it has the answer, and asks the host
// to close (Connection: close), even when the host would keep the connection open.
func TestClientClosesItsConnection(t *testing.T) {
	closed := make(chan error, 1)
	c := rawHost(t, func(conn net.Conn, r *http.Request) {
		if !r.Close {
			closed <- fmt.Errorf("request without Connection: close")
			return
		}
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"ok\":true,\"data\":{}}")
		// A host that keeps the connection: the next read ends when the client closes it.
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := conn.Read(make([]byte, 1))
		closed <- err
	})
	if _, err := c.call(context.Background(), "status", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != io.EOF {
		t.Fatalf("the host's read after the answer: %v, want EOF (the client closed)", err)
	}
}

// Cancelling the context ends a call at once, whether the host has not answered yet or
// is in the middle of its answer's body; the error wraps the context's.
func TestClientCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, c := range []struct {
		name   string
		answer func(conn net.Conn)
	}{
		{"no answer yet", func(net.Conn) {}},
		{"half a body", func(conn net.Conn) {
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ok\"\r\n")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := rawHost(t, func(conn net.Conn, _ *http.Request) {
				c.answer(conn)
				<-release
			})
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := cl.call(ctx, "plan", struct{}{}, nil)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) || errcode.Of(err) != errcode.NoHost {
					t.Fatalf("cancelled call: %v, want E_NO_HOST wrapping the context's error", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled call did not return")
			}
		})
	}
}
