package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// driftOptions are `atlas drift`'s flags.
type driftOptions struct {
	IO             *ioStreams
	JSON           bool
	Session        string
	Staged, Strict bool
	// IndexFile is the index being committed, from git's GIT_INDEX_FILE (--staged
	// only); "" for the repository's own.
	IndexFile string
}

// drifter is the engine `atlas drift` needs.
type drifter interface {
	Drift(ctx context.Context, req host.DriftRequest) (*host.DriftData, error)
}

func (a *app) driftCommand() *cli.Command {
	return &cli.Command{
		Name:  "drift",
		Usage: "report work in Studio that git does not have (exit 2 when there is drift)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "as a pre-commit hook: block only when drift touches files being committed"},
			&cli.BoolFlag{Name: "strict", Usage: "block on any drift, and when no Studio is connected"},
			sessionFlag, jsonFlag,
		},
		Action: a.runAction(host.CommandDrift, func(ctx context.Context, c *cli.Command) (int, error) {
			opts := &driftOptions{IO: a.io, JSON: a.jsonMode, Session: c.String("session"), Staged: c.Bool("staged"), Strict: c.Bool("strict")}
			if opts.Staged {
				opts.IndexFile = a.gitIndexFile()
			}
			return runDrift(ctx, opts, a.engine(c))
		}),
	}
}

// runDrift reports drift. As a hook (--staged) it blocks a commit (exit 2) only for
// drift it saw in files being committed, never for a failure; --strict blocks on
// any drift and when it cannot look.
func runDrift(ctx context.Context, opts *driftOptions, eng drifter) (int, error) {
	d, err := eng.Drift(ctx, host.DriftRequest{SessionID: opts.Session, Staged: opts.Staged, IndexFile: opts.IndexFile})
	var notFound *dialError
	switch {
	case errors.As(err, &notFound) && errcode.Of(err) == errcode.NoHost:
		return driftUnknown(opts, opts.Strict, "no Atlas host is running: Studio drift not checked"), nil
	case errors.As(err, &notFound) && opts.Staged && !opts.Strict:
		// (no project found, say: the hook never blocks a commit for a failure)
		return driftUnknown(opts, false, "drift not checked: "+errcode.As(err).Message), nil
	case errors.As(err, &notFound):
		return exitError, err
	case err != nil && opts.Staged && !opts.Strict:
		return driftUnknown(opts, false, "drift not checked: "+errcode.As(err).Message), nil
	case err != nil:
		return exitError, err
	case !d.Connected:
		return driftUnknown(opts, opts.Strict, d.Message), nil
	}
	block := d.Drift
	if opts.Staged && !opts.Strict {
		block = len(d.Blocking) > 0
	}
	out := opts.IO.Out
	if opts.Staged && !block {
		out = opts.IO.ErrOut // the hook stays quiet on stdout unless it blocks
	}
	opts.IO.emit(opts.JSON, host.CommandDrift, d, nil, func(io.Writer) { renderDrift(out, d, opts.Staged) })
	if block {
		return exitChanges, nil
	}
	return exitOK, nil
}

// gitIndexFile is the index git is committing, as an absolute path: git hands a
// pre-commit hook GIT_INDEX_FILE, a temporary index for "git commit -a" and "git
// commit <paths>" (the repository's own index does not hold what they commit).
// A relative path is relative to the folder git ran the hook in, the current
// one. "" when it is not set.
func (a *app) gitIndexFile() string {
	p := a.getenv("GIT_INDEX_FILE")
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.cwd, p)
}

func driftUnknown(opts *driftOptions, strict bool, msg string) int {
	d := &host.DriftData{Connected: false, Message: msg, Changes: []*plan.Change{}, Blocking: []string{}}
	opts.IO.emit(opts.JSON, host.CommandDrift, d, nil, func(io.Writer) { fmt.Fprintln(opts.IO.ErrOut, "atlas drift:", msg) })
	if strict {
		return exitChanges
	}
	return exitOK
}
