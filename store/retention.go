package store

import (
	"context"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// DefaultRetentionDays is how long a space's data is kept after its last activity, unless
// its environment's metadata.retentionDays says otherwise.
const DefaultRetentionDays = 365

// Purged is what one retention run removed.
type Purged struct {
	Spaces []string // spaces whose data is gone
	Files  []string // files whose bytes the caller deletes from disk
}

// PurgeExpired removes the data of every space whose last activity (or creation) is older
// than its environment's retention period: records and their indexes, snapshots, sheets,
// workbooks, documents' bodies and files. The space is marked deleted and space:expired is
// emitted; the event trail itself is kept. Undo history older than UndoMaxAge and
// Idempotency-Keys past their window go too.
func (db *DB) PurgeExpired(ctx context.Context) (*Purged, error) {
	now := db.Now().UTC()
	rows, err := db.Reader.QueryContext(ctx, `SELECT s.id FROM spaces s JOIN environments e ON e.id = s.environment_id
		WHERE s.deleted_at IS NULL AND COALESCE(s.last_activity_at, s.created_at) <
			? - 86400000 * COALESCE(CAST(`+db.Reader.Dialect().JSONField("e.metadata", "retentionDays")+` AS BIGINT), ?)`, sqldb.Millis(now), DefaultRetentionDays)
	if err != nil {
		return nil, errs.Wrap(err, "find expired spaces")
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, errs.Wrap(err, "scan expired space")
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "find expired spaces")
	}
	rows.Close()
	out := &Purged{}
	err = db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, sqldb.IdemExpired(tx.Now())); err != nil {
			return errs.Wrap(err, "expire idempotency keys")
		}
		return tx.PurgeUndo()
	})
	if err != nil {
		return out, err
	}
	for _, id := range ids {
		files, err := db.purgeSpace(ctx, id)
		if err != nil {
			return out, err
		}
		out.Spaces = append(out.Spaces, id)
		out.Files = append(out.Files, files...)
	}
	return out, nil
}

// purgeSpace empties one space: its records a batch at a time, then the rest in one
// transaction that also marks it deleted and emits space:expired.
func (db *DB) purgeSpace(ctx context.Context, spaceID string) ([]string, error) {
	var sks []int64
	var sheets []string
	rows, err := db.Reader.QueryContext(ctx, `SELECT sh.id, COALESCE(rs.sk, 0) FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id
		LEFT JOIN record_sheets rs ON rs.sheet_id = sh.id WHERE w.space_id = ?`, spaceID)
	if err != nil {
		return nil, errs.Wrap(err, "list sheets to purge")
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var sk int64
		if err := rows.Scan(&id, &sk); err != nil {
			rows.Close()
			return nil, errs.Wrap(err, "scan sheet to purge")
		}
		sheets = append(sheets, id)
		if sk != 0 {
			sks = append(sks, sk)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "list sheets to purge")
	}
	rows.Close()
	for _, sk := range sks {
		if err := db.PurgeRecords(ctx, sk); err != nil {
			return nil, err
		}
	}
	var files []string
	err = db.Update(ctx, func(tx *Tx) error {
		var accountID string
		if err := tx.QueryRow(`SELECT account_id FROM spaces WHERE id = ?`, spaceID).Scan(&accountID); err != nil {
			return errs.Wrap(err, "read space to purge")
		}
		sp, err := getSpace(tx.Context(), tx, accountID, spaceID)
		if err != nil {
			return err
		}
		for _, sk := range sks {
			if err := tx.DropRecordIndexes(sk); err != nil {
				return err
			}
		}
		for _, id := range sheets {
			if _, err := tx.Exec(`DELETE FROM snapshot_records WHERE ssk IN (SELECT ssk FROM snapshots WHERE sheet_id = ?)`, id); err != nil {
				return errs.Wrap(err, "purge snapshots")
			}
			if _, err := tx.Exec(`DELETE FROM snapshots WHERE sheet_id = ?`, id); err != nil {
				return errs.Wrap(err, "purge snapshots")
			}
		}
		rows, err := tx.QueryContext(tx.Context(), `SELECT id FROM files WHERE space_id = ? AND deleted_at IS NULL`, spaceID)
		if err != nil {
			return errs.Wrap(err, "list files to purge")
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return errs.Wrap(err, "scan file to purge")
			}
			files = append(files, id)
		}
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "list files to purge")
		}
		rows.Close()
		now := sqldb.Millis(tx.Now())
		for _, q := range []string{
			`UPDATE files SET deleted_at = ? WHERE space_id = ? AND deleted_at IS NULL`,
			`UPDATE documents SET body = '', deleted_at = COALESCE(deleted_at, ?) WHERE space_id = ?`,
			`UPDATE sheets SET deleted_at = COALESCE(deleted_at, ?) WHERE workbook_id IN (SELECT id FROM workbooks WHERE space_id = ?)`,
			`UPDATE workbooks SET deleted_at = COALESCE(deleted_at, ?) WHERE space_id = ?`,
			`UPDATE spaces SET deleted_at = ? WHERE id = ?`,
		} {
			if _, err := tx.Exec(q, now, spaceID); err != nil {
				return errs.Wrap(err, "purge space")
			}
		}
		_, err = tx.Emit("space:expired", spaceContext(sp, "retention"), map[string]any{"spaceId": spaceID, "reason": "retention"})
		return err
	})
	return files, err
}
