package syncback

import (
	"encoding/json"

	"github.com/atlas-rbx/atlas/project/format"
)

// kv is one member of a file syncback writes. Values are laid out as Rojo lays
// out its files: JSON values one element a line (format.Expanded).
func kv(key string, v any) format.Member {
	if raw, ok := v.(json.RawMessage); ok {
		v = format.Expanded(raw)
	}
	return format.Member{Key: key, Value: v}
}
