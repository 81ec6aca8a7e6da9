package host

import (
	"maps"
	"sync"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// maxRecentPlans is how many plans an apply can find by the hash its token names.
const maxRecentPlans = 16

// planCache keeps the recent plans, so an apply finds the plan its token names (to
// recompute against the same base, and to say what moved since), and the latest
// computation with its inputs, so the same disk project, Studio tree and base give
// the same plan without computing it again.
//
// mu is a leaf lock: nothing is called with it held.
type planCache struct {
	mu     sync.Mutex
	recent []*cachedPlan // newest last
	last   *lastPlan
}

// cachedPlan is a plan issued to someone, with the base revision it was asked for.
type cachedPlan struct {
	plan *plan.Plan
	base string
}

// lastPlan is the latest computed plan with what it was computed from.
type lastPlan struct {
	disk   *project.Project
	studio *dom.Instance
	in     plan.Input // without its trees
	plan   *plan.Plan
	// read says the plan read more of Studio than the snapshot holds (the
	// properties of instances new in Studio: withNewProps), which the snapshot's
	// being the same does not vouch for: it is computed again.
	read bool
}

// remember records a plan issued for base revision base. It keeps the plan without
// the instances its changes point at: a plan's instances hold their whole trees (by
// Parent), and sixteen plans' trees are most of a long-running host's memory.
func (c *planCache) remember(p *plan.Plan, base string) {
	p = detached(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recent = append(c.recent, &cachedPlan{plan: p, base: base})
	if len(c.recent) > maxRecentPlans {
		c.recent = c.recent[len(c.recent)-maxRecentPlans:]
	}
}

// recall returns the recent plan with hash, or nil.
func (c *planCache) recall(hash string) *cachedPlan {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.recent) - 1; i >= 0; i-- {
		if c.recent[i].plan.Hash == hash {
			return c.recent[i]
		}
	}
	return nil
}

// same returns the latest plan if it was computed from exactly these inputs.
func (c *planCache) same(disk *project.Project, studio *dom.Instance, in plan.Input) *plan.Plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	lp := c.last
	if lp != nil && !lp.read && lp.disk == disk && lp.studio == studio && lp.in.BaseCommit == in.BaseCommit &&
		lp.in.BaseRef == in.BaseRef && lp.in.SessionID == in.SessionID && lp.in.Place == in.Place && lp.in.OtherPlace == in.OtherPlace && lp.in.FoldCase == in.FoldCase &&
		maps.Equal(lp.in.Unmerged, in.Unmerged) {
		return lp.plan
	}
	return nil
}

// computed records the latest plan and its inputs (read: see lastPlan).
func (c *planCache) computed(disk *project.Project, studio *dom.Instance, in plan.Input, p *plan.Plan, read bool) {
	in.Disk, in.Studio, in.Base, in.DiskIndex, in.BaseIndex, in.Writable, in.InStep = nil, nil, nil, nil, nil, nil, nil
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = &lastPlan{disk: disk, studio: studio, in: in, plan: p, read: read}
}

// detached returns a copy of p whose changes do not point into the trees.
func detached(p *plan.Plan) *plan.Plan {
	q := *p
	q.Changes = make([]*plan.Change, len(p.Changes))
	for i, ch := range p.Changes {
		c := *ch
		c.Disk, c.Studio, c.Base = nil, nil, nil
		q.Changes[i] = &c
	}
	return &q
}
