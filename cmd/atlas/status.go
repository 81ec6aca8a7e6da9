package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"
)

func (a *app) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the running host and the connected Studio sessions",
		Flags: []cli.Flag{jsonFlag},
		Action: a.action("status", func(ctx context.Context, c *cli.Command) error {
			cl, _, err := a.client(c)
			if err != nil {
				return err
			}
			d, err := cl.Status(ctx)
			if err != nil {
				return err
			}
			a.emit("status", d, nil, func(w io.Writer) {
				fmt.Fprintf(w, "project  %s (%s)\nhost     %s (pid %d, %s)\n", d.Project.Name, d.Project.File, d.Host.URL, d.Host.PID, d.Host.Kind)
				if len(d.Sessions) == 0 {
					fmt.Fprintln(w, "studio   not connected")
				}
				for _, s := range d.Sessions {
					fmt.Fprintf(w, "studio   %s  place %q (%d)\n", s.ID, s.PlaceName, s.PlaceID)
					if pc := s.PlaceCheck; pc != nil && (pc.State == "different" || pc.State == "empty") {
						fmt.Fprintf(w, "         %s place: not the place of the last sync; deletions on disk are left unresolved\n", pc.State)
					}
				}
				for _, p := range d.Pending {
					fmt.Fprintf(w, "pending  transaction %s (%s)\n", p.TxID, p.State)
				}
			})
			return nil
		}),
	}
}
