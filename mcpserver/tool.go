package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/errcode"
)

// result is what a tool handler returns: its data (nil for none), warnings, the
// error that made the call fail (nil when it did not), and an optional summary for
// people, put before the JSON in the text content.
type result[T any] struct {
	data     *T
	warnings []string
	err      error
	summary  string
}

// registered describes a tool for the tests: its output schema with every struct
// closed, so that a result carrying a field the schema does not declare is found.
type registered struct {
	name, command string
	closedOutput  *jsonschema.Schema
}

// addTool adds a tool whose input is In and whose structured content is the
// envelope with data Out. The SDK's typed AddTool is not used: it answers invalid
// arguments with a bare text error, where Atlas answers every call with its
// envelope, and it cannot publish the portable schemas of schema.go.
//
// Invalid arguments (not an object, a wrong type, a missing or unknown argument,
// a value outside an enum) get one answer: a tool result with isError: true whose
// envelope has E_BAD_REQUEST (reasonCode invalid_arguments), so that the model
// reads what to fix. Unknown tools and malformed requests stay JSON-RPC errors.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, command string, patch func(*jsonschema.Schema),
	h func(context.Context, In) result[Out]) registered {
	in, err := inputSchema[In](patch)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: input schema: %v", t.Name, err))
	}
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: input schema: %v", t.Name, err))
	}
	out, err := outputSchema[Out](false)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: output schema: %v", t.Name, err))
	}
	closed, err := outputSchema[Out](true)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: output schema: %v", t.Name, err))
	}
	tool := *t
	tool.InputSchema, tool.OutputSchema = in, out
	s.AddTool(&tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := decodeArgs[In](req.Params.Arguments, resolved)
		if err != nil {
			return reply(command, result[Out]{err: err}), nil
		}
		return replyAs(command, h(ctx, args), out), nil
	})
	return registered{name: t.Name, command: command, closedOutput: closed}
}

// decodeArgs validates a call's arguments against the tool's input schema (after
// filling in its defaults) and decodes them.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return in, badArguments("the arguments are not a JSON object: %v", err)
		}
	}
	var v any = args
	if err := schema.ApplyDefaults(&v); err != nil {
		return in, badArguments("%v", err)
	}
	if err := schema.Validate(&v); err != nil {
		return in, badArguments("%v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return in, badArguments("%v", err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, badArguments("%v", err)
	}
	return in, nil
}

func badArguments(format string, args ...any) error {
	return errcode.New(errcode.BadRequest, "invalid arguments: "+format, args...).
		Reason(errcode.ReasonInvalidArguments, errcode.NextFixRequest)
}

// reply builds a tool result: the envelope as structured content, and the same
// envelope as text (after the summary, if any).
func reply[T any](command string, r result[T]) *mcp.CallToolResult {
	return replyAs(command, r, nil)
}

// replyAs is reply for a tool whose output schema is schema: a nil slice or map in
// the data (a bug: the project writes [] and {} for none) goes out as [] or {}, as
// the schema promises, rather than as a null that a client's validation rejects.
func replyAs[T any](command string, r result[T], schema *jsonschema.Schema) *mcp.CallToolResult {
	e := envelope.Typed(command, r.data, r.warnings, r.err)
	addHints(e.Errors)
	env := e.Marshal()
	if schema != nil && nilsInside(reflect.ValueOf(e)) {
		var v any
		if json.Unmarshal(env, &v) == nil {
			if b, err := json.Marshal(fillNils(v, schema)); err == nil {
				env = b
			}
		}
	}
	if len(env) > MaxResultBytes {
		// Clients drop a message over their buffer (the TypeScript SDK's is 10 MiB)
		// and with it the connection: refuse instead, saying how big it was. A
		// call that did its work (an apply) says so, with the gist of its result.
		err := errcode.New(errcode.PayloadTooLarge, "the result is %d bytes; the limit is %d (MCP clients drop larger messages, and the connection with them)", len(env), MaxResultBytes).
			Reason(errcode.ReasonPayloadTooLarge, errcode.NextSendLess)
		if g, ok := any(r.data).(interface{ Gist() map[string]any }); ok && r.err == nil && r.data != nil {
			err = errcode.New(errcode.PayloadTooLarge, "the call succeeded, but its result is %d bytes, over the %d a message may have (MCP clients drop larger messages, and the connection with them): details.result has its gist", len(env), MaxResultBytes).
				Reason(errcode.ReasonPayloadTooLarge, errcode.NextShowStatus).With("result", g.Gist())
		}
		e = envelope.Typed[T](command, nil, r.warnings, err)
		addHints(e.Errors)
		env = e.Marshal()
		r = result[T]{err: err}
	}
	text := string(env)
	if r.summary != "" {
		text = r.summary + "\n<json>" + text + "</json>"
	}
	if len(env) > MaxDuplicateBytes && len(env)+escapedLen(text) > MaxResultBytes {
		// Both copies would pass the limit: the text says where the envelope is.
		text = fmt.Sprintf("The result's JSON envelope (%d bytes) is in structuredContent only: with a copy here it would pass the %d bytes a message may have.", len(env), MaxResultBytes)
		if r.summary != "" {
			text = r.summary + "\n" + text
		}
	}
	return &mcp.CallToolResult{
		IsError:           r.err != nil,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(env),
	}
}

