package project

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/internal/statefile"
)

// The index file: the records of a Cache, so that a restarted host re-reads only
// the files whose stat data changed. Like git's index it trusts stat data only for
// files last modified strictly before the index was written; those modified in the
// same moment ("racily clean") are compared by content on the next load.
const (
	indexKind    = "atlas project index"
	indexVersion = 1
)

// ErrIndexStale means an index file exists but cannot be used (corrupt, of another
// version or build, or of another project); the cache is then rebuilt by loading.
var ErrIndexStale = statefile.ErrStale

// WriteIndex stores the cache's records at path (a file in the state dir),
// atomically. Script texts are not stored: a load reads them from the files.
func (c *Cache) WriteIndex(path string) error {
	// A file modified this close to now may change again within its mtime's
	// clock tick after it was read: smudge it, as git does, so the next load
	// compares its content.
	racyFrom := time.Now().UnixNano() - racySlack
	var e dom.Encoder
	e.Text(c.file)
	e.Text(c.opts.DirName)
	e.Bool(c.opts.HashOnly)
	paths := make([]string, 0, len(c.records))
	for p, r := range c.records {
		if r.kind != recOpaque && r.kind != recProject {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	e.Uvarint(uint64(len(paths)))
	for _, p := range paths {
		r := c.records[p]
		e.Text(p)
		e.Uvarint(uint64(r.kind))
		e.Varint(r.stat.size)
		e.Varint(r.stat.mtime)
		e.Uvarint(r.stat.ino)
		e.Uvarint(uint64(r.stat.mode))
		e.Bool(r.racy || r.stat.mtime >= racyFrom)
		if err := writeHash(&e, r.hash); err != nil {
			return fmt.Errorf("write index: %s: %w", p, err)
		}
		if err := writeRecord(&e, r); err != nil {
			return fmt.Errorf("write index: %s: %w", p, err)
		}
	}
	return statefile.Write(path, indexKind, indexVersion, e.Bytes())
}

func writeHash(e *dom.Encoder, h string) error {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 20 {
		return fmt.Errorf("bad blob id %q", h)
	}
	e.Raw(b)
	return nil
}

func writeOptHash(e *dom.Encoder, h string) error {
	e.Bool(h != "")
	if h == "" {
		return nil
	}
	return writeHash(e, h)
}

func writeOptString(e *dom.Encoder, s *string) {
	e.Bool(s != nil)
	if s != nil {
		e.String(*s)
	}
}

func writeRecord(e *dom.Encoder, r *record) error {
	switch r.kind {
	case recScript:
		return writeOptHash(e, r.textHash)
	case recJSON, recTOML, recYAML, recCSV, recText:
		e.Text(r.text)
		return writeOptHash(e, r.textHash)
	case recMeta:
		m := r.meta
		writeOptString(e, m.className)
		e.Bool(m.ignoreUnknown != nil)
		if m.ignoreUnknown != nil {
			e.Bool(*m.ignoreUnknown)
		}
		writeOptString(e, m.id)
		e.Uvarint(uint64(len(m.rawProps)))
		for _, k := range sortedKeys(m.rawProps) {
			e.String(k)
			e.Text(string(m.rawProps[k]))
		}
		e.Bool(m.rawAttrs != nil)
		if m.rawAttrs != nil {
			e.Text(string(m.rawAttrs))
		}
		e.Uvarint(uint64(len(m.resolved)))
		for _, class := range sortedKeys(m.resolved) {
			e.String(class)
			props := m.resolved[class]
			e.Uvarint(uint64(len(props)))
			for _, pv := range props {
				e.String(pv.name)
				if err := e.Value(pv.value); err != nil {
					return err
				}
			}
		}
		e.Bool(m.attrsDone)
		if m.attrsDone {
			return e.Value(m.attrs)
		}
	case recModel:
		m := r.model
		e.Bool(m.empty)
		e.Text(string(m.tree))
		e.Uvarint(uint64(len(m.warnings)))
		for _, w := range m.warnings {
			e.Text(w)
		}
	}
	return nil
}

// ReadIndex replaces the cache's records with those of the index at path, to be
// checked against the files by the next Load. A missing index is an error wrapping
// fs.ErrNotExist; one that cannot be used, ErrIndexStale: either way the cache is
// left as it was, and Load reads what it has no record of.
func (c *Cache) ReadIndex(path string) error {
	data, written, err := statefile.Read(path, indexKind, indexVersion)
	if err != nil {
		return err
	}
	recs, err := c.decodeIndex(data, written.UnixNano())
	if err != nil {
		return fmt.Errorf("read index %s: %w: %w", path, ErrIndexStale, err)
	}
	c.records = recs
	c.proj, c.snaps, c.inputs, c.unverified = nil, nil, nil, true
	return nil
}

func (c *Cache) decodeIndex(data []byte, written int64) (map[string]*record, error) {
	d := dom.NewDecoder(data)
	if file, dirName, hashOnly := d.Text(), d.Text(), d.Bool(); d.Err() == nil &&
		(file != c.file || dirName != c.opts.DirName || hashOnly != c.opts.HashOnly) {
		return nil, errors.New("the index is of another project")
	}
	n := d.Count(8)
	recs := make(map[string]*record, n)
	for range n {
		p := d.Text()
		r := &record{kind: recKind(d.Uvarint())}
		r.stat.size = d.Varint()
		r.stat.mtime = d.Varint()
		r.stat.ino = d.Uvarint()
		r.stat.mode = uint32(d.Uvarint())
		// Git's rule: an entry not strictly older than the index itself may
		// have changed in the same clock tick without changing its stat data.
		r.racy = d.Bool() || r.stat.mtime >= written-racySlack
		r.hash = readHash(d)
		readRecord(d, r)
		if d.Err() != nil {
			return nil, d.Err()
		}
		recs[p] = r
	}
	if d.Len() != 0 {
		return nil, errors.New("trailing bytes")
	}
	return recs, nil
}

func readHash(d *dom.Decoder) string {
	b := d.Raw(20)
	if b == nil {
		return ""
	}
	return hex.EncodeToString(b)
}

func readOptHash(d *dom.Decoder) string {
	if d.Bool() {
		return readHash(d)
	}
	return ""
}

func readOptString(d *dom.Decoder) *string {
	if d.Bool() {
		s := d.String()
		return &s
	}
	return nil
}

func readRecord(d *dom.Decoder, r *record) {
	switch r.kind {
	case recScript:
		r.textHash = readOptHash(d)
	case recJSON, recTOML, recYAML, recCSV, recText:
		r.text, r.hasText = d.Text(), true
		r.textHash = readOptHash(d)
	case recMeta:
		m := &metaRecord{className: readOptString(d)}
		if d.Bool() {
			b := d.Bool()
			m.ignoreUnknown = &b
		}
		m.id = readOptString(d)
		if n := d.Count(2); n > 0 {
			m.rawProps = make(map[string]json.RawMessage, n)
			for range n {
				k := d.String()
				m.rawProps[k] = json.RawMessage(d.Text())
			}
		}
		if d.Bool() {
			m.rawAttrs = json.RawMessage(d.Text())
		}
		if n := d.Count(1); n > 0 {
			m.resolved = make(map[string][]propValue, n)
			for range n {
				class := d.String()
				props := make([]propValue, d.Count(2))
				for i := range props {
					props[i].name = d.String()
					props[i].value = d.Value()
				}
				m.resolved[class] = props
			}
		}
		if m.attrsDone = d.Bool(); m.attrsDone {
			if a, ok := d.Value().(dom.Attributes); ok {
				m.attrs = a
			}
		}
		r.meta = m
	case recModel:
		m := &modelRecord{empty: d.Bool(), tree: []byte(d.Text())}
		m.warnings = make([]string, d.Count(1))
		for i := range m.warnings {
			m.warnings[i] = d.Text()
		}
		r.model = m
	default:
		// Older or newer kinds are not written by this version.
		d.Raw(-1)
	}
}
