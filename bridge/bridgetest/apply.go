package bridgetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/protocol"
)

// apply checks every precondition of every op, then applies all ops or none. Like the
// Studio plugin it runs edits and adds in op order and removes after them, so a
// failing op never follows a removal; removing an instance already removed (with an
// ancestor) does nothing, as Destroy does.
func (p *Plugin) apply(params json.RawMessage) (any, error) {
	var in protocol.ApplyParams
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, badRequest(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if in.Staged {
		// The staged ops are taken once, whether this apply takes or refuses them.
		staged := p.staged
		p.staged = nil
		if staged == nil || staged.TxID != in.TxID || (in.OpCount != 0 && in.OpCount != len(staged.Ops)) {
			return nil, errcode.New(errcode.BadRequest, "no ops are staged for transaction %s; nothing was applied", in.TxID).With("staged", false)
		}
		in = *staged
	}

	if err := p.check(in.Ops); err != nil {
		return nil, err
	}

	var undo []func()
	results := make([]protocol.OpResult, len(in.Ops))
	for i, op := range in.Ops {
		results[i] = protocol.OpResult{Op: i, OK: true}
		switch op.Op {
		case protocol.OpEdit:
			u, err := p.edit(p.handles[op.Handle], op.Set)
			if err != nil {
				for _, u := range slices.Backward(undo) {
					u()
				}
				return nil, errcode.Wrap(errcode.ApplyFailed, err, fmt.Sprintf("apply op %d", i)).With("op", i)
			}
			undo = append(undo, u)
		case protocol.OpAdd:
			parent := p.handles[op.Parent]
			child := nodeOf(op.Instance)
			_ = child.normalize() // check has seen it succeed
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
		if n := p.handles[op.Handle]; op.Op == protocol.OpRemove && p.alive(n) {
			parent := p.parent[n]
			at := slices.Index(parent.Children, n)
			parent.Children = slices.Delete(parent.Children, at, at+1)
			p.unregister(n)
		}
	}

	// As the plugin does, a successful apply's writes are followed: the next snapshot
	// is not "unchanged", and may be a delta holding them.
	p.dirty = true
	if in.TxID != "" {
		p.txIDs = append(p.txIDs, in.TxID)
	}
	if len(p.txIDs) > maxTx {
		p.txIDs = slices.Delete(p.txIDs, 0, len(p.txIDs)-maxTx)
	}
	return protocol.ApplyResult{TxID: in.TxID, Results: results}, nil
}

// nodeOf copies an add op's instance into the place's form. Its values are kept
// as they came: they are checked only when the instance is built, as in Studio.
func nodeOf(i *protocol.NewInstance) *Node {
	n := &Node{Name: i.Name, ClassName: i.ClassName, Properties: make(map[string]json.RawMessage, len(i.Properties))}
	for k, v := range i.Properties {
		n.Properties[k] = bytes.Clone(v)
	}
	for _, c := range i.Children {
		n.Children = append(n.Children, nodeOf(c))
	}
	return n
}

// edit sets properties of n (Name renames) and returns the func that undoes it. A
// value that is not a tagged value ({"Type": payload}) is an error, and leaves n as
// it was.
func (p *Plugin) edit(n *Node, set protocol.Values) (func(), error) {
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
func (p *Plugin) check(ops []protocol.Op) error {
	var missing []protocol.StaleHandle
	var failures []protocol.Failure
	var sent map[*Node]bool // the nodes with a handle, for removes
	for i, op := range ops {
		var n *Node
		switch op.Op {
		case protocol.OpEdit, protocol.OpRemove:
			var err error
			if n, err = p.lookup(op.Handle); err != nil {
				missing = append(missing, protocol.StaleHandle{Op: i, Handle: op.Handle})
				continue
			}
			if op.Op == protocol.OpRemove && n == p.place.Root {
				return errcode.New(errcode.BadRequest, "op %d removes game", i)
			}
			if _, ok := op.Set["ClassName"]; ok {
				return errcode.New(errcode.BadRequest, "op %d sets ClassName or Parent", i)
			}
			if _, ok := op.Set["Parent"]; ok {
				return errcode.New(errcode.BadRequest, "op %d sets ClassName or Parent", i)
			}
		case protocol.OpAdd:
			if _, err := p.lookup(op.Parent); err != nil {
				missing = append(missing, protocol.StaleHandle{Op: i, Handle: op.Parent})
				continue
			}
			if op.Instance == nil {
				return errcode.New(errcode.BadRequest, "op %d adds no instance", i)
			}
			if err := nodeOf(op.Instance).normalize(); err != nil {
				return errcode.Wrap(errcode.BadRequest, err, fmt.Sprintf("op %d", i))
			}
			continue
		default:
			return errcode.New(errcode.BadRequest, "op %d: unknown op %q", i, op.Op)
		}
		expected := expectFailures(i, op.Handle, n, op.Expect)
		failures = append(failures, expected...)
		if _, writes := op.Set["Source"]; writes || op.Op == protocol.OpRemove {
			// (the script's own editor text only once its Source is as expected)
			sourceFailed := slices.ContainsFunc(expected, func(f protocol.Failure) bool { return f.Field == "Source" })
			failures = append(failures, p.editorFailures(i, op.Handle, n, !sourceFailed, op.Op == protocol.OpRemove)...)
		}
		if op.Op == protocol.OpRemove {
			if sent == nil {
				sent = map[*Node]bool{}
				for _, x := range p.handles {
					sent[x] = true
				}
			}
			if f, ok := p.unknownDescendants(i, op.Handle, n, sent); ok {
				failures = append(failures, f)
			}
		}
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

// editorFailures is the plugin's refusal to write or remove a script whose editor text
// (a draft) differs from its Source, and, for a remove (deep), to take a script inside
// with one: the op would lose that text.
func (p *Plugin) editorFailures(op int, handle string, n *Node, self, deep bool) []protocol.Failure {
	var out []protocol.Failure
	var visit func(x *Node, rel string)
	visit = func(x *Node, rel string) {
		if d, ok := p.drafts[x]; ok && x.IsScript() && d != x.Source() && (x != n || self) {
			out = append(out, protocol.Failure{Op: op, Handle: handle, Field: "Source",
				Expected: BlobSHA1(x.Source()), Actual: BlobSHA1(d), Editor: true, Descendant: rel})
		}
		if !deep {
			return
		}
		for _, c := range x.Children {
			r := c.Name
			if rel != "" {
				r = rel + "/" + c.Name
			}
			visit(c, r)
		}
	}
	visit(n, "")
	return out
}

// unknownDescendants is the plugin's refusal to remove n while it holds descendants
// the latest snapshot did not send (sent: the nodes with a handle): removing it would
// delete instances no plan showed.
func (p *Plugin) unknownDescendants(op int, handle string, n *Node, sent map[*Node]bool) (protocol.Failure, bool) {
	count, names := 0, []string{}
	var walk func(x *Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			if !sent[c] {
				count++
				if len(names) < 5 {
					names = append(names, strings.Join(p.path(c), "."))
				}
			}
			walk(c)
		}
	}
	walk(n)
	if count == 0 {
		return protocol.Failure{}, false
	}
	return protocol.Failure{Op: op, Handle: handle, Field: "Descendants", Expected: 0, Actual: count, Unknown: names}, true
}

func expectFailures(op int, handle string, n *Node, want *protocol.Expect) []protocol.Failure {
	if want == nil {
		return nil
	}
	var failures []protocol.Failure
	if want.SourceSha1 != "" {
		got := BlobSHA1(n.Source())
		if !n.IsScript() {
			got = ""
		}
		if got != want.SourceSha1 {
			failures = append(failures, protocol.Failure{Op: op, Handle: handle, Field: "Source", Expected: want.SourceSha1, Actual: got})
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
		if !ok || !dom.EqualJSON(expected, actual) {
			var a any
			if ok {
				a = actual
			}
			failures = append(failures, protocol.Failure{Op: op, Handle: handle, Field: k, Expected: expected, Actual: a})
		}
	}
	return failures
}

// stage keeps a stage request's ops for the apply that names them; it checks and
// writes nothing.
func (p *Plugin) stage(params json.RawMessage) (any, error) {
	var in protocol.ApplyParams
	if err := json.Unmarshal(params, &in); err != nil || in.Ops == nil {
		return nil, badRequest(fmt.Errorf("stage needs a txId and ops: %v", err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if in.Append {
		// The next piece of the same transaction's ops.
		if p.NoStageAppend || p.staged == nil || p.staged.TxID != in.TxID {
			p.staged = nil
			return nil, errcode.New(errcode.BadRequest, "no ops are staged for transaction %s to add to", in.TxID).With("staged", false)
		}
		p.staged.Ops = append(p.staged.Ops, in.Ops...)
		return protocol.StageResult{TxID: in.TxID, Ops: len(p.staged.Ops)}, nil
	}
	p.staged = &protocol.ApplyParams{TxID: in.TxID, Ops: in.Ops}
	return protocol.StageResult{TxID: in.TxID, Ops: len(in.Ops)}, nil
}
