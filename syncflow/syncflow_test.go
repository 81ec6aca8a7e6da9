package syncflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/syncflow"
	"github.com/atlas-rbx/atlas/token"
)

// fakeEngine is an engine of funcs that records what it was asked.
type fakeEngine struct {
	plan   func(n int, req host.PlanRequest) (*host.PlanData, error)
	apply  func(req host.ApplyRequest) (*host.ApplyData, error)
	review func(req host.ReviewRequest) (*host.ReviewData, error)

	plans   []host.PlanRequest
	applies []host.ApplyRequest
	reviews []host.ReviewRequest
}

var _ syncflow.Engine = (*fakeEngine)(nil)

func (f *fakeEngine) Plan(_ context.Context, req host.PlanRequest) (*host.PlanData, error) {
	f.plans = append(f.plans, req)
	return f.plan(len(f.plans), req)
}

func (f *fakeEngine) Apply(_ context.Context, req host.ApplyRequest) (*host.ApplyData, error) {
	f.applies = append(f.applies, req)
	if f.apply == nil {
		return &host.ApplyData{Result: apply.Result{TxID: "tx1"}}, nil
	}
	return f.apply(req)
}

func (f *fakeEngine) Review(_ context.Context, req host.ReviewRequest) (*host.ReviewData, error) {
	f.reviews = append(f.reviews, req)
	return f.review(req)
}

func strp(s string) *string { return &s }

// twoChanges is a plan with a push (a) and an unresolved conflict (b); each plan
// call issues a new token for the same plan.
func twoChanges(n int, _ host.PlanRequest) (*host.PlanData, error) {
	return &host.PlanData{
		PlanHash:     "sha256:p",
		ConfirmToken: "tok" + string(rune('0'+n)),
		Changes: []*plan.Change{
			{ID: "a", Direction: plan.Push, DefaultSelection: plan.Push, Reason: plan.DiskChanged, StudioHash: "s-a", DiskHash: "d-a"},
			{ID: "b", Reason: plan.BothChanged, StudioHash: "s-b", DiskHash: "d-b"},
		},
	}, nil
}

func resolvedOnly(n int, req host.PlanRequest) (*host.PlanData, error) {
	p, _ := twoChanges(n, req)
	p.Changes = p.Changes[:1]
	return p, nil
}

func accept(sel map[string]plan.Direction) func(host.ReviewRequest) (*host.ReviewData, error) {
	return func(host.ReviewRequest) (*host.ReviewData, error) {
		return &host.ReviewData{Decision: "accept", Selections: sel}, nil
	}
}

func run(t *testing.T, f *fakeEngine, req syncflow.Request) (*syncflow.Result, error) {
	t.Helper()
	if req.Review == nil && f.review != nil {
		req.Review = syncflow.Studio(f, req.Plan.SessionID)
	}
	out, err := syncflow.Run(context.Background(), f, req)
	if out == nil {
		t.Fatalf("Run returned no result (err %v)", err)
	}
	if out.Unresolved == nil || out.Failures == nil {
		t.Errorf("Run: Unresolved %v, Failures %v: want non-nil lists", out.Unresolved, out.Failures)
	}
	return out, err
}

func TestEmptyAndDryrunNeverApply(t *testing.T) {
	tests := []struct {
		mode syncflow.Mode
		plan func(int, host.PlanRequest) (*host.PlanData, error)
		want syncflow.Status
	}{
		{syncflow.Standard, func(int, host.PlanRequest) (*host.PlanData, error) { return &host.PlanData{PlanHash: "h"}, nil }, syncflow.StatusEmpty},
		{syncflow.Direct, func(int, host.PlanRequest) (*host.PlanData, error) { return &host.PlanData{PlanHash: "h"}, nil }, syncflow.StatusEmpty},
		{syncflow.Dryrun, twoChanges, syncflow.StatusDryrun},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+"/"+string(tt.want), func(t *testing.T) {
			f := &fakeEngine{plan: tt.plan}
			out, err := run(t, f, syncflow.Request{Mode: tt.mode})
			if err != nil || out.Status != tt.want {
				t.Fatalf("Run = %s, %v; want %s", out.Status, err, tt.want)
			}
			if len(f.applies) != 0 || out.Plan == nil {
				t.Errorf("applies %d, plan %v; want none and the plan", len(f.applies), out.Plan)
			}
		})
	}
}

