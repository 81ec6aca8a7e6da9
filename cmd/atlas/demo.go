package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plugin"
	"github.com/atlas-rbx/atlas/project"
)

// demoFiles is the project the demo creates.
var demoFiles = map[string]string{
	"default.project.json": `{
  "name": "AtlasDemo",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "Shared": { "$path": "src/shared" } },
    "ServerScriptService": { "Server": { "$path": "src/server" } },
    "Workspace": {
      "SpawnPad": { "$className": "Part", "$properties": { "Anchored": true, "Size": [8, 1, 8], "Material": "Neon" } }
    }
  }
}
`,
	"src/shared/Greeter.luau":     "local Greeter = {}\n\nfunction Greeter.greet(name)\n\treturn \"Hello, \" .. name\nend\n\nreturn Greeter\n",
	"src/shared/Config.json":      "{\"maxPlayers\": 8, \"mode\": \"coop\"}\n",
	"src/server/Main.server.luau": "local Greeter = require(game.ReplicatedStorage.Shared.Greeter)\nprint(Greeter.greet(\"world\"))\n",
	"src/server/Welcome.txt":      "Welcome to the Atlas demo!\n",
}

func (a *app) demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "walk through a sync transaction on a throw-away project with the Studio emulator",
		Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "where to create the demo project (default: a temp folder)"},
			&cli.StringFlag{Name: "place", Usage: "show a plan against your own place (.rbxl, .rbxlx): the demo project is extracted from it; the file is not changed"}},
		Action: a.action("demo", func(ctx context.Context, c *cli.Command) error {
			if c.String("place") != "" {
				return a.runPlaceDemo(ctx, c.String("place"), c.String("dir"))
			}
			return a.runDemo(ctx, c.String("dir"))
		}),
	}
}

