package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/plan"
)

// The schemas are inferred from the Go types and then rewritten into the subset
// that every mainstream MCP client accepts. The official TypeScript SDK rejects a
// tools/list whose outputSchema holds a boolean subschema ("data": true, what an
// `any` field infers to), and schema linters flag type arrays (["null","string"]),
// which single-type dialects such as Gemini's cannot express. So:
//   - no boolean subschema anywhere in an outputSchema: structs stay open (no
//     additionalProperties), free-form maps are {"type":"object"};
//   - a nullable value is {"anyOf":[{"type":X,…},{"type":"null"}]}, never a type array;
//     arrays and maps are never null ([] and {} for none);
//   - every subschema says what it is: an untyped one is a bug, found when the
//     server starts.
// Input schemas keep "additionalProperties": false (a boolean-valued keyword every
// client understands, so that a misspelt argument is refused) and drop null: an
// argument is given or left out, never null.

// tagged is a property value in the tagged encoding, or null where absent.
var tagged = &jsonschema.Schema{
	Types:         []string{"null", "object"},
	MinProperties: jsonschema.Ptr(1),
	MaxProperties: jsonschema.Ptr(1),
	Description:   `a property value in the tagged encoding, e.g. {"Vector3":[0,5,0]}; null where absent`,
}

// nullableString is a string field that may not apply (JSON null then, never "").
func nullableString(desc string, enum ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Types: []string{"null", "string"}, Description: desc}
	for _, e := range enum {
		s.Enum = append(s.Enum, e)
	}
	return s
}

// typeSchemas are the types whose JSON is not what their Go fields say.
func typeSchemas() (map[reflect.Type]*jsonschema.Schema, error) {
	levels := make([]any, len(host.LogLevels))
	for i, l := range host.LogLevels {
		levels[i] = l
	}
	m := map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[dom.Tagged](): tagged,
		reflect.TypeFor[time.Time]():  {Type: "string", Format: "date-time"},
		// One vocabulary for studio_logs' entries and run_code's output:
		// Enum.MessageType's items.
		reflect.TypeFor[host.LogLevel](): {Type: "string", Enum: levels,
			Description: "the message's level, as Enum.MessageType names it: output (print), info, warning (warn) or error"},
	}
	change, err := jsonschema.For[plan.Change](&jsonschema.ForOptions{TypeSchemas: m})
	if err != nil {
		return nil, err
	}
	// plan.Change writes these itself (MarshalJSON): a string, or null where the
	// field does not apply.
	extra := []struct {
		name string
		s    *jsonschema.Schema
	}{
		{"direction", nullableString("push (make Studio match disk), pull (make disk match Studio), or null: unresolved", string(plan.Push), string(plan.Pull))},
		{"defaultSelection", nullableString("the three-way result: push, pull, or null", string(plan.Push), string(plan.Pull))},
		{"studioHash", nullableString("git blob SHA-1 of Studio's Source; null when Studio has no script there")},
		{"diskHash", nullableString("git blob SHA-1 of the file's Source; null when disk has no script there")},
		{"baseHash", nullableString("git blob SHA-1 in the base commit; null when the base has none")},
		{"fsPath", nullableString("the file the instance comes from, relative to the project folder; null for none")},
	}
	at := slices.Index(change.PropertyOrder, "patchType") + 1
	for i, x := range extra {
		change.Properties[x.name] = x.s
		change.Required = append(change.Required, x.name)
		change.PropertyOrder = slices.Insert(change.PropertyOrder, at+i, x.name)
	}
	m[reflect.TypeFor[plan.Change]()] = change
	return m, nil
}

// details is what every error carries; codes document further keys.
var details = &jsonschema.Schema{
	Type:        "object",
	Description: "reasonCode and nextActions, and what else the error code documents (ids, failures, …)",
	Properties: map[string]*jsonschema.Schema{
		"reasonCode":  {Type: "string", Description: "a stable, finer-grained reason"},
		"nextActions": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "what to do next"},
	},
	PropertyOrder: []string{"reasonCode", "nextActions"},
	Required:      []string{"reasonCode", "nextActions"},
}

