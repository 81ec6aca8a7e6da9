package host_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/protocol"
)

// An undo without a transaction id undoes the newest transaction committed when it
// is asked for: another client's apply that was under way then, and commits while
// the undo waits for its turn, is not the one undone (round after round).
func TestUndoTakesTheNewestWhenAsked(t *testing.T) {
	var block atomic.Pointer[chan struct{}]
	entered := make(chan struct{}, 1)
	e := hosttest.StartWith(t, hosttest.Config{Plugin: func(p *bridgetest.Plugin) {
		p.Hook = func(method string, _ json.RawMessage) (any, error, bool) {
			if method == protocol.MethodApply {
				if ch := block.Load(); ch != nil {
					entered <- struct{}{}
					<-*ch
				}
			}
			return nil, nil, false
		}
	}})
	ctx := context.Background()
	applyEdit := func(path, text string) string {
		t.Helper()
		hosttest.Write(t, e.Dir, path, text)
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
		if err != nil {
			t.Fatal(err)
		}
		return a.TxID
	}
	const rounds = 5
	wrong := 0
	for r := range rounds {
		mine := applyEdit("src/server/Main.server.luau", "print('mine "+string(rune('a'+r))+"')\n")
		// Another client's apply, held in Studio.
		release := make(chan struct{})
		block.Store(&release)
		theirs := make(chan string, 1)
		go func() {
			hosttest.Write(t, e.Dir, "src/shared/Util.luau", "return '"+string(rune('a'+r))+"'\n")
			d, err := e.Host.Plan(ctx, host.PlanRequest{})
			if err != nil {
				t.Error(err)
				theirs <- ""
				return
			}
			a, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
			if err != nil {
				t.Error(err)
				theirs <- ""
				return
			}
			theirs <- a.TxID
		}()
		<-entered
		undone := make(chan string, 1)
		go func() {
			res, err := e.Host.Undo(ctx, host.UndoRequest{})
			if err != nil {
				t.Error(err)
				undone <- ""
				return
			}
			undone <- res.TxID
		}()
		time.Sleep(100 * time.Millisecond) // the undo waits for the apply's turn
		block.Store(nil)
		close(release)
		other, got := <-theirs, <-undone
		if got != mine {
			wrong++
			t.Errorf("round %d: the undo took %s, want the newest when asked, %s (the other client's was %s)", r, got, mine, other)
		}
		// Settle: what the undo put back in Studio is pushed again, so the next
		// round starts with the two sides in step.
		d, err := e.Host.Plan(ctx, host.PlanRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Changes) > 0 {
			var push []apply.Override
			for _, c := range d.Changes {
				push = append(push, apply.Override{ID: c.ID, Direction: plan.Push})
			}
			if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken, Overrides: push}); err != nil {
				t.Fatalf("round %d: settle: %v", r, err)
			}
		}
	}
	t.Logf("%d rounds, %d undid another client's apply", rounds, wrong)
}
