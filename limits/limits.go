// Package limits holds the caps on what one upload or one write may hold: past
// them Sluice refuses with an error that names the cap, the value found and the setting
// that raises it, instead of building a sheet no page or list can show.
package limits

import (
	"fmt"
	"unicode/utf8"
)

// Caps are the caps, set once at start from the settings named in their comments and
// passed to what checks them (sqldb.Settings carries them to the store, the handlers and the
// extraction).
type Caps struct {
	Columns    int // fields per sheet, columns per uploaded table (SLUICE_MAX_COLUMNS)
	NameLength int // characters of a header, field key or label (SLUICE_MAX_NAME_LENGTH)
	CellLength int // characters of one value (SLUICE_MAX_CELL_LENGTH)
	JSONDepth  int // nesting of one object of a JSON upload (SLUICE_JSON_MAX_DEPTH)
	Records    int // records one write request may carry (SLUICE_MAX_RECORDS_PER_REQUEST)
	FFQLTerms  int // comparisons one FFQL filter may make (SLUICE_MAX_FFQL_TERMS)
}

// Default are the caps a configuration does not change.
func Default() Caps {
	return Caps{Columns: 2000, NameLength: 1000, CellLength: 100_000, JSONDepth: 64, Records: 10_000, FFQLTerms: 50}
}

// OrDefault is c with each cap left at 0 (unset) taken from Default: no cap of 0 makes
// sense, and settings built for one purpose (a test's search index size) keep the rest.
func (c Caps) OrDefault() Caps {
	d := Default()
	for _, p := range []struct{ v, def *int }{{&c.Columns, &d.Columns}, {&c.NameLength, &d.NameLength}, {&c.CellLength, &d.CellLength},
		{&c.JSONDepth, &d.JSONDepth}, {&c.Records, &d.Records}, {&c.FFQLTerms, &d.FFQLTerms}} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	return c
}

// Excel's own sheet size: a worksheet claiming more is not one Excel wrote, and reading it
// on would only find out after millions of rows.
const (
	ExcelRows    = 1_048_576
	ExcelColumns = 16_384
)

// Over reports whether s is longer than max characters; bytes are counted first so short
// values cost nothing.
func Over(s string, max int) bool {
	return len(s) > max && utf8.RuneCountInString(s) > max
}

// Chars is the length of s in characters, for messages.
func Chars(s string) int { return utf8.RuneCountInString(s) }

// Cell is the refusal of a value longer than CellLength.
func (c Caps) Cell(where string, s string) string {
	return fmt.Sprintf("%s holds a value of %s characters; the limit is %s (SLUICE_MAX_CELL_LENGTH)", where, Count(Chars(s)), Count(c.CellLength))
}

// Name is the refusal of a header, key or label longer than NameLength.
func (c Caps) Name(what string, s string) string {
	return fmt.Sprintf("%s is %s characters long; the limit is %s (SLUICE_MAX_NAME_LENGTH)", what, Count(Chars(s)), Count(c.NameLength))
}

// Width is the refusal of a table or sheet wider than Columns.
func (c Caps) Width(what string, n int) string {
	return fmt.Sprintf("%s %s columns; the limit is %s (SLUICE_MAX_COLUMNS)", what, Count(n), Count(c.Columns))
}

// TooManyRecords is the refusal of a write of more than Records records.
func (c Caps) TooManyRecords() string {
	return fmt.Sprintf("A request may write at most %s records (SLUICE_MAX_RECORDS_PER_REQUEST); send them in batches, or upload them as a file", Count(c.Records))
}

// Count writes n with thousands separators: 100000 → "100,000".
func Count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
