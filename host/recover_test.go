package host_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge/bridgetest"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
	"github.com/atlas-rbx/atlas/plan"
)

// A second host for the same project is refused with E_BUSY host_running naming
// the first one's pid and port; once the first closes, another starts.
func TestOneHostPerProject(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	second, err := host.New(host.Options{Location: e.Location, StateDir: e.StateDir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	err = second.Start(context.Background())
	ce := mustCode(t, err, errcode.Busy)
	if ce.ReasonCode() != errcode.ReasonHostRunning {
		t.Fatalf("reasonCode = %s, want host_running", ce.ReasonCode())
	}
	if ce.Details["pid"] != os.Getpid() || ce.Details["port"] != e.Host.Port() {
		t.Errorf("details = %v, want pid %d and port %d", ce.Details, os.Getpid(), e.Host.Port())
	}
	second.Close()
	// The first host still serves, registered as it was.
	if _, err := e.Host.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Host.Close()
	third, err := host.New(host.Options{Location: e.Location, StateDir: e.StateDir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := third.Start(context.Background()); err != nil {
		t.Fatalf("a host after the first closed: %v", err)
	}
	third.Close()
}

// studioRestart is a transaction whose Studio answer was lost, with Studio then
// restarted (a new plugin session id) from a place that holds all of its patch,
// none of it, or part of it.
func TestRecoveryAfterStudioRestart(t *testing.T) {
	cases := []struct {
		name string
		// studio makes the restarted place: the patch pushes Main's disk edit and
		// adds New; it pulls Util's Studio edit to disk.
		studio      func(p *bridgetest.Place)
		wantUtil    string // the file the transaction writes
		wantPending bool
		finish      bool // the person resolves a pending one with finish, not abort
	}{
		{"all applied", func(p *bridgetest.Place) { setMain(p); addNew(p) }, "return { studio = true }\n", false, false},
		{"none applied", func(p *bridgetest.Place) {}, "return {}\n", false, false},
		{"part applied", setMain, "return {}\n", true, false},
		{"part applied, finished", setMain, "return {}\n", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			e := hosttest.Start(t, nil, func(p *bridgetest.Place) {
				p.Find("ReplicatedStorage", "Shared", "Util").SetSource("return { studio = true }\n")
			})
			hosttest.Write(t, e.Dir, "src/server/Main.server.luau", "print('disk')\n")
			hosttest.Write(t, e.Dir, "src/server/New.server.luau", "print('new')\n")
			d, err := e.Host.Plan(ctx, host.PlanRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Summary.Push != 2 || d.Summary.Pull != 1 {
				t.Fatalf("summary %+v, want 2 pushes and 1 pull", d.Summary)
			}
			place := e.Plugin.Place()
			e.Plugin.DropNextRequest("apply")
			_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d.ConfirmToken})
			ce := mustCode(t, err, errcode.StudioNotConnected)
			if ce.ReasonCode() != errcode.ReasonStudioLostDuringApply {
				t.Fatalf("reasonCode = %s", ce.ReasonCode())
			}
			e.Plugin.Close()
			waitFor(t, "the session to leave", func() bool { return len(e.Host.Bridge().Sessions()) == 0 })
			st, _ := e.Host.Status(ctx)
			if len(st.Pending) != 1 || st.Pending[0].Waiting != apply.WaitStudio {
				t.Fatalf("pending = %+v, want one waiting for studio", st.Pending)
			}
			// Studio restarts: another session id, the same place.
			c.studio(place)
			restarted := bridgetest.New(place)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := restarted.Connect(cctx, e.Host.PluginURL()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { restarted.Close() })
			waitFor(t, "recovery", func() bool {
				st, _ := e.Host.Status(ctx)
				return len(st.Pending) == 0 || st.Pending[0].Waiting == apply.WaitDecision
			})
			if got := readFile(t, e.Dir, "src/shared/Util.luau"); got != c.wantUtil {
				t.Errorf("Util.luau = %q, want %q", got, c.wantUtil)
			}
			st, _ = e.Host.Status(ctx)
			if (len(st.Pending) == 1) != c.wantPending {
				t.Fatalf("pending = %+v", st.Pending)
			}
			if c.name == "all applied" {
				// Recovery finished the transaction: as after an apply, this place is
				// the last synced one (before, no sync had ever succeeded).
				waitFor(t, "the place recorded as synced", func() bool {
					st, _ := e.Host.Status(ctx)
					return st.PlaceCheck != nil && st.PlaceCheck.State == plan.PlaceSame && st.PlaceCheck.LastSync != nil
				})
			}
			if c.wantPending {
				// Blocked, but saying how to leave: apply refuses with
				// transaction_pending and points to sync recover.
				d2, err := e.Host.Plan(ctx, host.PlanRequest{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = e.Host.Apply(ctx, host.ApplyRequest{Token: d2.ConfirmToken, SkipUnresolved: true})
				ce := mustCode(t, err, errcode.Busy)
				if ce.ReasonCode() != errcode.ReasonTransactionPending || ce.Details["waiting"] != apply.WaitDecision ||
					!slices.Equal(ce.NextActions(), []errcode.NextAction{errcode.NextResolveTransaction, errcode.NextShowStatus}) {
					t.Fatalf("refusal = %v %v", ce.ReasonCode(), ce.Details)
				}
				if strings.Contains(ce.Message, "has not said") {
					t.Errorf("message = %q", ce.Message)
				}
				// So does undo: an older transaction undone underneath the open one
				// would change what its recovery reads.
				_, err = e.Host.Undo(ctx, host.UndoRequest{})
				if ce := mustCode(t, err, errcode.Busy); ce.ReasonCode() != errcode.ReasonTransactionPending {
					t.Fatalf("undo with a transaction open: %v %v", ce.ReasonCode(), ce.Details)
				}
				shown, err := e.Host.Recover(ctx, host.RecoverRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if len(shown.Transactions) != 1 || shown.Transactions[0].Studio != apply.SideMixed {
					t.Fatalf("shown = %+v", shown.Transactions)
				}
				if c.finish {
					res, err := e.Host.Recover(ctx, host.RecoverRequest{Action: apply.ActionFinish})
					if err != nil {
						t.Fatal(err)
					}
					if res.Resolved.State != "committed" || readFile(t, e.Dir, "src/shared/Util.luau") != "return { studio = true }\n" {
						t.Fatalf("resolved = %+v", res.Resolved)
					}
					// Finished: as after an apply, this place is the last synced one.
					if st, _ := e.Host.Status(ctx); st.PlaceCheck == nil || st.PlaceCheck.State != plan.PlaceSame || st.PlaceCheck.LastSync == nil {
						t.Fatalf("placeCheck after the finish = %+v", st.PlaceCheck)
					}
					return
				}
				res, err := e.Host.Recover(ctx, host.RecoverRequest{Action: apply.ActionAbort})
				if err != nil {
					t.Fatal(err)
				}
				var holds []string
				for _, s := range res.Resolved.Studio {
					if s.Side == apply.SideAfter {
						holds = append(holds, s.Path)
					}
				}
				if res.Resolved.State != "aborted" || !slices.Equal(holds, []string{"ServerScriptService/Main"}) {
					t.Errorf("resolved = %+v, Studio holds %v", res.Resolved, holds)
				}
				// And the project is free again.
				d3, err := e.Host.Plan(ctx, host.PlanRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := e.Host.Apply(ctx, host.ApplyRequest{Token: d3.ConfirmToken, SkipUnresolved: true}); err != nil {
					t.Fatalf("apply after the abort: %v", err)
				}
			}
			if left := tempFiles(t, e.Dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func setMain(p *bridgetest.Place) {
	p.Find("ServerScriptService", "Main").SetSource("print('disk')\n")
}

func addNew(p *bridgetest.Place) {
	n := &bridgetest.Node{Name: "New", ClassName: "Script", Properties: map[string]json.RawMessage{}}
	n.SetSource("print('new')\n")
	sss := p.Find("ServerScriptService")
	sss.Children = append(sss.Children, n)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// tempFiles lists Atlas's temporary files in a project folder.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".atlas-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}
