package protocol

import (
	"bytes"
	"errors"
	"strings"
)

// EachField calls fn with the raw key (quotes included) and raw value of each field
// of the JSON object in data, in order, and stops at fn's first error. It finds the
// fields and the extent of their values without decoding them, at memchr speed
// inside strings (which hold most of a snapshot's bytes), and does not validate:
// what it passes on is to be decoded by a decoder that does.
func EachField(data []byte, fn func(key, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errors.New("not a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errors.New("bad object key")
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errors.New("missing colon")
		}
		i = skipSpace(data, i+1)
		end, err = skipValue(data, i)
		if err != nil {
			return err
		}
		if err := fn(key, data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return errors.New("unterminated object")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return errors.New("bad object separator")
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at data[i] == '"'.
func skipString(data []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, errors.New("unterminated string")
		}
		j += k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j, nil
		}
	}
}

// skipValue returns the index just past the value that starts at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("missing value")
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
			j++
		}
		return 0, errors.New("unterminated value")
	default:
		j := i
		for j < len(data) && !strings.ContainsRune(",}] \t\n\r", rune(data[j])) {
			j++
		}
		if j == i {
			return 0, errors.New("missing value")
		}
		return j, nil
	}
}
