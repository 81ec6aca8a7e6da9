package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// timed runs fn and returns how long it took.
func timed(fn func() error) (time.Duration, error) {
	start := time.Now()
	err := fn()
	return time.Since(start), err
}

// median runs fn n times and returns the median of its durations; a failed run
// panics with its error (a harness that measured a failure would print a lie).
func median(n int, fn func() (time.Duration, error)) time.Duration {
	ds := make([]time.Duration, 0, n)
	for range n {
		d, err := fn()
		if err != nil {
			panic(err)
		}
		ds = append(ds, d)
	}
	return medianOf(ds)
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio formats a/b as "1.5×", or "—" when there is no yardstick.
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// print writes the table in Markdown.
func (t *table) print(w io.Writer, size string) {
	fmt.Fprintf(w, "\n### %s scripts (%d instances, %.1f MB of files)\n\n", size, t.gen.Instances, float64(t.gen.Bytes)/1e6)
	fmt.Fprintf(w, "`git status --porcelain`: %s; `git hash-object --stdin-paths` of %d files: %s\n\n", ms(t.status), len(t.gen.Files), ms(t.hob))
	fmt.Fprintln(w, "| operation (through the CLI) | median | ratio |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range t.rows {
		yard := time.Duration(0)
		label := ""
		switch r.yardstick {
		case "status":
			yard, label = t.status, " of git status"
		case "hash-object":
			yard, label = t.hob, " of git hash-object"
		}
		rat := ratio(r.value, yard)
		if yard > 0 {
			rat += label
		}
		name := r.name
		if r.note != "" {
			name += " (" + r.note + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, ms(r.value), rat)
	}
	fmt.Fprintln(w)
	for _, l := range t.rss {
		fmt.Fprintf(w, "- %s\n", l)
	}
}
