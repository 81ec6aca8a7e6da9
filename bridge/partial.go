package bridge

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/protocol"
)

// A collector gathers the partial frames of one call and merges them with the final
// result. The read loop calls add; Call calls finish once the final result is in.
type collector interface {
	add(seq int, result []byte) error
	finish(final []byte, result any) error
}

// newCollector picks how partials are gathered for result: decoded as they arrive
// when result points to a struct with an "instances" slice (the host's snapshot
// types: nothing but the decoded values is kept), joined as JSON otherwise, and
// dropped when result is nil.
func newCollector(result any) collector {
	if result == nil {
		return discard{}
	}
	if c := newSliceCollector(result); c != nil {
		return c
	}
	return &jsonCollector{}
}

// discard drops partials for a call whose result is not wanted.
type discard struct{}

func (discard) add(int, []byte) error    { return nil }
func (discard) finish([]byte, any) error { return nil }

// jsonCollector joins partials as JSON, then decodes the whole once.
type jsonCollector struct{ asm assembler }

func (c *jsonCollector) add(seq int, result []byte) error { return c.asm.add(seq, result) }

func (c *jsonCollector) finish(final []byte, result any) error {
	data := final
	if len(c.asm.parts) > 0 {
		var err error
		if data, err = c.asm.finish(final); err != nil {
			return err
		}
	}
	if len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, result)
}

// sliceCollector decodes each partial's instances into a new slice of the result's
// element type as the frame arrives.
type sliceCollector struct {
	field reflect.Value         // the result's instances field
	parts map[int]reflect.Value // decoded partials by seq, each a slice
}

func newSliceCollector(result any) *sliceCollector {
	v := reflect.ValueOf(result)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	s := v.Elem()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Type.Kind() != reflect.Slice ||
			!(name == "instances" || name == "" && strings.EqualFold(f.Name, "instances")) {
			continue
		}
		return &sliceCollector{field: s.Field(i), parts: map[int]reflect.Value{}}
	}
	return nil
}

func (c *sliceCollector) add(seq int, result []byte) error {
	elems := reflect.New(c.field.Type())
	err := protocol.EachField(result, func(key, value []byte) error {
		if string(key) != `"instances"` {
			return nil
		}
		return json.Unmarshal(value, elems.Interface())
	})
	if err != nil {
		return fmt.Errorf("partial %d: %w", seq, err)
	}
	c.parts[seq] = elems.Elem()
	return nil
}

func (c *sliceCollector) finish(final []byte, result any) error {
	if len(c.parts) > 0 {
		// Only the final result's own instances may follow the partials'.
		c.field.SetZero()
	}
	if len(final) > 0 {
		if err := json.Unmarshal(final, result); err != nil {
			return err
		}
	}
	if len(c.parts) == 0 {
		return nil
	}
	seqs := make([]int, 0, len(c.parts))
	n := c.field.Len()
	for s, part := range c.parts {
		seqs = append(seqs, s)
		n += part.Len()
	}
	slices.Sort(seqs)
	all := reflect.MakeSlice(c.field.Type(), 0, n)
	for _, s := range seqs {
		all = reflect.AppendSlice(all, c.parts[s])
		delete(c.parts, s)
	}
	c.field.Set(reflect.AppendSlice(all, c.field))
	return nil
}
