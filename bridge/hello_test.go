package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/atlas-rbx/atlas/bridge"
)

// A plugin in a playtest's DataModel says so in its hello; the session shows it.
func TestHelloContextFields(t *testing.T) {
	srv, url := start(t, bridge.Options{})
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	hello := map[string]any{
		"type": "hello", "protocol": 1, "pluginVersion": "0.1.0", "placeId": 3, "placeName": "P",
		"sessionId": "cccc", "context": "server", "readOnly": true, "collaborativeEditing": true,
	}
	if err := ws.WriteJSON(hello); err != nil {
		t.Fatal(err)
	}
	var welcome map[string]any
	if err := ws.ReadJSON(&welcome); err != nil || welcome["type"] != "welcome" {
		t.Fatalf("welcome = %v, %v", welcome, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := srv.WaitSession(ctx, "cccc")
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.Context != "server" || !info.ReadOnly || !info.CollaborativeEditing {
		t.Errorf("session info = %+v, want context server, read-only, collaborative editing", info)
	}
}
