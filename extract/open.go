package extract

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice/sluice/limits"
)

// File is an opened source: its tables, read one after the other, and its text encoding.
type File struct {
	Format   string // csv, xlsx, json, jsonl
	Encoding *Encoding
	Tables   []*Table
	closers  []io.Closer
	read     *countReader // bytes consumed, for progress; nil for Excel
	size     int64
}

// Progress is the share of the file read so far, between 0 and 1 (0 for Excel files).
func (f *File) Progress() float64 {
	if f.read == nil || f.size == 0 {
		return 0
	}
	return float64(f.read.n) / float64(f.size)
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Close releases the file.
func (f *File) Close() error {
	var first error
	for _, c := range f.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Open reads the file at path; name is the upload's file name (it decides the format with
// the content and names single-table files). caps are what a table may hold.
func Open(path, name string, caps limits.Caps) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(fh, head)
	head = head[:n]
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		fh.Close()
		return nil, err
	}
	if n == 0 {
		fh.Close()
		return nil, ErrEmpty
	}
	ext := strings.ToLower(filepath.Ext(name))
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	if ext == ".xls" || bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		fh.Close()
		return nil, errors.New("old Excel 97-2003 files (.xls) are not supported: save the workbook as .xlsx or CSV and upload that")
	}
	var f *File
	counted := &countReader{r: fh}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || ext == ".xlsx" || ext == ".xlsm":
		f, err = openXLSX(fh, caps)
		counted = nil
	case ext == ".jsonl" || ext == ".ndjson" || (ext != ".csv" && ext != ".tsv" && bytes.HasPrefix(trimmed, []byte("{"))):
		f, err = openJSON(counted, base, true, caps)
	case ext == ".json" || (ext != ".csv" && ext != ".tsv" && bytes.HasPrefix(trimmed, []byte("["))):
		f, err = openJSON(counted, base, false, caps)
	default:
		f, err = openDelimited(counted, base, caps)
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closers = append(f.closers, fh)
	if st, err := fh.Stat(); err == nil {
		f.read, f.size = counted, st.Size()
	}
	return f, nil
}

// Delimiters are the separators detected in delimited text, in order of preference.
var Delimiters = []rune{',', ';', '\t', '|', '^', '~', ':'}

// detectDelimiter parses a sample with each candidate and keeps the one that splits the most
// rows into the same number (above one) of fields.
func detectDelimiter(sample []byte) rune {
	best, bestScore := ',', 0
	for _, d := range Delimiters {
		r := csv.NewReader(bytes.NewReader(sample))
		r.Comma, r.LazyQuotes, r.FieldsPerRecord = d, true, -1
		counts := map[int]int{}
		for i := 0; i < 40; i++ {
			rec, err := r.Read()
			if err != nil {
				break
			}
			if len(rec) > 1 {
				counts[len(rec)]++
			}
		}
		for width, rows := range counts {
			if score := rows*1000 + width; score > bestScore {
				best, bestScore = d, score
			}
		}
	}
	return best
}

// binary reports text that is mostly control characters, i.e. not a text file at all.
func binary(sample []byte) bool {
	if len(sample) == 0 {
		return false
	}
	ctl := 0
	for _, b := range sample {
		if b == 0 || (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') {
			ctl++
		}
	}
	return ctl*20 > len(sample)
}

func openDelimited(fh io.Reader, name string, caps limits.Caps) (*File, error) {
	text, enc := decode(fh)
	br := bufio.NewReaderSize(&recordGuard{r: text, cellLength: caps.CellLength}, 1<<20)
	sample, _ := br.Peek(sniffSize)
	if binary(sample) {
		return nil, errors.New("the file is not text: it looks like binary data (upload CSV, TSV, Excel or JSON)")
	}
	cr := csv.NewReader(br)
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord, cr.ReuseRecord = detectDelimiter(sample), true, -1, false
	// encoding/csv skips blank lines; they are empty records, kept when values follow, so
	// the gap between one record's last line and the next record's first line is replayed.
	prevEnd, blanks := 0, 0
	var queued []string
	quotes := &quoteStats{}
	read := func() ([]string, error) {
		if blanks > 0 {
			blanks--
			return []string{}, nil
		}
		if queued != nil {
			rec := queued
			queued = nil
			return rec, nil
		}
		rec, err := cr.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("line %d: %w", pe.Line, pe.Err)
			}
			return nil, err
		}
		start, _ := cr.FieldPos(0)
		last, _ := cr.FieldPos(len(rec) - 1)
		for _, cell := range rec {
			if strings.ContainsRune(cell, '\n') && strings.ContainsRune(cell, cr.Comma) {
				if quotes.n == 0 {
					quotes.line = start
				}
				quotes.n++
			}
		}
		gap := start - prevEnd - 1
		prevEnd = last + strings.Count(rec[len(rec)-1], "\n")
		if gap > 0 && start > 1 {
			blanks, queued = gap-1, rec
			return []string{}, nil
		}
		return rec, nil
	}
	t, err := newTable(name, read, caps)
	if err != nil {
		return nil, err
	}
	t.quotes = quotes
	return &File{Format: "csv", Encoding: enc, Tables: []*Table{t}}, nil
}
