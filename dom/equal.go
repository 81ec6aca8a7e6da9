package dom

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Epsilon is the tolerance for float components: Studio round-trips floats through
// f32 and its own formatting, so values within 1e-4 are the same value.
const Epsilon = 1e-4

// Equal reports whether a and b are the same value: same type, floats within Epsilon
// per component, everything else exact. Two nils are equal.
func Equal(a, b Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Type() != b.Type() {
		return false
	}
	switch av := a.(type) {
	case String:
		return av == b.(String)
	case Bool:
		return av == b.(Bool)
	case Enum:
		return av == b.(Enum)
	case Float32:
		return near(float64(av), float64(b.(Float32)))
	case Float64:
		return near(float64(av), float64(b.(Float64)))
	case Int32:
		return av == b.(Int32)
	case Int64:
		return av == b.(Int64)
	case Vector3:
		bv := b.(Vector3)
		return nearAll(av[:], bv[:])
	case Vector2:
		bv := b.(Vector2)
		return nearAll(av[:], bv[:])
	case Color3:
		bv := b.(Color3)
		return nearAll(av[:], bv[:])
	case NumberRange:
		bv := b.(NumberRange)
		return nearAll(av[:], bv[:])
	case Color3uint8:
		return av == b.(Color3uint8)
	case Vector2int16:
		return av == b.(Vector2int16)
	case Vector3int16:
		return av == b.(Vector3int16)
	case UDim:
		bv := b.(UDim)
		return av.Offset == bv.Offset && near(float64(av.Scale), float64(bv.Scale))
	case UDim2:
		bv := b.(UDim2)
		return av[0].Offset == bv[0].Offset && av[1].Offset == bv[1].Offset &&
			near(float64(av[0].Scale), float64(bv[0].Scale)) && near(float64(av[1].Scale), float64(bv[1].Scale))
	case Attributes:
		if eq, ok := attributesEqual(av, b.(Attributes)); ok {
			return eq
		}
	case CFrame:
		bv := b.(CFrame)
		return nearAll(av.Position[:], bv.Position[:]) && nearAll(av.Orientation[0][:], bv.Orientation[0][:]) &&
			nearAll(av.Orientation[1][:], bv.Orientation[1][:]) && nearAll(av.Orientation[2][:], bv.Orientation[2][:])
	}
	ja, errA := Marshal(a)
	jb, errB := Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	if bytes.Equal(ja, jb) {
		return true
	}
	return EqualJSON(ja, jb)
}

// attributesEqual compares two attribute maps value by value; ok is false where a
// value is missing (nil), which the tagged JSON comparison decides instead.
func attributesEqual(a, b Attributes) (eq, ok bool) {
	if len(a) != len(b) {
		return false, true
	}
	for k, x := range a {
		y, found := b[k]
		if !found {
			return false, true
		}
		if x == nil || y == nil {
			return false, false
		}
		if !Equal(x, y) {
			return false, true
		}
	}
	return true, true
}

// nearAll reports whether a and b have the same length and are near element by
// element: what comparing their tagged JSON arrays would say, without encoding them.
func nearAll(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(float64(a[i]), float64(b[i])) {
			return false
		}
	}
	return true
}

func near(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= Epsilon
}

// EqualJSON compares two JSON documents structurally, numbers within Epsilon
// (integers that do not fit a float64 exactly are compared exactly).
func EqualJSON(a, b []byte) bool {
	va, okA := decodeGeneric(a)
	vb, okB := decodeGeneric(b)
	return okA && okB && equalGeneric(va, vb)
}

func decodeGeneric(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func equalGeneric(a, b any) bool {
	switch av := a.(type) {
	case json.Number:
		bv, ok := b.(json.Number)
		if !ok {
			return false
		}
		if av == bv {
			return true
		}
		ia, errA := strconv.ParseInt(string(av), 10, 64)
		ib, errB := strconv.ParseInt(string(bv), 10, 64)
		if errA == nil && errB == nil && (abs64(ia) > 1<<53 || abs64(ib) > 1<<53) {
			return ia == ib
		}
		// u64 values (SecurityCapabilities) above the int64 range.
		ua, errA := strconv.ParseUint(string(av), 10, 64)
		ub, errB := strconv.ParseUint(string(bv), 10, 64)
		if errA == nil && errB == nil && (ua > 1<<53 || ub > 1<<53) {
			return ua == ub
		}
		fa, errA := av.Float64()
		fb, errB := bv.Float64()
		return errA == nil && errB == nil && near(fa, fb)
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equalGeneric(av[i], bv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !equalGeneric(x, y) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
