package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// fakeEngine is an engine of funcs; a call whose func is nil fails the test.
type fakeEngine struct {
	t      *testing.T
	status func() (*host.StatusData, error)
	plan   func(n int, req host.PlanRequest) (*host.PlanData, error)
	apply  func(req host.ApplyRequest) (*host.ApplyData, error)
	script func(req host.ScriptRequest) (*host.ScriptData, error)
	exec   func(req host.ExecRequest) (*host.ExecData, error)
	drift  func(req host.DriftRequest) (*host.DriftData, error)
	undo   func(req host.UndoRequest) (*apply.UndoResult, error)
	recov  func(req host.RecoverRequest) (*apply.RecoverResult, error)

	plans   []host.PlanRequest
	applies []host.ApplyRequest
}

// The fake is every small engine the commands declare.
var (
	_ statuser  = (*fakeEngine)(nil)
	_ planner   = (*fakeEngine)(nil)
	_ applier   = (*fakeEngine)(nil)
	_ undoer    = (*fakeEngine)(nil)
	_ recoverer = (*fakeEngine)(nil)
	_ scripter  = (*fakeEngine)(nil)
	_ executor  = (*fakeEngine)(nil)
	_ drifter   = (*fakeEngine)(nil)
)

func (f *fakeEngine) missing(name string) error {
	f.t.Helper()
	f.t.Errorf("unexpected call to %s", name)
	return errcode.New(errcode.Internal, "unexpected %s", name)
}

func (f *fakeEngine) Status(context.Context) (*host.StatusData, error) {
	if f.status == nil {
		return nil, f.missing("Status")
	}
	return f.status()
}

func (f *fakeEngine) Plan(_ context.Context, req host.PlanRequest) (*host.PlanData, error) {
	f.plans = append(f.plans, req)
	if f.plan == nil {
		return nil, f.missing("Plan")
	}
	return f.plan(len(f.plans), req)
}

func (f *fakeEngine) PlanJSON(ctx context.Context, req host.PlanRequest) (json.RawMessage, []string, error) {
	d, err := f.Plan(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(d)
	return raw, d.Warnings, err
}

func (f *fakeEngine) Apply(_ context.Context, req host.ApplyRequest) (*host.ApplyData, error) {
	f.applies = append(f.applies, req)
	if f.apply == nil {
		return nil, f.missing("Apply")
	}
	return f.apply(req)
}

func (f *fakeEngine) Script(_ context.Context, req host.ScriptRequest) (*host.ScriptData, error) {
	if f.script == nil {
		return nil, f.missing("Script")
	}
	return f.script(req)
}

func (f *fakeEngine) Exec(_ context.Context, req host.ExecRequest) (*host.ExecData, error) {
	if f.exec == nil {
		return nil, f.missing("Exec")
	}
	return f.exec(req)
}

func (f *fakeEngine) Drift(_ context.Context, req host.DriftRequest) (*host.DriftData, error) {
	if f.drift == nil {
		return nil, f.missing("Drift")
	}
	return f.drift(req)
}

func (f *fakeEngine) Undo(_ context.Context, req host.UndoRequest) (*apply.UndoResult, error) {
	if f.undo == nil {
		return nil, f.missing("Undo")
	}
	return f.undo(req)
}

func (f *fakeEngine) Recover(_ context.Context, req host.RecoverRequest) (*apply.RecoverResult, error) {
	if f.recov == nil {
		return nil, f.missing("Recover")
	}
	return f.recov(req)
}

// testStreams are streams on buffers, with stdin reading in, as no terminal.
func testStreams(in string) (*ioStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &ioStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut}, &out, &errOut
}

