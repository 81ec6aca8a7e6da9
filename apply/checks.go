package apply

import (
	"context"
	"encoding/json"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/protocol"
)

// instanceState is what Studio holds at one instance path, as far as a
// transaction cares: whether an instance is there, its class, its Source's blob
// id, and the values of the properties the transaction sets.
type instanceState struct {
	Present    bool            `json:"present"`
	ClassName  string          `json:"className,omitempty"`
	SourceSha1 string          `json:"sourceSha1,omitempty"`
	Properties protocol.Values `json:"properties,omitempty"`
}

// instanceCheck is one instance path the patch changes, by path (handles die with
// the snapshot that gave them), with what Studio holds there before and after it.
type instanceCheck struct {
	Path   string        `json:"path"`
	Before instanceState `json:"before"`
	After  instanceState `json:"after"`
	// Unknowable: the op renames the instance, so no one path shows both states.
	Unknowable bool `json:"unknowable,omitempty"`
}

// checksOf derives the before- and after-state of every instance path ops change.
// An edit expects its Source hash and property values and sets new ones; a remove
// expects the instance and leaves none; an add expects none and leaves one with
// its class and Source. Two ops on one path (a class change: remove, then add)
// make one check, from the first op's before to the last op's after.
//
// sourceHashes, when it has an op's index, is the blob id of the Source the op
// writes (else the op's value is decoded and hashed).
func checksOf(ops []protocol.Op, byHandle map[string]*dom.Instance, sourceHashes map[int]string) []instanceCheck {
	written := func(i int, raw json.RawMessage) (string, bool) {
		if h, ok := sourceHashes[i]; ok {
			return h, true
		}
		s, ok := sourceOf(raw)
		if !ok {
			return "", false
		}
		return gitblob.HashString(s), true
	}
	out := []instanceCheck{}
	at := map[string]int{}
	put := func(path string, before, after instanceState, unknowable bool) {
		if i, ok := at[path]; ok {
			out[i].After = after
			out[i].Unknowable = out[i].Unknowable || unknowable
			return
		}
		at[path] = len(out)
		out = append(out, instanceCheck{Path: path, Before: before, After: after, Unknowable: unknowable})
	}
	for i, op := range ops {
		switch op.Op {
		case protocol.OpEdit:
			x := byHandle[op.Handle]
			if x == nil {
				continue
			}
			before := instanceState{Present: true, ClassName: x.ClassName}
			after := instanceState{Present: true, ClassName: x.ClassName}
			if op.Expect != nil {
				before.SourceSha1 = op.Expect.SourceSha1
				before.Properties = op.Expect.Properties
			}
			after.SourceSha1 = before.SourceSha1
			_, renamed := op.Set["Name"]
			for k, v := range op.Set {
				if k == "Source" {
					if h, ok := written(i, v); ok {
						after.SourceSha1 = h
					}
					continue
				}
				if after.Properties == nil {
					after.Properties = protocol.Values{}
				}
				after.Properties[k] = v
			}
			put(x.Path(), before, after, renamed)
		case protocol.OpRemove:
			x := byHandle[op.Handle]
			if x == nil {
				continue
			}
			before := instanceState{Present: true, ClassName: x.ClassName}
			if op.Expect != nil {
				before.SourceSha1 = op.Expect.SourceSha1
			}
			put(x.Path(), before, instanceState{}, false)
		case protocol.OpAdd:
			p := byHandle[op.Parent]
			if p == nil || op.Instance == nil {
				continue
			}
			path := op.Instance.Name
			if pp := p.Path(); pp != "" {
				path = pp + "/" + op.Instance.Name
			}
			after := instanceState{Present: true, ClassName: op.Instance.ClassName}
			if h, ok := written(i, op.Instance.Properties["Source"]); ok {
				after.SourceSha1 = h
			}
			put(path, instanceState{}, after, false)
		}
	}
	return out
}

// Prober reads what Studio holds at instance paths, in one snapshot: for each
// path every instance found there (none, one, or several same-named siblings),
// with the given properties by class (each with its wire type) and the Source of
// scripts.
type Prober interface {
	Probe(ctx context.Context, paths [][]string, props map[string]map[string]string) ([][]*dom.Instance, error)
}

