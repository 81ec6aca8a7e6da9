package format

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// LuaFromTOML turns a .toml module into the Source Rojo gives it: "return " and the
// document as a Luau table with keys in sorted byte order. Integers become float64,
// datetimes become strings in TOML form ("1979-05-27T07:32:00Z", fractional seconds
// without trailing zeros), NaN becomes 0/0 and ±inf ±math.huge. An empty file gives
// "return {\n}", and a leading byte order mark is skipped.
func LuaFromTOML(data []byte) (string, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return "", fmt.Errorf("parse toml: %w", err)
	}
	v, err := luaFromTOMLValue(doc)
	if err != nil {
		return "", err
	}
	return luaReturn(v)
}

func luaFromTOMLValue(v any) (luaValue, error) {
	switch v := v.(type) {
	case string:
		return luaValue{kind: luaString, s: v}, nil
	case bool:
		return luaValue{kind: luaBool, b: v}, nil
	case int64:
		return luaValue{kind: luaNumber, n: float64(v)}, nil
	case float64:
		return luaValue{kind: luaNumber, n: v}, nil
	case time.Time:
		return luaValue{kind: luaString, s: tomlDatetime(v)}, nil
	case []any:
		return luaArrayFromTOML(v)
	case []map[string]any:
		return luaArrayFromTOML(v) // an array of tables
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		pairs := make([]luaPair, len(keys))
		for i, k := range keys {
			value, err := luaFromTOMLValue(v[k])
			if err != nil {
				return luaValue{}, err
			}
			pairs[i] = luaPair{luaValue{kind: luaString, s: k}, value}
		}
		return luaValue{kind: luaTable, pairs: pairs}, nil
	case nil:
		// An empty document decodes to a nil map.
		return luaValue{kind: luaTable}, nil
	}
	return luaValue{}, fmt.Errorf("parse toml: unexpected value of type %T", v)
}

func luaArrayFromTOML[E any](v []E) (luaValue, error) {
	items := make([]luaValue, len(v))
	for i, e := range v {
		item, err := luaFromTOMLValue(e)
		if err != nil {
			return luaValue{}, err
		}
		items[i] = item
	}
	return luaValue{kind: luaArray, items: items}, nil
}

// tomlDatetime prints a TOML datetime the way the Rust toml crate does: a local date,
// a local time, a local date-time joined by "T", or an offset date-time ending in "Z"
// (when written with Z) or "±hh:mm".
func tomlDatetime(t time.Time) string {
	date := fmt.Sprintf("%04d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
	clock := fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
	if ns := t.Nanosecond(); ns != 0 {
		clock += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	}
	// The toml package marks local values with zones of these names, and an offset
	// written as Z with time.UTC.
	switch loc := t.Location(); {
	case loc.String() == "date-local":
		return date
	case loc.String() == "time-local":
		return clock
	case loc.String() == "datetime-local":
		return date + "T" + clock
	case loc == time.UTC:
		return date + "T" + clock + "Z"
	}
	_, offset := t.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%sT%s%c%02d:%02d", date, clock, sign, offset/3600, offset/60%60)
}
