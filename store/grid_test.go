package store_test

import (
	"encoding/json"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// The grid's one read: the counts and the records of the view, a malformed filter as its
// message rather than an error, and the page's frame only when the whole page is asked for.
func TestReadGridReadsThePageInOneCall(t *testing.T) {
	db, err := store.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	boot, err := db.EnsureBootstrap(ctx, store.Bootstrap{AccountName: "T", AdminEmail: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	acc, env := boot.Account.ID, boot.Environment.ID
	sp := &model.Space{AccountID: acc, EnvironmentID: env, Name: "S"}
	if err := db.CreateSpace(ctx, sp, "test"); err != nil {
		t.Fatal(err)
	}
	wb := &model.Workbook{AccountID: acc, EnvironmentID: env, SpaceID: sp.ID, Name: "W", Sheets: []*model.Sheet{{Name: "People", Slug: "people",
		Config: model.SheetConfig{Name: "People", Slug: "people", Fields: []model.Field{{Key: "name", Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}}}}}}}
	if err := db.CreateWorkbook(ctx, wb, "test"); err != nil {
		t.Fatal(err)
	}
	sheetID := wb.Sheets[0].ID
	in := []recordset.RecordIn{{Values: map[string]recordset.CellIn{"name": {Value: json.RawMessage(`"Ada"`), HasValue: true}}}, {Values: map[string]recordset.CellIn{}}}
	if _, err := db.InsertRecords(ctx, sheetID, in, recordset.WriteOptions{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveColumnWidths(ctx, "us_1", sheetID, store.ColumnWidths{"name": 240}); err != nil {
		t.Fatal(err)
	}
	q := store.GridQuery{AccountID: acc, SpaceID: sp.ID, WorkbookID: wb.ID, SheetID: sheetID, UserID: "us_1",
		Records: recordset.RecordQuery{Filter: "error", Page: model.Page{Size: 20, Number: 1}, CountCap: 100}}
	g, err := db.ReadGrid(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if g.Counts.Total != 2 || g.Counts.Error != 1 || len(g.Records) != 1 || g.Matching != 1 || g.QueryError != "" {
		t.Errorf("counts %+v, %d records, %d matching, query error %q", g.Counts, len(g.Records), g.Matching, g.QueryError)
	}
	if g.ColumnWidths["name"] != 240 || g.Blocking != nil || g.Undo.CanUndo {
		t.Errorf("the frame: widths %v, blocking %v, undo %+v", g.ColumnWidths, g.Blocking, g.Undo)
	}
	q.RowsOnly, q.Records.Q = true, "name eq"
	g, err = db.ReadGrid(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if g.QueryError == "" || len(g.Records) != 0 || g.Counts.Total != 2 || g.ColumnWidths != nil {
		t.Errorf("a malformed filter, rows only: query error %q, %d records, counts %+v, widths %v", g.QueryError, len(g.Records), g.Counts, g.ColumnWidths)
	}
	q.SheetID = "us_sh_missing"
	if _, err := db.ReadGrid(ctx, q); err == nil {
		t.Error("a missing sheet was read")
	}
}