// Side values: where Studio stands for a transaction, or for one of its paths.
const (
	SideBefore  = "before"  // as before the patch
	SideAfter   = "after"   // as the patch left it
	SideMixed   = "mixed"   // some paths before, some after (a transaction only)
	SideOther   = "other"   // neither: changed since, or several instances at the path
	SideUnknown = "unknown" // not looked at (no Studio with the place is connected)
)

// probeRequest is what to ask a Prober for the checks.
func probeRequest(checks []instanceCheck) ([][]string, map[string]map[string]string) {
	paths := make([][]string, 0, len(checks))
	props := map[string]map[string]string{}
	add := func(s instanceState) {
		for k, raw := range s.Properties {
			v, err := dom.Unmarshal(raw)
			if err != nil {
				continue
			}
			typ := v.Type()
			if typ == "Enum" {
				if _, enum, ok := dom.PropertyType(s.ClassName, k); ok && enum != "" {
					typ = "Enum:" + enum
				}
			}
			m := props[s.ClassName]
			if m == nil {
				m = map[string]string{}
				props[s.ClassName] = m
			}
			m[k] = typ
		}
	}
	for _, c := range checks {
		paths = append(paths, splitPath(c.Path))
		add(c.Before)
		add(c.After)
	}
	return paths, props
}

// holds reports whether the instances found at a path are the state s.
func holds(found []*dom.Instance, s instanceState) bool {
	if !s.Present {
		return len(found) == 0
	}
	if len(found) != 1 {
		return false
	}
	x := found[0]
	if s.ClassName != "" && x.ClassName != s.ClassName {
		return false
	}
	if s.SourceSha1 != "" && x.SourceHash != s.SourceSha1 {
		return false
	}
	for k, raw := range s.Properties {
		want, err := dom.Unmarshal(raw)
		if err != nil || !dom.Equal(want, x.Properties.Get(k)) {
			return false
		}
	}
	return true
}

// PathSide is where Studio stands at one path a transaction changes.
type PathSide struct {
	Path string `json:"path"`
	// Change is what the patch does there: add, remove or edit.
	Change string `json:"change"`
	Side   string `json:"side"`
}

func (c instanceCheck) change() string {
	switch {
	case !c.Before.Present:
		return "add"
	case !c.After.Present:
		return "remove"
	}
	return "edit"
}

// studioSide probes Studio for every path the transaction changes and says where
// Studio stands: before, after, mixed (or other: an instance that is neither).
func (r *record) studioSide(ctx context.Context, p Prober) (string, []PathSide, error) {
	sides := make([]PathSide, len(r.Checks))
	if len(r.Checks) == 0 {
		return SideAfter, sides, nil
	}
	paths, props := probeRequest(r.Checks)
	found, err := p.Probe(ctx, paths, props)
	if err != nil {
		return SideUnknown, nil, err
	}
	before, after := 0, 0
	for i, c := range r.Checks {
		sides[i] = PathSide{Path: c.Path, Change: c.change(), Side: SideOther}
		if c.Unknowable || i >= len(found) {
			continue
		}
		isBefore, isAfter := holds(found[i], c.Before), holds(found[i], c.After)
		switch {
		case isAfter:
			// Both (the patch changes nothing visible there) counts as after.
			sides[i].Side = SideAfter
			after++
		case isBefore:
			sides[i].Side = SideBefore
			before++
		}
	}
	switch {
	case after == len(r.Checks):
		return SideAfter, sides, nil
	case before == len(r.Checks):
		return SideBefore, sides, nil
	}
	return SideMixed, sides, nil
}

// unknownSides lists the paths with side unknown, for a transaction no Studio
// can be asked about.
func (r *record) unknownSides() []PathSide {
	out := make([]PathSide, len(r.Checks))
	for i, c := range r.Checks {
		out[i] = PathSide{Path: c.Path, Change: c.change(), Side: SideUnknown}
	}
	return out
}
