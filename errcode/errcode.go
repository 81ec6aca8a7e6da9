// Package errcode holds Atlas's stable error codes and the error type that carries
// one from deep in the engine to the CLI and MCP edges.
package errcode

import (
	"errors"
	"fmt"
)

// Code is a stable, documented error code ("E_…"). Users and scripts branch on it.
type Code string

// The public error codes (ARCHITECTURE §6). Never rename one.
const (
	ConfirmRequired      Code = "E_CONFIRM_REQUIRED"
	ConfirmTokenRequired Code = "E_CONFIRM_TOKEN_REQUIRED"
	ConfirmTokenInvalid  Code = "E_CONFIRM_TOKEN_INVALID"
	ConfirmTokenExpired  Code = "E_CONFIRM_TOKEN_EXPIRED"
	ConfirmTokenMismatch Code = "E_CONFIRM_TOKEN_MISMATCH"
	ConfirmTokenReplayed Code = "E_CONFIRM_TOKEN_REPLAYED"
	OverrideUnknownID    Code = "E_OVERRIDE_UNKNOWN_ID"
	PreconditionFailed   Code = "E_PRECONDITION_FAILED"
	Unresolved           Code = "E_UNRESOLVED"
	StudioNotConnected   Code = "E_STUDIO_NOT_CONNECTED"
	StudioAmbiguous      Code = "E_STUDIO_AMBIGUOUS"
	StudioTimeout        Code = "E_STUDIO_TIMEOUT"
	Busy                 Code = "E_BUSY"
	NoHost               Code = "E_NO_HOST"
	ProjectInvalid       Code = "E_PROJECT_INVALID"
	NotFound             Code = "E_NOT_FOUND"
	NotAScript           Code = "E_NOT_A_SCRIPT"
	PayloadTooLarge      Code = "E_PAYLOAD_TOO_LARGE"
	Internal             Code = "E_INTERNAL"

	// Codes beyond the core list, for usage errors and plugin-side failures.
	BadRequest  Code = "E_BAD_REQUEST"
	ApplyFailed Code = "E_APPLY_FAILED"
	Usage       Code = "E_USAGE"
	// NodeMissing: the Studio emulator (atlas demo, --emulate) needs Node.js on PATH,
	// and it is missing, broken or older than the emulator supports.
	NodeMissing Code = "E_NODE_MISSING"
	// DiskFull: a write failed because the disk or the user's quota is full
	// (ENOSPC, EDQUOT; ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL on Windows). Its
	// reasonCode is "disk_full". Nothing was lost: what could not be written is
	// still where it was, and the operation can be retried once space is freed.
	DiskFull Code = "E_DISK_FULL"
	// StudioReadOnly: a sync, apply or undo named a playtest's session (context
	// server or client), which Atlas only reads (query, logs, run_code).
	StudioReadOnly Code = "E_STUDIO_READ_ONLY"
)

// Error is an error with a stable code, a human message and machine-readable details.
// A refusal's details carry "reasonCode" (a Reason) and "nextActions" (NextAction
// identifiers), set by Reason; each surface renders its own hint from them.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	Err     error // the cause, if any; not shown to users beyond Message
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error whose message is msg and whose cause is err.
// The message includes the cause so that nothing is lost on the way to the user.
func Wrap(code Code, err error, msg string) *Error {
	m := msg
	switch {
	case err != nil && msg == "":
		m = err.Error()
	case err != nil:
		m = msg + ": " + err.Error()
	}
	return &Error{Code: code, Message: m, Err: err}
}

// With sets a detail and returns e, for chaining.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Reason sets details.reasonCode and details.nextActions, as plain strings so that
// the details read the same before and after a trip through JSON.
func (e *Error) Reason(reason Reason, next ...NextAction) *Error {
	e.With("reasonCode", string(reason))
	ids := make([]string, len(next))
	for i, n := range next {
		ids[i] = string(n)
	}
	return e.With("nextActions", ids)
}

// ReasonCode returns details.reasonCode, or "" when there is none.
func (e *Error) ReasonCode() Reason {
	switch r := e.Details["reasonCode"].(type) {
	case string:
		return Reason(r)
	case Reason:
		return r
	}
	return ""
}

// NextActions returns details.nextActions, as set by Reason or decoded from JSON.
func (e *Error) NextActions() []NextAction {
	var out []NextAction
	switch next := e.Details["nextActions"].(type) {
	case []string:
		for _, n := range next {
			out = append(out, NextAction(n))
		}
	case []NextAction:
		out = append(out, next...)
	case []any:
		for _, n := range next {
			if s, ok := n.(string); ok {
				out = append(out, NextAction(s))
			}
		}
	}
	return out
}

// Of returns the code of err: the code of the first *Error in its chain, else Internal.
func Of(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns the first *Error in err's chain, or wraps err as an Internal one.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: err.Error(), Err: err}
}
