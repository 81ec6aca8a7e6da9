package bridgetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/atlas-rbx/atlas/errcode"
)

type applyParams struct {
	TxID string    `json:"txId"`
	Ops  []applyOp `json:"ops"`
}

type applyOp struct {
	Op       string                     `json:"op"`
	Handle   string                     `json:"handle"`
	Parent   string                     `json:"parent"`
	Expect   *expectation               `json:"expect"`
	Set      map[string]json.RawMessage `json:"set"`
	Instance *Node                      `json:"instance"`
}

type expectation struct {
	SourceSHA1 string                     `json:"sourceSha1"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// Failure is one failed precondition, as listed in details.failures.
type Failure struct {
	Op       int    `json:"op"`
	Handle   string `json:"handle"`
	Field    string `json:"field"`
	Expected any    `json:"expected"`
	Actual   any    `json:"actual"`
}

type opResult struct {
	Op     int    `json:"op"`
	OK     bool   `json:"ok"`
	Handle string `json:"handle,omitempty"`
}

// apply checks every precondition of every op, then applies all ops or none. Like the
// Studio plugin it runs edits and adds in op order and removes after them, so a
// failing op never follows a removal; removing an instance already removed (with an
// ancestor) does nothing, as Destroy does.
func (p *Plugin) apply(params json.RawMessage) (any, error) {
	var in applyParams
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, badRequest(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()

	if err := p.check(in.Ops); err != nil {
		return nil, err
	}

	var undo []func()
	results := make([]opResult, len(in.Ops))
	for i, op := range in.Ops {
		results[i] = opResult{Op: i, OK: true}
		switch op.Op {
		case "edit":
			u, err := p.edit(p.handles[op.Handle], op.Set)
			if err != nil {
				for _, u := range slices.Backward(undo) {
					u()
				}
				return nil, errcode.Wrap(errcode.ApplyFailed, err, fmt.Sprintf("apply op %d", i)).With("op", i)
			}
			undo = append(undo, u)
		case "add":
			parent := p.handles[op.Parent]
			child := op.Instance.Clone()
			parent.Children = append(parent.Children, child)
			p.parent[child] = parent
			p.register(child)
			results[i].Handle = p.newHandle(child)
			undo = append(undo, func() {
				parent.Children = slices.DeleteFunc(parent.Children, func(c *Node) bool { return c == child })
				p.unregister(child)
			})
		}
	}
	for _, op := range in.Ops {
		if n := p.handles[op.Handle]; op.Op == "remove" && p.alive(n) {
			parent := p.parent[n]
			at := slices.Index(parent.Children, n)
			parent.Children = slices.Delete(parent.Children, at, at+1)
			p.unregister(n)
		}
	}

	p.dirty = true
	if in.TxID != "" {
		p.txIDs = append(p.txIDs, in.TxID)
	}
	if len(p.txIDs) > maxTx {
		p.txIDs = slices.Delete(p.txIDs, 0, len(p.txIDs)-maxTx)
	}
	return map[string]any{"txId": in.TxID, "results": results}, nil
}

// edit sets properties of n (Name renames) and returns the func that undoes it. A
// value that is not a tagged value ({"Type": payload}) is an error, and leaves n as
// it was.
func (p *Plugin) edit(n *Node, set map[string]json.RawMessage) (func(), error) {
	names := slices.Sorted(maps.Keys(set))
	for _, k := range names {
		var v map[string]json.RawMessage
		if err := json.Unmarshal(set[k], &v); err != nil || len(v) != 1 {
			return nil, fmt.Errorf("%s: %s is not a tagged value", k, set[k])
		}
		if k == "Name" {
			var name string
			if err := json.Unmarshal(v["String"], &name); err != nil {
				return nil, fmt.Errorf("Name: %s is not a String", set[k])
			}
		}
	}
	oldName := n.Name
	old := make(map[string]json.RawMessage, len(set))
	for _, k := range names {
		if k == "Name" {
			var v struct{ String string }
			_ = json.Unmarshal(set[k], &v)
			n.Name = v.String
			continue
		}
		if v, ok := n.Properties[k]; ok {
			old[k] = v
		}
		n.Properties[k] = set[k]
	}
	return func() {
		n.Name = oldName
		for _, k := range names {
			if v, ok := old[k]; ok {
				n.Properties[k] = v
			} else if k != "Name" {
				delete(n.Properties, k)
			}
		}
	}, nil
}

// check verifies every op before any is applied: handles are live (else E_NOT_FOUND),
// ops are well formed (else E_BAD_REQUEST) and expectations hold (else
// E_PRECONDITION_FAILED with all failures).
func (p *Plugin) check(ops []applyOp) error {
	var missing []map[string]any
	var failures []Failure
	for i, op := range ops {
		var n *Node
		switch op.Op {
		case "edit", "remove":
			var err error
			if n, err = p.lookup(op.Handle); err != nil {
				missing = append(missing, map[string]any{"op": i, "handle": op.Handle})
				continue
			}
			if op.Op == "remove" && n == p.place.Root {
				return errcode.New(errcode.BadRequest, "op %d removes game", i)
			}
			if _, ok := op.Set["ClassName"]; ok {
				return errcode.New(errcode.BadRequest, "op %d sets ClassName or Parent", i)
			}
			if _, ok := op.Set["Parent"]; ok {
				return errcode.New(errcode.BadRequest, "op %d sets ClassName or Parent", i)
			}
		case "add":
			if _, err := p.lookup(op.Parent); err != nil {
				missing = append(missing, map[string]any{"op": i, "handle": op.Parent})
				continue
			}
			if op.Instance == nil {
				return errcode.New(errcode.BadRequest, "op %d adds no instance", i)
			}
			if err := op.Instance.normalize(); err != nil {
				return errcode.Wrap(errcode.BadRequest, err, fmt.Sprintf("op %d", i))
			}
			continue
		default:
			return errcode.New(errcode.BadRequest, "op %d: unknown op %q", i, op.Op)
		}
		failures = append(failures, expectFailures(i, op.Handle, n, op.Expect)...)
	}
	if len(missing) > 0 {
		return errcode.New(errcode.NotFound, "%d handles are stale or unknown; take a new snapshot", len(missing)).
			With("failures", missing)
	}
	if len(failures) > 0 {
		return errcode.New(errcode.PreconditionFailed, "%d preconditions failed; nothing was applied", len(failures)).
			With("failures", failures)
	}
	return nil
}

func expectFailures(op int, handle string, n *Node, want *expectation) []Failure {
	if want == nil {
		return nil
	}
	var failures []Failure
	if want.SourceSHA1 != "" {
		got := BlobSHA1(n.Source())
		if !n.IsScript() {
			got = ""
		}
		if got != want.SourceSHA1 {
			failures = append(failures, Failure{Op: op, Handle: handle, Field: "Source", Expected: want.SourceSHA1, Actual: got})
		}
	}
	names := make([]string, 0, len(want.Properties))
	for k := range want.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		expected := want.Properties[k]
		actual, ok := n.Properties[k]
		if k == "Name" {
			actual, ok = tagged("String", n.Name), true
		}
		if !ok || !Equal(expected, actual) {
			var a any
			if ok {
				a = actual
			}
			failures = append(failures, Failure{Op: op, Handle: handle, Field: k, Expected: expected, Actual: a})
		}
	}
	return failures
}

// Equal compares two tagged values as the host does: decoded as generic JSON, numbers
// within 1e-4, everything else exactly.
func Equal(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return equalJSON(x, y)
}

func equalJSON(x, y any) bool {
	switch x := x.(type) {
	case float64:
		y, ok := y.(float64)
		return ok && math.Abs(x-y) <= 1e-4
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	default:
		return x == y
	}
}
