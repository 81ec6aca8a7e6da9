package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/rbxmx"
	"github.com/atlas-rbx/atlas/errcode"
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
					Reason("bad_output", "pass -o NAME.rbxmx or -o NAME.rbxlx")
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
			if err := writeFileAtomic(out, buf.Bytes()); err != nil {
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

// writeFileAtomic writes through a temp file and a rename, so a reader never sees half a file.
// The file is created with mode 0666 less the umask (0644 usually), as any tool's output;
// a file it replaces keeps its mode.
func writeFileAtomic(path string, data []byte) error {
	var tmp *os.File
	for range 100 {
		f, err := os.OpenFile(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.FormatUint(rand.Uint64(), 36)),
			os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		tmp = f
		break
	}
	if tmp == nil {
		return fmt.Errorf("no free temp name beside %s", path)
	}
	defer os.Remove(tmp.Name())
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			tmp.Close()
			return err
		}
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
