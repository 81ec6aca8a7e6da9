package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/project"
)

// studioPlace reads the whole place of the connected Studio session through a
// running host and its plugin, for `atlas init --from-studio`. A folder to be
// made a project has no host of its own, so the host is any running one with a
// Studio session: the one serving projectFile when given, else the only host
// with a session (sessionID picks one of several). It returns the place as a
// tree and the name the project takes from it.
func (a *app) studioPlace(ctx context.Context, stateDir, projectFile, sessionID string, own ownOptions) (*dom.Instance, string, string, error) {
	if own.emulate {
		return a.ownPlace(ctx, stateDir, own)
	}
	var clients []*host.Client
	if projectFile != "" {
		cl, err := host.Dial(stateDir, projectFile)
		if err != nil {
			return nil, "", "", err
		}
		clients = append(clients, cl)
	} else {
		clients = host.RunningHosts(stateDir)
	}
	type candidate struct {
		cl      *host.Client
		session host.SessionData
	}
	var found []candidate
	for _, cl := range clients {
		st, err := cl.Status(ctx)
		if err != nil {
			continue
		}
		for _, s := range st.Sessions {
			if sessionID == "" || s.ID == sessionID {
				found = append(found, candidate{cl, s})
			}
		}
	}
	switch {
	case len(found) == 0 && sessionID != "":
		return nil, "", "", errcode.New(errcode.StudioNotConnected, "no running Atlas host has the Studio session %s", sessionID).
			Reason(errcode.ReasonNoStudio, errcode.NextShowStatus, errcode.NextConnectStudio)
	case len(found) == 0 && projectFile == "" && own.wait > 0:
		return a.ownPlace(ctx, stateDir, own)
	case len(found) == 0:
		return nil, "", "", errcode.New(errcode.StudioNotConnected,
			"no Studio is connected to a running Atlas host (%d running): open the place in Studio with the Atlas plugin while 'atlas serve' runs, then try again; nothing was written", len(clients)).
			Reason(errcode.ReasonNoStudio, errcode.NextConnectStudio, errcode.NextStartHost)
	case len(found) > 1:
		var sessions []map[string]any
		for _, f := range found {
			sessions = append(sessions, map[string]any{"id": f.session.ID, "placeName": f.session.PlaceName,
				"placeId": f.session.PlaceID, "projectFile": f.cl.Registration().ProjectFile})
		}
		return nil, "", "", errcode.New(errcode.StudioAmbiguous, "%d Studio sessions are connected: name one with --session; nothing was written", len(found)).
			With("sessions", sessions).Reason(errcode.ReasonSeveralStudios, errcode.NextSelectSession)
	}
	d, err := found[0].cl.PlaceSnapshot(ctx, host.PlaceSnapshotRequest{SessionID: found[0].session.ID})
	if err != nil {
		return nil, "", "", err
	}
	return placeOf(d)
}

// ownOptions are init's flags for listening for Studio itself.
type ownOptions struct {
	port    int
	wait    time.Duration
	emulate bool
	place   string // with emulate: the place the emulator starts from
}

// ownPlace reads the place through a host of init's own (ownHost).
func (a *app) ownPlace(ctx context.Context, stateDir string, own ownOptions) (*dom.Instance, string, string, error) {
	o, err := a.startInitHost(ctx, stateDir, own)
	if err != nil {
		return nil, "", "", err
	}
	defer o.close()
	d, err := o.h.PlaceSnapshot(ctx, host.PlaceSnapshotRequest{})
	if err != nil {
		return nil, "", "", err
	}
	return placeOf(d)
}

