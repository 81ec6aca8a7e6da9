package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// protocolVersion is the only protocol this host speaks (PROTOCOL.md §1).
const protocolVersion = 1

// Frames, host → plugin.

type welcomeFrame struct {
	Type        string `json:"type"`
	Protocol    int    `json:"protocol"`
	HostVersion string `json:"hostVersion"`
	Project     string `json:"project"`
}

type byeFrame struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

type requestFrame struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type cancelFrame struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Frames, plugin → host: one struct holds the fields of every kind.
type inboundFrame struct {
	Type string `json:"type"`

	// hello
	Protocol      int    `json:"protocol"`
	PluginVersion string `json:"pluginVersion"`
	PlaceID       int64  `json:"placeId"`
	PlaceName     string `json:"placeName"`
	SessionID     string `json:"sessionId"`

	// response and partial
	ID     string          `json:"id"`
	Seq    int             `json:"seq"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// assembler joins the "instances" arrays of partial frames, in seq order, into one
// JSON object, so that the caller's result is decoded once from one buffer and no
// per-instance values are built on the way.
type assembler struct {
	buf   []byte         // `{"instances":[` then the elements appended so far
	count int            // partial arrays appended that had elements
	next  int            // the seq expected next
	early map[int][]byte // array contents of partials that came before their turn
}

func newAssembler() *assembler {
	return &assembler{buf: []byte(`{"instances":[`)}
}

// add takes the result of a partial frame.
func (a *assembler) add(seq int, result json.RawMessage) error {
	var part struct {
		Instances json.RawMessage `json:"instances"`
	}
	if err := json.Unmarshal(result, &part); err != nil {
		return fmt.Errorf("decode partial %d: %w", seq, err)
	}
	elems, err := arrayElements(part.Instances)
	if err != nil {
		return fmt.Errorf("decode partial %d: %w", seq, err)
	}
	if seq != a.next {
		if a.early == nil {
			a.early = map[int][]byte{}
		}
		a.early[seq] = elems
		return nil
	}
	a.appendElements(elems)
	a.next++
	for {
		e, ok := a.early[a.next]
		if !ok {
			return nil
		}
		delete(a.early, a.next)
		a.appendElements(e)
		a.next++
	}
}

func (a *assembler) appendElements(elems []byte) {
	if len(elems) == 0 {
		return
	}
	if a.count > 0 {
		a.buf = append(a.buf, ',')
	}
	a.buf = append(a.buf, elems...)
	a.count++
}

// finish appends the final result's instances and its other fields and returns the
// whole object. Partials whose predecessors never came are appended in seq order.
func (a *assembler) finish(final json.RawMessage) ([]byte, error) {
	seqs := make([]int, 0, len(a.early))
	for s := range a.early {
		seqs = append(seqs, s)
	}
	sort.Ints(seqs)
	for _, s := range seqs {
		a.appendElements(a.early[s])
	}
	a.early = nil

	var fields map[string]json.RawMessage
	if trimmed := bytes.TrimSpace(final); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(final, &fields); err != nil {
			return nil, fmt.Errorf("decode final result: %w", err)
		}
	}
	elems, err := arrayElements(fields["instances"])
	if err != nil {
		return nil, fmt.Errorf("decode final result: %w", err)
	}
	a.appendElements(elems)
	a.buf = append(a.buf, ']')

	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "instances" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		name, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("encode key %q: %w", k, err)
		}
		a.buf = append(a.buf, ',')
		a.buf = append(a.buf, name...)
		a.buf = append(a.buf, ':')
		a.buf = append(a.buf, fields[k]...)
	}
	a.buf = append(a.buf, '}')
	return a.buf, nil
}

// arrayElements returns what is between the brackets of a JSON array that
// json.Unmarshal has already checked; null or absent gives nothing.
func arrayElements(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, fmt.Errorf("instances is not an array")
	}
	return bytes.TrimSpace(raw[1 : len(raw)-1]), nil
}
