package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
)

func TestParseOverrides(t *testing.T) {
	tests := []struct {
		in   string
		want []apply.Override // nil: refused with E_BAD_REQUEST bad_overrides
	}{
		{`[]`, []apply.Override{}},
		{" \n[ ]\n\n", []apply.Override{}},
		{`[{"id":"a","direction":"push"}]`, []apply.Override{{ID: "a", Direction: "push"}}},
		{`[{"id":"a","direction":"pull","studioHash":"h"}]` + "\n", []apply.Override{{ID: "a", Direction: "pull", StudioHash: ptr("h")}}},
		{``, nil},
		{`   `, nil},
		{`null`, nil},
		{`{}`, nil},
		{`"x"`, nil},
		{`1`, nil},
		{`true`, nil},
		{`[] xyz`, nil},
		{`[] ]`, nil},
		{`[][]`, nil},
		{`[] null`, nil},
		{`[`, nil},
		{`[{"id":"a","direction":"push","extra":1}]`, nil},
		{`[{"id":"a","direction":"push"}] {}`, nil},
	}
	for _, tt := range tests {
		got, err := parseOverrides([]byte(tt.in))
		if tt.want == nil {
			e := errcode.As(err)
			if err == nil || e.Code != errcode.BadRequest || e.Details["reasonCode"] != "bad_overrides" {
				t.Errorf("parseOverrides(%q) = %v, %v; want E_BAD_REQUEST bad_overrides", tt.in, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseOverrides(%q) = %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseOverrides(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func ptr[T any](v T) *T { return &v }
