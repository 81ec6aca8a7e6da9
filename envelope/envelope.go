// Package envelope is the JSON envelope every --json output and every MCP result
// carries: {"schemaVersion":1,"ok":…,"command":…,"data":…,"warnings":[…],"errors":[…]}.
package envelope

import (
	"encoding/json"

	"github.com/atlas-rbx/atlas/errcode"
)

// SchemaVersion is the envelope's version; it changes only with a breaking change.
const SchemaVersion = 1

// Envelope is the outer shape of every machine-readable answer.
type Envelope struct {
	SchemaVersion int       `json:"schemaVersion"`
	OK            bool      `json:"ok"`
	Command       string    `json:"command"`
	Data          any       `json:"data"`
	Warnings      []string  `json:"warnings"`
	Errors        []Problem `json:"errors"`
}

// Problem is one error in the envelope.
type Problem struct {
	Code    errcode.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// OK returns a successful envelope.
func OK(command string, data any, warnings []string) *Envelope {
	if warnings == nil {
		warnings = []string{}
	}
	if data == nil {
		data = struct{}{}
	}
	return &Envelope{SchemaVersion: SchemaVersion, OK: true, Command: command, Data: data, Warnings: warnings, Errors: []Problem{}}
}

// Fail returns an envelope for err; data may carry partial results (or be nil).
func Fail(command string, err error, data any, warnings []string) *Envelope {
	e := OK(command, data, warnings)
	e.OK = false
	ce := errcode.As(err)
	details := ce.Details
	if details == nil {
		details = map[string]any{}
	}
	if _, ok := details["reasonCode"]; !ok {
		details["reasonCode"] = reasonFor(ce.Code)
	}
	if _, ok := details["nextActions"]; !ok {
		details["nextActions"] = []string{}
	}
	e.Errors = []Problem{{Code: ce.Code, Message: ce.Message, Details: details}}
	return e
}

func reasonFor(c errcode.Code) string {
	s := string(c)
	if len(s) > 2 && s[:2] == "E_" {
		s = s[2:]
	}
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			b[i] = ch + 'a' - 'A'
		}
	}
	return string(b)
}

// Marshal encodes the envelope as one line of JSON.
func (e *Envelope) Marshal() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(Fail(e.Command, errcode.Wrap(errcode.Internal, err, "encode result"), nil, nil))
	}
	return b
}
