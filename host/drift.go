package host

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
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
			files, err = h.bases.stagedFiles(req.IndexFile)
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

// touches reports whether a change's files are among files: its own file (or
// folder), and the project file that declares it and the meta file that sets its
// properties, on disk or at the base.
func touches(ch *plan.Change, files []string) bool {
	fsPath := ch.FsPath
	var also []string
	for _, x := range []*dom.Instance{ch.Disk, ch.Base} {
		if x != nil {
			also = append(also, x.ProjectFile(), x.MetaPath())
		}
	}
	for _, f := range files {
		if fsPath != "" && (f == fsPath || strings.HasPrefix(f, fsPath+"/")) || slices.Contains(also, f) {
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
