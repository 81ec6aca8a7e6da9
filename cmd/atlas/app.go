package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
)

// Version is the Atlas version, set at build time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// Exit codes (ARCHITECTURE §6).
const (
	exitOK      = 0
	exitError   = 1
	exitChanges = 2
)

// app holds the process's streams and environment, injected so tests can drive it.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	cwd            string
	jsonMode       bool
	exitCode       int
	io             *ioStreams // the streams above, with what they are connected to
}

// Main runs atlas with the process's arguments and returns its exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cwd, _ := os.Getwd()
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, cwd: cwd}
	return a.run(ctx, os.Args)
}

func (a *app) run(ctx context.Context, args []string) int {
	a.jsonMode = slices.Contains(args[1:], "--json")
	a.io = systemStreams(a.stdin, a.stdout, a.stderr, a.getenv)
	a.io.noColor = a.io.noColor || slices.Contains(args[1:], "--no-color")
	root := a.rootCommand()
	cmds, ok := commandsFor(root.Commands, args)
	if !ok {
		a.fail("atlas", unknownCommand(args[1]))
		return exitError
	}
	root.Commands = cmds
	setUsageErrors(root)
	// A name that is no command, after root flags (atlas --no-color synk) or as a help
	// topic (atlas help synk): urfave/cli would answer it as a help topic it lacks.
	var notFound *string
	root.CommandNotFound = func(_ context.Context, _ *cli.Command, name string) { notFound = &name }
	if a.jsonMode {
		// Help and usage text must not reach stdout when it carries JSON.
		root.Writer = a.stderr
	}
	err := root.Run(ctx, args)
	if notFound != nil {
		a.fail("atlas", unknownCommand(*notFound))
		return exitError
	}
	if err != nil {
		var usage *usageError
		if errors.As(err, &usage) {
			a.fail(usage.command, errcode.New(errcode.Usage, "%s", usage.msg).Reason(errcode.ReasonUsage, errcode.NextFixRequest))
			return exitError
		}
		a.fail("atlas", err)
		return exitError
	}
	return a.exitCode
}

func unknownCommand(name string) error {
	return errcode.New(errcode.Usage, "unknown command %q; 'atlas --help' lists the commands", name).
		Reason(errcode.ReasonUsage, errcode.NextFixRequest)
}

// commandsFor is the commands a run needs: when args name a command first, only that
// one; else (a flag first, help, or an empty argument, which urfave/cli takes for
// none) all of them. urfave/cli sets up every command it is given before it runs
// one, about 1 ms of CPU of a 10 ms command. A first argument that is none of these is
// not ok, and is answered here: urfave/cli would take it for a help topic (which
// CommandNotFound catches) but, given --json, would complain about that flag first.
func commandsFor(all []*cli.Command, args []string) ([]*cli.Command, bool) {
	if len(args) < 2 || args[1] == "" || strings.HasPrefix(args[1], "-") || args[1] == "help" || args[1] == "h" {
		return all, true
	}
	for _, c := range all {
		if c.Name == args[1] || slices.Contains(c.Aliases, args[1]) {
			return []*cli.Command{c}, true
		}
	}
	return nil, false
}

// setUsageErrors makes every command report flag errors as usage errors (E_USAGE).
func setUsageErrors(c *cli.Command) {
	c.OnUsageError = func(ctx context.Context, c *cli.Command, err error, isSub bool) error {
		if len(c.Commands) > 0 && c.Name != "atlas" {
			// A group's flag error after a word that is none of its commands (atlas
			// studio bogus --json): the word is the mistake.
			if first := c.Args().First(); first != "" && c.Command(first) == nil {
				return unknownSubcommand(c, first)
			}
		}
		return &usageError{msg: err.Error(), command: envelopeCommand(c)}
	}
	switch {
	case c.Action != nil && c.ArgsUsage == "" && len(c.Commands) == 0 && c.Before == nil:
		// A command that takes no argument says so of a stray one, rather than
		// ignoring it (atlas sync plan --json extra).
		c.Before = func(ctx context.Context, c *cli.Command) (context.Context, error) {
			if c.Args().Len() > 0 {
				return ctx, &usageError{msg: fmt.Sprintf("'atlas %s' takes no arguments, got %q", strings.TrimPrefix(c.FullName(), "atlas "), c.Args().Slice()),
					command: envelopeCommand(c)}
			}
			return ctx, nil
		}
	case len(c.Commands) > 0 && c.ArgsUsage == "" && c.Before == nil && c.Name != "atlas":
		// A command of subcommands: a word that is none of them is a mistyped one
		// (atlas sync pln), never an argument to run the command with.
		c.Before = func(ctx context.Context, c *cli.Command) (context.Context, error) {
			// (Before runs ahead of the subcommand, with it as the first argument.)
			if first := c.Args().First(); first != "" && c.Command(first) == nil {
				return ctx, unknownSubcommand(c, first)
			}
			return ctx, nil
		}
		if c.Action == nil {
			c.Action = func(ctx context.Context, c *cli.Command) error {
				return cli.ShowSubcommandHelp(c)
			}
		}
	}
	for _, sub := range c.Commands {
		setUsageErrors(sub)
	}
}

