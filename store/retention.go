package store

import (
	"context"

	"github.com/sluice/sluice/errs"
)

// DefaultRetentionDays is how long a space's data is kept after its last activity, unless
// its environment's metadata.retentionDays says otherwise.
const DefaultRetentionDays = 365

// purgeBatch is how many records one purge transaction deletes, so a big sheet never holds
// the writer for long.
const purgeBatch = 10000

// Purged is what one retention run removed.
type Purged struct {
	Spaces []string // spaces whose data is gone
	Files  []string // files whose bytes the caller deletes from disk
}

// PurgeExpired removes the data of every space whose last activity (or creation) is older
// than its environment's retention period: records and their indexes, snapshots, sheets,
// workbooks, documents' bodies and files. The space is marked deleted and space:expired is
// emitted; the event trail itself is kept. Undo history older than UndoMaxAge goes too.
func (db *DB) PurgeExpired(ctx context.Context) (*Purged, error) {
	now := db.Now().UTC()
	rows, err := db.r.QueryContext(ctx, `SELECT s.id FROM spaces s JOIN environments e ON e.id = s.environment_id
		WHERE s.deleted_at IS NULL AND COALESCE(s.last_activity_at, s.created_at) <
			? - 86400000 * COALESCE(CAST(json_extract(e.metadata, '$.retentionDays') AS BIGINT), ?)`, ms(now), DefaultRetentionDays)
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
	if err := db.Update(ctx, func(tx *Tx) error { return tx.purgeUndo() }); err != nil {
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
	rows, err := db.r.QueryContext(ctx, `SELECT sh.id, COALESCE(rs.sk, 0) FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id
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
		for {
			var n int64
			err := db.Update(ctx, func(tx *Tx) error {
				tx.touch(sk)
				if tx.dialect().keepsTallyPacks() {
					// (the packs go with the first records: a tally must not find them alone)
					if _, err := tx.exec(`DELETE FROM tally_packs WHERE sk = ?`, sk); err != nil {
						return errs.Wrap(err, "purge tally packs")
					}
				}
				res, err := tx.exec(`DELETE FROM records WHERE rid IN (SELECT rid FROM records WHERE rid >= ? AND rid < ? LIMIT ?)`,
					sk<<seqBits, (sk+1)<<seqBits, purgeBatch)
				if err != nil {
					return errs.Wrap(err, "purge records")
				}
				n, _ = res.RowsAffected()
				return nil
			})
			if err != nil {
				return nil, err
			}
			if n < purgeBatch {
				break
			}
		}
	}
	var files []string
	err = db.Update(ctx, func(tx *Tx) error {
		var accountID string
		if err := tx.queryRow(`SELECT account_id FROM spaces WHERE id = ?`, spaceID).Scan(&accountID); err != nil {
			return errs.Wrap(err, "read space to purge")
		}
		sp, err := getSpace(tx.ctx, tx, accountID, spaceID)
		if err != nil {
			return err
		}
		for _, sk := range sks {
			for _, q := range []string{
				`DELETE FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
				`DELETE FROM record_dups WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
				`DELETE FROM unique_rules WHERE sk = ?`,
				`DELETE FROM record_columns WHERE sk = ?`,
				`DELETE FROM record_field_counts WHERE sk = ?`,
				`DELETE FROM record_values WHERE sk = ?`,
				`DELETE FROM value_counts WHERE sk = ?`,
				`DELETE FROM record_versions WHERE sk = ?`,
				`DELETE FROM undo_records WHERE uk IN (SELECT uk FROM undo_entries WHERE sk = ?)`,
				`DELETE FROM undo_entries WHERE sk = ?`,
				`UPDATE record_sheets SET total = 0, valid = 0, shape = shape + 1 WHERE sk = ?`,
			} {
				if _, err := tx.exec(q, sk); err != nil {
					return errs.Wrap(err, "purge record indexes")
				}
			}
			if _, err := tx.exec(`DELETE FROM record_lines WHERE rid >= ? AND rid < ?`, sk<<seqBits, (sk+1)<<seqBits); err != nil {
				return errs.Wrap(err, "purge file rows")
			}
			if err := tx.dropSearchIndex(sk); err != nil {
				return errs.Wrap(err, "drop search index")
			}
		}
		for _, id := range sheets {
			if _, err := tx.exec(`DELETE FROM snapshot_records WHERE ssk IN (SELECT ssk FROM snapshots WHERE sheet_id = ?)`, id); err != nil {
				return errs.Wrap(err, "purge snapshots")
			}
			if _, err := tx.exec(`DELETE FROM snapshots WHERE sheet_id = ?`, id); err != nil {
				return errs.Wrap(err, "purge snapshots")
			}
		}
		rows, err := tx.QueryContext(tx.ctx, `SELECT id FROM files WHERE space_id = ? AND deleted_at IS NULL`, spaceID)
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
		now := ms(tx.now)
		for _, q := range []string{
			`UPDATE files SET deleted_at = ? WHERE space_id = ? AND deleted_at IS NULL`,
			`UPDATE documents SET body = '', deleted_at = COALESCE(deleted_at, ?) WHERE space_id = ?`,
			`UPDATE sheets SET deleted_at = COALESCE(deleted_at, ?) WHERE workbook_id IN (SELECT id FROM workbooks WHERE space_id = ?)`,
			`UPDATE workbooks SET deleted_at = COALESCE(deleted_at, ?) WHERE space_id = ?`,
			`UPDATE spaces SET deleted_at = ? WHERE id = ?`,
		} {
			if _, err := tx.exec(q, now, spaceID); err != nil {
				return errs.Wrap(err, "purge space")
			}
		}
		_, err = tx.Emit("space:expired", spaceContext(sp, "retention"), map[string]any{"spaceId": spaceID, "reason": "retention"})
		return err
	})
	return files, err
}