// outputSchema is the schema of envelope.Of[T]. closed keeps structs closed
// (additionalProperties: false), which the tests check results against, so that a
// field the schema does not declare is found; clients get the open one.
func outputSchema[T any](closed bool) (*jsonschema.Schema, error) {
	ts, err := typeSchemas()
	if err != nil {
		return nil, err
	}
	s, err := jsonschema.For[envelope.Of[T]](&jsonschema.ForOptions{TypeSchemas: ts})
	if err != nil {
		return nil, err
	}
	s.Properties["errors"].Items.Properties["details"] = details.CloneSchemas()
	if err := rewrite(s, "", true, closed); err != nil {
		return nil, err
	}
	if s.Properties["data"].AnyOf == nil {
		return nil, fmt.Errorf("data of %T is not a nullable object", *new(T))
	}
	return s, nil
}

// inputSchema is In's schema, with patch applied (enums, defaults) before it is
// rewritten.
func inputSchema[In any](patch func(*jsonschema.Schema)) (*jsonschema.Schema, error) {
	ts, err := typeSchemas()
	if err != nil {
		return nil, err
	}
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: ts})
	if err != nil {
		return nil, err
	}
	if patch != nil {
		patch(s)
	}
	if err := rewrite(s, "", false, true); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("input of %T is not an object", *new(In))
	}
	return s, nil
}

// rewrite turns s, in place, into the portable subset described above.
func rewrite(s *jsonschema.Schema, path string, output, closed bool) error {
	if s.AdditionalProperties != nil {
		switch {
		case isFalse(s.AdditionalProperties):
			if output && !closed {
				s.AdditionalProperties = nil
			}
		case isEmpty(s.AdditionalProperties):
			s.AdditionalProperties = nil // a free-form map: {"type":"object"}
		default:
			if err := rewrite(s.AdditionalProperties, path+"/additionalProperties", output, closed); err != nil {
				return err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if p := s.Properties[name]; !slices.Contains(s.Required, name) {
			// An optional field is omitempty or omitzero: a nil pointer, slice or
			// map is left out, never null. (No optional field has a type whose own
			// JSON is null.)
			p.Types = slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		}
		if err := rewrite(s.Properties[name], path+"/properties/"+name, output, closed); err != nil {
			return err
		}
	}
	if output && slices.Contains(s.Types, "array") {
		// An array is never null, by the project's rule ([] for none); reply
		// enforces it (see fillNils).
		s.Types = slices.DeleteFunc(s.Types, func(t string) bool { return t == "null" })
	}
	if s.Items != nil {
		// Elements are never null: Go slices of pointers here never hold nil. A
		// tagged value is the exception: null stands for a value that has none
		// (run_code's values). Shared schemas are copied, never changed in place.
		if !isTagged(s.Items) {
			s.Items.Types = slices.DeleteFunc(slices.Clone(s.Items.Types), func(t string) bool { return t == "null" })
		}
		if len(s.Items.Types) == 1 {
			s.Items.Type, s.Items.Types = s.Items.Types[0], nil
		}
		if err := rewrite(s.Items, path+"/items", output, closed); err != nil {
			return err
		}
	}
	for i, b := range s.AnyOf {
		if err := rewrite(b, fmt.Sprintf("%s/anyOf/%d", path, i), output, closed); err != nil {
			return err
		}
	}
	if len(s.Types) == 1 {
		s.Type, s.Types = s.Types[0], nil
	}
	if len(s.Types) > 0 {
		other := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(other) != 1 {
			return fmt.Errorf("%s: type %v is not one type or one type and null", path, s.Types)
		}
		if !output {
			// An argument is given or left out, never null.
			s.Type, s.Types = other[0], nil
		} else if len(other) < len(s.Types) {
			inner := *s
			inner.Type, inner.Types, inner.Description = other[0], nil, ""
			*s = jsonschema.Schema{Description: s.Description, AnyOf: []*jsonschema.Schema{&inner, {Type: "null"}}}
		} else {
			s.Type, s.Types = other[0], nil
		}
	}
	if isUntyped(s) {
		return fmt.Errorf("%s: the schema says nothing about the value (declare it)", path)
	}
	return nil
}

// isTagged reports whether s is the tagged-value schema (one key, the type name).
func isTagged(s *jsonschema.Schema) bool {
	return s.MaxProperties != nil && *s.MaxProperties == 1 && s.MinProperties != nil && *s.MinProperties == 1
}

func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && isEmpty(s.Not) && reflect.DeepEqual(*s, jsonschema.Schema{Not: s.Not})
}

func isEmpty(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "true"
}

func isUntyped(s *jsonschema.Schema) bool {
	return s.Type == "" && s.Types == nil && s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil &&
		s.Enum == nil && s.Const == nil && s.Ref == "" && s.Not == nil
}
