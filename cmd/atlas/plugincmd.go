package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/plugin"
)

// studioOS is the OS whose Studio plugins folder `plugin install` writes to: this
// one, except in tests, which resolve and install for Windows and macOS anywhere.
var studioOS = runtime.GOOS

func (a *app) pluginCommand() *cli.Command {
	return &cli.Command{
		Name:  "plugin",
		Usage: "package or install the Atlas Studio plugin",
		Commands: []*cli.Command{
			{
				Name:  "build",
				Usage: "write the plugin as a Roblox model file",
				Flags: []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: plugin.FileName, Usage: "output .rbxmx file"}, jsonFlag},
				Action: a.action("plugin.build", func(ctx context.Context, c *cli.Command) error {
					out := c.String("output")
					if !filepath.IsAbs(out) {
						out = filepath.Join(a.cwd, out)
					}
					n, err := a.writePlugin(out)
					if err != nil {
						return err
					}
					a.emit("plugin.build", map[string]any{"output": out, "bytes": n}, nil, func(w io.Writer) {
						fmt.Fprintf(w, "wrote %s (%d bytes)\n", out, n)
					})
					return nil
				}),
			},
			{
				Name:  "install",
				Usage: "copy the plugin into Roblox Studio's plugins folder",
				Flags: []cli.Flag{jsonFlag},
				Action: a.action("plugin.install", func(ctx context.Context, c *cli.Command) error {
					dir, err := plugin.PluginsFolder(studioOS, a.getenv)
					if errors.Is(err, plugin.ErrNoPluginsFolder) {
						return errcode.New(errcode.NotFound, "%v", err).Reason(errcode.ReasonNoStudioHere, errcode.NextBuildPlugin)
					}
					if err := os.MkdirAll(dir, 0o755); err != nil {
						return errcode.Wrap(errcode.Internal, err, "create "+dir)
					}
					out := filepath.Join(dir, plugin.FileName)
					n, err := a.writePlugin(out)
					if err != nil {
						return err
					}
					a.emit("plugin.install", map[string]any{"output": out, "bytes": n}, nil, func(w io.Writer) {
						fmt.Fprintf(w, "installed %s; restart Studio or reload plugins\n", out)
					})
					return nil
				}),
			},
		},
	}
}

func (a *app) writePlugin(out string) (int, error) {
	var buf bytes.Buffer
	if err := plugin.Build(&buf); err != nil {
		return 0, errcode.Wrap(errcode.Internal, err, "build the plugin")
	}
	if err := atomicfile.Output(out, buf.Bytes()); err != nil {
		return 0, errcode.Wrap(errcode.Internal, err, "write "+out)
	}
	return buf.Len(), nil
}
