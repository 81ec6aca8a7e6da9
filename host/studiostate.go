package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// A host keeps the latest Studio snapshot across its restarts. Close writes it to the
// state dir (the session, the snapshot's id and request, and its tree with the
// plugin's handles); Start reads it back. The plugin keeps watching Studio while no
// host listens (its signals fire all the same), so when the same Studio session
// comes back, the first snapshot is a delta off that one instead of the whole place.
//
// The file proves nothing by itself: the plugin answers a delta only when the
// request's reuse is its most recent snapshot's id, which holds a random number of
// the plugin's run. Any other case (Studio restarted, a snapshot the host never
// received, another request) gets a whole snapshot, as with no file at all.

const (
	studioStateFile = "studio.snapshot"
	studioStateKind = "atlas studio snapshot"
	// 2: the tree is followed by the scripts' editorSha1 (handle, blob id pairs)
	studioStateVersion = 2
	// saveWait is how long Close waits for the Studio lock to save the snapshot.
	saveWait = 2 * time.Second
)

func studioStatePath(dir string) string { return filepath.Join(dir, studioStateFile) }

// save writes the latest snapshot to path; the caller holds the Studio lock. With no
// snapshot to keep, it removes an older file.
func (c *studioCache) save(path string) error {
	if c.tree == nil || c.session == "" || c.snapshotID == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var e dom.Encoder
	e.Text(c.session)
	e.Text(c.snapshotID)
	e.Text(c.paramsKey)
	if err := e.Instance(c.tree); err != nil {
		return fmt.Errorf("write the Studio snapshot: %w", err)
	}
	// The few scripts with unsaved Script Editor text (dom's encoding leaves it out):
	// a delta carries a script again only when its document changes.
	var edited []*dom.Instance
	c.tree.Walk(func(x *dom.Instance) bool {
		if x.EditorSha1() != "" {
			edited = append(edited, x)
		}
		return true
	})
	e.Uvarint(uint64(len(edited)))
	for _, x := range edited {
		e.Text(x.Handle)
		e.Text(x.EditorSha1())
	}
	return statefile.Write(path, studioStateKind, studioStateVersion, e.Bytes())
}

// restore reads what save wrote; the caller holds the Studio lock or is the only
// user of c. A file that cannot be used is reported and changes nothing.
func (c *studioCache) restore(path string) error {
	data, _, err := statefile.Read(path, studioStateKind, studioStateVersion)
	if err != nil {
		return err
	}
	d := dom.NewDecoder(data)
	session, id, key := d.Text(), d.Text(), d.Text()
	tree := d.Instance()
	n := d.Count(2)
	edited := make(map[string]string, n)
	for range n {
		h := d.Text()
		edited[h] = d.Text()
	}
	if d.Err() != nil {
		return d.Err()
	}
	if d.Len() != 0 || session == "" || id == "" || tree == nil {
		return fmt.Errorf("%w: Studio snapshot", dom.ErrCorrupt)
	}
	tree.AssignIDs()
	index, byHandle := indexTree(tree)
	for h, sha := range edited {
		x := index[h]
		if x == nil {
			// (a file that cannot be used changes nothing)
			return fmt.Errorf("%w: Studio snapshot", dom.ErrCorrupt)
		}
		x.SetEditorSha1(sha)
	}
	c.session, c.snapshotID, c.paramsKey = session, id, key
	c.tree, c.index, c.byHandle = tree, index, byHandle
	c.restored = true
	return nil
}

// saveStudio keeps the latest snapshot for the next host, if the Studio lock comes
// free within saveWait. Only a later snapshot is lost by not saving.
func (h *Host) saveStudio() {
	select {
	case h.studio.sem <- struct{}{}:
	case <-time.After(saveWait):
		h.log.Debug("the Studio snapshot was not kept: Studio was busy")
		return
	}
	defer func() { <-h.studio.sem }()
	h.saveInStep()
	started := time.Now()
	if err := h.studio.save(studioStatePath(h.dir)); err != nil {
		h.log.Warn("could not keep the Studio snapshot for the next host", "err", err)
		return
	}
	h.log.Debug("Studio snapshot kept", "ms", time.Since(started).Milliseconds())
}

// restoreStudio reads the snapshot a previous host kept, if any.
func (h *Host) restoreStudio() {
	started := time.Now()
	err := h.studio.restore(studioStatePath(h.dir))
	switch {
	case err == nil:
		h.log.Debug("Studio snapshot of the previous host read", "session", h.studio.session, "ms", time.Since(started).Milliseconds())
	case !errors.Is(err, fs.ErrNotExist):
		h.log.Debug("the previous host's Studio snapshot is not used", "err", err)
	}
}

// saveInStep keeps what each session was last known to hold in step with disk for the
// next host (instepstate.go); the caller holds the Studio lock.
func (h *Host) saveInStep() {
	started := time.Now()
	if saved, err := h.places.saveInStep(); err != nil {
		h.log.Warn("could not keep the in-step state for the next host", "err", err)
	} else if saved {
		h.log.Debug("in-step state kept", "ms", time.Since(started).Milliseconds())
	}
}
