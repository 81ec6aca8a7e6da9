package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/project"
)

// locate finds the project for a command from --project or the working folder.
func (a *app) locate(c *cli.Command) (*project.Location, error) {
	return project.Locate(a.cwd, c.String("project"), repoRoot)
}

func repoRoot(dir string) string {
	r, err := gitblob.Discover(dir)
	if err != nil {
		return ""
	}
	return r.Root()
}

func (a *app) loadProject(c *cli.Command) (*project.Location, *project.Project, error) {
	loc, err := a.locate(c)
	if err != nil {
		return nil, nil, err
	}
	p, err := project.LoadDisk(loc)
	if err != nil {
		return nil, nil, err
	}
	return loc, p, nil
}

type treeNode struct {
	ID        string `json:"id"`
	Path      string `json:"path,omitempty"` // absent for the DataModel, as in studio query
	Name      string `json:"name"`
	ClassName string `json:"className"`
	FsPath    string `json:"fsPath,omitempty"` // absent for an instance no file makes
	Depth     int    `json:"depth"`
}

type treeData struct {
	Project   string     `json:"project"`
	Name      string     `json:"name"`
	Instances []treeNode `json:"instances"`
}

func (a *app) treeCommand() *cli.Command {
	return &cli.Command{
		Name:  "tree",
		Usage: "list the project's instances (path, class, id, fsPath)",
		Flags: []cli.Flag{jsonFlag},
		Action: a.action("tree", func(ctx context.Context, c *cli.Command) error {
			loc, p, err := a.loadProject(c)
			if err != nil {
				return err
			}
			d := treeData{Project: loc.File, Name: p.Name}
			var walk func(i *dom.Instance, depth int)
			walk = func(i *dom.Instance, depth int) {
				d.Instances = append(d.Instances, treeNode{ID: i.ID, Path: i.Path(), Name: i.Name, ClassName: i.ClassName, FsPath: i.FsPath, Depth: depth})
				for _, ch := range i.Children {
					walk(ch, depth+1)
				}
			}
			walk(p.Root, 0)
			a.emit("tree", d, p.Warnings, func(w io.Writer) {
				for _, n := range d.Instances {
					fs := ""
					if n.FsPath != "" {
						fs = "  (" + n.FsPath + ")"
					}
					fmt.Fprintf(w, "%s%s [%s] %s%s\n", strings.Repeat("  ", n.Depth), n.Name, n.ClassName, n.ID, fs)
				}
			})
			return nil
		}),
	}
}
