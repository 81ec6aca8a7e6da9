package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// recoverOptions are `atlas sync recover`'s flags.
type recoverOptions struct {
	IO            *ioStreams
	JSON          bool
	Tx            string
	Finish, Abort bool
}

// recoverer is the engine `atlas sync recover` needs.
type recoverer interface {
	Recover(ctx context.Context, req host.RecoverRequest) (*apply.RecoverResult, error)
}

// syncRecoverCommand is `atlas sync recover [--finish|--abort] [--tx ID] [--json]`:
// it shows the open transactions (what each writes, where Studio and disk stand)
// and resolves one on the person's word.
func (a *app) syncRecoverCommand() *cli.Command {
	return &cli.Command{
		Name:  "recover",
		Usage: "show open transactions (what they write, where Studio and disk stand) and finish or abort one",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tx", Usage: "the transaction to show or resolve (default: the only open one)"},
			&cli.BoolFlag{Name: "finish", Usage: "write the transaction's files (each only if it still holds what the plan saw), whatever Studio holds"},
			&cli.BoolFlag{Name: "abort", Usage: "drop the transaction: put back the files it wrote and leave Studio as it is (Ctrl+Z in Studio takes the patch back)"},
			jsonFlag,
		},
		Action: a.runAction(host.CommandRecover, func(ctx context.Context, c *cli.Command) (int, error) {
			opts := &recoverOptions{IO: a.io, JSON: a.jsonMode, Tx: c.String("tx"), Finish: c.Bool("finish"), Abort: c.Bool("abort")}
			return runRecover(ctx, opts, a.engine(c))
		}),
	}
}

func runRecover(ctx context.Context, opts *recoverOptions, eng recoverer) (int, error) {
	req := host.RecoverRequest{TxID: opts.Tx}
	switch {
	case opts.Finish && opts.Abort:
		return exitError, errcode.New(errcode.Usage, "--finish and --abort exclude each other").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
	case opts.Finish:
		req.Action = apply.ActionFinish
	case opts.Abort:
		req.Action = apply.ActionAbort
	}
	d, err := eng.Recover(ctx, req)
	if err != nil {
		return exitError, err
	}
	var warnings []string
	if d.Resolved != nil {
		warnings = d.Resolved.Warnings
	}
	opts.IO.emit(opts.JSON, host.CommandRecover, d, warnings, func(w io.Writer) { renderRecover(w, d) })
	return exitOK, nil
}