// envelopeData decodes one JSON envelope and returns its ok and data.
func envelopeData(t *testing.T, out string) (bool, string, json.RawMessage) {
	t.Helper()
	var env struct {
		OK      bool            `json:"ok"`
		Command string          `json:"command"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("stdout is not one JSON envelope: %v\n%s", err, out)
	}
	return env.OK, env.Command, env.Data
}

func wantCode(t *testing.T, err error, code errcode.Code, reason errcode.Reason) {
	t.Helper()
	e := errcode.As(err)
	if err == nil || e.Code != code || (reason != "" && e.ReasonCode() != reason) {
		t.Fatalf("err = %v (%s/%s), want %s/%s", err, e.Code, e.ReasonCode(), code, reason)
	}
}

// withChanges is a plan of everyKind's changes, a new token per call.
func withChanges(ids ...string) func(int, host.PlanRequest) (*host.PlanData, error) {
	return func(n int, _ host.PlanRequest) (*host.PlanData, error) {
		d := everyKind()
		d.ConfirmToken = "tok" + string(rune('0'+n))
		d.Sources = nil
		d.Changes = nil
		for _, c := range everyKind().Changes {
			for _, id := range ids {
				if c.ID == id {
					d.Changes = append(d.Changes, c)
				}
			}
		}
		return d, nil
	}
}

func applied(req host.ApplyRequest) (*host.ApplyData, error) {
	return &host.ApplyData{Result: apply.Result{TxID: "tx1", Applied: []apply.Applied{{ID: "02", Path: "ReplicatedStorage/Shared/Keep", PatchType: plan.Edit, Direction: plan.Push}}}}, nil
}

func TestRunPlan(t *testing.T) {
	tests := []struct {
		name     string
		opts     planOptions
		plan     func(int, host.PlanRequest) (*host.PlanData, error)
		wantExit int
		wantOut  string // a substring of stdout
	}{
		{"in sync", planOptions{DetailedExitCode: true}, withChanges(), exitOK, "No differences"},
		{"changes", planOptions{}, withChanges("02"), exitOK, "Studio: update ReplicatedStorage/Shared/Keep"},
		{"changes, detailed", planOptions{DetailedExitCode: true}, withChanges("02"), exitChanges, "To apply: atlas sync apply --token tok1"},
		{"json", planOptions{JSON: true, DetailedExitCode: true}, withChanges("02"), exitChanges, `"command":"sync.plan"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out, _ := testStreams("")
			tt.opts.IO = s
			f := &fakeEngine{t: t, plan: tt.plan}
			code, err := runPlan(context.Background(), &tt.opts, f)
			if err != nil || code != tt.wantExit {
				t.Fatalf("runPlan = %d, %v; want %d", code, err, tt.wantExit)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantOut, out)
			}
			// The files a pull creates, for people and in the JSON (data.files).
			if !f.plans[0].Files {
				t.Errorf("plan asked Files=false with JSON=%v", tt.opts.JSON)
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		s, out, _ := testStreams("")
		f := &fakeEngine{t: t, plan: func(int, host.PlanRequest) (*host.PlanData, error) {
			return nil, errcode.New(errcode.StudioNotConnected, "no Studio")
		}}
		code, err := runPlan(context.Background(), &planOptions{IO: s}, f)
		if code != exitError || errcode.Of(err) != errcode.StudioNotConnected || out.Len() != 0 {
			t.Errorf("runPlan = %d, %v, stdout %q", code, err, out)
		}
	})
}

func TestRunApplyValidatesBeforeCallingTheEngine(t *testing.T) {
	tests := []struct {
		name   string
		opts   applyOptions
		code   errcode.Code
		reason errcode.Reason
	}{
		{"no token", applyOptions{}, errcode.ConfirmTokenRequired, errcode.ReasonTokenRequired},
		{"bad override first", applyOptions{Overrides: []apply.Override{{ID: "a", Direction: "sideways"}}}, errcode.BadRequest, errcode.ReasonBadOverride},
		{"twice", applyOptions{Token: "t", Overrides: []apply.Override{{ID: "a", Direction: plan.Push}, {ID: "a", Direction: plan.Pull}}}, errcode.BadRequest, errcode.ReasonBadOverride},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := testStreams("")
			tt.opts.IO = s
			f := &fakeEngine{t: t}
			code, err := runApply(context.Background(), &tt.opts, f)
			if code != exitError {
				t.Errorf("exit %d, want 1", code)
			}
			wantCode(t, err, tt.code, tt.reason)
		})
	}
}

