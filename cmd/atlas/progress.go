package main

import (
	"fmt"
	"io"
	"time"
)

// spinner shows that a call is waiting: "⠹ planning 2.4s" on stderr, redrawn in
// place, from delay after the call began (quicker calls draw nothing), and erased
// when it ends. It is used only on a terminal; nil shows nothing.
type spinner struct {
	w            io.Writer
	delay, every time.Duration
}

// newSpinner is the spinner for a terminal: it shows work over about a second.
func newSpinner(w io.Writer) *spinner {
	return &spinner{w: w, delay: time.Second, every: 100 * time.Millisecond}
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// wait runs call, with the spinner drawn while it takes longer than the delay.
func (s *spinner) wait(label string, call func()) {
	if s == nil {
		call()
		return
	}
	done, drawn := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(drawn)
		delay := time.NewTimer(s.delay)
		defer delay.Stop()
		select {
		case <-done:
			return
		case <-delay.C:
		}
		tick := time.NewTicker(s.every)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(s.w, "\r\x1b[2K%s %s %.1fs", spinnerFrames[i%len(spinnerFrames)], label, time.Since(start).Seconds())
			select {
			case <-done:
				fmt.Fprint(s.w, "\r\x1b[2K")
				return
			case <-tick.C:
			}
		}
	}()
	call()
	close(done)
	<-drawn
}
