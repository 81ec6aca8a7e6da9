package protocol

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// UnmarshalJSON decodes a snapshot instance as json.Unmarshal decodes the plain
// struct, faster: a whole snapshot holds tens of thousands of them. The plugin's
// form (its field names, strings without escapes, properties as an object) is read
// here; anything else (another spelling of a field name, an escape, a value of
// another type) is left to encoding/json, from the start.
//
// json.Unmarshal checks the whole document before it calls UnmarshalJSON, so data
// is one valid JSON value.
func (s *SnapshotInstance) UnmarshalJSON(data []byte) error {
	var fast SnapshotInstance
	if met, ok := decodeInstance(data, &fast); ok {
		s.merge(&fast, met)
		return nil
	}
	type snapshotInstance SnapshotInstance // without this method
	return json.Unmarshal(data, (*snapshotInstance)(s))
}

// The fields a fast decode met.
const (
	metHandle uint8 = 1 << iota
	metParent
	metName
	metClass
	metProps
	metFrom
	metHash
	metEditor
)

// merge sets the fields of s that the document held (met), as encoding/json does: a
// field it does not hold keeps its value, and properties go into the map s has.
func (s *SnapshotInstance) merge(f *SnapshotInstance, met uint8) {
	if met&metHandle != 0 {
		s.Handle = f.Handle
	}
	if met&metParent != 0 {
		s.Parent = f.Parent
	}
	if met&metName != 0 {
		s.Name = f.Name
	}
	if met&metClass != 0 {
		s.ClassName = f.ClassName
	}
	if met&metProps != 0 {
		if s.Properties == nil || f.Properties == nil {
			s.Properties = f.Properties
		} else {
			for k, v := range f.Properties {
				s.Properties[k] = v
			}
		}
	}
	if met&metFrom != 0 {
		s.SourceFrom = f.SourceFrom
	}
	if met&metHash != 0 {
		s.SourceHash = f.SourceHash
	}
	if met&metEditor != 0 {
		s.EditorSha1 = f.EditorSha1
	}
}

// decodeInstance decodes data into s, and says which fields it held, when it is in
// the plugin's form: each field once, spelt as the plugin does, strings without
// escapes. False when encoding/json must decode it.
func decodeInstance(data []byte, s *SnapshotInstance) (met uint8, ok bool) {
	var seen uint8
	ok = eachOf(data, func(key, value []byte) bool {
		var dst *string
		var bit uint8
		switch string(key) {
		case `"handle"`:
			dst, bit = &s.Handle, metHandle
		case `"name"`:
			dst, bit = &s.Name, metName
		case `"className"`:
			dst, bit = &s.ClassName, metClass
		case `"sourceFrom"`:
			dst, bit = &s.SourceFrom, metFrom
		case `"sourceHash"`:
			dst, bit = &s.SourceHash, metHash
		case `"editorSha1"`:
			dst, bit = &s.EditorSha1, metEditor
		case `"parent"`:
			bit = metParent
		case `"properties"`:
			bit = metProps
		default:
			return false
		}
		if seen&bit != 0 {
			return false // a field twice
		}
		seen |= bit
		if dst != nil && string(value) == "null" {
			return true // a null leaves a string as it is
		}
		met |= bit
		switch {
		case bit == metParent:
			if string(value) == "null" {
				s.Parent = nil
				return true
			}
			p, ok := plainString(value)
			s.Parent = &p
			return ok
		case bit == metProps:
			if string(value) == "null" {
				s.Properties = nil
				return true
			}
			s.Properties = Values{}
			return eachOf(value, func(key, value []byte) bool {
				name, ok := plainString(key)
				if ok {
					s.Properties[name] = json.RawMessage(append([]byte(nil), value...))
				}
				return ok
			})
		}
		v, ok := plainString(value)
		*dst = v
		return ok
	})
	return met, ok
}

// plainString returns the text of a JSON string without escapes, in UTF-8; false
// for anything else.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// errNotFast stops EachField where the fast decode gives way to encoding/json.
var errNotFast = errors.New("not in the plugin's form")

// eachOf is EachField with fn saying whether to go on; false when data is not an
// object or fn said no.
func eachOf(data []byte, fn func(key, value []byte) bool) bool {
	return EachField(data, func(key, value []byte) error {
		if !fn(key, value) {
			return errNotFast
		}
		return nil
	}) == nil
}
