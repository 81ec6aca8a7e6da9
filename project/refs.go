package project

import (
	"sort"
	"strconv"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

func itoa(i int) string      { return strconv.Itoa(i) }
func sortStrings(s []string) { sort.Strings(s) }

// resolveRefs links Rojo_Target_<Prop> attributes to the instances whose id ($id,
// meta id, or a Rojo_Id attribute) they name, setting the Ref property (§4.4). The
// Ref holds the target's stable Atlas id once ids are assigned, so it is set after.
func (l *loader) resolveRefs(root *dom.Instance) error {
	ids := map[string]*dom.Instance{}
	root.Walk(func(x *dom.Instance) bool {
		if x.RefID() != "" {
			ids[x.RefID()] = x
		}
		if a, ok := x.Properties.Get("Attributes").(dom.Attributes); ok {
			if s, ok := a["Rojo_Id"].(dom.String); ok {
				ids[string(s)] = x
			}
		}
		return true
	})
	type link struct {
		from   *dom.Instance
		prop   string
		target *dom.Instance
	}
	var links []link
	root.Walk(func(x *dom.Instance) bool {
		a, ok := x.Properties.Get("Attributes").(dom.Attributes)
		if !ok {
			return true
		}
		for name, v := range a {
			prop, ok := strings.CutPrefix(name, "Rojo_Target_")
			if !ok {
				continue
			}
			s, ok := v.(dom.String)
			if !ok {
				continue
			}
			if t, found := ids[string(s)]; found {
				links = append(links, link{x, prop, t})
			} else {
				l.warnf("%s: %s points at id %q, which no instance has", x.Path(), name, string(s))
			}
		}
		return true
	})
	if len(links) == 0 {
		return nil
	}
	root.AssignIDs()
	for _, lk := range links {
		lk.from.Properties.Set(lk.prop, dom.Ref(lk.target.ID))
	}
	return nil
}
