package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plan"
)

// readOverrides reads the --overrides file and the --override ID=DIR flags. It
// parses them; their rules are apply.ValidateOverrides's.
func (a *app) readOverrides(c *cli.Command) ([]apply.Override, error) {
	var out []apply.Override
	if f := c.String("overrides"); f != "" {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(a.stdin)
		} else {
			if !filepath.IsAbs(f) {
				f = filepath.Join(a.cwd, f)
			}
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.BadRequest, err, "read overrides").Reason(errcode.ReasonBadOverrides, errcode.NextFixRequest)
		}
		ovs, err := parseOverrides(data)
		if err != nil {
			return nil, err
		}
		out = ovs
	}
	for _, s := range c.StringSlice("override") {
		id, dir, ok := strings.Cut(s, "=")
		if !ok || id == "" {
			return nil, errcode.New(errcode.BadRequest, "--override %q is not ID=push|pull|skip", s).Reason(errcode.ReasonBadOverride, errcode.NextPassOverride)
		}
		out = append(out, apply.Override{ID: strings.TrimSpace(id), Direction: plan.Direction(strings.TrimSpace(dir))})
	}
	return out, nil
}

// overridesShape is the shape an overrides file must have, for messages.
const overridesShape = "a JSON array of {id, direction, studioHash?, diskHash?, expectedProperties?}"

// parseOverrides parses an overrides file: one JSON array of override objects and
// nothing else (whitespace aside). `null`, an object, a string or an array followed
// by more text are refused, so a mistyped file never passes as "no overrides".
func parseOverrides(data []byte) ([]apply.Override, error) {
	bad := func(err error, what string) error {
		e := errcode.New(errcode.BadRequest, "overrides must be %s; %s", overridesShape, what)
		if err != nil {
			e = errcode.Wrap(errcode.BadRequest, err, "overrides must be "+overridesShape)
		}
		return e.Reason(errcode.ReasonBadOverrides, errcode.NextFixRequest)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad(nil, "the file is empty")
	}
	if trimmed[0] != '[' {
		return nil, bad(nil, fmt.Sprintf("it starts with %q", firstToken(trimmed)))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	out := []apply.Override{}
	if err := dec.Decode(&out); err != nil {
		return nil, bad(err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(nil, fmt.Sprintf("text follows the array at byte %d", dec.InputOffset()))
	}
	return out, nil
}

// firstToken is the start of b, for a message about what a file holds.
func firstToken(b []byte) string {
	if i := bytes.IndexAny(b, " \t\r\n,:[]{}"); i > 0 {
		b = b[:i]
	}
	if len(b) > 20 {
		b = b[:20]
	}
	return string(b)
}
