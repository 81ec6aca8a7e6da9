package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// `atlas sync plan` against a Studio that answers WebSocket pings but no request
// fails with E_STUDIO_TIMEOUT once the host's Studio timeout (60 s by default; a
// short one here) has passed, instead of waiting on.
func TestSyncPlanTimesOutOnAStalledStudio(t *testing.T) {
	e := hosttest.StartWith(t, hosttest.Config{
		Options: func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond; o.Prewarm = true },
		Plugin:  func(p *bridgetest.Plugin) { p.Stall = true },
	})
	type result struct {
		stdout, stderr string
		code           int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := runAtlasEnv(t, e.Dir, map[string]string{"ATLAS_STATE_DIR": e.StateDir}, "sync", "plan", "--json")
		done <- result{out, errOut, code}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second): // a hang guard only
		t.Fatal("atlas sync plan did not return")
	}
	var env struct {
		OK     bool `json:"ok"`
		Errors []struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || env.OK || len(env.Errors) != 1 {
		t.Fatalf("atlas sync plan --json = %d %q %q (%v)", r.code, r.stdout, r.stderr, err)
	}
	if env.Errors[0].Code != "E_STUDIO_TIMEOUT" || env.Errors[0].Details["reasonCode"] != "studio_timeout" || r.code != exitError {
		t.Fatalf("error %+v, exit %d", env.Errors[0], r.code)
	}
}
