package host

import (
	"context"
	"encoding/json"
	"maps"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// CachedStudioTree is the Studio tree the host holds from its latest snapshot.
func (h *Host) CachedStudioTree() *dom.Instance {
	return h.studio.tree
}

// TextIndexes is how many times a text read back indexed every script by hash.
func (h *Host) TextIndexes() int64 {
	return h.textIndexes.Load()
}

// SourcesByHash is how many scripts' Sources came in snapshots by their hash.
func (h *Host) SourcesByHash() int {
	return h.studio.byHash
}

// StudioDeltas is how many snapshots Studio answered as deltas the host applied.
func (h *Host) StudioDeltas() int {
	return h.studio.deltas
}

// StudioWholes is how many whole snapshots the host took.
func (h *Host) StudioWholes() int {
	return h.studio.wholes
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

// DiskParsed is how many files the disk cache's loads read since the host started.
func (h *Host) DiskParsed() int {
	h.disk.loadMu.Lock()
	defer h.disk.loadMu.Unlock()
	return h.disk.parsed
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
		if c.base != nil {
			// The base loaded from the commit alone, not built from the disk's.
			opts := h.loc.Options()
			opts.HashOnly = true
			fresh, err := project.Load(c.base.fsys, h.loc.FileInFS, opts)
			if err != nil {
				return err
			}
			fresh.ResolveSourceHashes(c.base.fsys)
			in.Base = fresh.Root
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

// BaseSources counts where the host's base trees came from: the disk tree, the
// state dir's file, or the commit.
func (h *Host) BaseSources() map[project.BaseSource]int {
	h.disk.loadMu.Lock()
	defer h.disk.loadMu.Unlock()
	return maps.Clone(h.disk.bases)
}

// SetTrimDelay sets how long the host waits, idle, before it gives memory back.
func (h *Host) SetTrimDelay(d time.Duration) { h.trim.delay = d }

// ScopeMade tells whether the latest snapshot scope worked out is that of the disk
// tree the host holds.
func (h *Host) ScopeMade() bool {
	root := h.LastDiskTree()
	lastScope.Lock()
	defer lastScope.Unlock()
	return root != nil && len(lastScope.trees) > 0 && lastScope.trees[0] == root
}

// Idle runs what the host does once it has been idle: the base tree kept, and the
// script texts that can be read again let go.
func (h *Host) Idle() { h.idle() }