// unknownSubcommand is the usage error of a word that is none of c's subcommands.
func unknownSubcommand(c *cli.Command, word string) error {
	var names []string
	for _, sub := range c.Commands {
		if !sub.Hidden && sub.Name != "help" {
			names = append(names, sub.Name)
		}
	}
	return &usageError{msg: fmt.Sprintf("'atlas %s' has no command %q (its commands: %s)", strings.TrimPrefix(c.FullName(), "atlas "), word, strings.Join(names, ", ")),
		command: envelopeCommand(c)}
}

type usageError struct{ msg, command string }

// envelopeCommand is the envelope's name of c ("sync.plan" for atlas sync plan;
// "atlas" for the root).
func envelopeCommand(c *cli.Command) string {
	name := strings.TrimPrefix(c.FullName(), "atlas")
	name = strings.ReplaceAll(strings.TrimSpace(name), " ", ".")
	if name == "" {
		return "atlas"
	}
	return name
}

func (e *usageError) Error() string { return e.msg }

func (a *app) rootCommand() *cli.Command {
	return &cli.Command{
		Name:      "atlas",
		Usage:     "sync a Roblox Studio place with a Rojo project, transactionally",
		Version:   Version,
		Writer:    a.stdout,
		ErrWriter: a.stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project", Usage: "project file or folder (default: nearest default.project.json upward)"},
			&cli.BoolFlag{Name: "no-color", Usage: "no colour in human output (also: NO_COLOR=1); there is none in --json or when stdout is not a terminal"},
		},
		OnUsageError: func(ctx context.Context, c *cli.Command, err error, isSub bool) error {
			return &usageError{msg: err.Error()}
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Commands:       a.commands(),
	}
}

// jsonFlag is the --json flag every command that has machine output takes.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON envelope on stdout"}

// emit prints a command's result: the envelope with --json, else human text.
func (a *app) emit(command string, data any, warnings []string, human func(w io.Writer)) {
	a.io.emit(a.jsonMode, command, data, warnings, human)
}

// fail prints an error: the envelope with --json, else a line on stderr.
func (a *app) fail(command string, err error) {
	a.failWith(command, err, nil, nil)
}

func (a *app) failWith(command string, err error, data any, warnings []string) {
	ce := project.AsCoded(err)
	if a.jsonMode {
		fmt.Fprintln(a.stdout, string(envelope.Fail(command, ce, data, warnings).Marshal()))
		return
	}
	fmt.Fprintf(a.stderr, "atlas: %s (%s)\n", ce.Message, ce.Code)
	// What moved since a plan (E_CONFIRM_TOKEN_MISMATCH), by path.
	for _, k := range []string{"appeared", "vanished", "changed"} {
		if paths := detailPaths(ce.Details[k]); len(paths) > 0 {
			fmt.Fprintf(a.stderr, "  %s since the plan: %s\n", k, listPaths(paths, 10))
		}
	}
	for _, n := range ce.NextActions() {
		fmt.Fprintf(a.stderr, "  next: %s\n", cliHint(n, ce.Details))
	}
}

// warnedError is a failure that comes with the warnings of what it did first (a sync's
// plan), which its envelope carries as a success's would.
type warnedError struct {
	error
	warnings []string
}

func (e *warnedError) Unwrap() error { return e.error }

// handled is returned by actions that already printed their failure.
var errHandled = errors.New("handled")

// action wraps a command body: errors are printed once, as the envelope or text,
// and turn into exit code 1.
func (a *app) action(command string, body func(ctx context.Context, c *cli.Command) error) cli.ActionFunc {
	return func(ctx context.Context, c *cli.Command) error {
		if err := body(ctx, c); err != nil {
			if !errors.Is(err, errHandled) {
				var w *warnedError
				if errors.As(err, &w) {
					a.failWith(command, err, nil, w.warnings)
				} else {
					a.fail(command, err)
				}
			}
			a.exitCode = exitError
		}
		return nil
	}
}

func (a *app) commands() []*cli.Command {
	return []*cli.Command{
		a.serveCommand(),
		a.statusCommand(),
		a.syncCommand(),
		a.scriptCommand(),
		a.studioCommand(),
		a.driftCommand(),
		a.hookCommand(),
		a.mcpCommand(),
		a.pluginCommand(),
		a.treeCommand(),
		a.buildCommand(),
		a.initCommand(),
		a.sourcemapCommand(),
		a.demoCommand(),
		a.versionCommand(),
	}
}

// detailPaths is the paths of a refusal's list of changes (apply.Moved, in the
// process, or decoded from the host's JSON).
func detailPaths(v any) []string {
	var paths []string
	switch l := v.(type) {
	case []apply.Moved:
		for _, m := range l {
			paths = append(paths, m.Path)
		}
	case []any:
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				if p, ok := m["path"].(string); ok {
					paths = append(paths, p)
				}
			}
		}
	}
	return paths
}

// listPaths joins paths, the first max of them and how many more.
func listPaths(paths []string, max int) string {
	if len(paths) <= max {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:max], ", "), len(paths)-max)
}
