package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
)

// The budget place of ARCHITECTURE §8: 10,000 scripts of about 4 KB in 50,000 instances.
const (
	benchScripts     = 10000
	benchInstances   = 50000
	benchSourceBytes = 4000
)

var benchParams = map[string]any{
	"roots": [][]string{{}},
	"properties": map[string]any{
		"Part":   map[string]string{"Anchored": "Bool", "Size": "Vector3", "Material": "Enum:Material", "Color": "Color3"},
		"Script": map[string]string{"RunContext": "Enum:RunContext"},
	},
	"chunkSize": 2000,
}

type benchSnapshot struct {
	Instances []instance `json:"instances"`
}

// BenchmarkSnapshot50k takes a full snapshot of the budget place through the bridge.
// "fake-plugin" runs the Go fake plugin in this process, so B/op and cpu-ms/op count
// both ends; "replay" sends frames the fake plugin recorded earlier from a peer that
// allocates nothing per frame, so they are nearly the host's alone. Both report the
// heap the decoded snapshot keeps (retained-MB) and that over the source bytes
// (x-source); replay also reports the host's peak heap during one call above the heap
// before it (peak-MB).
func BenchmarkSnapshot50k(b *testing.B) {
	place := bridgetest.GeneratePlace(benchScripts, benchInstances, benchSourceBytes)
	source := sourceBytes(place.Root)

	b.Run("fake-plugin", func(b *testing.B) {
		srv, url := start(b, bridge.Options{})
		sess := connect(b, srv, url, bridgetest.New(place))
		benchCalls(b, sess, source, false)
	})

	b.Run("replay", func(b *testing.B) {
		frames, idAt := record(b, place)
		srv, url := start(b, bridge.Options{})
		replayer(b, url, frames, idAt)
		sess, err := srv.WaitSession(context.Background(), "replay")
		if err != nil {
			b.Fatal(err)
		}
		benchCalls(b, sess, source, true)
	})
}

func benchCalls(b *testing.B, sess *bridge.Session, source int, peak bool) {
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		var s benchSnapshot
		if err := sess.Call(ctx, "snapshot", benchParams, &s); err != nil {
			b.Fatal(err)
		}
		if len(s.Instances) < benchInstances {
			b.Fatalf("snapshot has %d instances, want %d", len(s.Instances), benchInstances)
		}
	}

	// Wall time depends on what else the machine runs; CPU time much less.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")

	// One more call, outside the timing, to measure memory.
	runtime.GC()
	before := heapBytes()
	stop := make(chan struct{})
	maxHeap := make(chan uint64, 1)
	if peak {
		go sampleHeap(stop, maxHeap)
	}
	var s benchSnapshot
	if err := sess.Call(ctx, "snapshot", benchParams, &s); err != nil {
		b.Fatal(err)
	}
	close(stop)
	runtime.GC()
	retained := heapBytes() - before
	runtime.KeepAlive(s)
	b.ReportMetric(float64(retained)/(1<<20), "retained-MB")
	b.ReportMetric(float64(retained)/float64(source), "x-source")
	if peak {
		b.ReportMetric(float64(<-maxHeap-before)/(1<<20), "peak-MB")
	}
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap sends the largest heap seen every 200 µs until stop is closed.
func sampleHeap(stop <-chan struct{}, out chan<- uint64) {
	var maxHeap uint64
	t := time.NewTicker(200 * time.Microsecond)
	defer t.Stop()
	for {
		maxHeap = max(maxHeap, heapBytes())
		select {
		case <-stop:
			out <- maxHeap
			return
		case <-t.C:
		}
	}
}

func sourceBytes(n *bridgetest.Node) int {
	total := len(n.Source())
	for _, c := range n.Children {
		total += sourceBytes(c)
	}
	return total
}

// recordID is the request id the recorded frames carry.
const recordID = "rec"

