package rbxmx

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/atlas-rbx/atlas/dom"
)

// provisionalID is the ID Decode gives the n-th instance of a document: 32 hex
// digits like a real ID, so Ref values are well formed before IDs are assigned.
func provisionalID(n int) string {
	sum := sha256.Sum256([]byte("rbxmx:provisional\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

// Refs records which instance each Ref property points at, so the refs can be
// rewritten after the instances' IDs change.
type Refs []refLink

type refLink struct {
	inst   *dom.Instance
	prop   string
	target *dom.Instance
}

// CaptureRefs records every Ref property under roots whose value is the ID of an
// instance under roots. Nil refs and refs to other instances are not recorded and
// stay as they are.
func CaptureRefs(roots []*dom.Instance) Refs {
	byID := map[string]*dom.Instance{}
	for _, r := range roots {
		r.Walk(func(i *dom.Instance) bool {
			if _, dup := byID[i.ID]; i.ID != "" && !dup {
				byID[i.ID] = i
			}
			return true
		})
	}
	var refs Refs
	for _, r := range roots {
		r.Walk(func(i *dom.Instance) bool {
			for _, name := range i.PropertyNames() {
				if ref, ok := i.Properties.Get(name).(dom.Ref); ok {
					if t, ok := byID[string(ref)]; ok {
						refs = append(refs, refLink{i, name, t})
					}
				}
			}
			return true
		})
	}
	return refs
}

// Rebind sets every recorded Ref property to its target's current ID. Call it after
// reassigning IDs, e.g.:
//
//	refs := rbxmx.CaptureRefs(roots)
//	root.AssignIDs()
//	refs.Rebind()
func (r Refs) Rebind() {
	for _, l := range r {
		l.inst.Properties.Set(l.prop, dom.Ref(l.target.ID))
	}
}
