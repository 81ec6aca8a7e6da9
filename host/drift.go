package host

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
)

// Drift reports work in Studio that git does not have.
func (h *Host) Drift(ctx context.Context, req DriftRequest) (*DriftData, error) {
	h.trim.begin()
	defer h.trim.end()
	d := &DriftData{Changes: []*plan.Change{}, Blocking: []string{}}
	c, err := h.compute(ctx, req.SessionID, "", nil)
	if err != nil {
		if errcode.Of(err) == errcode.StudioNotConnected {
			d.Message = "no Studio session is connected: drift unknown"
			return d, nil
		}
		return nil, err
	}
	d.Connected = true
	d.Session = sessionData(c.session)
	for _, ch := range c.plan.Changes {
		if ch.Reason.StudioMoved() {
			d.Changes = append(d.Changes, ch)
		}
	}
	d.Drift = len(d.Changes) > 0
	if req.Staged {
		files := req.Files
		if files == nil {
			files, err = h.bases.stagedFiles()
			if err != nil {
				return nil, err
			}
		}
		for _, ch := range d.Changes {
			if touches(ch, files) {
				d.Blocking = append(d.Blocking, ch.ID)
			}
		}
	}
	return d, nil
}

// touches reports whether a change's file (or folder) is among files.
func touches(ch *plan.Change, files []string) bool {
	fsPath := ch.FsPath
	if fsPath == "" && ch.Studio != nil && ch.Studio.Parent != nil {
		return false
	}
	for _, f := range files {
		if f == fsPath || strings.HasPrefix(f, fsPath+"/") {
			return true
		}
	}
	return false
}

func isAbs(p string) bool { return filepath.IsAbs(p) }

// within returns target relative to dir ('/' separators) if it is inside dir.
func within(dir, target string) (string, bool) {
	rel, err := filepath.Rel(dir, filepath.Clean(target))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}
