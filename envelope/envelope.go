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
	Code    errcode.Code   `json:"code" jsonschema:"a stable error code, E_…"`
	Message string         `json:"message" jsonschema:"what went wrong, for a person"`
	Details map[string]any `json:"details,omitempty" jsonschema:"reasonCode, nextActions and what else the code documents"`
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

// Fail returns an envelope for err; data may carry partial results, or be nil for
// none (JSON null, as over MCP).
func Fail(command string, err error, data any, warnings []string) *Envelope {
	if warnings == nil {
		warnings = []string{}
	}
	return &Envelope{SchemaVersion: SchemaVersion, OK: false, Command: command, Data: data, Warnings: warnings, Errors: []Problem{problemOf(err)}}
}

// problemOf describes err, with details that always carry reasonCode and nextActions.
func problemOf(err error) Problem {
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
	return Problem{Code: ce.Code, Message: ce.Message, Details: details}
}

// Of is the envelope with data of type T: MCP tools publish its JSON Schema as their
// outputSchema, so each tool's data is typed. Data is null when a call failed
// without partial results.
type Of[T any] struct {
	SchemaVersion int       `json:"schemaVersion" jsonschema:"the envelope's version (1); it changes only with a breaking change"`
	OK            bool      `json:"ok" jsonschema:"true when the call did what it was asked; false with errors[] otherwise"`
	Command       string    `json:"command" jsonschema:"the command that answered, e.g. sync.plan"`
	Data          *T        `json:"data" jsonschema:"the result; null when the call failed without partial results"`
	Warnings      []string  `json:"warnings" jsonschema:"things worth knowing that did not stop the call"`
	Errors        []Problem `json:"errors" jsonschema:"why the call failed (empty when ok)"`
}

// Typed returns the envelope of a call: data and warnings, or err with data as
// partial results (nil for none).
func Typed[T any](command string, data *T, warnings []string, err error) *Of[T] {
	if warnings == nil {
		warnings = []string{}
	}
	e := &Of[T]{SchemaVersion: SchemaVersion, OK: err == nil, Command: command, Data: data, Warnings: warnings, Errors: []Problem{}}
	if err != nil {
		e.Errors = []Problem{problemOf(err)}
	}
	return e
}

// Marshal encodes the envelope as one line of JSON.
func (e *Of[T]) Marshal() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(Typed[T](e.Command, nil, nil, errcode.Wrap(errcode.Internal, err, "encode result")))
	}
	return b
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