func TestModeDefaultsToStandard(t *testing.T) {
	f := &fakeEngine{plan: resolvedOnly}
	out, err := run(t, f, syncflow.Request{})
	if err != nil || out.Mode != syncflow.Standard || out.Status != syncflow.StatusSuccess {
		t.Fatalf("Run({}) = %s/%s, %v; want standard/success", out.Mode, out.Status, err)
	}
}

func TestTokenLifetime(t *testing.T) {
	tests := []struct {
		mode syncflow.Mode
		ttl  time.Duration
		want time.Duration
	}{
		{syncflow.Standard, 0, token.MaxTTL},
		{syncflow.Manual, 0, token.MaxTTL},
		{syncflow.Fastfail, 0, 0},
		{syncflow.Direct, 0, 0},
		{syncflow.Manual, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			f := &fakeEngine{plan: func(int, host.PlanRequest) (*host.PlanData, error) { return &host.PlanData{}, nil }}
			run(t, f, syncflow.Request{Mode: tt.mode, Plan: host.PlanRequest{TTL: tt.ttl}})
			if got := f.plans[0].TTL; got != tt.want {
				t.Errorf("plan TTL = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStandardAppliesWhatResolvesWithoutAsking(t *testing.T) {
	f := &fakeEngine{plan: resolvedOnly, review: func(host.ReviewRequest) (*host.ReviewData, error) {
		t.Fatal("nobody should be asked")
		return nil, nil
	}}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Standard, Plan: host.PlanRequest{SessionID: "s"}})
	if err != nil || out.Status != syncflow.StatusSuccess || out.Applied == nil {
		t.Fatalf("Run = %s, %v", out.Status, err)
	}
	want := []host.ApplyRequest{{SessionID: "s", Token: "tok1"}}
	if diff := cmp.Diff(want, f.applies); diff != "" {
		t.Errorf("applies (-want +got):\n%s", diff)
	}
}

func TestStandardAsksAboutTheUnresolvedThenReplansAndApplies(t *testing.T) {
	f := &fakeEngine{plan: twoChanges, review: accept(map[string]plan.Direction{"b": plan.Pull})}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Standard, Plan: host.PlanRequest{SessionID: "s", Base: "main"}})
	if err != nil || out.Status != syncflow.StatusSuccess {
		t.Fatalf("Run = %s, %v", out.Status, err)
	}
	if len(f.reviews) != 1 || f.reviews[0].Mode != "standard" || f.reviews[0].PlanHash != "sha256:p" {
		t.Fatalf("reviews = %+v", f.reviews)
	}
	// The replan asks for the same base, with a token of the default lifetime.
	if diff := cmp.Diff([]host.PlanRequest{{SessionID: "s", Base: "main", TTL: token.MaxTTL}, {SessionID: "s", Base: "main"}}, f.plans); diff != "" {
		t.Errorf("plans (-want +got):\n%s", diff)
	}
	want := []host.ApplyRequest{{SessionID: "s", Token: "tok2", SkipUnresolved: true,
		Overrides: []apply.Override{{ID: "b", Direction: plan.Pull}}}}
	if diff := cmp.Diff(want, f.applies); diff != "" {
		t.Errorf("applies (-want +got):\n%s", diff)
	}
	if out.Review == nil || len(out.Unresolved) != 0 {
		t.Errorf("review %v, unresolved %v", out.Review, out.Unresolved)
	}
	// The plan handed back carries the token the apply spent, not the first plan's.
	if out.Plan.ConfirmToken != "tok2" {
		t.Errorf("the result's plan carries token %q, want tok2, the one applied with", out.Plan.ConfirmToken)
	}
}

func TestFastfailRefusesUnresolvedWithoutApplying(t *testing.T) {
	f := &fakeEngine{plan: twoChanges}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Fastfail})
	if out.Status != syncflow.StatusUnresolved {
		t.Fatalf("status = %s, want %s", out.Status, syncflow.StatusUnresolved)
	}
	e := errcode.As(err)
	if e.Code != errcode.Unresolved || e.ReasonCode() != errcode.ReasonFastfailUnresolved {
		t.Errorf("err = %s/%s, want E_UNRESOLVED/fastfail_unresolved", e.Code, e.ReasonCode())
	}
	if len(f.applies) != 0 {
		t.Errorf("applied %d times, want never", len(f.applies))
	}
	if diff := cmp.Diff([]string{"b"}, out.Unresolved); diff != "" {
		t.Errorf("unresolved (-want +got):\n%s", diff)
	}
	if out.Plan == nil {
		t.Error("the result lost the plan")
	}
}

