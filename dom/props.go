package dom

import (
	"encoding/json"
	"iter"
	"slices"
	"strings"
)

// Property is one property of an instance.
type Property struct {
	Name  string
	Value Value
}

// Props is an instance's properties: sorted by name, each name once.
//
// A tree holds hundreds of thousands of instances, in the disk, Studio and base trees
// at once. A Go map holds at least 336 bytes for one entry (its header and a group of
// eight slots); a Props holds 32 bytes a property, and most instances have a few.
// A property is found by binary search.
//
// Props share arrays the way the trees share instances, so Set and Delete never write
// into an array another Props may hold: a new name or a removal makes a new array of
// the exact size. Only an existing name's value is set in place, which an instance
// sharing the array sees, as it would with a map shared by two instances.
type Props []Property

// MakeProps returns the properties ps as Props: sorted by name, the last value of a
// name repeated. ps is sorted in place and may be the result.
func MakeProps(ps []Property) Props {
	if len(ps) == 0 {
		return nil
	}
	slices.SortStableFunc(ps, func(a, b Property) int { return strings.Compare(a.Name, b.Name) })
	out := ps[:1]
	for _, p := range ps[1:] {
		if p.Name == out[len(out)-1].Name {
			out[len(out)-1] = p
			continue
		}
		out = append(out, p)
	}
	return slices.Clip(Props(out))
}

// PropsOf returns the properties of map m.
func PropsOf(m Properties) Props {
	ps := make([]Property, 0, len(m))
	for k, v := range m {
		ps = append(ps, Property{k, v})
	}
	return MakeProps(ps)
}

func (p Props) find(name string) (int, bool) {
	return slices.BinarySearchFunc(p, name, func(x Property, name string) int { return strings.Compare(x.Name, name) })
}

// Get returns the value of property name, nil if there is none.
func (p Props) Get(name string) Value {
	if i, ok := p.find(name); ok {
		return p[i].Value
	}
	return nil
}

// Lookup returns the value of property name and whether there is one.
func (p Props) Lookup(name string) (Value, bool) {
	if i, ok := p.find(name); ok {
		return p[i].Value, true
	}
	return nil, false
}

// Set sets property name.
func (p *Props) Set(name string, v Value) {
	i, ok := p.find(name)
	if ok {
		(*p)[i].Value = v
		return
	}
	n := make(Props, len(*p)+1)
	copy(n, (*p)[:i])
	n[i] = Property{name, v}
	copy(n[i+1:], (*p)[i:])
	*p = n
}

// Delete removes property name.
func (p *Props) Delete(name string) {
	i, ok := p.find(name)
	if !ok {
		return
	}
	if len(*p) == 1 {
		*p = nil
		return
	}
	n := make(Props, len(*p)-1)
	copy(n, (*p)[:i])
	copy(n[i:], (*p)[i+1:])
	*p = n
}

// All yields the properties in name order.
func (p Props) All() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		for _, x := range p {
			if !yield(x.Name, x.Value) {
				return
			}
		}
	}
}

// Names returns the property names, sorted.
func (p Props) Names() []string {
	names := make([]string, len(p))
	for i, x := range p {
		names[i] = x.Name
	}
	return names
}

// Clone returns a copy of p that shares no array with it.
func (p Props) Clone() Props { return slices.Clone(p) }

// Map returns the properties as a map.
func (p Props) Map() Properties {
	m := make(Properties, len(p))
	for _, x := range p {
		m[x.Name] = x.Value
	}
	return m
}

// MarshalJSON encodes the properties as Properties does: an object, values tagged.
func (p Props) MarshalJSON() ([]byte, error) { return p.Map().MarshalJSON() }

// UnmarshalJSON decodes what MarshalJSON writes.
func (p *Props) UnmarshalJSON(data []byte) error {
	var m Properties
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*p = PropsOf(m)
	return nil
}

// PropsBuilder collects properties in any order, keeping the first value of a name, and
// makes them Props once: decoders that meet an instance's properties one by one would
// otherwise copy its array for each new name (Props.Set).
type PropsBuilder struct {
	list []Property
	seen map[string]bool // the names of list, once it is long
}

// builderScan is how long a list is searched for a name before a map keeps them.
const builderScan = 16

// Has reports whether name was added.
func (b *PropsBuilder) Has(name string) bool {
	if b.seen != nil {
		return b.seen[name]
	}
	for _, p := range b.list {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Add adds property name unless it was added already, and reports whether it did.
func (b *PropsBuilder) Add(name string, v Value) bool {
	if b.Has(name) {
		return false
	}
	b.list = append(b.list, Property{name, v})
	switch {
	case b.seen != nil:
		b.seen[name] = true
	case len(b.list) > builderScan:
		b.seen = make(map[string]bool, 2*len(b.list))
		for _, p := range b.list {
			b.seen[p.Name] = true
		}
	}
	return true
}

// Props returns the properties added, and empties b.
func (b *PropsBuilder) Props() Props {
	p := MakeProps(b.list)
	*b = PropsBuilder{}
	return p
}
