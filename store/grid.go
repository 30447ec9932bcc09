package store

import (
	"context"
	"errors"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// GridQuery is what one page of the dashboard's grid asks for.
type GridQuery struct {
	AccountID  string
	SpaceID    string // files of other spaces are not named in the rows' source
	WorkbookID string
	SheetID    string
	UserID     string // whose undo history and column widths
	Records    recordset.RecordQuery
	// RowsOnly: the rows and the counts around them alone (grid.js fetching the rows on screen
	// again), not the page's frame (undo state, column widths, a blocking job).
	RowsOnly bool
}

// Grid is a page of a sheet's grid as the dashboard shows it: the records of the view, the
// counts around them and the page's frame.
type Grid struct {
	Counts   *recordset.Counts
	Records  []*recordset.Record
	Matching int64 // records the view selects, counted up to Records.CountCap (+1 past it)
	// QueryError is a malformed filter's message, shown beside the filter box (no records).
	QueryError   string
	Sources      map[string]SourceRow // by record id: the file row a record came from
	Blocking     *model.Job           // the workbook's toolbarBlocking job still running, or nil
	Undo         recordset.UndoState
	ColumnWidths ColumnWidths
}

// SourceRow is the file and row of a file a record was read from; File is "" when the file
// is gone or lies in another space.
type SourceRow struct {
	File string
	Row  int
}

// ReadGrid reads one page of a sheet's grid: the page's one read of the store, so that what
// the page needs is in one place (and a test sees it). Errors: not_found; invalid comes back
// as QueryError instead.
func (db *DB) ReadGrid(ctx context.Context, q GridQuery) (*Grid, error) {
	g := &Grid{}
	var err error
	if g.Counts, err = db.GetRecordCounts(ctx, q.AccountID, q.SheetID); err != nil {
		return nil, err
	}
	g.Records, g.Matching, err = db.GetRecords(ctx, q.AccountID, q.SheetID, q.Records, true)
	if e := (*errs.Error)(nil); errors.As(err, &e) && e.Code == errs.Invalid {
		g.QueryError, g.Records, g.Matching, err = e.Message, nil, 0, nil
	}
	if err != nil {
		return nil, err
	}
	if g.Sources, err = db.sourceRows(ctx, q, g.Records); err != nil {
		return nil, err
	}
	if q.RowsOnly {
		return g, nil
	}
	if g.Blocking, err = db.BlockingJob(ctx, q.WorkbookID); err != nil {
		return nil, err
	}
	st, err := db.UndoState(ctx, q.SheetID, q.UserID)
	if err != nil {
		return nil, err
	}
	g.Undo = *st
	if g.ColumnWidths, err = db.GetColumnWidths(ctx, q.UserID, q.SheetID); err != nil {
		return nil, err
	}
	return g, nil
}

// sourceRows finds the file rows of the records that came from a file.
func (db *DB) sourceRows(ctx context.Context, q GridQuery, recs []*recordset.Record) (map[string]SourceRow, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	runs, err := db.SourceLines(ctx, q.AccountID, q.SheetID, ids...)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	names := map[string]string{}
	out := make(map[string]SourceRow, len(recs))
	for _, id := range ids {
		file, row := runs.Of(id)
		if row == 0 {
			continue
		}
		name, ok := names[file]
		if !ok {
			f, err := db.GetFile(ctx, q.AccountID, file)
			if err != nil && !errs.Is(err, errs.NotFound) {
				return nil, err
			}
			if err == nil && f.SpaceID == q.SpaceID {
				name = f.Name
			}
			names[file] = name
		}
		out[id] = SourceRow{File: name, Row: row}
	}
	return out, nil
}
