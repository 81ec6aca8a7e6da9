//go:build unix

package faults

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/atlas-rbx/atlas/host"
)

// A journal folder the host cannot write (a read-only state folder, a mount gone
// read-only, a file in its way): `atlas sync --yes` says it is the state folder,
// E_INTERNAL with reasonCode state_dir and nextActions fix_permissions and
// set_state_dir, as the host's start does for the state folder, and writes nothing,
// neither in the project nor in Studio.
func TestFaultJournalNotWritable(t *testing.T) {
	p := newProj(t)
	p.serve()
	p.emulator(p.place(nil))
	p.write(1, "-- S1 edited on disk\n")                       // a push
	p.setStudio(map[int]string{2: "-- S2 edited in Studio\n"}) // a pull

	journal := filepath.Join(host.ProjectStateDir(p.state, p.file), "journal")
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// Permissions do not stop root: a file where the folder goes does.
		if err := os.Remove(journal); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(journal, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := os.Chmod(journal, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(journal, 0o700) })
	}

	e := p.cli("sync", "--yes")
	if e.OK || e.code() != "E_INTERNAL" || e.reason() != "state_dir" {
		t.Fatalf("sync --yes with the journal folder unwritable: %s %v, want E_INTERNAL/state_dir", outcome(e), e.Errors)
	}
	if next := nextActions(e); !slices.Equal(next, []string{"fix_permissions", "set_state_dir"}) {
		t.Errorf("nextActions %v, want [fix_permissions set_state_dir]", next)
	}
	if got := p.read(2); got != "-- S2 as committed\n" {
		t.Errorf("S2 on disk was written: %q", got)
	}
	if got := p.studioSource(1); got != "-- S1 as committed\n" {
		t.Errorf("S1 in Studio was written: %q", got)
	}
	if left := p.temps(); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if fi, err := os.Stat(journal); err != nil {
		t.Error(err)
	} else if fi.IsDir() {
		if entries, _ := os.ReadDir(journal); len(entries) != 0 {
			t.Errorf("the journal folder holds %d entries", len(entries))
		}
	}
}
