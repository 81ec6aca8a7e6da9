package faults

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/host"
)

// "A host restarted while Studio stays open × N: 0 pulled over a commit, 0 false
// drift": each round syncs one script (a disk edit pushed, or a Studio edit pulled),
// leaves it uncommitted, then stops the host: a SIGKILL right after the apply (its
// log entry holds it), a SIGKILL once it has been idle (it writes its snapshot then),
// or a SIGTERM. The user edits the same script on
// disk and commits it, then the next host starts and Studio reconnects with the
// same session. HEAD and disk now agree, and Studio still holds what the sync left:
// the table alone would call that Studio's change and pull it over the commit, and
// the hook would call it drift. The next plan must push the commit, drift must
// report nothing, and after the apply both sides hold the committed text.
func TestFaultHostRestartedWithStudioOpen(t *testing.T) {
	n := rounds(t, 4)
	p := newProj(t)
	hostProc := p.serve()
	emu := p.emulator(p.place(nil), "--keep")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("host:\n%s\nemulator:\n%s", hostProc.output(), emu.output())
		}
	})
	stateFile := filepath.Join(host.ProjectStateDir(p.state, p.file), "instep.state")
	pulledOver, falseDrift, kills, terms := 0, 0, 0, 0
	for r := range n {
		i := 1 + rand.IntN(scripts)
		synced := time.Now()
		if r%2 == 0 {
			p.write(i, fmt.Sprintf("-- S%d pushed from disk, round %d\n", i, r))
		} else {
			p.setStudio(map[int]string{i: fmt.Sprintf("-- S%d pulled from Studio, round %d\n", i, r)})
		}
		token, changes := p.planToken()
		if changes != 1 {
			t.Fatalf("round %d: %d changes, want 1", r, changes)
		}
		if res := p.apply(token); !res.env.OK {
			t.Fatalf("round %d: apply: %s", r, outcome(res.env))
		}
		switch r % 4 {
		case 0:
			// Killed at once: the apply's log entry is all there is of it.
			hostProc.kill()
			kills++
		case 1:
			// Killed once idle: its snapshot is on disk by then.
			p.waitFor("the host to keep its in-step state", func() bool {
				st, err := os.Stat(stateFile)
				return err == nil && st.ModTime().After(synced)
			})
			hostProc.kill()
			kills++
		default:
			_ = hostProc.cmd.Process.Signal(syscall.SIGTERM)
			<-hostProc.done
			terms++
		}
		// Edited and committed while no host runs (a host that is up plans once
		// Studio connects, and finds the two sides in step again).
		committed := fmt.Sprintf("-- S%d edited and committed while the host was down, round %d\n", i, r)
		p.write(i, committed)
		p.commit(fmt.Sprintf("round %d", r))
		hostProc = p.serve()
		p.waitSession()

		e := p.cli("drift")
		var drift struct {
			Changes []json.RawMessage `json:"changes"`
		}
		json.Unmarshal(e.Data, &drift)
		if len(drift.Changes) != 0 {
			falseDrift++
			t.Errorf("round %d: drift reports %d change(s) after the commit: %s", r, len(drift.Changes), e.Data)
		}
		e = p.cli("sync", "plan")
		var plan struct {
			ConfirmToken string `json:"confirmToken"`
			Changes      []struct {
				Direction string `json:"direction"`
				Reason    string `json:"reason"`
			} `json:"changes"`
		}
		json.Unmarshal(e.Data, &plan)
		if !e.OK || len(plan.Changes) != 1 || plan.Changes[0].Direction != "push" {
			pulledOver++
			t.Errorf("round %d: plan after the commit: %s %+v, want S%d pushed", r, outcome(e), plan.Changes, i)
			p.settle(fmt.Sprintf("round %d, settled", r))
			continue
		}
		if res := p.apply(plan.ConfirmToken); !res.env.OK {
			t.Fatalf("round %d: apply: %s", r, outcome(res.env))
		}
		if got := p.read(i); got != committed {
			pulledOver++
			t.Errorf("round %d: S%d on disk is %q after the apply, want the commit", r, i, got)
		}
		if got := p.studioSource(i); got != committed {
			t.Errorf("round %d: S%d in Studio is %q after the apply, want the commit", r, i, got)
		}
	}
	t.Logf("host restarted with Studio open × %d (%d SIGKILL, at once or once idle; %d SIGTERM): %d pulled over a commit, %d false drift",
		n, kills, terms, pulledOver, falseDrift)
}

// "An undo, a commit, plans that keep the host busy, then a SIGKILL × N: 0 pulled
// over a commit": a push is undone (Studio holds its text from before), the disk edit
// is committed, and plans keep coming (an agent polling) so the host is never idle
// long enough to write its snapshot. It is killed and started again. What the undo
// left in step is in the log: the commit is pushed, never pulled over by the text the
// undo put back in Studio, and drift reports nothing.
func TestFaultUndoCommitAndKill(t *testing.T) {
	n := rounds(t, 3)
	p := newProj(t)
	hostProc := p.serve()
	p.emulator(p.place(nil), "--keep")
	pulledOver := 0
	for r := range n {
		i := 1 + rand.IntN(scripts)
		text := fmt.Sprintf("-- S%d edited on disk, round %d\n", i, r)
		p.write(i, text)
		token, _ := p.planToken()
		if res := p.apply(token); !res.env.OK {
			t.Fatalf("round %d: apply: %s", r, outcome(res.env))
		}
		if e := p.cli("sync", "undo"); !e.OK {
			t.Fatalf("round %d: undo: %s", r, outcome(e))
		}
		p.commit(fmt.Sprintf("round %d", r))
		for range 3 {
			p.planToken()
		}
		hostProc.kill()
		hostProc = p.serve()
		p.waitSession()
		e := p.cli("sync", "plan")
		var plan struct {
			Changes []struct {
				Direction string `json:"direction"`
			} `json:"changes"`
		}
		json.Unmarshal(e.Data, &plan)
		if !e.OK || len(plan.Changes) != 1 || plan.Changes[0].Direction != "push" {
			pulledOver++
			t.Errorf("round %d: plan after the restart: %s %s, want S%d pushed", r, outcome(e), e.Data, i)
		}
		d := p.cli("drift")
		var drift struct {
			Changes []json.RawMessage `json:"changes"`
		}
		json.Unmarshal(d.Data, &drift)
		if len(drift.Changes) != 0 {
			t.Errorf("round %d: drift reports %s", r, d.Data)
		}
		p.settle(fmt.Sprintf("round %d, settled", r))
		if got := p.read(i); got != text {
			pulledOver++
			t.Errorf("round %d: S%d on disk is %q after the sync, want the commit", r, i, got)
		}
	}
	t.Logf("undo, commit, busy host, SIGKILL × %d: %d pulled over a commit", n, pulledOver)
}
