package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// `atlas studio query|logs|state`: the Studio inspection calls, through the same
// engine calls as the MCP tools studio_query, studio_logs and studio_state.

var contextFlag = &cli.StringFlag{Name: "context", Usage: "the session of this context: edit, server or client (a playtest's); default: the edit session"}

// studioInspector is the engine the inspection commands need.
type studioInspector interface {
	Query(ctx context.Context, req host.QueryRequest) (*host.QueryData, error)
	Logs(ctx context.Context, req host.LogsRequest) (*host.LogsData, error)
	State(ctx context.Context, req host.StateRequest) (*host.StateData, error)
}

var _ studioInspector = (*dialer)(nil)

func (d *dialer) Query(ctx context.Context, req host.QueryRequest) (*host.QueryData, error) {
	return call(d, "reading Studio", func(cl *host.Client) (*host.QueryData, error) { return cl.Query(ctx, req) })
}

func (d *dialer) Logs(ctx context.Context, req host.LogsRequest) (*host.LogsData, error) {
	return call(d, "reading Studio's output", func(cl *host.Client) (*host.LogsData, error) { return cl.Logs(ctx, req) })
}

func (d *dialer) State(ctx context.Context, req host.StateRequest) (*host.StateData, error) {
	return call(d, "asking Studio", func(cl *host.Client) (*host.StateData, error) { return cl.State(ctx, req) })
}

// queryOptions are `atlas studio query`'s flags and argument.
type queryOptions struct {
	IO   *ioStreams
	JSON bool
	Req  host.QueryRequest
}

// logsOptions are `atlas studio logs`' flags.
type logsOptions struct {
	IO   *ioStreams
	JSON bool
	Req  host.LogsRequest
}

// stateOptions are `atlas studio state`'s flags.
type stateOptions struct {
	IO   *ioStreams
	JSON bool
	Req  host.StateRequest
}

func (a *app) studioInspectCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "query",
			Usage:     "read an instance in Studio: properties (tagged values), attributes, tags, children",
			ArgsUsage: "[PATH]",
			Description: "PATH is names from game joined with /, e.g. Workspace/Baseplate (none: game itself); or name it with --id.\n" +
				"Every property a script can read is shown unless --property names some (or --no-properties).",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "id", Usage: "the instance id (from a plan or an earlier query) instead of PATH"},
				&cli.StringFlag{Name: "path", Usage: "the instance's path, as the PATH argument"},
				&cli.IntFlag{Name: "depth", Usage: "levels of descendants to show in full"},
				&cli.StringSliceFlag{Name: "property", Usage: "a property to read (repeat); * for all"},
				&cli.BoolFlag{Name: "no-properties", Usage: "read no property"},
				&cli.BoolFlag{Name: "attributes", Value: true, Usage: "show attributes"},
				&cli.BoolFlag{Name: "tags", Value: true, Usage: "show CollectionService tags"},
				&cli.BoolFlag{Name: "children", Value: true, Usage: "list children"},
				&cli.BoolFlag{Name: "services", Usage: "also list game's services"},
				sessionFlag, contextFlag, jsonFlag,
			},
			Action: a.runAction(host.CommandQuery, func(ctx context.Context, c *cli.Command) (int, error) {
				path := c.Args().First()
				if c.Args().Len() > 1 || (c.IsSet("path") && c.Args().Len() > 0) {
					return exitError, errcode.New(errcode.BadRequest, "give one PATH (as the argument or --path)").Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
				}
				if c.IsSet("path") {
					path = c.String("path")
				}
				req := host.QueryRequest{SessionID: c.String("session"), Context: c.String("context"), Path: path, ID: c.String("id"),
					Depth: int(c.Int("depth")), Properties: c.StringSlice("property"), Attributes: c.Bool("attributes"), Tags: c.Bool("tags"),
					Children: c.Bool("children"), ListServices: c.Bool("services")}
				switch {
				case c.Bool("no-properties"):
					req.Properties = []string{}
				case !c.IsSet("property"):
					req.Properties = nil // every readable property
				}
				return runQuery(ctx, &queryOptions{IO: a.io, JSON: a.jsonMode, Req: req}, a.engine(c))
			}),
		},
		{
			Name:  "logs",
			Usage: "print Studio's Output log as the plugin kept it",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Usage: "how many entries (default 50, at most 1000)"},
				&cli.BoolFlag{Name: "oldest", Usage: "the oldest entries instead of the newest"},
				&cli.StringSliceFlag{Name: "level", Usage: "only this level: output, info, warning or error (repeat)"},
				&cli.Int64Flag{Name: "since", Usage: "only entries after this seq"},
				sessionFlag, contextFlag, jsonFlag,
			},
			Action: a.runAction(host.CommandLogs, func(ctx context.Context, c *cli.Command) (int, error) {
				req := host.LogsRequest{SessionID: c.String("session"), Context: c.String("context"), Count: int(c.Int("count")),
					Levels: c.StringSlice("level"), Since: c.Int64("since")}
				if c.Bool("oldest") {
					req.Direction = "oldest"
				}
				return runLogs(ctx, &logsOptions{IO: a.io, JSON: a.jsonMode, Req: req}, a.engine(c))
			}),
		},
		{
			Name:  "state",
			Usage: "show Studio's run mode (Edit, Play, Run, Paused), place and Atlas sessions",
			Flags: []cli.Flag{sessionFlag, contextFlag, jsonFlag},
			Action: a.runAction(host.CommandState, func(ctx context.Context, c *cli.Command) (int, error) {
				req := host.StateRequest{SessionID: c.String("session"), Context: c.String("context")}
				return runState(ctx, &stateOptions{IO: a.io, JSON: a.jsonMode, Req: req}, a.engine(c))
			}),
		},
	}
}

