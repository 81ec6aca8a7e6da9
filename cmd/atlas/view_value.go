package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
)

// maxValueText caps a value shown in a plan; longer ones end in "…".
const maxValueText = 60

// valueText shows a property value as a person reads it: numbers in the shortest
// form that round-trips, vectors as "0, 5, 0", strings quoted, and the tagged JSON
// for the types without a plainer form. nil (absent on that side) is "(none)".
func valueText(v dom.Value) string {
	if v == nil {
		return "(none)"
	}
	var s string
	switch v := v.(type) {
	case dom.Bool:
		s = strconv.FormatBool(bool(v))
	case dom.String:
		s = strconv.Quote(string(v))
	case dom.ContentId:
		s = strconv.Quote(string(v))
	case dom.Float32:
		s = f32(float32(v))
	case dom.Float64:
		s = strconv.FormatFloat(float64(v), 'g', -1, 64)
	case dom.Int32:
		s = strconv.FormatInt(int64(v), 10)
	case dom.Int64:
		s = strconv.FormatInt(int64(v), 10)
	case dom.Enum:
		s = "enum " + strconv.FormatUint(uint64(v), 10)
	case dom.EnumItem:
		s = fmt.Sprintf("Enum.%s %d", v.EnumType, v.Value)
	case dom.BrickColor:
		s = "BrickColor " + strconv.FormatUint(uint64(v), 10)
	case dom.Vector2:
		s = f32s(v[:]...)
	case dom.Vector3:
		s = f32s(v[:]...)
	case dom.Vector2int16:
		s = fmt.Sprintf("%d, %d", v[0], v[1])
	case dom.Vector3int16:
		s = fmt.Sprintf("%d, %d, %d", v[0], v[1], v[2])
	case dom.Color3:
		// Colours are picked as 0-255 channels; rounding shows those.
		s = fmt.Sprintf("RGB %d, %d, %d", channel(v[0]), channel(v[1]), channel(v[2]))
	case dom.Color3uint8:
		s = fmt.Sprintf("RGB %d, %d, %d", v[0], v[1], v[2])
	case dom.NumberRange:
		s = f32s(v[:]...)
	case dom.UDim:
		s = fmt.Sprintf("{%s, %d}", f32(v.Scale), v.Offset)
	case dom.UDim2:
		s = fmt.Sprintf("{%s, %d}, {%s, %d}", f32(v[0].Scale), v[0].Offset, f32(v[1].Scale), v[1].Offset)
	case dom.CFrame:
		s = "at " + f32s(v.Position[:]...)
		if v.Orientation != dom.IdentityCFrame.Orientation {
			s += ", rotated"
		}
	case dom.Tags:
		s = tagList(v)
	case dom.Attributes:
		names := make([]string, 0, len(v))
		for n := range v {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + " = " + valueText(v[n])
		}
		s = "{" + strings.Join(parts, ", ") + "}"
	default:
		b, err := json.Marshal(dom.Tagged{V: v})
		if err != nil {
			return "?"
		}
		s = string(b)
	}
	if r := []rune(s); len(r) > maxValueText {
		s = string(r[:maxValueText-1]) + "…"
	}
	return s
}

func f32(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

func f32s(fs ...float32) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f32(f)
	}
	return strings.Join(parts, ", ")
}

func channel(c float32) int { return int(math.Round(float64(c) * 255)) }

func tagList(tags []string) string {
	if len(tags) == 0 {
		return "no tags"
	}
	return strings.Join(tags, ", ")
}
