package main

import (
	"context"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// waitForRunningHost is for `atlas mcp` when it meant to become the host but
// another process holds the project's host lock (err, E_BUSY host_running): that
// host may be starting, not answering yet. It waits a few seconds for it to
// answer and returns a client of it, or err. Recovery runs only in the lock's
// holder, so a client never touches open transactions.
func waitForRunningHost(ctx context.Context, stateDir, projectFile string, err error) (*host.Client, error) {
	if errcode.As(err).ReasonCode() != errcode.ReasonHostRunning {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		if cl, derr := host.Dial(stateDir, projectFile); derr == nil {
			if _, serr := cl.Status(ctx); serr == nil {
				return cl, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
