package recordset

import (
	"context"
	"database/sql"
	"errors"
	"sort"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// Lines says where the rows of a streamed insert come from, so that each record keeps its
// row in the file (the grid shows it; a view's position says nothing about the file).
type Lines struct {
	File string // the file's id
	// Line is called right after each row the source yields and returns that row's number
	// in the file, counted from 1 as a spreadsheet does (0: none).
	Line func() int
}

// LineRun is a run of records read from consecutive rows of a file: N records from key Rid
// on were rows Line, Line+1, … of File.
type LineRun struct {
	Rid, N, Line int64
	File         string
}

// LineRuns are a sheet's runs in key order.
type LineRuns []LineRun

// Of returns the file and row a record came from ("", 0: none).
func (l LineRuns) Of(recordID string) (string, int) {
	if len(l) == 0 {
		return "", 0
	}
	rid, err := stored.ParseRecordID(recordID)
	if err != nil {
		return "", 0
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].Rid > rid }) - 1
	if i < 0 || rid >= l[i].Rid+l[i].N {
		return "", 0
	}
	return l[i].File, int(l[i].Line + rid - l[i].Rid)
}

// writeLines notes the file rows of inserted states (keys assigned), one run per stretch of
// consecutive rows.
func (tx *Tx) writeLines(file string, states []*stored.State) error {
	for i := 0; i < len(states); {
		if states[i].Line <= 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(states) && states[j].Line == states[j-1].Line+1 && states[j].RID == states[j-1].RID+1 {
			j++
		}
		if _, err := tx.Exec(`INSERT INTO record_lines (rid, n, line, file) VALUES (?, ?, ?, ?)`,
			states[i].RID, j-i, states[i].Line, file); err != nil {
			return errs.Wrap(err, "note file rows")
		}
		i = j
	}
	return nil
}

// SourceLines returns the runs of a sheet's records that came from a file: all of them, or
// with ids only those that hold one of these records. Errors: not_found.
func (db *DB) SourceLines(ctx context.Context, accountID, sheetID string, ids ...string) (LineRuns, error) {
	// Only the sheet's key is needed, not the whole sheet the record work loads.
	var acc string
	var sk sql.NullInt64
	err := db.Reader.QueryRowContext(ctx, `SELECT w.account_id, rs.sk FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id
		LEFT JOIN record_sheets rs ON rs.sheet_id = sh.id WHERE sh.id = ? AND sh.deleted_at IS NULL AND w.deleted_at IS NULL`, sheetID).Scan(&acc, &sk)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && accountID != "" && acc != accountID) {
		return nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "read file rows")
	}
	if !sk.Valid || sk.Int64 == 0 {
		return nil, nil
	}
	lo, hi := stored.RIDRange(sk.Int64)
	from := lo
	if len(ids) > 0 {
		first, last := hi, lo
		for _, id := range ids {
			if rid, err := stored.ParseRecordID(id); err == nil && rid >= lo && rid <= hi {
				first, last = min(first, rid), max(last, rid)
			}
		}
		if first > last {
			return nil, nil
		}
		from, hi = first, last
	}
	var runs LineRuns
	err = sqldb.EachRow(ctx, db.Reader, "read file rows", `SELECT rid, n, line, file FROM record_lines
		WHERE rid >= ? AND rid <= ? AND rid + n > ? ORDER BY rid`, []any{lo, hi, from}, func(rows *sql.Rows) error {
		var r LineRun
		if err := rows.Scan(&r.Rid, &r.N, &r.Line, &r.File); err != nil {
			return err
		}
		runs = append(runs, r)
		return nil
	})
	return runs, err
}
