package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/atlas-rbx/atlas/protocol"
)

// jsonAppender is params that encode themselves (protocol.ApplyParams: megabytes
// of sources, which json.Marshal would scan again).
type jsonAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// requestFrame encodes a request. The params are spliced in rather than encoded
// again as a json.RawMessage field, which would scan and copy a big apply once more.
func requestFrame(id, method string, params any) ([]byte, error) {
	p := []byte("{}")
	if a, ok := params.(jsonAppender); ok {
		var err error
		if p, err = a.AppendJSON(nil); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
	} else if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
	}
	head, err := json.Marshal(protocol.Request{Type: protocol.FrameRequest, ID: id, Method: method})
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", method, err)
	}
	frame := make([]byte, 0, len(head)+len(p)+len(`,"params":}`))
	frame = append(frame, head[:len(head)-1]...)
	frame = append(frame, `,"params":`...)
	frame = append(frame, p...)
	return append(frame, '}'), nil
}

// assembler joins the "instances" arrays of partial frames, in seq order, with that of
// the final result into one JSON object, so that the caller's result is decoded once
// and no per-instance values are built on the way. Each partial's array contents are
// kept in a buffer of their exact size, then copied once into a buffer of the exact
// total size.
type assembler struct {
	parts map[int][]byte // array contents of each partial, by seq
	size  int            // total bytes in parts
}

// add takes the result of a partial frame. result may be reused after add returns.
func (a *assembler) add(seq int, result []byte) error {
	elems, err := instancesOf(result)
	if err != nil {
		return fmt.Errorf("partial %d: %w", seq, err)
	}
	if a.parts == nil {
		a.parts = map[int][]byte{}
	}
	a.size += len(elems) - len(a.parts[seq])
	a.parts[seq] = bytes.Clone(elems)
	return nil
}

// finish returns the final result with the partials' instances, in seq order,
// before its own, and its other fields after them.
func (a *assembler) finish(final []byte) ([]byte, error) {
	var own []byte
	var rest [][2][]byte // other fields: raw key, raw value
	size := a.size + len(final) + len(a.parts) + 16
	if trimmed := bytes.TrimSpace(final); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		err := protocol.EachField(final, func(key, value []byte) error {
			if string(key) == `"instances"` {
				elems, err := arrayContents(value)
				own = elems
				return err
			}
			rest = append(rest, [2][]byte{key, value})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("final result: %w", err)
		}
	}
	seqs := make([]int, 0, len(a.parts))
	for s := range a.parts {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)

	buf := make([]byte, 0, size)
	buf = append(buf, `{"instances":[`...)
	first := true
	appendElems := func(elems []byte) {
		if len(elems) == 0 {
			return
		}
		if !first {
			buf = append(buf, ',')
		}
		buf = append(buf, elems...)
		first = false
	}
	for _, s := range seqs {
		appendElems(a.parts[s])
		delete(a.parts, s) // let it go as soon as it is copied
	}
	appendElems(own)
	buf = append(buf, ']')
	for _, kv := range rest {
		buf = append(buf, ',')
		buf = append(buf, kv[0]...)
		buf = append(buf, ':')
		buf = append(buf, kv[1]...)
	}
	return append(buf, '}'), nil
}

// instancesOf returns the contents of the "instances" array of a result object.
func instancesOf(result []byte) ([]byte, error) {
	var elems []byte
	err := protocol.EachField(result, func(key, value []byte) error {
		if string(key) != `"instances"` {
			return nil
		}
		var err error
		elems, err = arrayContents(value)
		return err
	})
	return elems, err
}

// arrayContents returns what is between the brackets of a JSON array; null gives
// nothing.
func arrayContents(v []byte) ([]byte, error) {
	if string(v) == "null" {
		return nil, nil
	}
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, errors.New("instances is not an array")
	}
	return bytes.TrimSpace(v[1 : len(v)-1]), nil
}

// A frame's fields are found with protocol.EachField, which does not validate:
// every byte it passes on is validated by the json.Unmarshal that decodes the
// caller's result.

// frameHead is what dispatch needs of a frame; Result and Error point into the frame.
type frameHead struct {
	Type   protocol.FrameType
	ID     string
	Seq    int
	OK     bool
	Result []byte
	Error  []byte
}

// scanFrame finds the fields of a response or partial frame.
func scanFrame(data []byte) (frameHead, error) {
	var h frameHead
	err := protocol.EachField(data, func(key, value []byte) error {
		switch string(key) {
		case `"type"`:
			return json.Unmarshal(value, &h.Type)
		case `"id"`:
			return json.Unmarshal(value, &h.ID)
		case `"seq"`:
			return json.Unmarshal(value, &h.Seq)
		case `"ok"`:
			return json.Unmarshal(value, &h.OK)
		case `"result"`:
			h.Result = value
		case `"error"`:
			h.Error = value
		}
		return nil
	})
	return h, err
}
