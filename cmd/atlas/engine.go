package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plugin"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/syncflow"
)

// stateDir is the state folder from the environment.
func (a *app) stateDir() (string, error) {
	d, err := host.StateDir(a.getenv)
	if err != nil {
		// No HOME: MCP clients may start servers with a bare environment, and a server
		// that dies before it answers shows only "connection closed".
		tmp, terr := plugin.PrivateTempDir("atlas-state")
		if terr != nil {
			return "", errcode.Wrap(errcode.Internal, err, "find the state folder").
				Reason(errcode.ReasonNoStateDir, errcode.NextSetStateDir)
		}
		fmt.Fprintf(a.stderr, "atlas: %v; keeping state in %s\n", err, tmp)
		return tmp, nil
	}
	return d, nil
}

// project finds the project the command stands in, and the state folder.
func (a *app) project(c *cli.Command) (*project.Location, string, error) {
	loc, err := a.locate(c)
	if err != nil {
		return nil, "", err
	}
	dir, err := a.stateDir()
	if err != nil {
		return nil, "", err
	}
	return loc, dir, nil
}

// client connects to the running host of the project the command stands in. A host
// is found by its project file alone, so the git work tree is not looked up: opening
// the repository is most of a short command's own work.
func (a *app) client(c *cli.Command) (*host.Client, error) {
	loc, err := project.Locate(a.cwd, c.String("project"), nil)
	if err != nil {
		return nil, err
	}
	dir, err := a.stateDir()
	if err != nil {
		return nil, err
	}
	return host.Dial(dir, loc.File)
}

// engine is the engine of a CLI command: the project's running host, found on
// first use, so that a command checks its flags before it looks for a host. On a
// terminal (and without --json) a spinner shows while a call waits.
func (a *app) engine(c *cli.Command) *dialer {
	d := &dialer{dial: func() (*host.Client, error) { return a.client(c) }}
	if a.io.progressEnabled() && !a.jsonMode {
		d.progress = newSpinner(a.io.ErrOut)
	}
	return d
}

// dialer is the engine calls the commands make, on a host it dials on its first
// call.
type dialer struct {
	dial     func() (*host.Client, error)
	progress *spinner // nil: none

	once sync.Once
	cl   *host.Client
	err  error
}

// The dialer is every small engine the commands declare.
var (
	_ statuser        = (*dialer)(nil)
	_ planner         = (*dialer)(nil)
	_ applier         = (*dialer)(nil)
	_ undoer          = (*dialer)(nil)
	_ recoverer       = (*dialer)(nil)
	_ scripter        = (*dialer)(nil)
	_ executor        = (*dialer)(nil)
	_ drifter         = (*dialer)(nil)
	_ syncflow.Engine = (*dialer)(nil)
)

// call runs f on the host's client, dialling it first if need be, with the
// spinner labelled label.
func call[T any](d *dialer, label string, f func(cl *host.Client) (T, error)) (T, error) {
	d.once.Do(func() { d.cl, d.err = d.dial() })
	if d.err != nil {
		var zero T
		return zero, &dialError{d.err}
	}
	var out T
	var err error
	d.progress.wait(label, func() { out, err = f(d.cl) })
	return out, err
}

func (d *dialer) Status(ctx context.Context) (*host.StatusData, error) {
	return call(d, "asking the host", func(cl *host.Client) (*host.StatusData, error) { return cl.Status(ctx) })
}

func (d *dialer) Plan(ctx context.Context, req host.PlanRequest) (*host.PlanData, error) {
	return call(d, "planning: reading disk and Studio", func(cl *host.Client) (*host.PlanData, error) { return cl.Plan(ctx, req) })
}

func (d *dialer) PlanJSON(ctx context.Context, req host.PlanRequest) (json.RawMessage, []string, error) {
	var warnings []string
	raw, err := call(d, "planning: reading disk and Studio", func(cl *host.Client) (json.RawMessage, error) {
		raw, w, err := cl.PlanJSON(ctx, req)
		warnings = w
		return raw, err
	})
	return raw, warnings, err
}

func (d *dialer) Apply(ctx context.Context, req host.ApplyRequest) (*host.ApplyData, error) {
	return call(d, "applying", func(cl *host.Client) (*host.ApplyData, error) { return cl.Apply(ctx, req) })
}

func (d *dialer) Script(ctx context.Context, req host.ScriptRequest) (*host.ScriptData, error) {
	return call(d, "reading the script in Studio", func(cl *host.Client) (*host.ScriptData, error) { return cl.Script(ctx, req) })
}

func (d *dialer) Exec(ctx context.Context, req host.ExecRequest) (*host.ExecData, error) {
	return call(d, "running in Studio", func(cl *host.Client) (*host.ExecData, error) { return cl.Exec(ctx, req) })
}

func (d *dialer) Drift(ctx context.Context, req host.DriftRequest) (*host.DriftData, error) {
	return call(d, "comparing Studio with git", func(cl *host.Client) (*host.DriftData, error) { return cl.Drift(ctx, req) })
}

func (d *dialer) Undo(ctx context.Context, req host.UndoRequest) (*apply.UndoResult, error) {
	return call(d, "undoing", func(cl *host.Client) (*apply.UndoResult, error) { return cl.Undo(ctx, req) })
}

func (d *dialer) Recover(ctx context.Context, req host.RecoverRequest) (*apply.RecoverResult, error) {
	return call(d, "recovering", func(cl *host.Client) (*apply.RecoverResult, error) { return cl.Recover(ctx, req) })
}

// dialError is a failure to find the host (no project, no host running), as
// opposed to the failure of a call the host answered.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

var sessionFlag = &cli.StringFlag{Name: "session", Usage: "Studio session id (see 'atlas status'); default: the only one"}
