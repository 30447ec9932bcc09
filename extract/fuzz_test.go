package extract_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sluice/sluice/extract"
	"github.com/sluice/sluice/limits"
)

// readAny opens data as a file called name and reads every table, checking what every
// extraction promises whatever the bytes: no panic, an error or tables whose rows all have
// the width of their header, and at most a bounded number of rows read here.
func readAny(t *testing.T, name string, data []byte) {
	done := make(chan struct{})
	go func() { defer close(done); readFile(t, name, data) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: extraction of %d bytes runs for more than 10 s", name, len(data))
	}
}

func readFile(t *testing.T, name string, data []byte) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := extract.Open(p, name, limits.Default())
	if err != nil {
		return
	}
	defer f.Close()
	for _, tb := range f.Tables {
		seen := map[string]bool{}
		for _, h := range tb.Headers {
			if seen[h] {
				t.Fatalf("%s: duplicate header %q in %q", name, h, tb.Headers)
			}
			seen[h] = true
		}
		for i := 0; i < 10000; i++ {
			row, err := tb.Next()
			if errors.Is(err, io.EOF) || err != nil {
				break
			}
			if len(row) != len(tb.Headers) {
				t.Fatalf("%s: a row of %d cells under %d headers", name, len(row), len(tb.Headers))
			}
		}
	}
}

// FuzzDelimited covers CSV and TSV: delimiter, encoding and header detection, quotes.
func FuzzDelimited(f *testing.F) {
	for _, s := range []string{"name,email\nAda,ada@x.io\n", "\ufeffExport\n\nA;B;C\n1;2;3\n\"x\ny\";\"q\"\"q\";\n", "a\tb\n1\t2\n",
		"only one line without newline", "\"unclosed,quote\nnext,row\n", ",,,\n,,,\n1,2,3,4,5\n", "h,h,h\n1,2,3\n"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Add(utf16le("name,city\nZoë,Köln\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		name := "fuzz.csv"
		if tsv {
			name = "fuzz.tsv"
		}
		readAny(t, name, data)
	})
}

// FuzzJSON covers JSON arrays and JSON lines: nesting, flattening, odd values.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`[{"a":1,"b":{"c":"x"}},{"a":2,"d":[1,2]}]`, `{"a":1}` + "\n" + `{"b":"two"}` + "\n", `[]`, `[1,2,3]`, `[{"a":null,"":""}]`,
		`[{"a":{"b":{"c":{"d":{"e":1}}}}}]`, `[[[[[[[[]]]]]]]]`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, lines bool) {
		name := "fuzz.json"
		if lines {
			name = "fuzz.jsonl"
		}
		readAny(t, name, data)
	})
}

// FuzzXLSX mutates small workbooks (a zip of XML parts).
func FuzzXLSX(f *testing.F) {
	for _, rows := range [][][]any{{{"name", "email"}, {"Ada", "ada@x.io"}}, {{"a"}, {1.5}, {true}}, {{}}} {
		x := excelize.NewFile()
		for i, r := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			_ = x.SetSheetRow("Sheet1", cell, &r)
		}
		var buf bytes.Buffer
		if err := x.Write(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) { readAny(t, "fuzz.xlsx", data) })
}

// FuzzDetectHeader: whatever the rows, the header index is one of them (or 0) and the
// headers are unique, one per column of the widest row.
func FuzzDetectHeader(f *testing.F) {
	f.Add("Export 2026\n\nname,email\nAda,ada@x.io\n")
	f.Add(",,\n1,2,3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		var rows [][]string
		for _, line := range bytes.Split([]byte(text), []byte("\n")) {
			var row []string
			for _, c := range bytes.Split(line, []byte(",")) {
				row = append(row, string(c))
			}
			rows = append(rows, row)
		}
		i, headers := extract.DetectHeader(rows)
		if i < 0 || (len(rows) > 0 && i >= len(rows)) {
			t.Fatalf("header row %d of %d", i, len(rows))
		}
		seen := map[string]bool{}
		for _, h := range headers {
			if seen[h] {
				t.Fatalf("duplicate header %q in %q", h, headers)
			}
			seen[h] = true
		}
	})
}