func TestRunApply(t *testing.T) {
	s, out, _ := testStreams("")
	f := &fakeEngine{t: t, apply: applied}
	opts := &applyOptions{IO: s, JSON: true, Token: "t", Session: "s", SkipUnresolved: true, Overrides: []apply.Override{{ID: "07", Direction: plan.Pull}}}
	if code, err := runApply(context.Background(), opts, f); code != exitOK || err != nil {
		t.Fatalf("runApply = %d, %v", code, err)
	}
	want := []host.ApplyRequest{{SessionID: "s", Token: "t", SkipUnresolved: true, Overrides: []apply.Override{{ID: "07", Direction: plan.Pull}}}}
	if diff := cmp.Diff(want, f.applies); diff != "" {
		t.Errorf("applies (-want +got):\n%s", diff)
	}
	if ok, command, _ := envelopeData(t, out.String()); !ok || command != "sync.apply" {
		t.Errorf("envelope ok=%v command=%s", ok, command)
	}

	// The apply's warnings (a file kept) are the envelope's too.
	out.Reset()
	kept := "src/New.luau was saved after the plan; kept (the next plan shows the difference)"
	f = &fakeEngine{t: t, apply: func(req host.ApplyRequest) (*host.ApplyData, error) {
		return &host.ApplyData{Result: apply.Result{TxID: "tx", Warnings: []string{kept}}}, nil
	}}
	if code, err := runApply(context.Background(), opts, f); code != exitOK || err != nil {
		t.Fatalf("runApply = %d, %v", code, err)
	}
	var env struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &env); err != nil || !slices.Equal(env.Warnings, []string{kept}) {
		t.Errorf("envelope warnings = %q (%v), want the apply's", env.Warnings, err)
	}
}