// preconditionFailed is the apply engine refusing an override whose studioHash
// no longer holds.
func preconditionFailed(host.ApplyRequest) (*host.ApplyData, error) {
	return nil, errcode.New(errcode.PreconditionFailed, "1 override precondition(s) do not hold").
		Reason(errcode.ReasonOverridePrecondition, errcode.NextReadStudioScript, errcode.NextReplan).
		With("failures", []map[string]any{{"id": "a", "field": "studioHash", "expected": "old", "actual": "s-a"}})
}

// TestStudioRefusalIsNotAnOverrideFailure: a refusal of Studio's own (here unsaved
// Script Editor text) is no failed override of the caller's: standard and fastfail
// return it as it is, with its reason, rather than asking the person about the
// change or calling it undecided.
func TestStudioRefusalIsNotAnOverrideFailure(t *testing.T) {
	unsaved := func(host.ApplyRequest) (*host.ApplyData, error) {
		return nil, errcode.New(errcode.PreconditionFailed, "ServerScriptService/Main: unsaved").
			Reason(errcode.ReasonStudioUnsavedEdit, errcode.NextSaveInStudio, errcode.NextPassOverride).
			With("failures", []map[string]any{{"id": "a", "field": "Source", "editor": true}})
	}
	for _, mode := range []syncflow.Mode{syncflow.Standard, syncflow.Fastfail} {
		f := &fakeEngine{plan: resolvedOnly, apply: unsaved, review: accept(nil)}
		out, err := run(t, f, syncflow.Request{Mode: mode})
		if ce := errcode.As(err); ce == nil || ce.ReasonCode() != errcode.ReasonStudioUnsavedEdit || out.Status != syncflow.StatusError {
			t.Errorf("%s: Run = %s, %v; want the refusal as it is", mode, out.Status, err)
		}
		if len(f.reviews) != 0 || len(out.Failures) != 0 {
			t.Errorf("%s: reviews %d, failures %+v", mode, len(f.reviews), out.Failures)
		}
	}
}

func TestFailedPreconditionMakesItsChangeUnresolved(t *testing.T) {
	ovs := []apply.Override{{ID: "a", Direction: plan.Pull, StudioHash: strp("old")}, {ID: "b", Direction: plan.Push}}
	wantFailures := []syncflow.Failure{{ID: "a", Field: "studioHash", Expected: "old", Actual: strp("s-a")}}

	t.Run("fastfail", func(t *testing.T) {
		f := &fakeEngine{plan: twoChanges, apply: preconditionFailed}
		out, err := run(t, f, syncflow.Request{Mode: syncflow.Fastfail, Overrides: ovs})
		if out.Status != syncflow.StatusUnresolved || errcode.Of(err) != errcode.Unresolved {
			t.Fatalf("Run = %s, %v", out.Status, err)
		}
		if diff := cmp.Diff(wantFailures, out.Failures); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"a"}, out.Unresolved); diff != "" {
			t.Errorf("unresolved (-want +got):\n%s", diff)
		}
	})
	t.Run("standard asks, without the failed override", func(t *testing.T) {
		f := &fakeEngine{plan: twoChanges, apply: func(req host.ApplyRequest) (*host.ApplyData, error) {
			if !req.SkipUnresolved {
				return preconditionFailed(req)
			}
			return &host.ApplyData{}, nil
		}, review: accept(nil)}
		out, err := run(t, f, syncflow.Request{Mode: syncflow.Standard, Overrides: ovs})
		if err != nil || out.Status != syncflow.StatusSuccess {
			t.Fatalf("Run = %s, %v", out.Status, err)
		}
		got := f.reviews[0].Changes
		if got[0].ID != "a" || got[0].Direction != "" || got[0].DefaultSelection != "" {
			t.Errorf("the review shows %+v, want a undecided", got[0])
		}
		if diff := cmp.Diff([]apply.Override{{ID: "b", Direction: plan.Push}}, f.applies[1].Overrides); diff != "" {
			t.Errorf("final overrides (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantFailures, out.Failures); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
	})
}

func TestManualChecksHashesThenAlwaysAsks(t *testing.T) {
	f := &fakeEngine{plan: resolvedOnly, review: accept(nil)}
	ovs := []apply.Override{{ID: "a", Direction: plan.Pull, DiskHash: strp("seen")}}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Manual, Overrides: ovs})
	if err != nil || out.Status != syncflow.StatusSuccess {
		t.Fatalf("Run = %s, %v", out.Status, err)
	}
	if len(f.reviews) != 1 || f.reviews[0].Mode != "manual" {
		t.Fatalf("reviews = %+v, want one manual", f.reviews)
	}
	// (an unknown id is refused before anyone is asked: TestUnknownOverrideIDIsRefusedInEveryMode)
	want := []syncflow.Failure{{ID: "a", Field: "diskHash", Expected: "seen", Actual: strp("d-a")}}
	if diff := cmp.Diff(want, out.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if len(f.applies) != 1 || slices.ContainsFunc(f.applies[0].Overrides, func(o apply.Override) bool { return o.ID == "a" }) {
		t.Errorf("applies = %+v, want one without a's override", f.applies)
	}
}

