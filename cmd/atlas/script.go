package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

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
			Action: a.action("script.get", func(ctx context.Context, c *cli.Command) error {
				id, fsPath := c.String("id"), c.String("fs-path")
				if (id == "") == (fsPath == "") {
					return errcode.New(errcode.BadRequest, "give exactly one of --id or --fs-path").Reason(errcode.ReasonUsage, errcode.NextPassScript)
				}
				cl, _, err := a.client(c)
				if err != nil {
					return err
				}
				if fsPath != "" && !filepath.IsAbs(fsPath) {
					fsPath = filepath.Join(a.cwd, fsPath)
				}
				d, err := cl.Script(ctx, host.ScriptRequest{SessionID: c.String("session"), ID: id, FsPath: fsPath, Draft: c.Bool("draft")})
				if err != nil {
					return err
				}
				a.emit("script.get", d, nil, func(w io.Writer) { io.WriteString(w, d.Source) })
				return nil
			}),
		}},
	}
}

func (a *app) studioCommand() *cli.Command {
	return &cli.Command{
		Name:  "studio",
		Usage: "talk to the connected Studio",
		Commands: []*cli.Command{{
			Name:      "exec",
			Usage:     "run Luau in Studio and print its output",
			ArgsUsage: "[FILE]",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "code", Usage: "the Luau code to run"}, sessionFlag, jsonFlag},
			Action: a.action("studio.exec", func(ctx context.Context, c *cli.Command) error {
				code := c.String("code")
				if file := c.Args().First(); file != "" {
					if code != "" {
						return errcode.New(errcode.BadRequest, "give --code or a FILE, not both").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
					}
					if !filepath.IsAbs(file) {
						file = filepath.Join(a.cwd, file)
					}
					b, err := os.ReadFile(file)
					if err != nil {
						return errcode.Wrap(errcode.NotFound, err, "read "+file).Reason(errcode.ReasonNotFound, errcode.NextFixRequest)
					}
					code = string(b)
				}
				if code == "" {
					return errcode.New(errcode.BadRequest, "nothing to run: pass --code C or a FILE").Reason(errcode.ReasonUsage, errcode.NextFixRequest)
				}
				cl, _, err := a.client(c)
				if err != nil {
					return err
				}
				d, err := cl.Exec(ctx, host.ExecRequest{SessionID: c.String("session"), Code: code})
				if err != nil {
					return err
				}
				a.emit("studio.exec", d, nil, func(w io.Writer) {
					for _, l := range d.Output {
						prefix := ""
						if l.Level != "print" {
							prefix = l.Level + ": "
						}
						fmt.Fprintln(w, prefix+l.Text)
					}
					for _, r := range d.Returns {
						fmt.Fprintln(w, "=>", r)
					}
					if !d.Success {
						fmt.Fprintln(a.stderr, "error:", d.Error)
					}
				})
				if !d.Success {
					a.exitCode = exitError
				}
				return nil
			}),
		}},
	}
}
