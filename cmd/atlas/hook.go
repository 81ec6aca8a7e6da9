package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/project"
)

// hookMarker identifies a pre-commit hook Atlas wrote; any other hook is never touched.
const hookMarker = "# installed by atlas hook install"

func (a *app) hookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "install or remove the git pre-commit hook that reports Studio drift",
		Commands: []*cli.Command{
			{
				Name:  "install",
				Usage: "install the pre-commit hook (runs 'atlas drift --staged')",
				Flags: []cli.Flag{jsonFlag},
				Action: a.action("hook.install", func(ctx context.Context, c *cli.Command) error {
					path, err := a.hookPath(ctx)
					if err != nil {
						return err
					}
					if old, err := os.ReadFile(path); err == nil && !bytes.Contains(old, []byte(hookMarker)) {
						return errcode.New(errcode.Busy, "%s exists and was not written by Atlas; leaving it alone", path).
							Reason(errcode.ReasonForeignHook, errcode.NextEditHook)
					}
					exe, err := os.Executable()
					if err != nil {
						exe = "atlas"
					} else if r, err := filepath.EvalSymlinks(exe); err == nil {
						exe = r
					}
					script := fmt.Sprintf(`#!/bin/sh
%s
# Reports work in Roblox Studio that git does not have; blocks the commit only when
# that work touches files being committed. Skip once with: git commit --no-verify
ATLAS=%s
[ -x "$ATLAS" ] || ATLAS=atlas
exec "$ATLAS" drift --staged%s
`, hookMarker, shellQuote(exe), a.hookProject(c))
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						return errcode.Wrap(errcode.Internal, err, "create hooks folder")
					}
					if err := atomicfile.Write(path, []byte(script), 0o755); err != nil {
						return errcode.Wrap(errcode.Internal, err, "write hook")
					}
					a.emit("hook.install", map[string]string{"path": path, "atlas": exe}, nil, func(w io.Writer) {
						fmt.Fprintf(w, "installed %s\n", path)
					})
					return nil
				}),
			},
			{
				Name:  "uninstall",
				Usage: "remove the pre-commit hook if Atlas wrote it",
				Flags: []cli.Flag{jsonFlag},
				Action: a.action("hook.uninstall", func(ctx context.Context, c *cli.Command) error {
					path, err := a.hookPath(ctx)
					if err != nil {
						return err
					}
					old, err := os.ReadFile(path)
					if os.IsNotExist(err) {
						a.emit("hook.uninstall", map[string]any{"path": path, "removed": false}, nil, func(w io.Writer) {
							fmt.Fprintln(w, "no pre-commit hook installed")
						})
						return nil
					}
					if err != nil {
						return errcode.Wrap(errcode.Internal, err, "read hook")
					}
					if !bytes.Contains(old, []byte(hookMarker)) {
						return errcode.New(errcode.Busy, "%s was not written by Atlas; leaving it alone", path).
							Reason(errcode.ReasonForeignHook, errcode.NextEditHook)
					}
					if err := os.Remove(path); err != nil {
						return errcode.Wrap(errcode.Internal, err, "remove hook")
					}
					a.emit("hook.uninstall", map[string]any{"path": path, "removed": true}, nil, func(w io.Writer) {
						fmt.Fprintf(w, "removed %s\n", path)
					})
					return nil
				}),
			},
		},
	}
}

// hookPath asks git where the pre-commit hook lives (honouring core.hooksPath).
func (a *app) hookPath(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--git-path", "hooks/pre-commit")
	cmd.Dir = a.cwd
	out, err := cmd.Output()
	if err != nil {
		return "", errcode.New(errcode.NotFound, "not in a git repository (or git is not installed)").
			Reason(errcode.ReasonNoRepo, errcode.NextUseGitRepo)
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.cwd, p)
	}
	return p, nil
}

// hookProject is the --project argument the hook passes, " --project 'dir/file'",
// when the project is not found from the repository's top folder, where git runs
// hooks (a project in a subfolder); "" otherwise. The path is relative to that
// folder, so the hook keeps working when the repository moves.
func (a *app) hookProject(c *cli.Command) string {
	loc, err := a.locate(c)
	if err != nil {
		return ""
	}
	top := repoRoot(a.cwd)
	if top == "" {
		return ""
	}
	if found, err := project.Locate(top, "", nil); err == nil && sameFile(found.File, loc.File) {
		return ""
	}
	rel, err := filepath.Rel(top, loc.File)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return " --project " + shellQuote(filepath.ToSlash(rel))
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
