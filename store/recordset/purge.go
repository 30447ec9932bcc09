package recordset

import (
	"context"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
)

// purgeBatch is how many records one purge transaction deletes, so a big sheet never holds
// the writer for long.
const purgeBatch = 10000

// PurgeRecords deletes sheet sk's records, purgeBatch a transaction, and the tally packs
// with the first batch.
func (db *DB) PurgeRecords(ctx context.Context, sk int64) error {
	for {
		var n int64
		err := db.Update(ctx, func(tx *Tx) error {
			tx.touch(sk)
			if tx.Dialect().KeepsTallyPacks() {
				// (the packs go with the first records: a tally must not find them alone)
				if _, err := tx.Exec(`DELETE FROM tally_packs WHERE sk = ?`, sk); err != nil {
					return errs.Wrap(err, "purge tally packs")
				}
			}
			res, err := tx.Exec(`DELETE FROM records WHERE rid IN (SELECT rid FROM records WHERE rid >= ? AND rid < ? LIMIT ?)`,
				sk<<stored.SeqBits, (sk+1)<<stored.SeqBits, purgeBatch)
			if err != nil {
				return errs.Wrap(err, "purge records")
			}
			n, _ = res.RowsAffected()
			return nil
		})
		if err != nil {
			return err
		}
		if n < purgeBatch {
			return nil
		}
	}
}

// DropRecordIndexes deletes what sheet sk's records left once PurgeRecords has deleted
// them: unique entries and rules, columns, counts, value lists, versions, undo history, file
// rows and the search index.
func (tx *Tx) DropRecordIndexes(sk int64) error {
	for _, q := range []string{
		`DELETE FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM record_dups WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM unique_rules WHERE sk = ?`,
		`DELETE FROM record_columns WHERE sk = ?`,
		`DELETE FROM record_field_counts WHERE sk = ?`,
		`DELETE FROM record_values WHERE sk = ?`,
		`DELETE FROM kept_values WHERE sk = ?`,
		`DELETE FROM value_counts WHERE sk = ?`,
		`DELETE FROM record_versions WHERE sk = ?`,
		`DELETE FROM undo_records WHERE uk IN (SELECT uk FROM undo_entries WHERE sk = ?)`,
		`DELETE FROM undo_entries WHERE sk = ?`,
		`UPDATE record_sheets SET total = 0, valid = 0, shape = shape + 1 WHERE sk = ?`,
	} {
		if _, err := tx.Exec(q, sk); err != nil {
			return errs.Wrap(err, "purge record indexes")
		}
	}
	if _, err := tx.Exec(`DELETE FROM record_lines WHERE rid >= ? AND rid < ?`, sk<<stored.SeqBits, (sk+1)<<stored.SeqBits); err != nil {
		return errs.Wrap(err, "purge file rows")
	}
	if err := tx.dropSearchIndex(sk); err != nil {
		return errs.Wrap(err, "drop search index")
	}
	return nil
}
