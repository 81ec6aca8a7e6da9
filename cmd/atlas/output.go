package main

import (
	"fmt"
	"io"

	"github.com/atlas-rbx/atlas/envelope"
)

// emit prints a command's result: the envelope on stdout with --json, else the
// human view (when there is one); warnings go to stderr.
func (s *ioStreams) emit(jsonMode bool, command string, data any, warnings []string, human func(w io.Writer)) {
	if jsonMode {
		fmt.Fprintln(s.Out, string(envelope.OK(command, data, warnings).Marshal()))
		return
	}
	if human != nil {
		human(s.Out)
	}
	for _, w := range warnings {
		fmt.Fprintln(s.ErrOut, "warning:", w)
	}
}
