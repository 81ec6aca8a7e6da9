package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/host"
)

// statusOptions are `atlas status`'s flags.
type statusOptions struct {
	IO   *ioStreams
	JSON bool
}

// statuser is the engine `atlas status` needs.
type statuser interface {
	Status(ctx context.Context) (*host.StatusData, error)
}

func (a *app) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the running host and the connected Studio sessions",
		Flags: []cli.Flag{jsonFlag},
		Action: a.runAction(host.CommandStatus, func(ctx context.Context, c *cli.Command) (int, error) {
			return runStatus(ctx, &statusOptions{IO: a.io, JSON: a.jsonMode}, a.engine(c))
		}),
	}
}

func runStatus(ctx context.Context, opts *statusOptions, eng statuser) (int, error) {
	d, err := eng.Status(ctx)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandStatus, d, nil, func(w io.Writer) { renderStatus(w, d, opts.IO.style()) })
	return exitOK, nil
}