// placeOf is the tree of a place snapshot, the project's name (the place's,
// without a file extension) and where it came from.
func placeOf(d *host.PlaceSnapshotData) (*dom.Instance, string, string, error) {
	name := d.Session.PlaceName
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".rbxl" || ext == ".rbxlx" {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	if name == "" {
		name = "Place"
	}
	from := "studio:" + d.Session.ID
	return d.Place.Tree(), name, from, nil
}

// ownHost is `atlas init --from-studio` listening for Studio itself, when no
// running host has one: a folder about to become a project has no host, and the
// plugin connects to whatever host listens on its port. The host serves a stub
// project in a temp folder (its state is removed after); with emulate, the Studio
// emulator is started on it from place instead of waiting for Roblox Studio.
type ownHost struct {
	h       *host.Host
	em      *host.Emulator
	cleanup []func()
}

func (o *ownHost) close() {
	if o.em != nil {
		o.em.Stop()
	}
	if o.h != nil {
		o.h.Close()
	}
	for i := len(o.cleanup) - 1; i >= 0; i-- {
		o.cleanup[i]()
	}
}

// startInitHost starts the host and waits, at most wait, for a Studio session.
func (a *app) startInitHost(ctx context.Context, stateDir string, own ownOptions) (*ownHost, error) {
	port, wait := own.port, own.wait
	var start *host.PlaceFile
	if own.emulate {
		if own.place == "" {
			return nil, errcode.New(errcode.Usage, "--emulate takes --place: the place file the emulated Studio holds").Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
		}
		place := own.place
		if !filepath.IsAbs(place) {
			place = filepath.Join(a.cwd, place)
		}
		if !host.IsRobloxFile(place) {
			return nil, errcode.New(errcode.Usage, "--place %q must be a .rbxl or .rbxlx file", own.place).Reason(errcode.ReasonBadInput, errcode.NextFixRequest)
		}
		f, err := host.ReadRobloxFile(place)
		if err != nil {
			return nil, err
		}
		start = f.EmulatorPlace()
		if wait <= 0 {
			wait = 60 * time.Second
		}
	}
	o := &ownHost{}
	tmp, err := os.MkdirTemp("", "atlas-init-*")
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "make a temp folder")
	}
	o.cleanup = append(o.cleanup, func() { os.RemoveAll(tmp) })
	stub := filepath.Join(tmp, "default.project.json")
	if err := os.WriteFile(stub, []byte(`{ "name": "init", "tree": { "$className": "DataModel" } }`+"\n"), 0o600); err != nil {
		o.close()
		return nil, errcode.Wrap(errcode.Internal, err, "write the stub project")
	}
	loc, err := project.Locate(tmp, stub, nil)
	if err != nil {
		o.close()
		return nil, err
	}
	o.cleanup = append(o.cleanup, func() { os.RemoveAll(host.ProjectStateDir(stateDir, loc.File)) })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := host.New(host.Options{Location: loc, StateDir: stateDir, Port: port, Version: Version, Kind: "init", Logger: logger})
	if err != nil {
		o.close()
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		o.close()
		return nil, err
	}
	o.h = h
	if own.emulate {
		pluginDir, err := host.FindPluginDir(a.getenv)
		if err != nil {
			o.close()
			return nil, err
		}
		startFile := filepath.Join(tmp, "place.json")
		if err := host.WritePlace(startFile, start); err != nil {
			o.close()
			return nil, errcode.Wrap(errcode.Internal, err, "write the emulator's place")
		}
		if o.em, err = host.StartEmulator(ctx, host.EmulatorOptions{PluginDir: pluginDir, URL: h.PluginURL(), Place: startFile, Review: "none", Logger: logger}); err != nil {
			o.close()
			return nil, err
		}
	} else {
		fmt.Fprintf(a.stderr, "atlas: waiting up to %s for Roblox Studio to connect on port %d (open the place with the Atlas plugin)\n", wait, port)
	}
	deadline := time.Now().Add(wait)
	for {
		if st, err := h.Status(ctx); err == nil && len(st.Sessions) > 0 {
			return o, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			o.close()
			return nil, errcode.New(errcode.StudioNotConnected,
				"no Studio connected within %s: open the place in Studio with the Atlas plugin (it connects to port %d), then try again; nothing was written", wait, port).
				Reason(errcode.ReasonNoStudio, errcode.NextConnectStudio)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