func TestHashFailureOnAMissingSideIsNull(t *testing.T) {
	f := &fakeEngine{plan: func(int, host.PlanRequest) (*host.PlanData, error) {
		return &host.PlanData{PlanHash: "h", Changes: []*plan.Change{{ID: "n", Direction: plan.Pull, StudioHash: "s"}}}, nil
	}, review: func(host.ReviewRequest) (*host.ReviewData, error) { return &host.ReviewData{Decision: "abort"}, nil }}
	out, _ := run(t, f, syncflow.Request{Mode: syncflow.Manual, Overrides: []apply.Override{{ID: "n", Direction: plan.Pull, DiskHash: strp("d")}}})
	want := []syncflow.Failure{{ID: "n", Field: "diskHash", Expected: "d", Actual: nil}}
	if diff := cmp.Diff(want, out.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

func TestRejectedReviewAppliesNothing(t *testing.T) {
	f := &fakeEngine{plan: twoChanges, review: func(host.ReviewRequest) (*host.ReviewData, error) {
		return &host.ReviewData{Decision: "abort"}, nil
	}}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Standard})
	if err != nil || out.Status != syncflow.StatusRejected || out.Review == nil {
		t.Fatalf("Run = %s, %v, review %v", out.Status, err, out.Review)
	}
	if len(f.applies) != 0 || len(f.plans) != 1 {
		t.Errorf("applies %d, plans %d; want 0 and 1", len(f.applies), len(f.plans))
	}
}

func TestPlanThatMovedDuringTheReviewIsNotApplied(t *testing.T) {
	f := &fakeEngine{plan: func(n int, req host.PlanRequest) (*host.PlanData, error) {
		p, _ := twoChanges(n, req)
		if n == 2 {
			p.PlanHash = "sha256:moved"
		}
		return p, nil
	}, review: accept(nil)}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Manual})
	if out.Status != syncflow.StatusError || errcode.Of(err) != errcode.ConfirmTokenMismatch {
		t.Fatalf("Run = %s, %v; want error E_CONFIRM_TOKEN_MISMATCH", out.Status, err)
	}
	if errcode.As(err).ReasonCode() != errcode.ReasonPlanChanged {
		t.Errorf("reason = %s", errcode.As(err).ReasonCode())
	}
	if len(f.applies) != 0 {
		t.Errorf("applied %d times", len(f.applies))
	}
}

func TestErrorsStopWithStatusError(t *testing.T) {
	boom := errcode.New(errcode.ApplyFailed, "boom")
	tests := []struct {
		name string
		f    *fakeEngine
		mode syncflow.Mode
	}{
		{"plan", &fakeEngine{plan: func(int, host.PlanRequest) (*host.PlanData, error) { return nil, boom }}, syncflow.Standard},
		{"apply", &fakeEngine{plan: resolvedOnly, apply: func(host.ApplyRequest) (*host.ApplyData, error) { return nil, boom }}, syncflow.Standard},
		{"review", &fakeEngine{plan: twoChanges, review: func(host.ReviewRequest) (*host.ReviewData, error) { return nil, boom }}, syncflow.Standard},
		{"replan", &fakeEngine{plan: func(n int, r host.PlanRequest) (*host.PlanData, error) {
			if n == 2 {
				return nil, boom
			}
			return twoChanges(n, r)
		}, review: accept(nil)}, syncflow.Manual},
		{"direct apply", &fakeEngine{plan: twoChanges, apply: func(host.ApplyRequest) (*host.ApplyData, error) { return nil, boom }}, syncflow.Direct},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, tt.f, syncflow.Request{Mode: tt.mode})
			if out.Status != syncflow.StatusError || !errors.Is(err, boom) {
				t.Errorf("Run = %s, %v; want error, boom", out.Status, err)
			}
			if out.Applied != nil {
				t.Error("an error result carries an apply")
			}
		})
	}
}

