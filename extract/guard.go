package extract

import (
	"fmt"
	"io"
	"strings"

	"github.com/sluice/sluice/limits"
)

// maxRecordBytes is the most one CSV record or one JSON object may take: no value may be
// longer than SLUICE_MAX_CELL_LENGTH characters, and a reader would otherwise buffer a 400 MB cell
// whole before the cap could refuse it.
const maxRecordBytes = 32 << 20

// recordGuard passes a text file through while following where its records end (a newline
// outside quotes in CSV; the close of a top-level object in JSON), and fails the read once
// one record runs past maxRecordBytes. It is a byte-level scan, cheap beside the parsing.
type recordGuard struct {
	r    io.Reader
	json bool
	// cellLength is the cap on a value, named in the refusal
	cellLength int
	inStr      bool // inside quotes (CSV) or a string (JSON)
	escape     bool // JSON: the byte after a backslash
	depth      int  // JSON: nesting
	top        int  // JSON: the depth a record sits at (1 inside an array file, 0 for lines)
	run        int  // bytes of the current record
	prev       byte // CSV: the byte before, to tell an opening quote from one inside a value
}

func (g *recordGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for _, b := range p[:n] {
		g.run++
		if g.json {
			g.jsonByte(b)
		} else {
			g.csvByte(b)
		}
		if g.run > maxRecordBytes {
			what := "a row"
			if g.json {
				what = "an object"
			}
			return 0, fmt.Errorf("%s of the file is larger than %d MiB: no value may be longer than %s characters (SLUICE_MAX_CELL_LENGTH)",
				what, maxRecordBytes>>20, limits.Count(g.cellLength))
		}
	}
	return n, err
}

// csvByte follows quotes as encoding/csv with LazyQuotes reads them: a quote opens a quoted
// value only at a value's start; a stray one inside a value is text. (An escaped "" closes and
// does not reopen here, which only ends a record early: the guard errs towards letting through.)
func (g *recordGuard) csvByte(b byte) {
	switch {
	case g.inStr:
		g.inStr = b != '"'
	case b == '"' && (g.prev == 0 || strings.IndexByte("\n\r,;\t|", g.prev) >= 0):
		g.inStr = true
	case b == '\n':
		g.run = 0
	}
	g.prev = b
}

func (g *recordGuard) jsonByte(b byte) {
	switch {
	case g.escape:
		g.escape = false
	case g.inStr:
		g.escape, g.inStr = b == '\\', b != '"'
	case b == '"':
		g.inStr = true
	case b == '{' || b == '[':
		g.depth++
	case b == '}' || b == ']':
		if g.depth--; g.depth <= g.top {
			g.run = 0
		}
	case b == ',' || b == '\n':
		if g.depth <= g.top {
			g.run = 0
		}
	}
}