func (a *app) runDemo(ctx context.Context, dir string) (err error) {
	w := a.stdout
	step := func(format string, args ...any) { fmt.Fprintf(w, "\n==> "+format+"\n", args...) }
	// The emulator runs on Node.js: say so before anything is created.
	if _, err := plugin.Node(ctx); err != nil {
		return err
	}
	stateDir, err := a.stateDir()
	if err != nil {
		return err
	}
	if dir == "" {
		d, mkErr := os.MkdirTemp("", "atlas-demo-*")
		if mkErr != nil {
			return errcode.Wrap(errcode.Internal, mkErr, "create demo folder")
		}
		dir = d
		// A demo that fails leaves nothing behind: its folder and its project's state
		// go (this runs after the host has closed). One that passes stays to be explored.
		defer func() {
			if err != nil {
				if loc, lerr := project.Locate(dir, "", repoRoot); lerr == nil {
					os.RemoveAll(host.ProjectStateDir(stateDir, loc.File))
				}
				os.RemoveAll(dir)
			}
		}()
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.cwd, dir)
	}
	step("Creating a Rojo project in a new git repository: %s", dir)
	for name, content := range demoFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return errcode.Wrap(errcode.Internal, err, "write demo")
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return errcode.Wrap(errcode.Internal, err, "write demo")
		}
	}
	h, logger, err := startDemoHost(ctx, dir, "Initial project", stateDir)
	if err != nil {
		return err
	}
	defer h.Close()
	step("Starting the Atlas host on %s and the Studio emulator (the real Luau plugin on a mock place)", h.URL())
	em, err := a.startEmulator(ctx, h, "", "accept", logger)
	if err != nil {
		return err
	}
	defer em.Stop()

	step("atlas sync plan — Studio starts equal to HEAD, so there is nothing to do")
	p, err := h.Plan(ctx, host.PlanRequest{Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), token: true})

	step("Editing on disk (src/shared/Greeter.luau) and in Studio (SpawnPad.Size, via run_code)")
	greeter := filepath.Join(dir, "src", "shared", "Greeter.luau")
	if err := os.WriteFile(greeter, []byte(strings.Replace(demoFiles["src/shared/Greeter.luau"], "Hello, ", "Hi there, ", 1)), 0o644); err != nil {
		return errcode.Wrap(errcode.Internal, err, "edit demo")
	}
	ex, err := h.Exec(ctx, host.ExecRequest{Code: `game.Workspace.SpawnPad.Size = Vector3.new(12, 1, 12)
local m = Instance.new("ModuleScript")
m.Name = "Scores"
m.Source = "return { best = 0 }\n"
m.Parent = game.ReplicatedStorage.Shared
print("edited in Studio")`})
	if err != nil {
		return err
	}
	for _, l := range ex.Output {
		fmt.Fprintf(w, "    studio> %s\n", l.Text)
	}
	if !ex.Success {
		return errcode.New(errcode.Internal, "the demo's edit in Studio failed: %s", ex.Error)
	}

	step("atlas sync plan --diff — three-way against HEAD decides each direction")
	p, err = h.Plan(ctx, host.PlanRequest{Sources: true, Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), diff: true, token: true})

	step("A stale token is refused: edit disk again after planning, then apply")
	stale := p.ConfirmToken
	if err := os.WriteFile(greeter, []byte(strings.Replace(demoFiles["src/shared/Greeter.luau"], "Hello, ", "Howdy, ", 1)), 0o644); err != nil {
		return errcode.Wrap(errcode.Internal, err, "edit demo")
	}
	if _, err := h.Apply(ctx, host.ApplyRequest{Token: stale}); err != nil {
		ce := errcode.As(err)
		fmt.Fprintf(w, "    refused: %s (%s); appeared %v, changed %v\n", ce.Message, ce.Code, movedPaths(ce.Details["appeared"]), movedPaths(ce.Details["changed"]))
	} else {
		return errcode.New(errcode.Internal, "the stale token was accepted")
	}

	step("Plan again and apply with the fresh token")
	p, err = h.Plan(ctx, host.PlanRequest{Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), token: true})
	res, err := h.Apply(ctx, host.ApplyRequest{Token: p.ConfirmToken})
	if err != nil {
		return err
	}
	renderApply(w, res, a.io.style())

	step("atlas sync plan — both sides now agree")
	p, err = h.Plan(ctx, host.PlanRequest{Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), token: true})
	pulled, err := os.ReadFile(filepath.Join(dir, "src", "shared", "Scores.luau"))
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the demo's pull from Studio wrote no src/shared/Scores.luau")
	}
	fmt.Fprintf(w, "\nsrc/shared/Scores.luau pulled from Studio:\n%s", pulled)
	fmt.Fprintf(w, "\nDone. The demo project is in %s; the journal of the transaction is under %s.\n", dir, stateDir)
	if len(p.Changes) != 0 {
		return errcode.New(errcode.Internal, "the demo ended with %d change(s) left", len(p.Changes))
	}
	return nil
}

// movedPaths names the changes of a mismatch's details by path.
func movedPaths(v any) []string {
	paths := []string{}
	moved, _ := v.([]apply.Moved)
	for _, m := range moved {
		paths = append(paths, m.Path)
	}
	return paths
}

// startDemoHost commits the demo project in dir as a new git repository (with its
// own identity, whatever the machine's git configuration) and starts a host for
// it, logging nowhere: the demo prints its own steps.
func startDemoHost(ctx context.Context, dir, message, stateDir string) (*host.Host, *slog.Logger, error) {
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", message}} {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=Atlas Demo", "-c", "user.email=demo@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, nil, errcode.New(errcode.Internal, "git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	loc, err := project.Locate(dir, "", repoRoot)
	if err != nil {
		return nil, nil, err
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := host.New(host.Options{Location: loc, StateDir: stateDir, Port: 0, Version: Version, Kind: "serve", Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	if err := h.Start(ctx); err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, logger, nil
}
