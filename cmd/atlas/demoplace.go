package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project/syncback"
)

// runPlaceDemo is `atlas demo --place FILE`: the project is extracted from the
// person's own place (as atlas init --from does), the emulator runs a copy of the
// place, and the demo shows the plans Atlas makes against it. The place file is
// only read.
func (a *app) runPlaceDemo(ctx context.Context, place, dir string) error {
	w := a.stdout
	step := func(format string, args ...any) { fmt.Fprintf(w, "\n==> "+format+"\n", args...) }
	if !filepath.IsAbs(place) {
		place = filepath.Join(a.cwd, place)
	}
	if !host.IsRobloxFile(place) {
		return errcode.New(errcode.Usage, "--place %q must be a .rbxl, .rbxlx, .rbxm or .rbxmx file", place).
			Reason(errcode.ReasonBadInput, errcode.NextFixRequest)
	}
	file, err := host.ReadRobloxFile(place)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "atlas-demo-*"); err != nil {
			return errcode.Wrap(errcode.Internal, err, "create demo folder")
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.cwd, dir)
	}
	step("Extracting %s into a Rojo project in a new git repository: %s", filepath.Base(place), dir)
	name := strings.TrimSuffix(filepath.Base(place), filepath.Ext(place))
	res, err := syncback.Extract(file.Root, syncback.Options{Name: name})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "extract "+place)
	}
	stateDir, err := a.stateDir()
	if err != nil {
		return err
	}
	d, err := writeProject(dir, res, false, stateDir)
	if err != nil {
		return err
	}
	printInit(w, d)
	h, logger, err := startDemoHost(ctx, dir, "Extracted from "+filepath.Base(place), stateDir)
	if err != nil {
		return err
	}
	defer h.Close()
	// The emulator plays a copy, so the person's file is never written.
	copyDir, err := os.MkdirTemp("", "atlas-demo-place-*")
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "copy the place")
	}
	defer os.RemoveAll(copyDir)
	data, err := os.ReadFile(place)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "copy the place")
	}
	placeCopy := filepath.Join(copyDir, filepath.Base(place))
	if err := os.WriteFile(placeCopy, data, 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "copy the place")
	}
	step("Starting the Atlas host on %s and the Studio emulator on (a copy of) %s", h.URL(), filepath.Base(place))
	em, err := a.startEmulator(ctx, h, placeCopy, "accept", logger)
	if err != nil {
		return err
	}
	defer em.Stop()

	step("atlas sync plan — the project was just extracted from the place, so they agree")
	p, err := h.Plan(ctx, host.PlanRequest{Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), token: true})

	script := firstScript(res)
	if script == "" {
		fmt.Fprintf(w, "\nThe place has no scripts to edit. The project is in %s.\n", dir)
		return nil
	}
	step("Editing %s on disk", script)
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(script)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "edit "+script)
	}
	_, err = f.WriteString("\n-- edited by atlas demo\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "edit "+script)
	}
	step("atlas sync plan --diff — what Atlas would push into the place")
	p, err = h.Plan(ctx, host.PlanRequest{Sources: true, Files: true})
	if err != nil {
		return err
	}
	renderPlan(w, p, planView{style: a.io.style(), diff: true, token: true})
	fmt.Fprintf(w, "\nNothing was applied, and %s was not changed. The project is in %s: run `atlas serve` there and connect Studio to sync for real.\n", filepath.Base(place), dir)
	return nil
}

// firstScript is the first script file of the extraction, by path.
func firstScript(res *syncback.Result) string {
	var scripts []string
	for _, f := range res.Files {
		if strings.HasSuffix(f.Path, ".luau") {
			scripts = append(scripts, f.Path)
		}
	}
	sort.Strings(scripts)
	if len(scripts) == 0 {
		return ""
	}
	return scripts[0]
}
