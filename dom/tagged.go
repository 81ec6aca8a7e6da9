package dom

import "encoding/json"

// Tagged wraps a Value for use as a struct field: it encodes in the tagged form,
// and nil as JSON null.
type Tagged struct{ V Value }

// MarshalJSON encodes the wrapped value, or null.
func (t Tagged) MarshalJSON() ([]byte, error) {
	if t.V == nil {
		return []byte("null"), nil
	}
	return Marshal(t.V)
}

// UnmarshalJSON decodes a tagged value, or null.
func (t *Tagged) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.V = nil
		return nil
	}
	v, err := Unmarshal(b)
	if err != nil {
		return err
	}
	t.V = v
	return nil
}

var _ json.Marshaler = Tagged{}
