package extract

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sluice/sluice/limits"
)

// Table is one table of a file: a header and a stream of rows aligned with it.
type Table struct {
	Name      string
	Headers   []string
	HeaderRow int // 0-based row of the header in the source
	next      func() ([]string, error)
	pending   int // empty rows held back until a row with values follows
	held      []string
	// Dropped counts cells beyond the header that were cut off (rows longer than any seen
	// while the header was chosen).
	Dropped int64
	quotes  *quoteStats
	rows    int // data rows returned, for messages
	// firstRow is the row of the source (counted from 1, as a spreadsheet shows it) of the
	// first data row; returned counts the rows Next has returned.
	firstRow, returned int
	caps               limits.Caps
}

// Row returns the row of the source, counted from 1 as a spreadsheet shows it, of the row
// Next returned last: a text file's line unless a quoted cell spans lines, an item's place
// in a JSON file.
func (t *Table) Row() int { return t.firstRow + t.returned - 1 }

// quoteStats counts cells that span lines and hold the delimiter: the sign of a quote that
// was never closed and swallowed the rows after it.
type quoteStats struct {
	n    int64
	line int
}

// Suspect reports how many cells look like an unclosed quote swallowed rows, and the line of
// the first.
func (t *Table) Suspect() (int64, int) {
	if t.quotes == nil {
		return 0, 0
	}
	return t.quotes.n, t.quotes.line
}

// Next returns the next row, as many cells as Headers, or io.EOF. Empty rows between rows
// with values are kept; trailing empty rows are trimmed.
func (t *Table) Next() ([]string, error) {
	row, err := t.nextRow()
	if err == nil {
		t.returned++
	}
	return row, err
}

func (t *Table) nextRow() ([]string, error) {
	if t.pending > 0 {
		t.pending--
		return make([]string, len(t.Headers)), nil
	}
	if t.held != nil {
		row := t.held
		t.held = nil
		return row, nil
	}
	empties := 0
	for {
		row, err := t.next()
		if err != nil {
			return nil, err // trailing empty rows (empties) are dropped at EOF
		}
		row = t.fit(row)
		if isEmpty(row) {
			empties++
			continue
		}
		t.rows += empties + 1
		if err := t.checkCells(row); err != nil {
			return nil, err
		}
		if empties == 0 {
			return row, nil
		}
		t.pending, t.held = empties-1, row
		return make([]string, len(t.Headers)), nil
	}
}

// checkCells refuses a row holding a value longer than the cap.
func (t *Table) checkCells(row []string) error {
	for i, c := range row {
		if limits.Over(c, t.caps.CellLength) {
			return errors.New(t.caps.Cell(fmt.Sprintf("data row %s, column %q,", limits.Count(t.rows), t.Headers[i]), c))
		}
	}
	return nil
}

// checkHeaders refuses a table wider than caps.Columns or a header longer than
// caps.NameLength, before any row is read on.
func checkHeaders(headers []string, caps limits.Caps) error {
	if len(headers) > caps.Columns {
		return errors.New(caps.Width("the table has", len(headers)))
	}
	for i, h := range headers {
		if limits.Over(h, caps.NameLength) {
			return errors.New(caps.Name(fmt.Sprintf("the header of column %d", i+1), h))
		}
	}
	return nil
}

// fit pads or cuts a row to the header's width.
func (t *Table) fit(row []string) []string {
	n := len(t.Headers)
	if len(row) > n {
		for _, c := range row[n:] {
			if strings.TrimSpace(c) != "" {
				t.Dropped++
			}
		}
		return row[:n:n]
	}
	for len(row) < n {
		row = append(row, "")
	}
	return row
}

func isEmpty(row []string) bool {
	for _, c := range row {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func nonEmpty(row []string) int {
	n := 0
	for _, c := range row {
		if strings.TrimSpace(c) != "" {
			n++
		}
	}
	return n
}

// headerRow picks the header among sampled rows: blank rows and title lines above a table
// are skipped; the header is the first row that fills at least half of the widest row.
func headerRow(sample [][]string) int {
	width := 0
	for _, r := range sample {
		if n := nonEmpty(r); n > width {
			width = n
		}
	}
	need := (width + 1) / 2
	if need < 1 {
		need = 1
	}
	if width >= 3 && need < 2 {
		need = 2
	}
	for i, r := range sample {
		if nonEmpty(r) >= need {
			return i
		}
	}
	return 0
}

// uniqueHeaders trims header names, names empty ones "Column N" and makes duplicates unique
// as "Name (2)", keeping every column. width extends the header when data rows are wider.
func uniqueHeaders(raw []string, width int) []string {
	if width < len(raw) {
		width = len(raw)
	}
	out := make([]string, width)
	seen := map[string]int{}
	for i := range out {
		h := ""
		if i < len(raw) {
			h = strings.TrimSpace(strings.ReplaceAll(raw[i], "\n", " "))
		}
		if h == "" {
			h = fmt.Sprintf("Column %d", i+1)
		}
		base := h
		for n := 2; seen[strings.ToLower(h)] > 0; n++ {
			h = fmt.Sprintf("%s (%d)", base, n)
		}
		seen[strings.ToLower(h)]++
		out[i] = h
	}
	return out
}

// newTable builds a table from a row reader: it samples the first rows to find the header,
// then replays the sample before reading on.
func newTable(name string, read func() ([]string, error), caps limits.Caps) (*Table, error) {
	var sample [][]string
	for len(sample) < 50 {
		row, err := read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		sample = append(sample, append([]string(nil), row...))
	}
	if len(sample) == 0 || allEmpty(sample) {
		return nil, ErrEmpty
	}
	h := headerRow(sample)
	width := 0
	for _, r := range sample[h:] {
		if len(r) > width {
			width = len(r)
		}
	}
	for width > len(sample[h]) && allBlankColumn(sample[h:], width-1) {
		width--
	}
	if err := checkHeaders(sample[h][:min(width, len(sample[h]))], caps); err != nil {
		return nil, err
	}
	if width > caps.Columns {
		return nil, errors.New(caps.Width("the table has", width))
	}
	t := &Table{Name: name, Headers: uniqueHeaders(sample[h], width), HeaderRow: h, firstRow: h + 2, caps: caps}
	rest := sample[h+1:]
	t.next = func() ([]string, error) {
		if len(rest) > 0 {
			r := rest[0]
			rest = rest[1:]
			return r, nil
		}
		return read()
	}
	return t, nil
}

func allEmpty(rows [][]string) bool {
	for _, r := range rows {
		if !isEmpty(r) {
			return false
		}
	}
	return true
}

func allBlankColumn(rows [][]string, col int) bool {
	for _, r := range rows {
		if col < len(r) && strings.TrimSpace(r[col]) != "" {
			return false
		}
	}
	return true
}

// ErrEmpty is returned for files without any value.
var ErrEmpty = errors.New("the file has no data: it is empty or every row is blank")

// DetectHeader picks the header among the first rows of a table (as POST /files/detect-header
// does): it returns the header row's index and its cells, made unique.
func DetectHeader(rows [][]string) (int, []string) {
	if len(rows) == 0 {
		return 0, []string{}
	}
	h := headerRow(rows)
	width := 0
	for _, r := range rows[h:] {
		if len(r) > width {
			width = len(r)
		}
	}
	return h, uniqueHeaders(rows[h], width)
}
