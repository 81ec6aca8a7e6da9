package errcode_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/errcode"
)

// The details a refusal carries read the same in the process that made it and in
// one that decoded it from JSON (the local API's client).
func TestReasonSurvivesJSON(t *testing.T) {
	e := errcode.New(errcode.ConfirmTokenMismatch, "moved").Reason(errcode.ReasonPlanChanged, errcode.NextReplan, errcode.NextShowStatus)
	b, err := json.Marshal(e.Details)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, got := range []*errcode.Error{e, {Code: e.Code, Details: decoded}} {
		if got.ReasonCode() != errcode.ReasonPlanChanged {
			t.Errorf("ReasonCode() = %q, want plan_changed", got.ReasonCode())
		}
		if diff := cmp.Diff([]errcode.NextAction{errcode.NextReplan, errcode.NextShowStatus}, got.NextActions()); diff != "" {
			t.Errorf("NextActions() (-want +got):\n%s", diff)
		}
	}
	if string(b) != `{"nextActions":["replan","show_status"],"reasonCode":"plan_changed"}` {
		t.Errorf("details JSON = %s", b)
	}
	none := errcode.New(errcode.Busy, "busy").Reason(errcode.ReasonBusy)
	if next, ok := none.Details["nextActions"].([]string); !ok || len(next) != 0 {
		t.Errorf("no next actions gives %#v, want an empty list", none.Details["nextActions"])
	}
}

// constants returns the names and values of the constants of type typ declared in
// file, and whether each has a doc comment.
func constants(t *testing.T, file, typ string) (names []string, values map[string]string, documented map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	values, documented = map[string]string{}, map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			name := v.Names[0].Name
			names = append(names, name)
			values[name] = strings.Trim(v.Values[0].(*ast.BasicLit).Value, `"`)
			documented[name] = v.Doc != nil && strings.HasPrefix(v.Doc.Text(), name+":")
		}
	}
	return names, values, documented
}

// Each next action is declared once, listed in AllNextActions, documented where it
// is declared, and shown in docs/ERRORS.md.
func TestNextActionsListedAndDocumented(t *testing.T) {
	names, values, documented := constants(t, "nextactions.go", "NextAction")
	docs, err := os.ReadFile("../docs/ERRORS.md")
	if err != nil {
		t.Fatal(err)
	}
	var declared []errcode.NextAction
	for _, n := range names {
		declared = append(declared, errcode.NextAction(values[n]))
		if !documented[n] {
			t.Errorf("%s has no doc comment starting %q", n, n+":")
		}
		if !strings.Contains(string(docs), "`"+values[n]+"`") {
			t.Errorf("docs/ERRORS.md does not show next action %s", values[n])
		}
	}
	if diff := cmp.Diff(declared, errcode.AllNextActions); diff != "" {
		t.Errorf("AllNextActions differs from the declared constants (-declared +list):\n%s", diff)
	}
}

// Each reason has one constant, with a doc comment saying what it means.
func TestReasonsDocumented(t *testing.T) {
	names, values, documented := constants(t, "reasons.go", "Reason")
	if len(names) < 60 {
		t.Fatalf("reasons.go declares %d reasons; the parse missed some", len(names))
	}
	seen := map[string]string{}
	for _, n := range names {
		if !documented[n] {
			t.Errorf("%s has no doc comment starting %q", n, n+":")
		}
		if other, dup := seen[values[n]]; dup {
			t.Errorf("%s and %s are both %q", n, other, values[n])
		}
		seen[values[n]] = n
		if values[n] != strings.ToLower(values[n]) || strings.ContainsAny(values[n], " -") {
			t.Errorf("%s = %q is not snake_case", n, values[n])
		}
	}
	if !slices.Contains(names, "ReasonPlanChanged") {
		t.Error("reasons.go lacks ReasonPlanChanged")
	}
}
