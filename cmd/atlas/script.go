package main

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// scriptOptions are `atlas script get`'s flags.
type scriptOptions struct {
	IO                *ioStreams
	JSON              bool
	Session, ID, File string // File: --fs-path, absolute
	Draft             bool
}

// scripter is the engine `atlas script get` needs.
type scripter interface {
	Script(ctx context.Context, req host.ScriptRequest) (*host.ScriptData, error)
}

func (a *app) scriptCommand() *cli.Command {
	return &cli.Command{
		Name:  "script",
		Usage: "read scripts as Studio has them",
		Commands: []*cli.Command{{
			Name:  "get",
			Usage: "print a script's Source in Studio (or its unsaved draft with --draft)",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "id", Usage: "instance id (from the plan or 'atlas tree --json')"},
				&cli.StringFlag{Name: "fs-path", Usage: "the script's file in the project"},
				&cli.BoolFlag{Name: "draft", Usage: "the editor's unsaved text when the script is open"},
				sessionFlag, jsonFlag,
			},
			Action: a.runAction(host.CommandScript, func(ctx context.Context, c *cli.Command) (int, error) {
				file := c.String("fs-path")
				if file != "" && !filepath.IsAbs(file) {
					file = filepath.Join(a.cwd, file)
				}
				opts := &scriptOptions{IO: a.io, JSON: a.jsonMode, Session: c.String("session"), ID: c.String("id"), File: file, Draft: c.Bool("draft")}
				return runScript(ctx, opts, a.engine(c))
			}),
		}},
	}
}

func runScript(ctx context.Context, opts *scriptOptions, eng scripter) (int, error) {
	req := host.ScriptRequest{SessionID: opts.Session, ID: opts.ID, FsPath: opts.File, Draft: opts.Draft}
	if err := req.Validate(); err != nil {
		return exitError, asUsage(err)
	}
	d, err := eng.Script(ctx, req)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandScript, d, nil, func(w io.Writer) { io.WriteString(w, d.Source) })
	return exitOK, nil
}

// execOptions are `atlas studio exec`'s flags and argument.
type execOptions struct {
	IO         *ioStreams
	JSON       bool
	Session    string
	Context    string // edit, server or client: a playtest's session
	Code, File string // File: the FILE argument, absolute
}

// executor is the engine `atlas studio exec` needs.
type executor interface {
	Exec(ctx context.Context, req host.ExecRequest) (*host.ExecData, error)
}

func (a *app) studioCommand() *cli.Command {
	return &cli.Command{
		Name:  "studio",
		Usage: "talk to the connected Studio",
		Commands: append([]*cli.Command{{
			Name:      "exec",
			Usage:     "run Luau in Studio and print its output",
			ArgsUsage: "[FILE]",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "code", Usage: "the Luau code to run"}, sessionFlag, contextFlag, jsonFlag},
			Action: a.runAction(host.CommandExec, func(ctx context.Context, c *cli.Command) (int, error) {
				file := c.Args().First()
				if file != "" && !filepath.IsAbs(file) {
					file = filepath.Join(a.cwd, file)
				}
				opts := &execOptions{IO: a.io, JSON: a.jsonMode, Session: c.String("session"), Context: c.String("context"), Code: c.String("code"), File: file}
				return runExec(ctx, opts, a.engine(c))
			}),
		}}, append(a.studioInspectCommands(), a.studioEmulateCommand())...),
	}
}

func runExec(ctx context.Context, opts *execOptions, eng executor) (int, error) {
	code := opts.Code
	if opts.File != "" {
		if code != "" {
			return exitError, errcode.New(errcode.BadRequest, "give --code or a FILE, not both").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
		}
		b, err := os.ReadFile(opts.File)
		if err != nil {
			return exitError, errcode.Wrap(errcode.NotFound, err, "read "+opts.File).Reason(errcode.ReasonNotFound, errcode.NextFixRequest)
		}
		code = string(b)
	}
	req := host.ExecRequest{SessionID: opts.Session, Context: opts.Context, Code: code}
	if err := req.Validate(); err != nil {
		return exitError, asUsage(err)
	}
	d, err := eng.Exec(ctx, req)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandExec, d, nil, func(w io.Writer) { renderExec(w, opts.IO.ErrOut, d) })
	if !d.Success {
		return exitError, nil
	}
	return exitOK, nil
}

// asUsage marks a request's refusal as a usage error: the rule is the request's,
// and on the command line it was broken by the flags.
func asUsage(err error) error {
	e := errcode.As(err)
	if e.Code == errcode.BadRequest {
		e.With("reasonCode", string(errcode.ReasonUsage))
	}
	return e
}
