package casfile_test

import (
	"testing"

	"github.com/atlas-rbx/atlas/internal/casfile"
)

// AsideHash finds the aside copy an interrupted swap left, and nothing where no
// swap with that tag ran.
func TestAsideHash(t *testing.T) {
	cases := []struct {
		name      string
		stop      casfile.Step // where the replace stops (0: it finishes)
		wantFound bool
	}{
		{"staged only", casfile.StepStaged, false},
		{"moved aside", casfile.StepAside, true},
		{"installed", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"src/a.luau": "old"})
			r := openRoot(t, dir)
			r.SetHook(func(s casfile.Step) error {
				if s == c.stop {
					return errCrash
				}
				return nil
			})
			r.Replace("src/a.luau", hash("old"), []byte("new"), opts)
			h, found, err := r.AsideHash("src/a.luau", tag)
			if err != nil || found != c.wantFound || (found && h != hash("old")) {
				t.Fatalf("AsideHash = %q, %v, %v; want found %v with the old bytes' hash", h, found, err, c.wantFound)
			}
			if _, found, _ := r.AsideHash("src/a.luau", "other"); found {
				t.Error("another tag's aside copy was found")
			}
			if _, found, err := r.AsideHash("missing/b.luau", tag); found || err != nil {
				t.Errorf("a missing folder: found %v, %v", found, err)
			}
		})
	}
}
