package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxbin"
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
		Usage: "build the project into a Roblox model (.rbxm, .rbxmx) or place (.rbxl, .rbxlx) file",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file: .rbxl or .rbxm (binary), .rbxlx or .rbxmx (XML)", Required: true},
			jsonFlag,
		},
		Action: a.action("build", func(ctx context.Context, c *cli.Command) error {
			out := c.String("output")
			ext := strings.ToLower(filepath.Ext(out))
			f, ok := fileFormats[ext]
			if !ok {
				return errcode.New(errcode.Usage, "output %q must end in .rbxl or .rbxlx (a place), or .rbxm or .rbxmx (a model)", out).
					Reason(errcode.ReasonBadOutput, errcode.NextFixRequest)
			}
			_, p, err := a.loadProject(c)
			if err != nil {
				return err
			}
			root := p.Root.Clone()
			addRojoDefaults(root)
			roots := []*dom.Instance{root}
			format := "model"
			if f.place {
				roots, format = root.Children, "place"
			}
			var buf bytes.Buffer
			if err := f.encode(&buf, roots); err != nil {
				return errcode.Wrap(errcode.Internal, err, "encode "+out)
			}
			if !filepath.IsAbs(out) {
				out = filepath.Join(a.cwd, out)
			}
			if st, err := os.Stat(out); err == nil && st.IsDir() {
				return errcode.New(errcode.Usage, "output %s is a folder: name the file to write", out).
					Reason(errcode.ReasonBadOutput, errcode.NextFixRequest)
			}
			if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
				return errcode.New(errcode.NotFound, "the output's folder %s does not exist", filepath.Dir(out)).
					Reason(errcode.ReasonNotFound, errcode.NextFixRequest)
			}
			if err := atomicfile.Output(out, buf.Bytes()); err != nil {
				ce := errcode.Wrap(errcode.Internal, err, "write "+out)
				switch {
				case errors.Is(err, fs.ErrNotExist): // the folder went meanwhile
					ce = errcode.Wrap(errcode.NotFound, err, "write "+out).Reason(errcode.ReasonNotFound, errcode.NextFixRequest)
				case errors.Is(err, fs.ErrPermission):
					ce.With("nextActions", []string{string(errcode.NextFixPermissions)})
				}
				return ce
			}
			d := buildData{Output: out, Format: format, Instances: p.Root.Count(), Bytes: buf.Len()}
			a.emit("build", d, p.Warnings, func(w io.Writer) {
				fmt.Fprintf(w, "built %s (%d instances, %d bytes)\n", out, d.Instances, d.Bytes)
			})
			return nil
		}),
	}
}

// fileFormat is a Roblox file format, chosen by the file's extension.
type fileFormat struct {
	place  bool
	binary bool
	encode func(io.Writer, []*dom.Instance) error
	decode func(io.Reader) ([]*dom.Instance, error)
}

var fileFormats = map[string]fileFormat{
	".rbxl":  {place: true, binary: true, encode: rbxbin.Encode, decode: rbxbin.Decode},
	".rbxm":  {binary: true, encode: rbxbin.Encode, decode: rbxbin.Decode},
	".rbxlx": {place: true, encode: rbxmx.Encode, decode: rbxmx.Decode},
	".rbxmx": {encode: rbxmx.Encode, decode: rbxmx.Decode},
}

// pivotClasses are the Model classes Rojo gives NeedsPivotMigration = false when
// they do not set it, so that Studio does not move their pivots on load.
var pivotClasses = map[string]bool{
	"Model": true, "Actor": true, "Tool": true, "HopperBin": true, "Flag": true,
	"WorldModel": true, "Workspace": true, "Status": true,
}

// addRojoDefaults adds the properties Rojo adds to every instance it builds.
func addRojoDefaults(root *dom.Instance) {
	root.Walk(func(i *dom.Instance) bool {
		if _, set := i.Properties.Lookup("NeedsPivotMigration"); pivotClasses[i.ClassName] && !set {
			i.Properties.Set("NeedsPivotMigration", dom.Bool(false))
		}
		return true
	})
}
