package recordset

import (
	"context"
	"database/sql"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// noteJobWrite records, in the transaction that adds them, the records a job added (keys lo
// to hi of the sheet), so that the job can take them back when it does not complete.
func (tx *Tx) noteJobWrite(jobID, sheetID string, lo, hi int64) error {
	if _, err := tx.Exec(`INSERT INTO job_writes (job_id, sheet_id, lo, hi) VALUES (?, ?, ?, ?)`, jobID, sheetID, lo, hi); err != nil {
		return errs.Wrap(err, "note job write")
	}
	return nil
}

// ForgetJobWrites keeps what a job added: its notes go (the job completed).
func (tx *Tx) ForgetJobWrites(jobID string) error {
	if _, err := tx.Exec(`DELETE FROM job_writes WHERE job_id = ?`, jobID); err != nil {
		return errs.Wrap(err, "forget job writes")
	}
	return nil
}

// DiscardJobWrites deletes the records a job added that are still there (through the
// ordinary delete path: counts, unique values, events) and forgets the notes; it returns how
// many records went. A job that failed, was canceled or was interrupted calls it, so an
// import leaves all of its records or none.
func (db *DB) DiscardJobWrites(ctx context.Context, jobID string, opt WriteOptions) (int, error) {
	type span struct {
		sheet  string
		lo, hi int64
	}
	var spans []span
	err := sqldb.EachRow(ctx, db.Reader, "job writes", `SELECT sheet_id, lo, hi FROM job_writes WHERE job_id = ? ORDER BY sheet_id, lo`, []any{jobID}, func(rows *sql.Rows) error {
		var s span
		if err := rows.Scan(&s.sheet, &s.lo, &s.hi); err != nil {
			return err
		}
		spans = append(spans, s)
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range spans {
		res, err := db.DeleteWhere(ctx, s.sheet, RecordQuery{after: s.lo - 1, upto: s.hi}, opt)
		if errs.Is(err, errs.NotFound) {
			continue // the sheet is gone, and its records with it
		}
		if err != nil {
			return n, err
		}
		n += res.Count
	}
	return n, db.Update(ctx, func(tx *Tx) error { return tx.ForgetJobWrites(jobID) })
}

// UnsettledJobWrites lists the jobs whose added records are still noted although the job is
// no longer running on any worker: it failed or was canceled before taking them back (the
// server stopped in between). Start-up discards them.
func (db *DB) UnsettledJobWrites(ctx context.Context) ([]string, error) {
	var ids []string
	err := sqldb.EachRow(ctx, db.Reader, "unsettled job writes", `SELECT DISTINCT w.job_id FROM job_writes w LEFT JOIN jobs j ON j.id = w.job_id
		WHERE j.id IS NULL OR j.status IN ('failed', 'canceled') OR j.deleted_at IS NOT NULL`, nil, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// NoteJobUndo makes the records a job added to a sheet one entry of actor's undo history
// there, of kind what ("import"): the person who ran an import takes it back with one Undo.
// It returns how many records the entry holds.
func (db *DB) NoteJobUndo(ctx context.Context, jobID, sheetID, actor, what string) (int, error) {
	var n int
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		var sk int64
		if err := tx.QueryRow(`SELECT sk FROM record_sheets WHERE sheet_id = ?`, sheetID).Scan(&sk); err != nil {
			if err == sql.ErrNoRows {
				return nil // the sheet never held records
			}
			return errs.Wrap(err, "job undo")
		}
		u := &undoLog{what: what}
		if err := tx.openUndo(&stored.Sheet{SK: sk}, actor, u); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO undo_records (uk, side, rid, kind) SELECT CAST(? AS BIGINT), 0, r.rid, CAST(? AS BIGINT) FROM job_writes w JOIN records r ON r.rid BETWEEN w.lo AND w.hi
			WHERE w.job_id = ? AND w.sheet_id = ?`, u.uk, undoAdded, jobID, sheetID)
		if err != nil {
			return errs.Wrap(err, "job undo")
		}
		affected, _ := res.RowsAffected()
		n = int(affected)
		if n == 0 {
			return tx.dropUndo(`uk = ?`, u.uk)
		}
		if _, err := tx.Exec(`UPDATE undo_entries SET count = ? WHERE uk = ?`, n, u.uk); err != nil {
			return errs.Wrap(err, "job undo")
		}
		return nil
	})
	return n, err
}
