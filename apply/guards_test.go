package apply

import (
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
)

// Two changes of one transaction never write one file: refused with
// duplicate_name, naming the other; folders are shared freely; where the file
// system folds case, paths that differ in case are one file.
func TestClaimRefusesASecondWriterOfAFile(t *testing.T) {
	a := &plan.Change{ID: "a", Path: "RS/Foo"}
	b := &plan.Change{ID: "b", Path: "RS/foo"}
	for _, tc := range []struct {
		name     string
		foldCase bool
		second   string
		refused  bool
	}{
		{"same path", false, "src/Foo.luau", true},
		{"paths differing in case, case-sensitive", false, "src/foo.luau", false},
		{"paths differing in case, folding", true, "src/foo.luau", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]*plan.Change{}
			if err := claim(files, a, []project.FileOp{{Path: "src", Dir: true}, {Path: "src/Foo.luau"}}, tc.foldCase); err != nil {
				t.Fatal(err)
			}
			err := claim(files, b, []project.FileOp{{Path: "src", Dir: true}, {Path: tc.second}}, tc.foldCase)
			if !tc.refused {
				if err != nil {
					t.Fatalf("claim = %v", err)
				}
				return
			}
			ce := errcode.As(err)
			if ce.Code != errcode.Unresolved || ce.ReasonCode() != errcode.ReasonDuplicateName {
				t.Fatalf("claim = %v", err)
			}
			dups, _ := ce.Details["duplicates"].([]plan.Duplicate)
			if len(dups) != 1 || dups[0].ID != "b" || dups[0].Siblings[0].ID != "a" {
				t.Fatalf("duplicates = %+v", ce.Details["duplicates"])
			}
		})
	}
}
