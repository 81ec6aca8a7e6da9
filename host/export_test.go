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
