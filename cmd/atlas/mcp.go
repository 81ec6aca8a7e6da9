package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/mcpserver"
	"github.com/atlas-rbx/atlas/plugin"
	"github.com/atlas-rbx/atlas/project"
)

func (a *app) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve Atlas's tools to an AI agent over MCP (stdio); becomes the host if none is running",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: host.DefaultPort, Usage: "port when it becomes the host (falls back to a free one)"},
			&cli.BoolFlag{Name: "emulate", Usage: "when it becomes the host, also run the Studio emulator"},
			placeFlag, reviewFlag,
		},
		Action: a.action("mcp", func(ctx context.Context, c *cli.Command) error {
			// stdout carries JSON-RPC only: everything else goes to stderr.
			logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
			if err := checkReview(c.String("review")); err != nil {
				return err
			}
			loc, stateDir, err := a.project(c)
			if err != nil {
				if ce := project.AsCoded(err); ce.Code == errcode.ProjectInvalid {
					// An agent host starts this where it is told: it gets an MCP server
					// whose every tool answers why (no project here), not a closed pipe.
					logger.Warn("no Atlas project: every tool answers with the error", "err", err)
					return a.serveMCP(ctx, noProject{ce})
				}
			}
			if err != nil {
				return err
			}
			var eng host.Engine
			if cl, err := host.Dial(stateDir, loc.File); err == nil {
				if _, err := cl.Status(ctx); err == nil {
					logger.Info("using the running Atlas host", "url", cl.Registration().URL)
					eng = cl
				}
			}
			if eng == nil {
				if c.Bool("emulate") {
					if _, err := plugin.Node(ctx); err != nil {
						return err
					}
				}
				h, err := a.startOwnHost(ctx, loc, stateDir, int(c.Int("port")), logger)
				if err != nil {
					cl, werr := waitForRunningHost(ctx, stateDir, loc.File, err)
					if werr != nil {
						return werr
					}
					logger.Info("using the running Atlas host", "url", cl.Registration().URL)
					return a.serveMCP(ctx, cl)
				}
				defer h.Close()
				logger.Info("serving as the Atlas host", "plugin", h.PluginURL())
				if c.Bool("emulate") {
					em, err := a.startEmulator(ctx, h, c.String("place"), c.String("review"), logger)
					if err != nil {
						return err
					}
					defer em.Stop()
				}
				eng = h
			}
			return a.serveMCP(ctx, eng)
		}),
	}
}

// serveMCP answers MCP on stdin/stdout with eng's tools until stdin ends.
func (a *app) serveMCP(ctx context.Context, eng host.Engine) error {
	srv := mcpserver.New(eng, Version)
	// A line that is not JSON-RPC gets a JSON-RPC error; the session goes on.
	err := srv.Run(ctx, &mcpserver.LineTransport{Reader: a.stdin, Writer: a.stdout})
	if err != nil && ctx.Err() == nil && err != io.EOF {
		fmt.Fprintln(a.stderr, "atlas mcp:", err)
	}
	return nil
}

// startOwnHost makes this process the project's host: on port (or a free one when
// it is taken), so Studio's plugin can connect to it.
func (a *app) startOwnHost(ctx context.Context, loc *project.Location, stateDir string, port int, logger *slog.Logger) (*host.Host, error) {
	host.TuneGC(a.getenv)
	h, err := host.New(host.Options{Location: loc, StateDir: stateDir, Port: port, Version: Version, Kind: "mcp", Logger: logger, Prewarm: true})
	if err != nil {
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		if errcode.As(err).ReasonCode() != errcode.ReasonPortInUse || port == 0 {
			return nil, err
		}
		logger.Warn("port taken; using a free one (point the plugin at it)", "port", port)
		h.Close()
		h, err = host.New(host.Options{Location: loc, StateDir: stateDir, Port: 0, Version: Version, Kind: "mcp", Logger: logger, Prewarm: true})
		if err != nil {
			return nil, err
		}
		if err := h.Start(ctx); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// noProject is the engine of an MCP server started outside a project: every call
// answers the error that says so.
type noProject struct{ err error }

var _ host.Engine = noProject{}

func (n noProject) Status(context.Context) (*host.StatusData, error) { return nil, n.err }
func (n noProject) Plan(context.Context, host.PlanRequest) (*host.PlanData, error) {
	return nil, n.err
}
func (n noProject) Apply(context.Context, host.ApplyRequest) (*host.ApplyData, error) {
	return nil, n.err
}
func (n noProject) Script(context.Context, host.ScriptRequest) (*host.ScriptData, error) {
	return nil, n.err
}
func (n noProject) Exec(context.Context, host.ExecRequest) (*host.ExecData, error) {
	return nil, n.err
}
func (n noProject) Drift(context.Context, host.DriftRequest) (*host.DriftData, error) {
	return nil, n.err
}
func (n noProject) Review(context.Context, host.ReviewRequest) (*host.ReviewData, error) {
	return nil, n.err
}
func (n noProject) Undo(context.Context, host.UndoRequest) (*apply.UndoResult, error) {
	return nil, n.err
}
func (n noProject) Recover(context.Context, host.RecoverRequest) (*apply.RecoverResult, error) {
	return nil, n.err
}
func (n noProject) Query(context.Context, host.QueryRequest) (*host.QueryData, error) {
	return nil, n.err
}
func (n noProject) Logs(context.Context, host.LogsRequest) (*host.LogsData, error) {
	return nil, n.err
}
func (n noProject) State(context.Context, host.StateRequest) (*host.StateData, error) {
	return nil, n.err
}
func (n noProject) Transactions(context.Context) (*host.TransactionsData, error) {
	return nil, n.err
}
func (n noProject) Transaction(context.Context, string) (*host.TransactionData, error) {
	return nil, n.err
}