// MaxResultBytes caps a tool result's JSON envelope, and with its copy as text the
// whole result: the official TypeScript SDK drops a message over 10 MiB, and the
// connection with it. MaxDuplicateBytes is the size from which the copy is weighed.
const (
	MaxResultBytes    = 8 << 20
	MaxDuplicateBytes = 1 << 20
)

// escapedLen is the length of s as a JSON string.
func escapedLen(s string) int {
	b, err := json.Marshal(s)
	if err != nil {
		return len(s)
	}
	return len(b)
}

// nilsInside reports whether v holds a nil slice or map that JSON writes as null
// (a field without omitempty or omitzero).
func nilsInside(v reflect.Value) bool {
	if !mayHoldNils(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && nilsInside(v.Elem())
	case reflect.Struct:
		for _, f := range fieldChecks(v.Type()) {
			fv := v.Field(f.index)
			if f.nilable && fv.IsNil() {
				return true
			}
			if nilsInside(fv) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if nilsInside(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if nilsInside(it.Value()) {
				return true
			}
		}
	}
	return false
}

// fieldCheck is a struct field JSON writes that may hold a nil slice or map.
type fieldCheck struct {
	index   int
	nilable bool // a slice or map without omitempty or omitzero
}

var (
	mayHoldCache sync.Map // reflect.Type → bool
	fieldsCache  sync.Map // reflect.Type → []fieldCheck
)

// mayHoldNils reports whether a value of t can hold a slice or map that JSON
// writes; the walk skips the rest (strings, numbers, tagged values, …).
func mayHoldNils(t reflect.Type) bool {
	if b, ok := mayHoldCache.Load(t); ok {
		return b.(bool)
	}
	mayHoldCache.Store(t, false) // a recursive type: assume no until known
	var b bool
	switch t.Kind() {
	case reflect.Pointer, reflect.Array:
		b = mayHoldNils(t.Elem())
	case reflect.Slice, reflect.Map:
		b = true
	case reflect.Struct:
		b = len(fieldChecks(t)) > 0
	}
	mayHoldCache.Store(t, b)
	return b
}

// fieldChecks lists the fields of struct type t that the walk looks at.
func fieldChecks(t reflect.Type) []fieldCheck {
	if fc, ok := fieldsCache.Load(t); ok {
		return fc.([]fieldCheck)
	}
	var out []fieldCheck
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		_, opts, _ := strings.Cut(tag, ",")
		omitted := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		k := f.Type.Kind()
		nilable := (k == reflect.Slice || k == reflect.Map) && !omitted
		if nilable || mayHoldNils(f.Type) {
			out = append(out, fieldCheck{index: i, nilable: nilable})
		}
	}
	fieldsCache.Store(t, out)
	return out
}

// fillNils replaces, in a decoded JSON value, each null that schema says is an
// array or an object with [] or {}.
func fillNils(v any, schema *jsonschema.Schema) any {
	s := nonNull(schema)
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case nil:
		switch {
		case schema.AnyOf != nil: // null is allowed
		case s.Type == "array":
			return []any{}
		case s.Type == "object":
			return map[string]any{}
		}
	case map[string]any:
		for k, val := range x {
			if p, ok := s.Properties[k]; ok {
				x[k] = fillNils(val, p)
			} else if s.AdditionalProperties != nil {
				x[k] = fillNils(val, s.AdditionalProperties)
			}
		}
	case []any:
		for i := range x {
			x[i] = fillNils(x[i], s.Items)
		}
	}
	return v
}

// nonNull is s, or the branch of a nullable s that is not null.
func nonNull(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || s.AnyOf == nil {
		return s
	}
	for _, b := range s.AnyOf {
		if b.Type != "null" {
			return b
		}
	}
	return nil
}
