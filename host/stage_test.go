package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/protocol"
)

// stageCall is one stage or apply request a staging plugin received.
type stageCall struct {
	method  string
	params  protocol.ApplyParams
	journal bool // the transaction's journal record was on disk when it came
}

// startStaging starts a host whose plugin stages (protocol.CapabilityStage), with Main
// edited on disk, and records the stage and apply requests; hook, when set, may
// answer a request in the plugin's place.
func startStaging(t *testing.T, hook func(method string, p protocol.ApplyParams) (any, error, bool), opts func(*host.Options)) (*hosttest.Env, func() []stageCall) {
	t.Helper()
	var mu sync.Mutex
	var calls []stageCall
	var journal string
	e := hosttest.StartWith(t, hosttest.Config{Options: opts, Plugin: func(p *bridgetest.Plugin) {
		p.Stage = true
		p.Hook = func(method string, raw json.RawMessage) (any, error, bool) {
			if method != protocol.MethodStage && method != protocol.MethodApply {
				return nil, nil, false
			}
			var in protocol.ApplyParams
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Errorf("%s params: %v", method, err)
			}
			_, err := os.Stat(filepath.Join(journal, in.TxID, "journal.json"))
			mu.Lock()
			calls = append(calls, stageCall{method: method, params: in, journal: err == nil})
			mu.Unlock()
			if hook != nil {
				return hook(method, in)
			}
			return nil, nil, false
		}
	}})
	journal = filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "journal")
	hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('staged')\n")
	return e, func() []stageCall {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
}

func planAndApply(t *testing.T, e *hosttest.Env) (*host.ApplyData, error) {
	t.Helper()
	ctx := context.Background()
	d, err := e.Host.Plan(ctx, host.PlanRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
}

func mainSource(e *hosttest.Env) string {
	return e.Plugin.Place().Find("ServerScriptService", "Main").Source()
}

// A plugin that stages gets the ops in a stage request, then an apply that names them
// by txId, sent only once the journal record is on disk.
func TestApplyStagesOpsThenAppliesThemByTxID(t *testing.T) {
	e, calls := startStaging(t, nil, nil)
	res, err := planAndApply(t, e)
	if err != nil {
		t.Fatal(err)
	}
	got := calls()
	if len(got) != 2 || got[0].method != protocol.MethodStage || got[1].method != protocol.MethodApply {
		t.Fatalf("requests = %+v, want stage then apply", got)
	}
	stage, apply := got[0].params, got[1].params
	if stage.TxID != res.TxID || len(stage.Ops) != 1 || stage.Ops[0].Op != protocol.OpEdit {
		t.Errorf("stage = %+v, want the transaction %s's one edit", stage, res.TxID)
	}
	if apply.TxID != res.TxID || !apply.Staged || len(apply.Ops) != 0 {
		t.Errorf("apply = %+v, want the staged ops of %s by txId alone", apply, res.TxID)
	}
	if !got[1].journal {
		t.Errorf("the apply came before the journal record was written")
	}
	if src := mainSource(e); src != "print('staged')\n" {
		t.Errorf("Studio's Main = %q, want the disk's", src)
	}
}

// A stage that fails, and a Studio that lost what was staged, leave the apply to send
// the ops whole: the transaction still lands, once.
func TestApplySendsOpsWhenStagingFails(t *testing.T) {
	for _, c := range []struct {
		name string
		hook func(string, protocol.ApplyParams) (any, error, bool)
		want []string
	}{
		{"stage refused", func(method string, _ protocol.ApplyParams) (any, error, bool) {
			if method == protocol.MethodStage {
				return nil, errcode.New(errcode.Internal, "out of memory"), true
			}
			return nil, nil, false
		}, []string{"stage", "apply"}},
		{"stage lost", func(method string, p protocol.ApplyParams) (any, error, bool) {
			if method == protocol.MethodStage {
				// Answered, but not kept: the staged apply finds nothing.
				return protocol.StageResult{TxID: p.TxID, Ops: len(p.Ops)}, nil, true
			}
			return nil, nil, false
		}, []string{"stage", "apply staged", "apply"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, calls := startStaging(t, c.hook, nil)
			if _, err := planAndApply(t, e); err != nil {
				t.Fatal(err)
			}
			var methods []string
			for _, call := range calls() {
				m := call.method
				if call.params.Staged {
					m += " staged"
				} else if m == protocol.MethodApply && len(call.params.Ops) != 1 {
					t.Errorf("the apply sent %d ops, want 1", len(call.params.Ops))
				}
				methods = append(methods, m)
			}
			if !slices.Equal(methods, c.want) {
				t.Errorf("requests = %v, want %v", methods, c.want)
			}
			if src := mainSource(e); src != "print('staged')\n" {
				t.Errorf("Studio's Main = %q, want the disk's", src)
			}
		})
	}
}

// Staged ops are not applied when the journal cannot be written: Studio and disk stay
// as they were, and no apply is sent.
func TestStagedOpsAreNotAppliedWhenTheJournalFails(t *testing.T) {
	e, calls := startStaging(t, nil, nil)
	before := snapshotWorld(t, e)
	journal := filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "journal")
	if err := os.RemoveAll(journal); err != nil {
		t.Fatal(err)
	}
	// A file where the journal's folder goes: no record can be made, even by root.
	if err := os.WriteFile(journal, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := planAndApply(t, e); err == nil {
		t.Fatal("the apply succeeded without a journal")
	}
	assertUnchanged(t, e, before)
	for _, c := range calls() {
		if c.method == protocol.MethodApply {
			t.Errorf("an apply was sent without a journal: %+v", c.params)
		}
	}
	// With the journal back, a new plan applies.
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	if _, err := planAndApply(t, e); err != nil {
		t.Fatal(err)
	}
	if src := mainSource(e); src != "print('staged')\n" {
		t.Errorf("Studio's Main = %q, want the disk's", src)
	}
}

// A Studio that does not take the staged ops in time gets no apply: the transaction is
// aborted (a stage writes nothing), with E_STUDIO_TIMEOUT, and nothing stays open.
func TestApplyAbortsWhenTheStageTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e, calls := startStaging(t, func(method string, _ protocol.ApplyParams) (any, error, bool) {
		if method == protocol.MethodStage {
			<-release // a Studio that hangs on it
			return nil, errcode.New(errcode.Internal, "too late"), true
		}
		return nil, nil, false
	}, func(o *host.Options) { o.StudioTimeout = 500 * time.Millisecond })
	before := snapshotWorld(t, e)
	_, err := planAndApply(t, e)
	if errcode.Of(err) != errcode.StudioTimeout {
		t.Fatalf("apply = %v, want E_STUDIO_TIMEOUT", err)
	}
	assertUnchanged(t, e, before)
	st, err := e.Host.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pending) != 0 {
		t.Errorf("open transactions after the stage timed out: %+v", st.Pending)
	}
	for _, c := range calls() {
		if c.method == protocol.MethodApply {
			t.Errorf("an apply was sent after the stage timed out: %+v", c.params)
		}
	}
}
