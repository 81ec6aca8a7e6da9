package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// studioPlace reads the whole place of the connected Studio session through a
// running host and its plugin, for `atlas init --from-studio`. A folder to be
// made a project has no host of its own, so the host is any running one with a
// Studio session: the one serving projectFile when given, else the only host
// with a session (sessionID picks one of several). It returns the place as a
// tree and the name the project takes from it.
func studioPlace(ctx context.Context, stateDir, projectFile, sessionID string) (*dom.Instance, string, string, error) {
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
