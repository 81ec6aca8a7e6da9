package main

import (
	"context"

	"github.com/urfave/cli/v3"
)

// runAction adapts a command's run function to the CLI: an error is printed once
// (as the envelope or as text) and exits 1; otherwise its exit code stands.
func (a *app) runAction(command string, body func(ctx context.Context, c *cli.Command) (int, error)) cli.ActionFunc {
	return a.action(command, func(ctx context.Context, c *cli.Command) error {
		code, err := body(ctx, c)
		if err == nil {
			a.exitCode = code
		}
		return err
	})
}
