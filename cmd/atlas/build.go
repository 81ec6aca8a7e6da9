package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
)

type buildData struct {
	Output    string `json:"output"`
	Format    string `json:"format"`
	Instances int    `json:"instances"`
	Bytes     int    `json:"bytes"`
}

func (a *app) buildCommand() *cli.Command {
	return &cli.Command{
		Name:  "build",
		Usage: "build the project into a Roblox model (.rbxmx) or place (.rbxlx) file",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (.rbxmx or .rbxlx)", Required: true},
			jsonFlag,
		},
		Action: a.action("build", func(ctx context.Context, c *cli.Command) error {
			out := c.String("output")
			ext := strings.ToLower(filepath.Ext(out))
			if ext != ".rbxmx" && ext != ".rbxlx" {
				return errcode.New(errcode.Usage, "output %q must end in .rbxmx (a model) or .rbxlx (a place)", out).
					Reason(errcode.ReasonBadOutput, errcode.NextFixRequest)
			}
			_, p, err := a.loadProject(c)
			if err != nil {
				return err
			}
			roots := []*dom.Instance{p.Root}
			format := "model"
			if ext == ".rbxlx" {
				roots, format = p.Root.Children, "place"
			}
			var buf bytes.Buffer
			if err := rbxmx.Encode(&buf, roots); err != nil {
				return errcode.Wrap(errcode.Internal, err, "encode "+out)
			}
			if !filepath.IsAbs(out) {
				out = filepath.Join(a.cwd, out)
			}
			if err := atomicfile.Write(out, buf.Bytes(), 0o600); err != nil {
				return errcode.Wrap(errcode.Internal, err, "write "+out)
			}
			d := buildData{Output: out, Format: format, Instances: p.Root.Count(), Bytes: buf.Len()}
			a.emit("build", d, p.Warnings, func(w io.Writer) {
				fmt.Fprintf(w, "built %s (%d instances, %d bytes)\n", out, d.Instances, d.Bytes)
			})
			return nil
		}),
	}
}
