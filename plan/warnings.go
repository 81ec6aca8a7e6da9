package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/atlas-rbx/atlas/dom"
)

// warnings lists, once per class and property, the properties the disk project sets
// that Studio's scripts cannot read and write (left out of comparisons and writes), and
// every script the plan compares, on either side, whose Source is not valid UTF-8
// (compared byte for byte, but shown and edited as text by Studio and most editors).
func (r *result) warnings() []string {
	var out []string
	eachSeen(r.unsyncable, func(k, where string) {
		if class, prop, ok := strings.Cut(k, "."); ok && dom.IsRefProperty(class, prop) {
			out = append(out, fmt.Sprintf("%s is set by the project (%s) and is a reference: a model file keeps it by its own referents, and Atlas leaves it out of comparisons and writes (Studio's scripts can write it, but no plan can name the instance it points at)", k, where))
			return
		}
		out = append(out, fmt.Sprintf("%s is set by the project (%s) but Studio's scripts cannot write it: Atlas leaves it out of comparisons and writes", k, where))
	})
	eachSeen(r.unknown, func(k, where string) {
		out = append(out, fmt.Sprintf("%s is set by the project (%s) but neither Atlas's reflection database nor this Studio knows it (Studio read no value): Atlas leaves it out of comparisons", k, where))
	})
	for _, side := range []struct {
		name  string
		paths []string
	}{{"disk", r.badDisk}, {"Studio", r.badStudio}} {
		paths := slices.Clone(side.paths)
		sort.Strings(paths)
		for _, p := range paths {
			out = append(out, fmt.Sprintf("%s: the %s Source is not valid UTF-8; it is compared byte for byte, and a pull cannot write it to a file (scripts are read as UTF-8)", p, side.name))
		}
	}
	return out
}

// badSource reports whether x is a script whose Source is not valid UTF-8.
func badSource(x *dom.Instance) bool {
	src, ok := x.Properties.Get("Source").(dom.String)
	return ok && x.IsScript() && !validUTF8(sourceHash(x), string(src))
}

// validated remembers, by a Source's hash, that the Source is valid UTF-8, so that a
// plan does not read every script's text again: the same hash is the same text. It
// holds at most maxValidated hashes, and starts afresh when full.
var validated struct {
	sync.Mutex
	hashes map[string]struct{}
}

const maxValidated = 1 << 18

func validUTF8(hash, src string) bool {
	if hash == "" {
		return utf8.ValidString(src)
	}
	validated.Lock()
	_, ok := validated.hashes[hash]
	validated.Unlock()
	if ok {
		return true
	}
	if !utf8.ValidString(src) {
		return false
	}
	validated.Lock()
	if validated.hashes == nil || len(validated.hashes) >= maxValidated {
		validated.hashes = make(map[string]struct{})
	}
	validated.hashes[hash] = struct{}{}
	validated.Unlock()
	return true
}

// eachSeen calls fn for each key of m in order, with where it was seen: the first
// path, and how many more.
func eachSeen(m map[string]*seen, fn func(key, where string)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := m[k]
		where := s.first
		if s.n > 1 {
			where = fmt.Sprintf("%s and %d more", s.first, s.n-1)
		}
		fn(k, where)
	}
}

// editorWarnings names, for each change that would write or remove a Studio script
// (a push of its Source, its removal or a change of its class, or such a change left
// for a decision), a script whose document is open in Studio's Script Editor with
// unsaved text other than its Source (dom.Instance.EditorSha1). The plugin refuses
// such a write at apply time (the text would be lost), and the plan compares saved
// Sources only, so it says so beforehand. Advice only: the changes, their
// directions and the plan's hash are the same with or without it.
//
// A removal (or a class change, which replaces the instance) takes the scripts inside
// too, which the plugin refuses as well: each of those is named, by its path.
func editorWarnings(changes []*Change) []string {
	var out []string
	warn := func(path string) {
		out = append(out, fmt.Sprintf("%s: Studio's Script Editor holds unsaved text that differs from its saved Source; an apply that writes it will be refused until it is saved or closed in Studio (atlas script get --draft shows it)", path))
	}
	for _, ch := range changes {
		s := ch.Studio
		if s == nil || ch.Direction == Pull {
			continue
		}
		if ch.PatchType == Remove || slices.Contains(ch.Fields, "ClassName") {
			s.Walk(func(x *dom.Instance) bool {
				if x.EditorSha1() != "" {
					rel := ""
					for y := x; y != s && y != nil; y = y.Parent {
						rel = "/" + y.Name + rel
					}
					warn(ch.Path + rel)
				}
				return true
			})
			continue
		}
		if s.EditorSha1() != "" && slices.Contains(ch.Fields, "Source") {
			warn(ch.Path)
		}
	}
	return out
}