func TestRunSync(t *testing.T) {
	tests := []struct {
		name     string
		opts     syncOptions
		stdin    string
		plan     func(int, host.PlanRequest) (*host.PlanData, error)
		wantExit int
		wantErr  errcode.Code
		// wantApply is the apply asked (nil: none).
		wantApply *host.ApplyRequest
		wantOut   []string
		notOut    []string
	}{
		{name: "in sync", plan: withChanges(), wantExit: exitOK, wantOut: []string{"Disk and Studio are in sync."}},
		{name: "in sync, json without --yes", opts: syncOptions{JSON: true}, plan: withChanges(), wantExit: exitOK, wantOut: []string{`"applied":null`}},
		{name: "json needs --yes", opts: syncOptions{JSON: true}, plan: withChanges("02"), wantExit: exitError, wantErr: errcode.ConfirmRequired},
		{name: "yes applies what the plan says", opts: syncOptions{Yes: true, SkipUnresolved: true}, plan: withChanges("02", "07"),
			wantExit: exitOK, wantApply: &host.ApplyRequest{Token: "tok1", SkipUnresolved: true},
			wantOut: []string{"Studio: update ReplicatedStorage/Shared/Keep", "needs your decision: src/shared/Util.luau", "Applied transaction tx1"},
			notOut:  []string{"[y/N]", "To apply"}},
		{name: "yes with prefer", opts: syncOptions{Yes: true, Prefer: "studio"}, plan: withChanges("02", "07"),
			wantExit: exitOK, wantApply: &host.ApplyRequest{Token: "tok1", Overrides: []apply.Override{{ID: "07", Direction: plan.Pull}}},
			wantOut: []string{"disk: update src/shared/Util.luau (changed on both sides since main; your choice)"}},
		{name: "all resolved, yes", stdin: "y\n", plan: withChanges("02"),
			wantExit: exitOK, wantApply: &host.ApplyRequest{Token: "tok2", SkipUnresolved: true},
			wantOut: []string{"Apply this change? [y/N]", "Applied transaction tx1"}},
		{name: "all resolved, no", stdin: "n\n", plan: withChanges("02", "01"), wantExit: exitError, wantErr: errcode.ConfirmRequired,
			wantOut: []string{"Apply these 2 changes? [y/N]"}},
		{name: "no answer is no", stdin: "", plan: withChanges("02"), wantExit: exitError, wantErr: errcode.ConfirmRequired},
		{name: "mixed: the resolved ones, the rest left", stdin: "yes\n", plan: withChanges("02", "07", "09"),
			wantExit: exitOK, wantApply: &host.ApplyRequest{Token: "tok2", SkipUnresolved: true},
			wantOut: []string{"Apply the 1 change with a direction and leave the 2 that need your decision as they are? [y/N]"}},
		{name: "only undecided: no question", stdin: "y\n", plan: withChanges("07", "09"), wantExit: exitError,
			wantOut: []string{"2 changes need your decision, so there is nothing to apply yet.", "--prefer disk|studio", "--override ID=push|pull|skip"},
			notOut:  []string{"[y/N]"}},
		{name: "only undecided, decided by an override", stdin: "y\n", opts: syncOptions{Overrides: []apply.Override{{ID: "07", Direction: plan.Push}}},
			plan: withChanges("07"), wantExit: exitOK, wantApply: &host.ApplyRequest{Token: "tok2", SkipUnresolved: true, Overrides: []apply.Override{{ID: "07", Direction: plan.Push}}},
			wantOut: []string{"Studio: update ReplicatedStorage/Shared/Util (changed on both sides since main; your choice)", "Apply this change? [y/N]"}},
		{name: "bad prefer", opts: syncOptions{Prefer: "both"}, wantExit: exitError, wantErr: errcode.Usage},
		{name: "bad override", opts: syncOptions{Overrides: []apply.Override{{ID: "x", Direction: "up"}}}, wantExit: exitError, wantErr: errcode.BadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out, _ := testStreams(tt.stdin)
			tt.opts.IO = s
			f := &fakeEngine{t: t, plan: tt.plan, apply: applied}
			code, err := runSync(context.Background(), &tt.opts, f)
			if code != tt.wantExit {
				t.Errorf("exit %d, want %d (err %v)", code, tt.wantExit, err)
			}
			if tt.wantErr != "" {
				wantCode(t, err, tt.wantErr, "")
			} else if err != nil {
				t.Errorf("err = %v", err)
			}
			switch {
			case tt.wantApply == nil && len(f.applies) > 0:
				t.Errorf("applied %+v, want nothing applied", f.applies)
			case tt.wantApply != nil:
				if diff := cmp.Diff([]host.ApplyRequest{*tt.wantApply}, f.applies); diff != "" {
					t.Errorf("applies (-want +got):\n%s", diff)
				}
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestRunSyncJSONIsTheEnvelopeOfBefore(t *testing.T) {
	s, out, _ := testStreams("")
	f := &fakeEngine{t: t, plan: withChanges("02"), apply: applied}
	if code, err := runSync(context.Background(), &syncOptions{IO: s, JSON: true, Yes: true}, f); code != exitOK || err != nil {
		t.Fatalf("runSync = %d, %v", code, err)
	}
	ok, command, data := envelopeData(t, out.String())
	var d struct {
		Plan    *host.PlanData  `json:"plan"`
		Applied *host.ApplyData `json:"applied"`
	}
	if err := json.Unmarshal(data, &d); err != nil || !ok || command != "sync" || d.Plan == nil || d.Applied == nil || d.Applied.TxID != "tx1" {
		t.Errorf("envelope %s %v: %s", command, err, data)
	}
	if !f.plans[0].Files || f.plans[0].TTL != 0 {
		t.Errorf("plan request %+v: --json --yes asks for the plan it always did", f.plans[0])
	}
}

func TestRunScriptAndExecValidate(t *testing.T) {
	s, _, _ := testStreams("")
	f := &fakeEngine{t: t}
	for _, opts := range []*scriptOptions{{IO: s}, {IO: s, ID: "a", File: "/x.luau"}} {
		code, err := runScript(context.Background(), opts, f)
		if code != exitError {
			t.Errorf("exit %d", code)
		}
		wantCode(t, err, errcode.BadRequest, errcode.ReasonUsage)
	}
	for _, opts := range []*execOptions{{IO: s}, {IO: s, Code: " \n "}} {
		_, err := runExec(context.Background(), opts, f)
		wantCode(t, err, errcode.BadRequest, errcode.ReasonUsage)
	}
	_, err := runExec(context.Background(), &execOptions{IO: s, Code: "x", File: "/nowhere.luau"}, f)
	wantCode(t, err, errcode.BadRequest, errcode.ReasonUsage)
}

func TestRunScriptAndExec(t *testing.T) {
	s, out, errOut := testStreams("")
	f := &fakeEngine{t: t,
		script: func(req host.ScriptRequest) (*host.ScriptData, error) {
			return &host.ScriptData{ID: req.ID, Source: "return 1\n"}, nil
		},
		exec: func(req host.ExecRequest) (*host.ExecData, error) {
			return &host.ExecData{Success: false, Output: []host.OutputLine{{Level: "output", Text: "hi"}, {Level: "warning", Text: "careful"}}, Returns: []string{"1"}, Error: "boom"}, nil
		},
	}
	if code, err := runScript(context.Background(), &scriptOptions{IO: s, ID: "a"}, f); code != exitOK || err != nil || out.String() != "return 1\n" {
		t.Errorf("runScript = %d, %v, %q", code, err, out)
	}
	out.Reset()
	code, err := runExec(context.Background(), &execOptions{IO: s, Code: "print('hi')"}, f)
	if code != exitError || err != nil {
		t.Errorf("runExec of failing code = %d, %v; want exit 1 and no error", code, err)
	}
	if out.String() != "hi\nwarning: careful\n=> 1\n" || errOut.String() != "error: boom\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestRunDrift(t *testing.T) {
	noHost := &dialError{errcode.New(errcode.NoHost, "no host")}
	drifted := func(host.DriftRequest) (*host.DriftData, error) {
		return &host.DriftData{Connected: true, Drift: true, Changes: []*plan.Change{{ID: "a", Path: "A", Reason: plan.StudioChanged}}, Blocking: []string{}}, nil
	}
	tests := []struct {
		name     string
		opts     driftOptions
		drift    func(host.DriftRequest) (*host.DriftData, error)
		wantExit int
		wantErr  errcode.Code
	}{
		{"no host", driftOptions{}, func(host.DriftRequest) (*host.DriftData, error) { return nil, noHost }, exitOK, ""},
		{"no host, strict", driftOptions{Strict: true}, func(host.DriftRequest) (*host.DriftData, error) { return nil, noHost }, exitChanges, ""},
		{"no project", driftOptions{}, func(host.DriftRequest) (*host.DriftData, error) {
			return nil, &dialError{errcode.New(errcode.ProjectInvalid, "no project")}
		}, exitError, errcode.ProjectInvalid},
		{"no project never blocks the hook", driftOptions{Staged: true}, func(host.DriftRequest) (*host.DriftData, error) {
			return nil, &dialError{errcode.New(errcode.ProjectInvalid, "no project")}
		}, exitOK, ""},
		{"no project, staged and strict", driftOptions{Staged: true, Strict: true}, func(host.DriftRequest) (*host.DriftData, error) {
			return nil, &dialError{errcode.New(errcode.ProjectInvalid, "no project")}
		}, exitError, errcode.ProjectInvalid},
		{"a failed call never blocks the hook", driftOptions{Staged: true}, func(host.DriftRequest) (*host.DriftData, error) {
			return nil, errcode.New(errcode.StudioNotConnected, "gone")
		}, exitOK, ""},
		{"a failed call", driftOptions{}, func(host.DriftRequest) (*host.DriftData, error) {
			return nil, errcode.New(errcode.StudioNotConnected, "gone")
		}, exitError, errcode.StudioNotConnected},
		{"drift", driftOptions{}, drifted, exitChanges, ""},
		{"drift, staged, not in the commit", driftOptions{Staged: true}, drifted, exitOK, ""},
		{"not connected, strict", driftOptions{Strict: true}, func(host.DriftRequest) (*host.DriftData, error) {
			return &host.DriftData{Message: "no Studio"}, nil
		}, exitChanges, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := testStreams("")
			tt.opts.IO = s
			code, err := runDrift(context.Background(), &tt.opts, &fakeEngine{t: t, drift: tt.drift})
			if code != tt.wantExit {
				t.Errorf("exit %d, want %d (err %v)", code, tt.wantExit, err)
			}
			if tt.wantErr != "" {
				wantCode(t, err, tt.wantErr, "")
			} else if err != nil {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestRunStatusAndUndo(t *testing.T) {
	s, out, _ := testStreams("")
	f := &fakeEngine{t: t,
		status: func() (*host.StatusData, error) {
			return &host.StatusData{Project: host.ProjectData{Name: "Game", File: "/p/default.project.json"}, Host: host.HostData{URL: "http://127.0.0.1:1", PID: 7, Kind: "serve"}}, nil
		},
		undo: func(req host.UndoRequest) (*apply.UndoResult, error) {
			if req.TxID != "tx1" || req.SessionID != "s" {
				return nil, errors.New("wrong request")
			}
			return &apply.UndoResult{TxID: "tx1"}, nil
		},
	}
	if code, err := runStatus(context.Background(), &statusOptions{IO: s}, f); code != exitOK || err != nil || !strings.Contains(out.String(), "studio   not connected") {
		t.Errorf("runStatus = %d, %v:\n%s", code, err, out)
	}
	out.Reset()
	if code, err := runUndo(context.Background(), &undoOptions{IO: s, JSON: true, Session: "s", Tx: "tx1"}, f); code != exitOK || err != nil {
		t.Fatalf("runUndo = %d, %v", code, err)
	}
	if ok, command, _ := envelopeData(t, out.String()); !ok || command != "sync.undo" {
		t.Errorf("envelope ok=%v command=%s", ok, command)
	}
}

func TestRunRecover(t *testing.T) {
	var got []host.RecoverRequest
	f := &fakeEngine{t: t, recov: func(req host.RecoverRequest) (*apply.RecoverResult, error) {
		got = append(got, req)
		if req.Action == "" {
			return &apply.RecoverResult{}, nil
		}
		return &apply.RecoverResult{Resolved: &apply.Resolved{TxID: req.TxID, Action: req.Action, State: "aborted"}}, nil
	}}
	s, out, _ := testStreams("")
	if code, err := runRecover(context.Background(), &recoverOptions{IO: s, Finish: true, Abort: true}, f); code != exitError || errcode.Of(err) != errcode.Usage || len(got) != 0 {
		t.Fatalf("--finish --abort = %d, %v after %d calls; want E_USAGE before any call", code, err, len(got))
	}
	if code, err := runRecover(context.Background(), &recoverOptions{IO: s}, f); code != exitOK || err != nil || !strings.Contains(out.String(), "No open transaction.") {
		t.Fatalf("runRecover = %d, %v:\n%s", code, err, out)
	}
	out.Reset()
	if code, err := runRecover(context.Background(), &recoverOptions{IO: s, Tx: "tx9", Abort: true}, f); code != exitOK || err != nil {
		t.Fatalf("runRecover --abort = %d, %v", code, err)
	}
	if len(got) != 2 || got[1] != (host.RecoverRequest{TxID: "tx9", Action: apply.ActionAbort}) {
		t.Errorf("requests = %+v", got)
	}
	if !strings.Contains(out.String(), "Aborted transaction tx9 (now aborted)") {
		t.Errorf("abort output:\n%s", out)
	}
}
