package host

import "github.com/atlas-rbx/atlas/dom"

// CachedStudioTree is the Studio tree the host holds from its latest snapshot.
func (h *Host) CachedStudioTree() *dom.Instance {
	return h.studio.tree
}

// StudioDeltas is how many snapshots Studio answered as deltas the host applied.
func (h *Host) StudioDeltas() int {
	return h.studio.deltas
}

// LastDiskTree is the disk tree the host's latest plan used.
func (h *Host) LastDiskTree() *dom.Instance {
	h.disk.mu.Lock()
	defer h.disk.mu.Unlock()
	if h.disk.proj == nil {
		return nil
	}
	return h.disk.proj.Root
}

// DiskLoads counts the disk cache's loads: by the paths events named, and by stat.
func (h *Host) DiskLoads() (updates, full int) {
	h.disk.loadMu.Lock()
	defer h.disk.loadMu.Unlock()
	return h.disk.updates, h.disk.full
}

// DiskParsed is how many files the disk cache's last load read.
func (h *Host) DiskParsed() int {
	h.disk.loadMu.Lock()
	defer h.disk.loadMu.Unlock()
	return h.disk.cache.Stats().Parsed
}
