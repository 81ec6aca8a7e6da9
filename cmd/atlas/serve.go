package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plugin"
	"github.com/atlas-rbx/atlas/project"
)

// The emulator's flags, shared by serve and mcp.
var (
	placeFlag  = &cli.StringFlag{Name: "place", Usage: "with --emulate: a place to start from (.rbxl, .rbxlx, .rbxm, .rbxmx or the emulator's JSON); it is saved back on exit in its format"}
	reviewFlag = &cli.StringFlag{Name: "review", Value: "accept", Usage: "with --emulate: how the emulated person answers reviews (accept, abort, none)"}
)

// checkReview refuses a --review the emulator would not take, before anything
// starts (the emulator itself would only exit once the host is up).
func checkReview(review string) error {
	switch review {
	case "accept", "abort", "none":
		return nil
	}
	return errcode.New(errcode.Usage, "--review %q: want accept, abort or none", review).Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
}

func (a *app) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the Atlas host for the project (Studio connects to it; CLI commands use it)",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: host.DefaultPort, Usage: "port on 127.0.0.1 (0 picks a free one)"},
			&cli.BoolFlag{Name: "emulate", Usage: "also run the Studio emulator (the real plugin on a mock place)"},
			placeFlag, reviewFlag,
			&cli.StringFlag{Name: "log-format", Value: "human", Usage: "how the host logs to stderr: human (sentences for a person), text or json (structured records)"},
			&cli.BoolFlag{Name: "verbose", Usage: "log every structured record, debug ones too"},
		},
		Action: a.action("serve", func(ctx context.Context, c *cli.Command) error {
			if err := checkReview(c.String("review")); err != nil {
				return err
			}
			loc, stateDir, err := a.project(c)
			if err != nil {
				return err
			}
			if c.Bool("emulate") {
				if _, err := plugin.Node(ctx); err != nil {
					return err
				}
			}
			logger, err := serveLogger(a.stderr, a.io.errStyle(), c.String("log-format"), c.Bool("verbose"))
			if err != nil {
				return errcode.New(errcode.Usage, "%v", err).Reason(errcode.ReasonUsage, errcode.NextFixRequest)
			}
			host.TuneGC(a.getenv)
			h, err := host.New(host.Options{Location: loc, StateDir: stateDir, Port: int(c.Int("port")), Version: Version, Kind: "serve", Logger: logger, Prewarm: true})
			if err != nil {
				return err
			}
			expecting := func() {}
			if c.Bool("emulate") {
				// From the first request the host answers: a plan sent while the
				// emulator starts waits for it.
				expecting = h.ExpectStudio()
			}
			defer expecting()
			if err := h.Start(ctx); err != nil {
				return err
			}
			defer h.Close()
			logger.Info("host started", "project", projectName(loc), "file", loc.File,
				"address", strings.TrimPrefix(h.URL(), "http://"), "api", h.URL(), "plugin", h.PluginURL())
			if c.Bool("emulate") {
				em, err := a.startEmulator(ctx, h, c.String("place"), c.String("review"), logger)
				expecting()
				if err != nil {
					return err
				}
				defer em.Stop()
				logger.Info("emulator started")
				select {
				case <-ctx.Done():
				case err := <-em.Done():
					return errcode.New(errcode.StudioNotConnected, "the emulator exited: %v", err)
				}
				return nil
			}
			<-ctx.Done()
			return nil
		}),
	}
}

// projectName is the project file's name, read cheaply (the host loads the
// project later), else its folder's.
func projectName(loc *project.Location) string {
	var p struct {
		Name string `json:"name"`
	}
	if b, err := os.ReadFile(loc.File); err == nil && json.Unmarshal(b, &p) == nil && p.Name != "" {
		return p.Name
	}
	return loc.DirName()
}

// startEmulator starts the emulator on the host: from --place if given (saved back on
// exit), else from the project at the base commit.
// Until it has connected (or failed), commands that need Studio wait for it.
func (a *app) startEmulator(ctx context.Context, h *host.Host, place, review string, logger *slog.Logger) (*host.Emulator, error) {
	done := h.ExpectStudio()
	defer done()
	return a.emulate(ctx, h, host.EmulatorOptions{URL: h.PluginURL(), Review: review, Logger: logger}, place)
}

// emulate starts the emulator with o, its place from place (see startEmulator) and
// h's project (h need not be started).
func (a *app) emulate(ctx context.Context, h *host.Host, o host.EmulatorOptions, place string) (*host.Emulator, error) {
	logger := o.Logger
	pluginDir, err := host.FindPluginDir(a.getenv)
	if err != nil {
		return nil, err
	}
	save := ""
	var afterStop func() error
	if place != "" && logger != nil {
		path := place
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.cwd, path)
		}
		if statMissing(path) {
			// A mistyped path would otherwise go unnoticed: the emulator would sync
			// with the project's own place.
			logger.Warn("the place file does not exist: the emulator starts from the project at HEAD, and saves its place there when it stops", "place", place)
		}
	}
	if place != "" && host.IsRobloxFile(place) {
		var err error
		if place, save, afterStop, err = a.robloxPlace(h, place); err != nil {
			return nil, err
		}
	} else if place != "" {
		if !filepath.IsAbs(place) {
			place = filepath.Join(a.cwd, place)
		}
		save = place
		if _, err := os.Stat(place); err != nil {
			pf, err := h.InitialPlace()
			if err != nil {
				return nil, err
			}
			if err := host.WritePlace(place, pf); err != nil {
				return nil, errcode.Wrap(errcode.Internal, err, "write place")
			}
		}
	} else {
		// The place is made while the emulator starts, and read once, before it connects.
		var tmp string
		defer func() {
			if tmp != "" {
				os.Remove(tmp)
			}
		}()
		o.MakePlace = func() (string, error) {
			started := time.Now()
			pf, err := h.InitialPlace()
			if err != nil {
				return "", err
			}
			logger.Debug("initial place built", "ms", time.Since(started).Milliseconds())
			f, err := os.CreateTemp("", "atlas-place-*"+host.PackedPlaceExt)
			if err != nil {
				return "", errcode.Wrap(errcode.Internal, err, "write place")
			}
			f.Close()
			tmp = f.Name()
			started = time.Now()
			if err := host.WritePackedPlace(tmp, pf); err != nil {
				return "", errcode.Wrap(errcode.Internal, err, "write place")
			}
			logger.Debug("initial place written", "ms", time.Since(started).Milliseconds())
			return tmp, nil
		}
	}
	o.PluginDir, o.Place, o.Save, o.AfterStop = pluginDir, place, save, afterStop
	return host.StartEmulator(ctx, o)
}

// statMissing reports whether path does not exist.
func statMissing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
