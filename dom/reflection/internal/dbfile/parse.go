package dbfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Parse decodes the minified JSON of a [File]. It gives the same result as
// json.Unmarshal but is several times faster, because it knows the schema
// and interns repeated strings. It only accepts the fields of [File];
// default values are not validated beyond bracket matching, and are returned
// as sub-slices of js (capped, so appending to them cannot clobber js).
func Parse(js []byte) (*File, error) {
	r := &reader{data: js, intern: make(map[string]string, 8192)}
	f := new(File)
	err := r.object(func(key string) error {
		switch key {
		case "note":
			s, err := r.str()
			f.Note = s
			return err
		case "version":
			i := 0
			return r.array(func() error {
				if i >= len(f.Version) {
					return errors.New("version has more than 4 parts")
				}
				v, err := r.uint32()
				f.Version[i] = v
				i++
				return err
			})
		case "classes":
			f.Classes = make(map[string]*Class, 1024)
			return r.object(func(name string) error {
				c, err := r.class()
				f.Classes[name] = c
				return err
			})
		case "enums":
			f.Enums = make(map[string]map[string]uint32, 1024)
			return r.object(func(name string) error {
				items := make(map[string]uint32)
				f.Enums[name] = items
				return r.object(func(item string) error {
					v, err := r.uint32()
					items[item] = v
					return err
				})
			})
		}
		return fmt.Errorf("unknown field %q", key)
	})
	if err == nil {
		r.ws()
		if r.pos != len(r.data) {
			err = errors.New("trailing data")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("parse database at offset %d: %w", r.pos, err)
	}
	return f, nil
}

type reader struct {
	data   []byte
	pos    int
	intern map[string]string
}

func (r *reader) class() (*Class, error) {
	c := new(Class)
	err := r.object(func(key string) error {
		var err error
		switch key {
		case "super":
			c.Super, err = r.str()
		case "tags":
			c.Tags, err = r.strs()
		case "props":
			c.Props = make(map[string]*Property)
			err = r.object(func(name string) error {
				p, err := r.property()
				c.Props[name] = p
				return err
			})
		case "defaults":
			c.Defaults = make(map[string]json.RawMessage)
			err = r.object(func(name string) error {
				v, err := r.raw()
				c.Defaults[name] = v
				return err
			})
		default:
			err = fmt.Errorf("unknown class field %q", key)
		}
		return err
	})
	return c, err
}

func (r *reader) property() (*Property, error) {
	p := new(Property)
	err := r.object(func(key string) error {
		var err error
		switch key {
		case "value":
			p.Value, err = r.str()
		case "enum":
			p.Enum, err = r.str()
		case "script":
			p.Script, err = r.str()
		case "ser":
			p.Ser, err = r.str()
		case "as":
			p.As, err = r.str()
		case "alias":
			p.Alias, err = r.str()
		case "migrateTo":
			p.MigrateTo, err = r.strs()
		case "migration":
			p.Migration, err = r.str()
		case "tags":
			p.Tags, err = r.strs()
		default:
			err = fmt.Errorf("unknown property field %q", key)
		}
		return err
	})
	return p, err
}

func (r *reader) ws() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte without consuming it,
// or 0 at the end of the input.
func (r *reader) next() byte {
	r.ws()
	if r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

func (r *reader) expect(c byte) error {
	if r.next() != c {
		return fmt.Errorf("expected %q", c)
	}
	r.pos++
	return nil
}

// object reads {"key": value, ...}, calling fn with each key to read the value.
func (r *reader) object(fn func(key string) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	if r.next() == '}' {
		r.pos++
		return nil
	}
	for {
		key, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch r.next() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		default:
			return errors.New("expected ',' or '}'")
		}
	}
}

// array reads [value, ...], calling fn to read each value.
func (r *reader) array(fn func() error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	if r.next() == ']' {
		r.pos++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch r.next() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		default:
			return errors.New("expected ',' or ']'")
		}
	}
}

func (r *reader) strs() ([]string, error) {
	var out []string
	err := r.array(func() error {
		s, err := r.str()
		out = append(out, s)
		return err
	})
	return out, err
}

// str reads a string. Strings without escapes are interned; the rare ones
// with escapes are handed to encoding/json.
func (r *reader) str() (string, error) {
	if err := r.expect('"'); err != nil {
		return "", err
	}
	start := r.pos
	n := bytes.IndexByte(r.data[start:], '"')
	if n < 0 {
		return "", errors.New("unterminated string")
	}
	b := r.data[start : start+n]
	if bytes.IndexByte(b, '\\') >= 0 {
		r.pos = start - 1
		if err := r.skipString(); err != nil {
			return "", err
		}
		var s string
		err := json.Unmarshal(r.data[start-1:r.pos], &s)
		return s, err
	}
	for _, c := range b {
		if c < 0x20 {
			return "", errors.New("control character in string")
		}
	}
	r.pos = start + n + 1
	if s, ok := r.intern[string(b)]; ok {
		return s, nil
	}
	s := string(b)
	r.intern[s] = s
	return s, nil
}

func (r *reader) uint32() (uint32, error) {
	r.ws()
	start := r.pos
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
		r.pos++
	}
	v, err := strconv.ParseUint(string(r.data[start:r.pos]), 10, 32)
	return uint32(v), err
}

// raw skips one value and returns its bytes.
func (r *reader) raw() (json.RawMessage, error) {
	r.ws()
	start := r.pos
	if r.pos >= len(r.data) {
		return nil, errors.New("expected a value")
	}
	switch r.data[r.pos] {
	case '"':
		if err := r.skipString(); err != nil {
			return nil, err
		}
	case '{', '[':
		depth := 0
		for depth > 0 || r.pos == start {
			if r.pos >= len(r.data) {
				return nil, errors.New("unterminated value")
			}
			switch r.data[r.pos] {
			case '"':
				if err := r.skipString(); err != nil {
					return nil, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			r.pos++
		}
	default: // number or literal
		for r.pos < len(r.data) && !isDelim(r.data[r.pos]) {
			r.pos++
		}
		if r.pos == start {
			return nil, errors.New("expected a value")
		}
	}
	return r.data[start:r.pos:r.pos], nil
}

// isDelim reports whether c ends a number or literal.
func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// skipString skips a string starting at its opening quote.
func (r *reader) skipString() error {
	r.pos++
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case '"':
			r.pos++
			return nil
		case '\\':
			r.pos += 2
		default:
			r.pos++
		}
	}
	return errors.New("unterminated string")
}
