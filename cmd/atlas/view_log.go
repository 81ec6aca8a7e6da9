package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// humanHandler is the slog.Handler of `atlas serve` by default: it prints the
// host's events a person follows (the host started, Studio connected, a
// transaction applied) as sentences, every warning and error, and nothing else.
// --log-format json and --verbose print the structured records instead.
type humanHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	style style
	now   func() time.Time
	attrs []slog.Attr
}

func newHumanHandler(w io.Writer, st style) *humanHandler {
	return &humanHandler{w: w, mu: &sync.Mutex{}, style: st, now: time.Now}
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *humanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup keeps the attributes flat: the sentences name them one by one.
func (h *humanHandler) WithGroup(string) slog.Handler { return h }

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]slog.Value{}
	var order []string
	add := func(a slog.Attr) bool {
		if _, seen := attrs[a.Key]; !seen {
			order = append(order, a.Key)
		}
		attrs[a.Key] = a.Value.Resolve()
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	line := humanLine(r.Level, r.Message, attrs, order, h.style)
	if line == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := fmt.Fprintf(h.w, "%s %s\n", h.style.dim(h.now().Format("15:04:05")), line)
	return err
}

// humanLine is the sentence for one record, or "" for one a person need not see.
func humanLine(level slog.Level, msg string, attrs map[string]slog.Value, order []string, st style) string {
	get := func(k string) string {
		if v, ok := attrs[k]; ok {
			return v.String()
		}
		return ""
	}
	num := func(k string) int64 {
		if v, ok := attrs[k]; ok && v.Kind() == slog.KindInt64 {
			return v.Int64()
		}
		return 0
	}
	switch msg {
	case "host started":
		return fmt.Sprintf("Atlas host for %s on %s (%s); Ctrl+C stops it", st.bold(get("project")), get("address"), get("file"))
	case "emulator started":
		return "Studio emulator started: the real plugin on a mock place"
	case "studio connected":
		return fmt.Sprintf("%s %s (place %s, session %s)", st.green("Studio connected:"), get("placeName"), get("placeId"), get("session"))
	case "studio disconnected":
		line := fmt.Sprintf("%s session %s", st.yellow("Studio disconnected:"), get("session"))
		if e := get("err"); e != "" && e != "<nil>" {
			line += st.dim(" (" + e + ")")
		}
		return line
	case "applied":
		if get("txId") == "" {
			// Every change was left as it was: nothing written, no transaction.
			s := num("skipped")
			return fmt.Sprintf("Applied nothing (%d %s left as %s; no transaction)", s, plural(int(s), "change", "changes"), plural(int(s), "it was", "they were"))
		}
		n := num("changes")
		line := fmt.Sprintf("Applied transaction %s (%d %s: %d Studio %s, %d %s)", get("txId"), n, plural(int(n), "change", "changes"),
			num("studioOps"), plural(int(num("studioOps")), "op", "ops"), num("files"), plural(int(num("files")), "file", "files"))
		if s := num("skipped"); s > 0 {
			line += fmt.Sprintf(", %d left as %s", s, plural(int(s), "it was", "they were"))
		}
		return line
	case "undone":
		return fmt.Sprintf("Undid transaction %s (%d Studio %s, %d %s)", get("txId"),
			num("studioOps"), plural(int(num("studioOps")), "op", "ops"), num("files"), plural(int(num("files")), "file", "files"))
	case "finished open transaction":
		return fmt.Sprintf("Finished open transaction %s: %s", get("txId"), get("state"))
	case "plugin handshake refused":
		return fmt.Sprintf("%s %s: %s", st.yellow("Refused a Studio plugin from"), get("remote"), get("err"))
	}
	if level < slog.LevelWarn {
		return ""
	}
	var b strings.Builder
	if level >= slog.LevelError {
		b.WriteString(st.red("error: "))
	} else {
		b.WriteString(st.yellow("warning: "))
	}
	b.WriteString(msg)
	for _, k := range order {
		fmt.Fprintf(&b, " %s=%s", k, attrs[k].String())
	}
	return b.String()
}

// serveLogger is the logger of a host the CLI runs: human sentences by default,
// structured records with --log-format text|json, at debug level with --verbose.
func serveLogger(w io.Writer, st style, format string, verbose bool) (*slog.Logger, error) {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "", "human":
		if verbose {
			return slog.New(slog.NewTextHandler(w, opts)), nil
		}
		return slog.New(newHumanHandler(w, st)), nil
	}
	return nil, fmt.Errorf("--log-format must be human, text or json, not %q", format)
}
