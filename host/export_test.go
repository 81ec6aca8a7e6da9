package host

import (
	"context"
	"encoding/json"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
)

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

// PlanAndScratch computes a plan as Plan does (incremental: the host's caches, the
// snapshot scope's and the plan's memory), and the plan of the same inputs from
// scratch: copies of the trees that share nothing with any earlier tree, no memo,
// no indexes. scopeDiff is "" when the snapshot request the plan used is the one
// computed from scratch on the copies, else both.
func (h *Host) PlanAndScratch(ctx context.Context) (got, scratch *plan.Plan, scopeDiff string, err error) {
	err = h.studio.use(ctx, func(snaps *snapshots) error {
		c, err := h.computeWith(ctx, snaps, "", "")
		if err != nil {
			return err
		}
		in := c.in
		_, gotScope := scopeWithKey(in.Disk, in.Base)
		in.Memo, in.DiskIndex, in.BaseIndex = nil, nil, nil
		in.Disk, in.Studio = in.Disk.Clone(), in.Studio.Clone()
		if in.Base != nil {
			in.Base = in.Base.Clone()
		}
		got, scratch = c.plan, plan.Compute(in)
		want, _ := json.Marshal(computeScope(in.Disk, in.Base))
		if string(want) != gotScope {
			scopeDiff = gotScope + "\nwant\n" + string(want)
		}
		return nil
	})
	return got, scratch, scopeDiff, err
}

// MemoStats is what the host's last plan computation did with its plan memo.
func (h *Host) MemoStats() plan.MemoStats { return h.memo.Stats() }
