package recordset_test

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// A streamed import notes each record's row in its file, across batches and around rows
// the file skips; records added another way have none, and a query for a page of records
// reads only the runs that hold them.
func TestSourceLinesFollowStreamedInserts(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "Lines", Fields: []model.Field{{Key: "name", Type: model.FieldString}}})
	n, row := 0, 0
	src := func() ([]json.RawMessage, error) {
		if n == 12000 {
			return nil, io.EOF
		}
		n++
		row = n + 3 // a title line, a blank line and the header above
		if n > 7000 {
			row += 10 // ten rows the file skips (a second table's header, say)
		}
		return []json.RawMessage{json.RawMessage(fmt.Sprintf(`"r%d"`, n))}, nil
	}
	lines := &recordset.Lines{File: "us_fl_test", Line: func() int { return row }}
	if _, err := e.db.InsertStream(t.Context(), sh, []string{"name"}, src, 5000, recordset.WriteOptions{Actor: "us_usr_test", Lines: lines}); err != nil {
		t.Fatal(err)
	}
	typed, err := e.db.InsertRecords(t.Context(), sh, []recordset.RecordIn{{Values: map[string]recordset.CellIn{"name": {Value: json.RawMessage(`"typed"`), HasValue: true}}}}, recordset.WriteOptions{Actor: "us_usr_test"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := e.db.SourceLines(t.Context(), e.account, sh)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 { // batches of 5,000: 1–5,000, 5,001–7,000, 7,001–10,000, 10,001–12,000
		t.Errorf("%d runs, want 4: %+v", len(all), all)
	}
	recs, _, err := e.db.GetRecords(t.Context(), e.account, sh, recordset.RecordQuery{Page: model.Page{Size: 12001, Number: 1}}, false)
	if err != nil || len(recs) != 12001 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i, r := range recs[:12000] {
		want := i + 1 + 3
		if i >= 7000 {
			want += 10
		}
		if file, got := all.Of(r.ID); got != want || file != "us_fl_test" {
			t.Fatalf("record %d: %s row %d, want row %d", i+1, file, got, want)
		}
	}
	if _, got := all.Of(typed.Records[0].ID); got != 0 {
		t.Errorf("a typed record has row %d, want none", got)
	}
	page, err := e.db.SourceLines(t.Context(), e.account, sh, recs[6990].ID, recs[7005].ID)
	if err != nil || len(page) != 2 {
		t.Fatalf("runs of a page across the skip: %+v, %v", page, err)
	}
	if _, got := page.Of(recs[7005].ID); got != 7006+13 {
		t.Errorf("record 7,006 read from its page's runs: row %d, want %d", got, 7006+13)
	}
	if none, err := e.db.SourceLines(t.Context(), e.account, sh, typed.Records[0].ID); err != nil || len(none) != 0 {
		t.Errorf("runs of a typed record: %+v, %v", none, err)
	}
}
