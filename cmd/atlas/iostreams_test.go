package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

func TestColourPolicy(t *testing.T) {
	tests := []struct {
		name        string
		tty         bool
		env         map[string]string
		noColorFlag bool
		want        bool
	}{
		{"terminal", true, nil, false, true},
		{"pipe", false, nil, false, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false, false},
		{"NO_COLOR empty is unset", true, map[string]string{"NO_COLOR": ""}, false, true},
		{"--no-color", true, nil, true, false},
		{"TERM=dumb", true, map[string]string{"TERM": "dumb"}, false, false},
		{"CLICOLOR_FORCE on a pipe", false, map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0", false, map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"NO_COLOR wins over CLICOLOR_FORCE", false, map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "x"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := systemStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string { return tt.env[k] })
			s.stdoutTTY, s.stderrTTY = tt.tty, tt.tty
			s.noColor = s.noColor || tt.noColorFlag
			if got := s.colorEnabled(); got != tt.want {
				t.Errorf("colorEnabled() = %v, want %v", got, tt.want)
			}
			if got := s.style().red("x") != "x"; got != tt.want {
				t.Errorf("style colours = %v, want %v", got, tt.want)
			}
			if got := s.errStyle().on; got != tt.want {
				t.Errorf("errStyle colours = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBuffersAreNoTerminal(t *testing.T) {
	s := systemStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	if s.stdinTTY || s.stdoutTTY || s.stderrTTY || s.progressEnabled() {
		t.Errorf("buffers taken for terminals: %+v", s)
	}
}

func TestSpinnerDrawsWhileWaitingAndErasesItself(t *testing.T) {
	var w syncBuffer
	s := &spinner{w: &w, delay: 0, every: time.Millisecond}
	s.wait("planning", func() {
		// Wait until it drew, however slow the machine.
		for !strings.Contains(w.String(), "planning") {
			time.Sleep(time.Millisecond)
		}
	})
	got := w.String()
	if !strings.HasPrefix(got, "\r\x1b[2K") || !strings.Contains(got, "s") || !strings.HasSuffix(got, "\r\x1b[2K") {
		t.Errorf("spinner wrote %q: want frames with the elapsed time, then an erased line", got)
	}
}

func TestSpinnerStaysQuietForQuickCalls(t *testing.T) {
	var w syncBuffer
	s := &spinner{w: &w, delay: time.Hour, every: time.Millisecond}
	ran := false
	s.wait("planning", func() { ran = true })
	if !ran || w.String() != "" {
		t.Errorf("ran %v, wrote %q; want the call run and nothing written", ran, w.String())
	}
	var none *spinner
	none.wait("x", func() { ran = false })
	if ran {
		t.Error("a nil spinner did not run the call")
	}
}

func TestDialerDialsOnceOnFirstUse(t *testing.T) {
	dials := 0
	d := &dialer{dial: func() (*host.Client, error) {
		dials++
		return nil, errcode.New(errcode.NoHost, "no host")
	}}
	if dials != 0 {
		t.Fatal("the dialer dialled before its first call")
	}
	_, err1 := d.Plan(context.Background(), host.PlanRequest{})
	_, err2 := d.Status(context.Background())
	var de *dialError
	if dials != 1 || errcode.Of(err1) != errcode.NoHost || errcode.Of(err2) != errcode.NoHost {
		t.Errorf("dials %d, errs %v, %v", dials, err1, err2)
	}
	if !errorsAs(err1, &de) {
		t.Errorf("%v is not a dialError", err1)
	}
}

func TestHumanLogLines(t *testing.T) {
	var b bytes.Buffer
	h := newHumanHandler(&b, style{})
	h.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	log := slog.New(h).With("component", "host")
	log.Info("host started", "project", "Game", "file", "/p/default.project.json", "address", "127.0.0.1:34873")
	log.Info("emulator", "line", "emulator: plugin started") // hidden
	log.Info("studio connected", "session", "s1", "placeId", int64(0), "placeName", "Game", "pluginVersion", "0.1.0")
	log.Info("applied", "txId", "tx1", "changes", 3, "skipped", 1, "studioOps", 1, "files", 2)
	log.Info("undone", "txId", "tx1", "studioOps", 1, "files", 1)
	log.Info("finished open transaction", "txId", "tx0", "state", "committed")
	log.Debug("prewarm", "err", "x") // hidden
	log.Warn("could not finish open transactions yet", "err", "no Studio")
	log.Error("local API stopped", "err", "closed")
	log.Info("studio disconnected", "session", "s1", "err", nil)
	log.Info("plugin handshake refused", "remote", "127.0.0.1:5", "err", "bad version")
	golden(t, "serve-log.txt", b.String())
}

func TestServeLoggerFormats(t *testing.T) {
	for _, tt := range []struct {
		format  string
		verbose bool
		want    string // a substring of one Info record
	}{
		{"human", false, "Studio connected: Game"},
		{"", false, "Studio connected: Game"},
		{"human", true, "level=INFO msg=\"studio connected\""},
		{"text", false, "level=INFO msg=\"studio connected\""},
		{"json", false, `"msg":"studio connected"`},
	} {
		var b bytes.Buffer
		log, err := serveLogger(&b, style{}, tt.format, tt.verbose)
		if err != nil {
			t.Fatalf("serveLogger(%q): %v", tt.format, err)
		}
		log.Info("studio connected", "session", "s1", "placeName", "Game")
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("serveLogger(%q, verbose %v) wrote %q, want %q in it", tt.format, tt.verbose, b.String(), tt.want)
		}
	}
	if _, err := serveLogger(&bytes.Buffer{}, style{}, "xml", false); err == nil {
		t.Error("serveLogger(xml) accepted a format it does not have")
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
