package main

import (
	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
)

// stateDir is the state folder from the environment.
func (a *app) stateDir() (string, error) {
	d, err := host.StateDir(a.getenv)
	if err != nil {
		return "", errcode.Wrap(errcode.Internal, err, "find the state folder")
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