// record has the fake plugin answer one snapshot to a bare WebSocket server and
// returns its frames with where each one's request id starts.
func record(b *testing.B, place *bridgetest.Place) (frames [][]byte, idAt []int) {
	done := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		if _, _, err := ws.ReadMessage(); err != nil { // hello
			return
		}
		ws.WriteJSON(map[string]any{"type": "welcome", "protocol": 1})
		ws.WriteJSON(map[string]any{"type": "request", "id": recordID, "method": "snapshot", "params": benchParams})
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			frames = append(frames, data)
			idAt = append(idAt, bytes.Index(data, []byte(`"id":"`+recordID+`"`))+len(`"id":"`))
			if bytes.Contains(data[:min(len(data), 40)], []byte(`"response"`)) {
				return
			}
		}
	}))
	defer ts.Close()
	p := bridgetest.New(place)
	if err := p.Connect(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http")); err != nil {
		b.Fatal(err)
	}
	<-done
	p.Close()
	if len(frames) == 0 || !bytes.Contains(frames[len(frames)-1][:40], []byte(`"response"`)) {
		b.Fatalf("recorded %d frames and no response", len(frames))
	}
	return frames, idAt
}

// replayer connects a peer that answers every request with the recorded frames.
func replayer(b *testing.B, url string, frames [][]byte, idAt []int) {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	ws.WriteJSON(map[string]any{"type": "hello", "protocol": 1, "sessionId": "replay"})
	if _, _, err := ws.ReadMessage(); err != nil {
		b.Fatal(err)
	}
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var id string
			if _, err := fmt.Sscanf(string(data[bytes.Index(data, []byte(`"id":"`))+6:]), "%s", &id); err != nil {
				return
			}
			id = id[:strings.IndexByte(id, '"')]
			for i, f := range frames {
				w, err := ws.NextWriter(websocket.TextMessage)
				if err != nil {
					return
				}
				w.Write(f[:idAt[i]])
				w.Write([]byte(id))
				w.Write(f[idAt[i]+len(recordID):])
				w.Close()
			}
		}
	}()
}

// BenchmarkApply1000 pushes new Source to 1,000 scripts of the budget place in one
// apply, each with its sourceSha1 precondition, through the bridge and the fake
// plugin (ARCHITECTURE §8: apply of 1,000 script changes).
func BenchmarkApply1000(b *testing.B) {
	place := bridgetest.GeneratePlace(benchScripts, benchInstances, benchSourceBytes)
	srv, url := start(b, bridge.Options{})
	sess := connect(b, srv, url, bridgetest.New(place))
	var snap benchSnapshot
	if err := sess.Call(context.Background(), "snapshot", map[string]any{"roots": [][]string{{"ServerScriptService"}}}, &snap); err != nil {
		b.Fatal(err)
	}
	type script struct{ handle, source string }
	var scripts []script
	for _, in := range snap.Instances {
		if in.ClassName == "Script" && len(scripts) < 1000 {
			var src struct{ String string }
			if err := json.Unmarshal(in.Properties["Source"], &src); err != nil {
				b.Fatal(err)
			}
			scripts = append(scripts, script{in.Handle, src.String})
		}
	}

	type op struct {
		Op     string         `json:"op"`
		Handle string         `json:"handle"`
		Expect map[string]any `json:"expect"`
		Set    map[string]any `json:"set"`
	}
	b.ReportAllocs()
	cpu := cpuTime()
	n := 0
	for b.Loop() {
		n++
		ops := make([]op, len(scripts))
		for i := range scripts {
			s := &scripts[i]
			next := fmt.Sprintf("%s-- edit %d\n", s.source[:len(s.source)-min(len(s.source), 20)], n)
			ops[i] = op{Op: "edit", Handle: s.handle,
				Expect: map[string]any{"sourceSha1": bridgetest.BlobSHA1(s.source)},
				Set:    map[string]any{"Source": map[string]string{"String": next}}}
			s.source = next
		}
		var res struct{ Results []json.RawMessage }
		if err := sess.Call(context.Background(), "apply", map[string]any{"txId": fmt.Sprintf("tx-%d", n), "ops": ops}, &res); err != nil {
			b.Fatal(err)
		}
		if len(res.Results) != len(scripts) {
			b.Fatalf("apply answered %d results, want %d", len(res.Results), len(scripts))
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
