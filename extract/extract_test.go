package extract_test

import (
	"archive/zip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sluice/sluice/extract"
	"github.com/sluice/sluice/limits"
)

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, path, name string) (*extract.File, [][]string) {
	t.Helper()
	return readCapped(t, path, name, limits.Default())
}

// readCapped is readAll under caps.
func readCapped(t *testing.T, path, name string, caps limits.Caps) (*extract.File, [][]string) {
	t.Helper()
	f, err := extract.Open(path, name, caps)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	var rows [][]string
	for {
		r, err := f.Tables[0].Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, append([]string(nil), r...))
	}
	return f, rows
}

func utf16le(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func TestDelimitedText(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		data     []byte
		encoding string
		headers  []string
		rows     [][]string
	}{
		{"comma with BOM, quotes and line breaks", "a.csv", []byte("\xEF\xBB\xBFname,note\n\"Doe, Jane\",\"line one\nline two\"\n\"Say \"\"hi\"\"\",x\n"),
			"utf-8", []string{"name", "note"}, [][]string{{"Doe, Jane", "line one\nline two"}, {`Say "hi"`, "x"}}},
		{"semicolon", "a.csv", []byte("a;b;c\n1;2;3\n"), "utf-8", []string{"a", "b", "c"}, [][]string{{"1", "2", "3"}}},
		{"tab", "a.tsv", []byte("a\tb\n1,5\t2\n"), "utf-8", []string{"a", "b"}, [][]string{{"1,5", "2"}}},
		{"pipe", "a.txt", []byte("a|b\n1|2\n"), "utf-8", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"caret", "a.txt", []byte("a^b\n1^2\n"), "utf-8", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"tilde", "a.txt", []byte("a~b\n1~2\n"), "utf-8", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"colon", "a.txt", []byte("a:b\n1:2\n"), "utf-8", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"windows-1252", "a.csv", []byte("name,city\nM\xfcller,K\xf6ln\n"), "windows-1252", []string{"name", "city"}, [][]string{{"Müller", "Köln"}}},
		{"utf-16le with BOM", "a.csv", utf16le("name,city\nZoë,Zürich\n"), "utf-16le", []string{"name", "city"}, [][]string{{"Zoë", "Zürich"}}},
		{"title line and blanks above the header", "a.csv", []byte("Quarterly export\n\n\nid,name,email\n1,A,a@x\n"), "utf-8",
			[]string{"id", "name", "email"}, [][]string{{"1", "A", "a@x"}}},
		{"duplicate and empty headers", "a.csv", []byte("Name,,Name,name\n1,2,3,4\n"), "utf-8", []string{"Name", "Column 2", "Name (2)", "name (3)"}, [][]string{{"1", "2", "3", "4"}}},
		{"ragged rows", "a.csv", []byte("a,b,c\n1\n1,2,3\n"), "utf-8", []string{"a", "b", "c"}, [][]string{{"1", "", ""}, {"1", "2", "3"}}},
		{"empty rows between kept, trailing trimmed", "a.csv", []byte("a,b\n1,2\n,\n\n3,4\n,\n\n"), "utf-8", []string{"a", "b"},
			[][]string{{"1", "2"}, {"", ""}, {"", ""}, {"3", "4"}}},
		{"header only", "a.csv", []byte("a,b,c\n"), "utf-8", []string{"a", "b", "c"}, nil},
		{"crlf", "a.csv", []byte("a,b\r\n1,2\r\n"), "utf-8", []string{"a", "b"}, [][]string{{"1", "2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, rows := readAll(t, write(t, tt.file, tt.data), tt.file)
			if f.Encoding.Name != tt.encoding {
				t.Errorf("got encoding %s, want %s", f.Encoding.Name, tt.encoding)
			}
			if !reflect.DeepEqual(f.Tables[0].Headers, tt.headers) {
				t.Errorf("got headers %q, want %q", f.Tables[0].Headers, tt.headers)
			}
			if !reflect.DeepEqual(rows, tt.rows) {
				t.Errorf("got rows %q, want %q", rows, tt.rows)
			}
		})
	}
}

func TestInvalidUTF8IsCounted(t *testing.T) {
	data := []byte("a,b\n" + strings.Repeat("x,y\n", 20000) + "bad\xff\xfe,ok\n")
	f, rows := readAll(t, write(t, "a.csv", data), "a.csv")
	if f.Encoding.Name != "utf-8" || f.Encoding.Invalid != 2 || f.Encoding.FirstInvalid <= 0 {
		t.Fatalf("got %+v, want utf-8 with 2 invalid bytes reported", f.Encoding)
	}
	if last := rows[len(rows)-1]; last[0] != "bad\uFFFD\uFFFD" {
		t.Fatalf("got %q, want the bad bytes replaced, not dropped", last[0])
	}
}

func TestLongLine(t *testing.T) {
	caps := limits.Default()
	caps.CellLength = 20 << 20 // SLUICE_MAX_CELL_LENGTH raised above the default
	big := strings.Repeat("z", 10<<20)
	_, rows := readCapped(t, write(t, "a.csv", []byte("a,b\n"+big+",1\n")), "a.csv", caps)
	if len(rows) != 1 || len(rows[0][0]) != 10<<20 {
		t.Fatalf("got %d rows, want the 10 MB cell intact", len(rows))
	}
}

func TestBadFiles(t *testing.T) {
	tests := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"empty", "a.csv", nil, "no data"},
		{"only blank lines", "a.csv", []byte("\n\n ,\n"), "no data"},
		{"binary", "a.csv", []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x00\x01\x02garbage\x00\x00\x00\x00"), "binary"},
		{"truncated xlsx", "a.xlsx", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), "damaged or truncated"},
		{"old binary excel", "a.xls", []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1garbage"), "save the workbook as .xlsx"},
		{"json not an array", "a.json", []byte(`"hello"`), "array of objects"},
		{"json bad object", "a.json", []byte(`[{"a":1},{"a":]`), "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := extract.Open(write(t, tt.file, tt.data), tt.file, limits.Default())
			if err == nil {
				_, err = f.Tables[0].Next()
				for err == nil {
					_, err = f.Tables[0].Next()
				}
				f.Close()
				if errors.Is(err, io.EOF) {
					err = nil
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	f, rows := readAll(t, write(t, "people.json", []byte(`[{"name":"A","address":{"city":"Oslo","zip":"0150"},"tags":["x"],"age":31,"vip":true,"n":null},{"name":"B","extra":"e"}]`)), "people.json")
	want := []string{"name", "address.city", "address.zip", "tags", "age", "vip", "n", "extra"}
	if !reflect.DeepEqual(f.Tables[0].Headers, want) {
		t.Fatalf("got headers %q, want %q", f.Tables[0].Headers, want)
	}
	if !reflect.DeepEqual(rows[0], []string{"A", "Oslo", "0150", `["x"]`, "31", "true", "", ""}) || rows[1][7] != "e" {
		t.Fatalf("got rows %q", rows)
	}
	f, rows = readAll(t, write(t, "people.jsonl", []byte("{\"a\":1}\n{\"a\":2,\"b\":{\"c\":3}}\n")), "people.jsonl")
	if !reflect.DeepEqual(f.Tables[0].Headers, []string{"a", "b.c"}) || rows[1][1] != "3" {
		t.Fatalf("jsonl: got %q %q", f.Tables[0].Headers, rows)
	}
}

// A JSON upload nested far deeper than any export is refused at once, with the limit and
// the depth found, instead of costing gigabytes to flatten; braces inside strings
// do not count.
func TestJSONNestingCap(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var err error
	if f, oerr := extract.Open(write(t, "deep.json", []byte("["+deep+"]")), "deep.json", limits.Default()); oerr != nil {
		err = oerr
	} else {
		defer f.Close()
		_, err = f.Tables[0].Next()
	}
	runtime.ReadMemStats(&ms)
	if err == nil || !strings.Contains(err.Error(), "nests 10000 levels deep; the limit is 64") {
		t.Fatalf("a JSON object 10,000 deep: %v", err)
	}
	if spent := ms.TotalAlloc - before; spent > 64<<20 {
		t.Errorf("refusing it allocated %d MiB", spent>>20)
	}
	_, rows := readAll(t, write(t, "braces.json", []byte(`[{"a":"{{{{[[[[\"{{","b":{"c":{"d":1}}}]`)), "braces.json")
	if len(rows) != 1 || rows[0][0] != `{{{{[[[["{{` {
		t.Fatalf("braces in strings: %q", rows)
	}
}

func TestXLSX(t *testing.T) {
	x := excelize.NewFile()
	x.SetSheetName("Sheet1", "People")
	x.SetSheetRow("People", "A1", &[]any{"Name", "Joined", "Score", "Double"})
	x.SetSheetRow("People", "A2", &[]any{"Ann", time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC), 12.5, nil})
	x.SetCellFormula("People", "D2", "C2*2")
	dateStyle, _ := x.NewStyle(&excelize.Style{NumFmt: 14})
	x.SetCellStyle("People", "B2", "B2", dateStyle)
	x.NewSheet("Second")
	x.SetSheetRow("Second", "A1", &[]any{"k"})
	x.SetSheetRow("Second", "A2", &[]any{"v"})
	x.UpdateLinkedValue()
	// Cached formula value, as Excel would store it.
	x.SetCellValue("People", "D2", 25)
	x.SetCellFormula("People", "D2", "C2*2")
	p := filepath.Join(t.TempDir(), "book.xlsx")
	if err := x.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	f, rows := readAll(t, p, "book.xlsx")
	if len(f.Tables) != 2 || f.Tables[0].Name != "People" || f.Tables[1].Name != "Second" {
		t.Fatalf("got %d tables, want People and Second", len(f.Tables))
	}
	if !reflect.DeepEqual(f.Tables[0].Headers, []string{"Name", "Joined", "Score", "Double"}) {
		t.Fatalf("got headers %q", f.Tables[0].Headers)
	}
	if rows[0][0] != "Ann" || rows[0][1] != "2024-03-05" || rows[0][2] != "12.5" || rows[0][3] != "25" {
		t.Fatalf("got row %q, want Ann, an ISO date, 12.5 and the cached 25", rows[0])
	}
}

func TestUnclosedQuoteIsFlagged(t *testing.T) {
	f, rows := readAll(t, write(t, "a.csv", []byte("a,b\n1,\"oops\n2,x\n3,y\n")), "a.csv")
	n, line := f.Tables[0].Suspect()
	if len(rows) != 1 || n != 1 || line != 2 {
		t.Fatalf("got %d rows, suspect %d at line %d; want the swallowed rows flagged at line 2", len(rows), n, line)
	}
}

func TestZipBombIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.xlsx")
	out, _ := os.Create(p)
	zw := zip.NewWriter(out)
	w, _ := zw.Create("xl/worksheets/sheet1.xml")
	zeros := make([]byte, 1<<20)
	for i := 0; i < 80; i++ {
		w.Write(zeros)
	}
	zw.Close()
	out.Close()
	_, err := extract.Open(p, "bomb.xlsx", limits.Default())
	if err == nil || !strings.Contains(err.Error(), "zip bomb") {
		t.Fatalf("got %v, want the archive refused as a zip bomb", err)
	}
}

// Each row knows its row in the file as a spreadsheet counts them: title lines above the
// header and blank lines between rows count; an XLSX's merged title rows and gaps too; a
// JSON item's place in the list.
func TestRowNumbers(t *testing.T) {
	rowsOf := func(path, name string) []int {
		t.Helper()
		f, err := extract.Open(path, name, limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var got []int
		for {
			if _, err := f.Tables[0].Next(); errors.Is(err, io.EOF) {
				return got
			} else if err != nil {
				t.Fatal(err)
			}
			got = append(got, f.Tables[0].Row())
		}
	}
	csv := "Customer export\n\nname;email;city\nAnn;a@x.io;Oslo\n\nBob;b@x.io;Rome\n\"Multi\nline\";c@x.io;Nice\nDee;d@x.io;Bonn\n"
	if got, want := rowsOf(write(t, "c.csv", []byte(csv)), "c.csv"), []int{4, 5, 6, 7, 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("CSV rows %v, want %v", got, want)
	}
	x := excelize.NewFile()
	x.SetSheetRow("Sheet1", "A1", &[]any{"Quarterly report"})
	x.SetSheetRow("Sheet1", "A3", &[]any{"name", "email", "city"})
	x.SetSheetRow("Sheet1", "A4", &[]any{"Ann", "a@x.io", "Oslo"})
	x.SetSheetRow("Sheet1", "A7", &[]any{"Bob", "b@x.io", "Rome"})
	p := filepath.Join(t.TempDir(), "r.xlsx")
	if err := x.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	if got, want := rowsOf(p, "r.xlsx"), []int{4, 5, 6, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("XLSX rows %v, want %v", got, want)
	}
	if got, want := rowsOf(write(t, "j.json", []byte(`[{"a":1},{"a":2},{"a":3}]`)), "j.json"), []int{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("JSON rows %v, want %v", got, want)
	}
}
