package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/internal/benchgen"
)

func TestMedianOf(t *testing.T) {
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 1, 3, 2}, 2}, // (2+3)/2 in integer nanoseconds
	}
	for _, tt := range tests {
		if got := medianOf(tt.in); got != tt.want {
			t.Errorf("medianOf(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"1k": 1000, "10k": 10000, " 50k": 50000} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "10", "k", "-1k", "tenk"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}

func TestInstancePath(t *testing.T) {
	tests := map[string]string{
		"src/shared/pkg000/sub0/Script0.luau":        "game.ReplicatedStorage.pkg000.sub0.Script1",
		"src/server/pkg130/sub4/Script0.server.luau": "game.ServerScriptService.pkg130.sub4.Script1",
		"src/client/pkg190/sub1/Script0.client.luau": "game.StarterPlayer.StarterPlayerScripts.pkg190.sub1.Script1",
	}
	for file, want := range tests {
		if got := instancePath(file, "Script1"); got != want {
			t.Errorf("instancePath(%q) = %q, want %q", file, got, want)
		}
	}
}

func TestPrintTable(t *testing.T) {
	tab := &table{gen: &benchgen.Project{Instances: 10, Bytes: 2e6, Files: []string{"a", "b"}}, status: 100 * time.Millisecond, hob: 200 * time.Millisecond,
		rows: []row{{name: "plan", value: 150 * time.Millisecond, yardstick: "status"}, {name: "restart", value: 100 * time.Millisecond, yardstick: "hash-object", note: "one run"}, {name: "apply", value: 250 * time.Millisecond}},
		rss:  []string{"host RSS: 1 MB"}}
	var buf bytes.Buffer
	tab.print(&buf, "1k")
	for _, want := range []string{"| plan | 150.0 ms | 1.50× of git status |", "| restart (one run) | 100.0 ms | 0.50× of git hash-object |", "| apply | 250.0 ms | — |", "- host RSS: 1 MB"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, buf.String())
		}
	}
}
