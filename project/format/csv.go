package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The column names with a meaning of their own in a localization CSV; every other
// non-empty header names a locale.
const (
	columnKey     = "Key"
	columnSource  = "Source"
	columnContext = "Context"
	columnExample = "Example"
)

// LocalizationFromCSV turns a .csv file into the Contents of the LocalizationTable
// Rojo makes of it: a compact JSON array with one object per row after the header row.
//
// An object has the keys key, context, example and source (each only when its cell is
// not empty, and in that order) and then values, a map from locale to text of the
// row's non-empty locale cells in sorted order. A row with neither Key nor Source is
// dropped; a row whose number of fields differs from the header's is an error. A
// leading byte order mark is skipped and an empty file gives "[]".
//
// Fields are read as Rust's csv crate reads them: a quote only starts a quoted field
// at the start of a field, "" inside one is a quote, CR, LF and CRLF end a record,
// and blank lines are skipped.
func LocalizationFromCSV(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		return "", errors.New("read csv: invalid UTF-8")
	}
	records := readCSV(string(data))
	if len(records) == 0 {
		return "[]", nil
	}
	header := records[0].fields
	var buf bytes.Buffer
	buf.WriteByte('[')
	first := true
	for _, rec := range records[1:] {
		if len(rec.fields) != len(header) {
			return "", fmt.Errorf("read csv: line %d: found a row with %d fields, but the header has %d",
				rec.line, len(rec.fields), len(header))
		}
		var key, source, context, example *string
		values := map[string]string{}
		for i, value := range rec.fields {
			name := header[i]
			if name == "" || value == "" {
				continue
			}
			switch name {
			case columnKey:
				key = &rec.fields[i]
			case columnSource:
				source = &rec.fields[i]
			case columnContext:
				context = &rec.fields[i]
			case columnExample:
				example = &rec.fields[i]
			default:
				values[name] = value
			}
		}
		if key == nil && source == nil {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.WriteByte('{')
		for _, f := range []struct {
			name  string
			value *string
		}{{"key", key}, {"context", context}, {"example", example}, {"source", source}} {
			if f.value != nil {
				writeJSONString(&buf, f.name)
				buf.WriteByte(':')
				writeJSONString(&buf, *f.value)
				buf.WriteByte(',')
			}
		}
		buf.WriteString(`"values":{`)
		locales := make([]string, 0, len(values))
		for l := range values {
			locales = append(locales, l)
		}
		slices.Sort(locales)
		for i, l := range locales {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(&buf, l)
			buf.WriteByte(':')
			writeJSONString(&buf, values[l])
		}
		buf.WriteString("}}")
	}
	buf.WriteByte(']')
	return buf.String(), nil
}

// csvRecord is one record of a CSV file and the line it starts on.
type csvRecord struct {
	line   int
	fields []string
}

// readCSV splits text into records the way the csv crate's default reader does. It
// never fails: like that reader, it ends an unterminated quoted field at the end of
// the input and keeps a quote met inside an unquoted field.
func readCSV(text string) []csvRecord {
	const (
		startRecord = iota
		startField
		inField
		inQuoted
		quoteInQuoted
	)
	var (
		records []csvRecord
		fields  []string
		field   strings.Builder
		state   = startRecord
		line    = 1
		start   = 1
	)
	endField := func() {
		fields = append(fields, field.String())
		field.Reset()
	}
	endRecord := func() {
		endField()
		records = append(records, csvRecord{line: start, fields: fields})
		fields = nil
		state = startRecord
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		terminator := c == '\r' || c == '\n'
		if state == startRecord {
			if terminator {
				if c == '\n' {
					line++
				}
				continue
			}
			state, start = startField, line
		}
		switch {
		case state == inQuoted && c == '"':
			state = quoteInQuoted
		case state == inQuoted:
			field.WriteByte(c)
		case state == startField && c == '"':
			state = inQuoted
		case state == quoteInQuoted && c == '"':
			// A doubled quote inside quotes is one quote.
			field.WriteByte('"')
			state = inQuoted
		case c == ',':
			endField()
			state = startField
		case terminator:
			endRecord()
		default:
			// A quote that does not open a field is kept as text.
			field.WriteByte(c)
			state = inField
		}
		if c == '\n' {
			line++
		}
	}
	if state != startRecord {
		endRecord()
	}
	return records
}

// localizationEntry is one entry of a LocalizationTable's Contents.
type localizationEntry struct {
	Key     *string `json:"key"`
	Context *string `json:"context"`
	Example *string `json:"example"`
	// Examples is the spelling Roblox itself writes for example.
	Examples *string           `json:"examples"`
	Source   *string           `json:"source"`
	Values   map[string]string `json:"values"`
}

// CSVFromLocalization turns LocalizationTable Contents back into a .csv file: the
// header Key,Source,Context,Example and the locales in sorted order, then one row per
// entry in the order of contents, "\n" after every record, a field quoted only when it
// holds a comma, a quote, CR or LF. The "examples" spelling Roblox writes is read as
// "example".
//
// For any contents LocalizationFromCSV produced, LocalizationFromCSV of the result is
// contents again. An entry with neither key nor source, or a locale that is empty or
// named like one of the four fixed columns, cannot be written and is an error; empty
// texts are written as empty cells and so disappear on reading.
func CSVFromLocalization(contents string) ([]byte, error) {
	var entries []localizationEntry
	if err := json.Unmarshal([]byte(contents), &entries); err != nil {
		return nil, fmt.Errorf("read localization contents: %w", err)
	}
	localeSet := map[string]bool{}
	for i, e := range entries {
		if (e.Key == nil || *e.Key == "") && (e.Source == nil || *e.Source == "") {
			return nil, fmt.Errorf("write csv: entry %d has neither a key nor a source", i+1)
		}
		for l := range e.Values {
			switch l {
			case "", columnKey, columnSource, columnContext, columnExample:
				return nil, fmt.Errorf("write csv: entry %d: %q cannot be a locale column", i+1, l)
			}
			localeSet[l] = true
		}
	}
	locales := make([]string, 0, len(localeSet))
	for l := range localeSet {
		locales = append(locales, l)
	}
	slices.Sort(locales)

	var buf bytes.Buffer
	writeCSVRecord(&buf, append([]string{columnKey, columnSource, columnContext, columnExample}, locales...))
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	for _, e := range entries {
		example := e.Example
		if example == nil {
			example = e.Examples
		}
		row := []string{deref(e.Key), deref(e.Source), deref(e.Context), deref(example)}
		for _, l := range locales {
			row = append(row, e.Values[l])
		}
		writeCSVRecord(&buf, row)
	}
	return buf.Bytes(), nil
}

func writeCSVRecord(buf *bytes.Buffer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") {
			buf.WriteByte('"')
			buf.WriteString(strings.ReplaceAll(f, `"`, `""`))
			buf.WriteByte('"')
		} else {
			buf.WriteString(f)
		}
	}
	buf.WriteByte('\n')
}
