package extract

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice/sluice/limits"
	"github.com/xuri/excelize/v2"
)

// The streamed styles are the ones excelize's GetCellStyle gives, cell for cell, on sheets
// with skipped rows, a column that starts at row 100, several styles and two sheets; and the
// date columns (a built-in and a custom date format) come out as ISO dates, the one whose
// first date is at row 100 too.
func TestCellStylesAsExcelize(t *testing.T) {
	x := excelize.NewFile()
	x.SetSheetName("Sheet1", "Main")
	x.NewSheet("Other")
	date, _ := x.NewStyle(&excelize.Style{NumFmt: 14})
	custom := "dd/mm/yyyy"
	date2, _ := x.NewStyle(&excelize.Style{CustomNumFmt: &custom})
	money, _ := x.NewStyle(&excelize.Style{NumFmt: 4})
	x.SetSheetRow("Main", "A1", &[]any{"id", "amount", "late date", "custom date"})
	for r := 2; r <= 150; r++ {
		if r%7 == 0 {
			continue // a row left out of the part
		}
		cell, _ := excelize.CoordinatesToCellName(1, r)
		x.SetSheetRow("Main", cell, &[]any{r, float64(r) / 3})
		a, _ := excelize.CoordinatesToCellName(2, r)
		x.SetCellStyle("Main", a, a, money)
		if r >= 100 {
			c, _ := excelize.CoordinatesToCellName(3, r)
			x.SetCellValue("Main", c, time.Date(2024, 1, r-99, 0, 0, 0, 0, time.UTC))
			x.SetCellStyle("Main", c, c, date)
		}
		if r%2 == 0 {
			d, _ := excelize.CoordinatesToCellName(4, r)
			x.SetCellValue("Main", d, time.Date(2023, 5, 1+r%28, 0, 0, 0, 0, time.UTC))
			x.SetCellStyle("Main", d, d, date2)
		}
	}
	x.SetSheetRow("Other", "B3", &[]any{"x", 1})
	x.SetCellStyle("Other", "C3", "C3", money)
	p := filepath.Join(t.TempDir(), "styles.xlsx")
	if err := x.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	saved, err := excelize.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	parts := findWorksheetParts(fh, st.Size())
	for _, sheet := range []string{"Main", "Other"} {
		styles := parts.open(sheet)
		if styles == nil {
			t.Fatalf("%s: no styles part found", sheet)
		}
		for row := 1; row <= 160; row++ {
			for col := 1; col <= 5; col++ {
				cell, _ := excelize.CoordinatesToCellName(col, row)
				want, _ := saved.GetCellStyle(sheet, cell)
				if got := styles.at(row, col); got != want {
					t.Fatalf("%s!%s: streamed style %d, excelize %d", sheet, cell, got, want)
				}
			}
		}
		styles.Close()
	}
	f, err := Open(p, "styles.xlsx", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last []string
	for {
		row, err := f.Tables[0].Next()
		if err != nil {
			break
		}
		if row[0] == "150" {
			last = row
		}
	}
	if len(last) < 4 || last[2] != "2024-02-20" || last[3] != "2023-05-11" {
		t.Fatalf("row 150: %q, want the late and the custom dates as ISO dates", last)
	}
}
