package extract_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluice/sluice/extract"
	"github.com/sluice/sluice/limits"
)

// openErr opens data as name and reads its first table to the end, returning the first error.
func openErr(t *testing.T, name string, data []byte) error {
	t.Helper()
	f, err := extract.Open(write(t, name, data), name, limits.Default())
	if err != nil {
		return err
	}
	defer f.Close()
	for _, tb := range f.Tables {
		for {
			if _, err := tb.Next(); err != nil {
				if err.Error() == "EOF" {
					break
				}
				return err
			}
		}
	}
	return nil
}

func wantRefusal(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want a refusal", what)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: got %q, want it to say %q", what, err, w)
		}
	}
}

// Each cap of issue 13 against the pathological file that motivated it.
func TestCapsRefusePathologicalFiles(t *testing.T) {
	// A 2.2 MB CSV with 100,000 columns.
	var wide bytes.Buffer
	for row := 0; row < 2; row++ {
		for c := 0; c < 100_000; c++ {
			if c > 0 {
				wide.WriteByte(',')
			}
			fmt.Fprintf(&wide, "c%d", c%10)
		}
		wide.WriteByte('\n')
	}
	wantRefusal(t, "100,000 columns", openErr(t, "wide.csv", wide.Bytes()), "100,000 columns", "limit is 2,000", "SLUICE_MAX_COLUMNS")

	// A file without a newline: one header of 5 million characters.
	wantRefusal(t, "no newline", openErr(t, "line.csv", bytes.Repeat([]byte("x"), 5_000_000)),
		"header of column 1 is 5,000,000 characters long", "limit is 1,000", "SLUICE_MAX_NAME_LENGTH")

	// One value past the cell cap, in the third data row.
	long := "name,notes\na,1\nb,2\nc," + strings.Repeat("é", 150_000) + "\n"
	wantRefusal(t, "long cell", openErr(t, "long.csv", []byte(long)),
		`data row 3, column "notes", holds a value of 150,000 characters`, "limit is 100,000", "SLUICE_MAX_CELL_LENGTH")

	// JSON objects with 3,000 distinct keys.
	var keys strings.Builder
	keys.WriteString("[{")
	for i := 0; i < 3000; i++ {
		if i > 0 {
			keys.WriteByte(',')
		}
		fmt.Fprintf(&keys, `"k%d":%d`, i, i)
	}
	keys.WriteString("}]")
	wantRefusal(t, "3,000 JSON keys", openErr(t, "keys.json", []byte(keys.String())), "3,000 columns", "limit is 2,000")

	// Just under the caps is fine.
	var ok bytes.Buffer
	for c := 0; c < 2000; c++ {
		if c > 0 {
			ok.WriteByte(',')
		}
		fmt.Fprintf(&ok, "h%d", c)
	}
	ok.WriteString("\n" + strings.Repeat("v,", 1999) + strings.Repeat("y", 100_000) + "\n")
	if err := openErr(t, "ok.csv", ok.Bytes()); err != nil {
		t.Fatalf("2,000 columns and a 100,000-character value: %v", err)
	}
}

// rawXLSX writes a minimal workbook whose one worksheet has the given XML body.
func rawXLSX(t *testing.T, sheet func(w *bytes.Buffer)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.xlsx")
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(out)
	parts := map[string]string{
		"[Content_Types].xml":        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels":                `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml":            `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Huge" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
	}
	for name, body := range parts {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	var b bytes.Buffer
	sheet(&b)
	w, _ := zw.Create("xl/worksheets/sheet1.xml")
	w.Write(b.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return p
}

const sheetHead = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`

func TestXLSXPastExcelLimitsIsRefusedBeforeReading(t *testing.T) {
	// The dimension says 2,000,000 rows: refused from the sheet's first bytes.
	p := rawXLSX(t, func(w *bytes.Buffer) {
		w.WriteString(sheetHead + `<dimension ref="A1:B2000000"/><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row></sheetData></worksheet>`)
	})
	_, err := extract.Open(p, "big.xlsx", limits.Default())
	wantRefusal(t, "dimension", err, `worksheet "Huge" has 2,000,000 rows`, "Excel's limit is 1,048,576 rows")

	// No dimension: the rows are counted.
	p = rawXLSX(t, func(w *bytes.Buffer) {
		w.WriteString(sheetHead + `<sheetData>`)
		for r := 1; r <= 1_048_600; r++ {
			fmt.Fprintf(w, `<row r="%d"/>`, r)
		}
		w.WriteString(`</sheetData></worksheet>`)
	})
	_, err = extract.Open(p, "big.xlsx", limits.Default())
	wantRefusal(t, "row count", err, `worksheet "Huge" has 1,048,600 rows`)

	// A column beyond XFD.
	p = rawXLSX(t, func(w *bytes.Buffer) {
		w.WriteString(sheetHead + `<dimension ref="A1:ZZZ9"/><sheetData/></worksheet>`)
	})
	_, err = extract.Open(p, "big.xlsx", limits.Default())
	wantRefusal(t, "columns", err, "18,278 columns", "Excel's limit is 16,384")
}

// A file whose one value runs to 40 MiB is refused once a record passes 32 MiB, without the
// reader buffering the whole value (CSV quoted over many lines, a JSON string), and its heap
// stays far below the file's size.
func TestHugeValueIsRefusedWhileReading(t *testing.T) {
	big := strings.Repeat("x", 40<<20)
	for _, c := range []struct{ name, data, want string }{
		{"one.csv", "a,b\n1,\"" + big + "\"\n", "a row of the file is larger than 32 MiB"},
		{"lines.csv", "a,b\n1,\"" + strings.Repeat("yyyyyyy\n", 5<<20) + "\"\n", "a row of the file is larger than 32 MiB"},
		{"one.json", `[{"a":"` + big + `"}]`, "an object of the file is larger than 32 MiB"},
		{"one.jsonl", `{"a":"` + big + `"}` + "\n", "an object of the file is larger than 32 MiB"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := openErr(t, c.name, []byte(c.data))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if grown := int64(after.TotalAlloc - before.TotalAlloc); grown > 400<<20 {
			t.Errorf("%s: reading allocated %d MiB", c.name, grown>>20)
		}
	}
	// Quotes in the middle of a value do not open a quoted value: a long file of such rows is fine.
	rows := strings.Repeat("1,5\" screen\n", 4<<20)
	if err := openErr(t, "stray.csv", []byte("a,b\n"+rows)); err != nil {
		t.Errorf("stray quotes: %v", err)
	}
}
