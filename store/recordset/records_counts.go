package recordset

import (
	"context"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// GetRecordCounts returns the sheet's counts from the counts tables (no scan).
// Errors: not_found.
func (db *DB) GetRecordCounts(ctx context.Context, accountID, sheetID string) (*Counts, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	return readCounts(ctx, db.Reader, rs)
}

func readCounts(ctx context.Context, q sqldb.Querier, rs *stored.Sheet) (*Counts, error) {
	c := &Counts{ErrorsByField: map[string]int64{}, EmptyByField: map[string]int64{}}
	if rs.SK == 0 {
		return c, nil
	}
	if err := q.QueryRowContext(ctx, `SELECT total, valid FROM record_sheets WHERE sk = ?`, rs.SK).Scan(&c.Total, &c.Valid); err != nil {
		return nil, errs.Wrap(err, "read counts")
	}
	c.Error = c.Total - c.Valid
	rows, err := q.QueryContext(ctx, `SELECT field_key, errors, empties FROM record_field_counts WHERE sk = ?`, rs.SK)
	if err != nil {
		return nil, errs.Wrap(err, "read field counts")
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var e, m int64
		if err := rows.Scan(&k, &e, &m); err != nil {
			return nil, errs.Wrap(err, "scan field counts")
		}
		if rs.Schema.Rule(k) == nil {
			continue
		}
		if e != 0 {
			c.ErrorsByField[k] = e
		}
		c.EmptyByField[k] = m
	}
	return c, rows.Err()
}

// CountRecords counts the records q selects (a scan; the unfiltered counts come from
// GetRecordCounts). Errors: not_found, invalid.
func (db *DB) CountRecords(ctx context.Context, accountID, sheetID string, q RecordQuery) (*Counts, error) {
	defer db.reads.Reading()()
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader}
	c := &Counts{ErrorsByField: map[string]int64{}, EmptyByField: map[string]int64{}}
	if c.Total, err = rc.count(rs, &q); err != nil {
		return nil, err
	}
	errQ := q
	if errQ.Filter == "" || errQ.Filter == "all" {
		errQ.Filter = "error"
		if c.Error, err = rc.count(rs, &errQ); err != nil {
			return nil, err
		}
	} else if q.Filter == "error" {
		c.Error = c.Total
	}
	c.Valid = c.Total - c.Error
	return c, nil
}
