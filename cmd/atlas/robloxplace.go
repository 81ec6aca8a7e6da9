package main

import (
	"os"
	"path/filepath"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// robloxPlace prepares a Roblox place or model file for the emulator: the emulator
// loads and saves its own JSON, so the file is converted to a temp JSON place, and
// after the emulator stops its saved JSON is written back to the file in the file's
// own format. A missing file starts from the project, like a missing JSON place.
func (a *app) robloxPlace(h *host.Host, path string) (place, save string, afterStop func() error, err error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.cwd, path)
	}
	var pf *host.PlaceFile
	var file *host.RobloxFile
	if _, statErr := os.Stat(path); statErr == nil {
		if file, err = host.ReadRobloxFile(path); err != nil {
			return "", "", nil, err
		}
		pf = file.EmulatorPlace()
	} else {
		if pf, err = h.InitialPlace(); err != nil {
			return "", "", nil, err
		}
		file = host.NewRobloxFile(path, nil)
	}
	dir, err := os.MkdirTemp("", "atlas-place-*")
	if err != nil {
		return "", "", nil, errcode.Wrap(errcode.Internal, err, "write place")
	}
	place, save = filepath.Join(dir, "start.json"), filepath.Join(dir, "saved.json")
	if err := host.WritePlace(place, pf); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, errcode.Wrap(errcode.Internal, err, "write place")
	}
	afterStop = func() error {
		defer os.RemoveAll(dir)
		if _, err := os.Stat(save); err != nil {
			return nil // the emulator saved nothing: leave the file as it was
		}
		if err := file.UpdateFromPlace(save); err != nil {
			return errcode.Wrap(errcode.Internal, err, "save "+path)
		}
		if err := file.Write(); err != nil {
			return errcode.Wrap(errcode.Internal, err, "save "+path)
		}
		return nil
	}
	return place, save, afterStop, nil
}
