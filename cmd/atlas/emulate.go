package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plugin"
)

// studioEmulateCommand runs the Studio emulator on its own, as a separate Studio: it
// connects to whatever host listens on --port, outlives that host, and its plugin
// reconnects (with the same session) to the next one, as Studio's does.
func (a *app) studioEmulateCommand() *cli.Command {
	return &cli.Command{
		Name: "emulate",
		Usage: "run the Studio emulator (the real plugin on a mock place) on its own, like a Studio left open: " +
			"it connects to the host on --port, keeps running when that host stops, and reconnects to the next one",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: host.DefaultPort, Usage: "the host's port on 127.0.0.1"},
			&cli.StringFlag{Name: "place", Usage: "the place to start from (.rbxl, .rbxlx, .rbxm, .rbxmx or the emulator's JSON), saved back on exit in its format (default: the project at HEAD)"},
			&cli.StringFlag{Name: "review", Value: "accept", Usage: "how the emulated person answers reviews (accept, abort, none)"},
			&cli.StringFlag{Name: "session-id", Usage: "the plugin's session id, 32 hex digits (default: a new one)"},
			&cli.BoolFlag{Name: "verbose", Usage: "log every line of the emulator"},
		},
		Action: a.action("studio emulate", func(ctx context.Context, c *cli.Command) error {
			port := c.Int("port")
			if port <= 0 || port > 65535 {
				return errcode.New(errcode.Usage, "--port %d: want the host's port, 1 to 65535", port).Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
			}
			session := c.String("session-id")
			if session != "" && !dom.IsHex32(session) {
				return errcode.New(errcode.Usage, "--session-id %q: want 32 hex digits", session).Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
			}
			review := c.String("review")
			if err := checkReview(review); err != nil {
				return err
			}
			loc, stateDir, err := a.project(c)
			if err != nil {
				return err
			}
			if _, err := plugin.Node(ctx); err != nil {
				return err
			}
			logger, err := serveLogger(a.stderr, a.io.errStyle(), "human", c.Bool("verbose"))
			if err != nil {
				return err
			}
			// A host that is never started: it builds the place from the project's
			// caches, as serve --emulate does, and takes no lock or port.
			h, err := host.New(host.Options{Location: loc, StateDir: stateDir, Version: Version, Kind: "emulate", Logger: logger})
			if err != nil {
				return err
			}
			defer h.Close()
			url := fmt.Sprintf("ws://127.0.0.1:%d/plugin", port)
			fmt.Fprintf(a.stderr, "atlas: the Studio emulator connects to the host at %s (stop it with Ctrl+C)\n", url)
			em, err := a.emulate(ctx, h, host.EmulatorOptions{URL: url, Review: review, SessionID: session, Keep: true, ConnectTimeout: -1, Logger: logger}, c.String("place"))
			if err != nil {
				return err
			}
			defer em.Stop()
			select {
			case <-ctx.Done():
				return nil
			case err := <-em.Done():
				return errcode.New(errcode.Internal, "the emulator exited: %v", err)
			}
		}),
	}
}
