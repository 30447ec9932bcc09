// Package limits holds the caps on what one upload or one write may hold: past
// them Sluice refuses with an error that names the cap, the value found and the setting
// that raises it, instead of building a sheet no page or list can show.
package limits

import (
	"fmt"
	"unicode/utf8"
)

// The caps, set once at start from the settings named in their comments.
var (
	Columns    = 2000    // fields per sheet, columns per uploaded table (SLUICE_MAX_COLUMNS)
	NameLength = 1000    // characters of a header, field key or label (SLUICE_MAX_NAME_LENGTH)
	CellLength = 100_000 // characters of one value (SLUICE_MAX_CELL_LENGTH)
	JSONDepth  = 64      // nesting of one object of a JSON upload (SLUICE_JSON_MAX_DEPTH)
	Records    = 10_000  // records one write request may carry (SLUICE_MAX_RECORDS_PER_REQUEST)
	FFQLTerms  = 50      // comparisons one FFQL filter may make (SLUICE_MAX_FFQL_TERMS)
)

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
func Cell(where string, s string) string {
	return fmt.Sprintf("%s holds a value of %s characters; the limit is %s (SLUICE_MAX_CELL_LENGTH)", where, Count(Chars(s)), Count(CellLength))
}

// Name is the refusal of a header, key or label longer than NameLength.
func Name(what string, s string) string {
	return fmt.Sprintf("%s is %s characters long; the limit is %s (SLUICE_MAX_NAME_LENGTH)", what, Count(Chars(s)), Count(NameLength))
}

// Width is the refusal of a table or sheet wider than Columns.
func Width(what string, n int) string {
	return fmt.Sprintf("%s %s columns; the limit is %s (SLUICE_MAX_COLUMNS)", what, Count(n), Count(Columns))
}

// TooManyRecords is the refusal of a write of more than Records records.
func TooManyRecords() string {
	return fmt.Sprintf("A request may write at most %s records (SLUICE_MAX_RECORDS_PER_REQUEST); send them in batches, or upload them as a file", Count(Records))
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
