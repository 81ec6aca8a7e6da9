package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/project"
)

// sourcemapOptions are the flags of `atlas sourcemap`.
type sourcemapOptions struct {
	project           string // positional PROJECT, else --project
	output            string // absolute; "" for stdout
	includeNonScripts bool
	absolute          bool
	watch             bool
}

type sourcemapData struct {
	Output    string          `json:"output,omitempty"`
	Instances int             `json:"instances"`
	Bytes     int             `json:"bytes"`
	Sourcemap json.RawMessage `json:"sourcemap,omitempty"`
}

func (a *app) sourcemapCommand() *cli.Command {
	return &cli.Command{
		Name:      "sourcemap",
		Usage:     "write the project's sourcemap (Rojo's format) for luau-lsp",
		ArgsUsage: "[PROJECT]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the sourcemap to FILE (default: stdout)"},
			&cli.BoolFlag{Name: "include-non-scripts", Usage: "keep every instance, not only scripts and their ancestors"},
			&cli.BoolFlag{Name: "absolute", Usage: "absolute file paths instead of paths relative to the project folder"},
			&cli.BoolFlag{Name: "watch", Usage: "rewrite the sourcemap whenever the project changes, until interrupted"},
			jsonFlag,
		},
		Action: a.action("sourcemap", func(ctx context.Context, c *cli.Command) error {
			opts := sourcemapOptions{
				project:           c.String("project"),
				output:            c.String("output"),
				includeNonScripts: c.Bool("include-non-scripts"),
				absolute:          c.Bool("absolute"),
				watch:             c.Bool("watch"),
			}
			switch c.Args().Len() {
			case 0:
			case 1:
				opts.project = c.Args().First()
			default:
				return errcode.New(errcode.Usage, "sourcemap takes at most one project, got %d arguments", c.Args().Len()).
					Reason(errcode.ReasonUsage, errcode.NextFixRequest)
			}
			if opts.watch && a.jsonMode {
				return errcode.New(errcode.Usage, "--json prints one envelope and --watch runs until interrupted: use one of them").
					Reason(errcode.ReasonUsage, errcode.NextFixRequest)
			}
			if opts.output != "" && !filepath.IsAbs(opts.output) {
				opts.output = filepath.Join(a.cwd, opts.output)
			}
			return a.runSourcemap(ctx, opts)
		}),
	}
}

func (a *app) runSourcemap(ctx context.Context, opts sourcemapOptions) error {
	loc, err := project.Locate(a.cwd, opts.project, repoRoot)
	if err != nil {
		return err
	}
	// The watch starts before the first build, so an edit made while it builds is
	// seen and rebuilt.
	var w *host.TreeWatcher
	if opts.watch {
		if w, err = host.WatchTree(loc.Dir); err != nil {
			return errcode.Wrap(errcode.Internal, err, "watch "+loc.Dir)
		}
		defer w.Close()
	}
	data, count, warnings, err := buildSourcemap(loc, opts)
	if err != nil {
		return err
	}
	if err := a.writeSourcemap(opts, data, count, warnings); err != nil {
		return err
	}
	if !opts.watch {
		return nil
	}
	return a.watchSourcemap(ctx, w, loc, opts, data)
}

// buildSourcemap loads the project from disk and renders its sourcemap.
func buildSourcemap(loc *project.Location, opts sourcemapOptions) (data []byte, count int, warnings []string, err error) {
	lopts := loc.Options()
	lopts.RecordFiles = true
	p, err := project.Load(project.DirFS(loc.FSRoot), loc.FileInFS, lopts)
	if err != nil {
		return nil, 0, nil, err
	}
	smOpts := project.SourcemapOptions{IncludeNonScripts: opts.includeNonScripts}
	if opts.absolute {
		smOpts.AbsDir = loc.Dir
	}
	root := p.Sourcemap(smOpts)
	return root.AppendJSON(nil), root.Count(), p.Warnings, nil
}

func (a *app) writeSourcemap(opts sourcemapOptions, data []byte, count int, warnings []string) error {
	d := sourcemapData{Output: opts.output, Instances: count, Bytes: len(data)}
	if opts.output == "" {
		d.Sourcemap = data
		a.emit("sourcemap", d, warnings, func(w io.Writer) {
			fmt.Fprintf(w, "%s\n", data)
		})
		return nil
	}
	if err := writeFileRetrying(opts.output, data); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write "+opts.output)
	}
	a.emit("sourcemap", d, warnings, func(w io.Writer) {
		fmt.Fprintf(w, "wrote %s (%d instances)\n", opts.output, count)
	})
	return nil
}

// watchSourcemap rebuilds the sourcemap after every change under the project folder
// and rewrites it when it differs from the last one written, until ctx ends. A
// project that fails to load (a file saved half-way through an edit) leaves the
// last sourcemap in place and is reported on stderr.
func (a *app) watchSourcemap(ctx context.Context, w *host.TreeWatcher, loc *project.Location, opts sourcemapOptions, last []byte) error {
	own := func(name string) bool {
		// The sourcemap's own writes must not trigger another rebuild.
		if opts.output == "" || name == "" {
			return false
		}
		dir, base := filepath.Split(opts.output)
		return name == opts.output || (filepath.Dir(name)+string(filepath.Separator) == dir &&
			strings.HasPrefix(filepath.Base(name), "."+base+".tmp"))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case name := <-w.Changes():
			if own(name) {
				continue
			}
		}
		if !settle(ctx, w.Changes()) {
			return nil
		}
		data, count, warnings, err := buildSourcemap(loc, opts)
		if err != nil {
			ce := project.AsCoded(err)
			fmt.Fprintf(a.stderr, "atlas: sourcemap not rewritten: %s (%s)\n", ce.Message, ce.Code)
			continue
		}
		if string(data) == string(last) {
			continue
		}
		if err := a.writeSourcemap(opts, data, count, warnings); err != nil {
			ce := project.AsCoded(err)
			fmt.Fprintf(a.stderr, "atlas: sourcemap not rewritten: %s (%s)\n", ce.Message, ce.Code)
			continue
		}
		last = data
	}
}

// settle waits until no change has come for a short while (an editor's save or a git
// checkout is a burst of events), draining them; false when ctx ended.
func settle(ctx context.Context, changes <-chan string) bool {
	const quiet, most = 50 * time.Millisecond, time.Second
	deadline := time.NewTimer(most)
	defer deadline.Stop()
	for {
		t := time.NewTimer(quiet)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-changes:
			t.Stop()
		case <-t.C:
			return true
		case <-deadline.C:
			t.Stop()
			return true
		}
	}
}

// writeFileRetrying is atomicfile.Output, retried briefly on Windows, where the rename
// fails while a reader (luau-lsp, an antivirus scanner) has the old file open.
func writeFileRetrying(path string, data []byte) error {
	err := atomicfile.Output(path, data)
	for wait := 20 * time.Millisecond; err != nil && runtime.GOOS == "windows" && wait <= 640*time.Millisecond; wait *= 2 {
		time.Sleep(wait)
		err = atomicfile.Output(path, data)
	}
	return err
}