func runQuery(ctx context.Context, opts *queryOptions, eng studioInspector) (int, error) {
	if err := opts.Req.Validate(); err != nil {
		return exitError, asUsage(err)
	}
	d, err := eng.Query(ctx, opts.Req)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandQuery, d, nil, func(w io.Writer) { renderQuery(w, d) })
	return exitOK, nil
}

func runLogs(ctx context.Context, opts *logsOptions, eng studioInspector) (int, error) {
	if err := opts.Req.Validate(); err != nil {
		return exitError, asUsage(err)
	}
	d, err := eng.Logs(ctx, opts.Req)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandLogs, d, nil, func(w io.Writer) { renderLogs(w, d) })
	return exitOK, nil
}

func runState(ctx context.Context, opts *stateOptions, eng studioInspector) (int, error) {
	d, err := eng.State(ctx, opts.Req)
	if err != nil {
		return exitError, err
	}
	opts.IO.emit(opts.JSON, host.CommandState, d, nil, func(w io.Writer) { renderState(w, d) })
	return exitOK, nil
}

// renderQuery shows each instance: its path and class, then its properties,
// attributes (@), tags and children, indented by depth.
func renderQuery(w io.Writer, d *host.QueryData) {
	for _, n := range d.Instances {
		pad := strings.Repeat("  ", n.Depth)
		path := n.Path
		if path == "" {
			path = "game"
		}
		fmt.Fprintf(w, "%s%s (%s)  id %s\n", pad, path, n.ClassName, n.ID)
		for _, name := range slices.Sorted(maps.Keys(n.Properties)) {
			fmt.Fprintf(w, "%s  %s = %s\n", pad, name, valueText(n.Properties[name].V))
		}
		for _, name := range slices.Sorted(maps.Keys(n.Attributes)) {
			fmt.Fprintf(w, "%s  @%s = %s\n", pad, name, valueText(n.Attributes[name].V))
		}
		if len(n.Tags) > 0 {
			fmt.Fprintf(w, "%s  tags: %s\n", pad, strings.Join(n.Tags, ", "))
		}
		if len(n.Unreadable) > 0 {
			fmt.Fprintf(w, "%s  unreadable: %s\n", pad, strings.Join(n.Unreadable, ", "))
		}
		for _, dup := range n.Duplicates {
			fmt.Fprintf(w, "%s  %d children are named %q: name them by id (%s)\n", pad, len(dup.IDs), dup.Name, strings.Join(dup.IDs, ", "))
		}
		for _, c := range n.Children {
			fmt.Fprintf(w, "%s  - %s (%s, %d children)  id %s\n", pad, c.Name, c.ClassName, c.ChildCount, c.ID)
		}
	}
	if len(d.Services) > 0 {
		fmt.Fprintln(w, "services:")
		for _, s := range d.Services {
			fmt.Fprintf(w, "  %s (%s)\n", s.Name, s.ClassName)
		}
	}
	if d.Truncated {
		fmt.Fprintln(w, "(cut: too many instances; ask for less depth)")
	}
}

// renderLogs shows the entries as Studio's Output does, with their seq.
func renderLogs(w io.Writer, d *host.LogsData) {
	for _, e := range d.Entries {
		level := ""
		if e.Level != "output" {
			level = string(e.Level) + ": "
		}
		fmt.Fprintf(w, "%6d  %s  %s%s\n", e.Seq, e.Time.Local().Format("15:04:05"), level, e.Text)
	}
	fmt.Fprintf(w, "(%d shown; %d seen since the plugin started; the buffer keeps %d)\n", len(d.Entries), d.TotalSeen, d.Capacity)
}

// renderState shows the run mode, the place and each session.
func renderState(w io.Writer, d *host.StateData) {
	fmt.Fprintf(w, "mode     %s\nplace    %q (place %d, game %d)\n", d.RunMode, d.PlaceName, d.PlaceID, d.GameID)
	for _, s := range d.Sessions {
		ro := ""
		if s.ReadOnly {
			ro = ", read-only"
		}
		fmt.Fprintf(w, "session  %s  %s%s  %s\n", s.ID, s.Context, ro, s.RunMode)
	}
}
