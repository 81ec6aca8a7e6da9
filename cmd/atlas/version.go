package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

type versionData struct {
	Version           string `json:"version"`
	Go                string `json:"go"`
	ReflectionVersion string `json:"reflectionVersion"`
	ProtocolVersion   int    `json:"protocolVersion"`
}

func (a *app) versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the Atlas version",
		Flags: []cli.Flag{jsonFlag},
		Action: a.action("version", func(ctx context.Context, c *cli.Command) error {
			d := versionData{Version: Version, Go: runtime.Version(), ReflectionVersion: reflection.Version(), ProtocolVersion: 1}
			a.emit("version", d, nil, func(w io.Writer) {
				fmt.Fprintf(w, "atlas %s (%s, Roblox API %s)\n", d.Version, d.Go, d.ReflectionVersion)
			})
			return nil
		}),
	}
}