func TestDirectAppliesAsAskedAndReturnsTheEnginesRefusal(t *testing.T) {
	refusal := errcode.New(errcode.Unresolved, "1 change(s) have no direction").Reason(errcode.ReasonUnresolved, errcode.NextPassOverride)
	f := &fakeEngine{plan: twoChanges, apply: func(req host.ApplyRequest) (*host.ApplyData, error) {
		if !req.SkipUnresolved {
			return nil, refusal
		}
		return &host.ApplyData{}, nil
	}}
	_, err := run(t, f, syncflow.Request{Mode: syncflow.Direct})
	if err != refusal {
		t.Fatalf("err = %v, want the engine's own refusal", err)
	}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Direct, SkipUnresolved: true, Plan: host.PlanRequest{SessionID: "s"}})
	if err != nil || out.Status != syncflow.StatusSuccess {
		t.Fatalf("Run = %s, %v", out.Status, err)
	}
	if got := f.applies[1]; got.Token != "tok2" || got.SessionID != "s" || !got.SkipUnresolved {
		t.Errorf("apply = %+v", got)
	}
}

func TestPreferGivesTheUndecidedADirection(t *testing.T) {
	f := &fakeEngine{plan: func(n int, r host.PlanRequest) (*host.PlanData, error) {
		p, _ := twoChanges(n, r)
		p.Changes = append(p.Changes, &plan.Change{ID: "c", Reason: plan.NoBase})
		return p, nil
	}}
	_, err := run(t, f, syncflow.Request{Mode: syncflow.Direct, Prefer: plan.Pull, Overrides: []apply.Override{{ID: "c", Direction: plan.Skip}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []apply.Override{{ID: "c", Direction: plan.Skip}, {ID: "b", Direction: plan.Pull}}
	if diff := cmp.Diff(want, f.applies[0].Overrides); diff != "" {
		t.Errorf("overrides (-want +got):\n%s", diff)
	}
}

// --prefer gives no direction to a change of a file git holds in conflict: its file
// may hold conflict markers; nor to one whose name Studio does not take (a push can
// only fail); an override of its own still does.
func TestPreferLeavesMergeConflictsAlone(t *testing.T) {
	f := &fakeEngine{plan: func(n int, r host.PlanRequest) (*host.PlanData, error) {
		p, _ := twoChanges(n, r)
		p.Changes = append(p.Changes, &plan.Change{ID: "m", Reason: plan.MergeConflict}, &plan.Change{ID: "m2", Reason: plan.MergeConflict},
			&plan.Change{ID: "n", Reason: plan.NameTooLong})
		return p, nil
	}}
	_, err := run(t, f, syncflow.Request{Mode: syncflow.Direct, Prefer: plan.Push, Overrides: []apply.Override{{ID: "m2", Direction: plan.Push}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []apply.Override{{ID: "m2", Direction: plan.Push}, {ID: "b", Direction: plan.Push}}
	if diff := cmp.Diff(want, f.applies[0].Overrides); diff != "" {
		t.Errorf("overrides (-want +got):\n%s", diff)
	}
}

func TestSelectionsOverrideOverridesAndOddOnesAreIgnored(t *testing.T) {
	f := &fakeEngine{plan: twoChanges, review: accept(map[string]plan.Direction{"a": plan.Skip, "b": "sideways"})}
	_, err := run(t, f, syncflow.Request{Mode: syncflow.Manual, Overrides: []apply.Override{{ID: "a", Direction: plan.Pull}, {ID: "b", Direction: plan.Push}}})
	if err != nil {
		t.Fatal(err)
	}
	// The person chose a; "sideways" is no direction, so b has neither the person's
	// choice nor the override the person replaced.
	want := []apply.Override{{ID: "a", Direction: plan.Skip}}
	if diff := cmp.Diff(want, f.applies[0].Overrides); diff != "" {
		t.Errorf("overrides (-want +got):\n%s", diff)
	}
}

func TestUnknownModeAndMissingReviewer(t *testing.T) {
	f := &fakeEngine{plan: twoChanges}
	out, err := run(t, f, syncflow.Request{Mode: "sideways"})
	if out.Status != syncflow.StatusError || errcode.Of(err) != errcode.BadRequest {
		t.Errorf("unknown mode: %s, %v", out.Status, err)
	}
	out, err = run(t, f, syncflow.Request{Mode: syncflow.Manual})
	if out.Status != syncflow.StatusError || errcode.Of(err) != errcode.Internal {
		t.Errorf("no reviewer: %s, %v", out.Status, err)
	}
	if len(f.applies) != 0 {
		t.Errorf("applied %d times", len(f.applies))
	}
}

func TestAsUnresolvedCopies(t *testing.T) {
	changes := []*plan.Change{{ID: "a", Direction: plan.Push, DefaultSelection: plan.Push}, {ID: "b"}}
	got := syncflow.AsUnresolved(changes, []string{"a", "b"})
	if got[0].Direction != "" || got[0].DefaultSelection != "" || got[1] != changes[1] {
		t.Errorf("AsUnresolved = %+v", got)
	}
	if changes[0].Direction != plan.Push {
		t.Error("AsUnresolved changed the plan it was given")
	}
}

// TestUnknownOverrideIDIsRefusedInEveryMode: an override naming a change the plan
// does not hold is E_OVERRIDE_UNKNOWN_ID in every mode, dryrun and a plan with an
// unresolved change included, and nothing is applied or asked.
func TestUnknownOverrideIDIsRefusedInEveryMode(t *testing.T) {
	for _, mode := range []syncflow.Mode{syncflow.Standard, syncflow.Manual, syncflow.Fastfail, syncflow.Dryrun, syncflow.Direct} {
		t.Run(string(mode), func(t *testing.T) {
			f := &fakeEngine{plan: twoChanges}
			out, err := run(t, f, syncflow.Request{Mode: mode, Overrides: []apply.Override{{ID: "deadbeef", Direction: plan.Push}}})
			e := errcode.As(err)
			if e.Code != errcode.OverrideUnknownID || out.Status != syncflow.StatusError {
				t.Fatalf("Run = %s, %v; want an error %s", out.Status, err, errcode.OverrideUnknownID)
			}
			if diff := cmp.Diff([]string{"deadbeef"}, idsIn(e)); diff != "" {
				t.Errorf("details.ids (-want +got):\n%s", diff)
			}
			if len(f.applies)+len(f.reviews) != 0 {
				t.Errorf("%d applies and %d reviews, want none", len(f.applies), len(f.reviews))
			}
		})
	}
}

// TestFastfailNamesWhatTheApplyCouldNotCarryOut: an apply refusing a change the
// plan gave a direction (E_UNRESOLVED, a pull no file can hold) makes fastfail name
// that change, not "0 change(s)".
func TestFastfailNamesWhatTheApplyCouldNotCarryOut(t *testing.T) {
	f := &fakeEngine{plan: resolvedOnly, apply: func(host.ApplyRequest) (*host.ApplyData, error) {
		return nil, errcode.New(errcode.Unresolved, "change a (A) cannot be pulled: no file holds it").With("ids", []string{"a"})
	}}
	out, err := run(t, f, syncflow.Request{Mode: syncflow.Fastfail})
	if out.Status != syncflow.StatusUnresolved {
		t.Fatalf("status = %s (%v), want %s", out.Status, err, syncflow.StatusUnresolved)
	}
	if diff := cmp.Diff([]string{"a"}, out.Unresolved); diff != "" {
		t.Errorf("unresolved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a"}, idsIn(errcode.As(err))); diff != "" {
		t.Errorf("error's ids (-want +got):\n%s", diff)
	}
}

func idsIn(e *errcode.Error) []string {
	var out []string
	b, _ := json.Marshal(e.Details["ids"])
	_ = json.Unmarshal(b, &out)
	return out
}
