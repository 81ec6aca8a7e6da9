package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// ioStreams are a command's standard streams and what they are connected to,
// injected so that tests can drive a command and pick what it sees.
type ioStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer

	// stdinTTY, stdoutTTY and stderrTTY say whether the stream is a terminal.
	stdinTTY, stdoutTTY, stderrTTY bool
	// noColor is the person's wish for no colour: NO_COLOR set to anything,
	// --no-color, or TERM=dumb. forceColor is CLICOLOR_FORCE: colour although
	// stdout is not a terminal (noColor wins over it).
	noColor, forceColor bool
}

// systemStreams are the process's streams, with what getenv says about colour.
func systemStreams(in io.Reader, out, errOut io.Writer, getenv func(string) string) *ioStreams {
	return &ioStreams{
		In: in, Out: out, ErrOut: errOut,
		stdinTTY:   isTerminal(in),
		stdoutTTY:  isTerminal(out),
		stderrTTY:  isTerminal(errOut),
		noColor:    getenv("NO_COLOR") != "" || getenv("TERM") == "dumb",
		forceColor: getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0",
	}
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorEnabled reports whether human output on stdout may carry ANSI colour.
// JSON output never does (the caller does not ask).
func (s *ioStreams) colorEnabled() bool {
	return !s.noColor && (s.stdoutTTY || s.forceColor)
}

// progressEnabled reports whether spinners may be drawn on stderr: only on a
// terminal, where a person watches and no program reads the bytes.
func (s *ioStreams) progressEnabled() bool { return s.stderrTTY }

// style is the colour of the human views on stdout: ANSI sequences, or none.
func (s *ioStreams) style() style { return style{on: s.colorEnabled()} }

// errStyle is the colour of what goes to stderr (the host's log lines).
func (s *ioStreams) errStyle() style {
	return style{on: !s.noColor && (s.stderrTTY || s.forceColor)}
}

// style wraps text in ANSI colour when on.
type style struct{ on bool }

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) bold(t string) string    { return s.wrap("1", t) }
func (s style) dim(t string) string     { return s.wrap("2", t) }
func (s style) red(t string) string     { return s.wrap("31", t) }
func (s style) green(t string) string   { return s.wrap("32", t) }
func (s style) yellow(t string) string  { return s.wrap("33", t) }
func (s style) cyan(t string) string    { return s.wrap("36", t) }
func (s style) magenta(t string) string { return s.wrap("35", t) }
