package main

import (
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plugin"
	"github.com/atlas-rbx/atlas/project"
)

// stateDir is the state folder from the environment.
func (a *app) stateDir() (string, error) {
	d, err := host.StateDir(a.getenv)
	if err != nil {
		// No HOME: MCP clients may start servers with a bare environment, and a server
		// that dies before it answers shows only "connection closed".
		tmp, terr := plugin.PrivateTempDir("atlas-state")
		if terr != nil {
			return "", errcode.Wrap(errcode.Internal, err, "find the state folder").
				Reason(errcode.ReasonNoStateDir, errcode.NextSetStateDir)
		}
		fmt.Fprintf(a.stderr, "atlas: %v; keeping state in %s\n", err, tmp)
		return tmp, nil
	}
	return d, nil
}

// client connects to the running host of the project the command stands in.
func (a *app) client(c *cli.Command) (*host.Client, *project.Location, error) {
	loc, err := a.locate(c)
	if err != nil {
		return nil, nil, err
	}
	dir, err := a.stateDir()
	if err != nil {
		return nil, nil, err
	}
	cl, err := host.Dial(dir, loc.File)
	if err != nil {
		return nil, nil, err
	}
	return cl, loc, nil
}

var sessionFlag = &cli.StringFlag{Name: "session", Usage: "Studio session id (see 'atlas status'); default: the only one"}
