package recordset

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// Records written before their kinds were kept (migration 041) have none stored, and a search
// tests each of their fields (1 s for a common needle at 1,000,000 records instead of 0.1 s).
// FillRecordKinds works them out from the stored values in the background, kindsSlice
// records a transaction, each slice once nothing has read or written records for a moment
// (as a search index build does), so an upgraded installation's sheets get the shortcut
// without being written again. A record written meanwhile keeps the kinds its write stored.

// kindsSlice is how many records one transaction of FillRecordKinds fills in.
var kindsSlice = 5000

// FillRecordKinds fills in the kinds of every record that has none, and returns how many it
// filled in; it returns when there are none left or ctx ends. Once none are left (or the
// database had no records when it began to keep kinds) the setting record_kinds_filled says
// so, and later calls return at once rather than read every record again.
func (db *DB) FillRecordKinds(ctx context.Context) (int64, error) {
	var done string
	err := db.Reader.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'record_kinds_filled'`).Scan(&done)
	if err == nil {
		return 0, nil
	}
	if err != sql.ErrNoRows {
		return 0, errs.Wrap(err, "read setting")
	}
	var filled, after int64
	for {
		if err := db.writes.Wait(ctx, stored.WritesQuiet, time.Minute); err != nil {
			return filled, err
		}
		if err := db.reads.Wait(ctx, stored.ReadsQuiet, stored.ReadsWaitMax); err != nil {
			return filled, err
		}
		var n int
		err := db.Update(ctx, func(tx *Tx) error {
			var err error
			if n, after, err = tx.fillKinds(after); err != nil || n > 0 {
				return err
			}
			_, err = tx.Exec(`INSERT INTO settings (key, value) VALUES ('record_kinds_filled', '1') ON CONFLICT (key) DO NOTHING`)
			return err
		})
		if err != nil {
			return filled, err
		}
		if filled += int64(n); n == 0 {
			return filled, nil
		}
	}
}

// fillKinds fills in the kinds of up to kindsSlice records without them after key after, and
// returns how many and the last key read.
func (tx *Tx) fillKinds(after int64) (n int, last int64, err error) {
	rids := map[int64][]int64{}
	err = sqldb.EachRow(tx.Context(), tx, "read records", `SELECT rid, vals FROM records WHERE rid > ? AND kinds IS NULL ORDER BY rid LIMIT ?`,
		[]any{after, kindsSlice}, func(rows *sql.Rows) error {
			var rid int64
			var vals sql.RawBytes
			if err := rows.Scan(&rid, &vals); err != nil {
				return errs.Wrap(err, "scan record")
			}
			k, err := storedKinds(vals)
			if err != nil {
				return err
			}
			rids[k] = append(rids[k], rid)
			n, last = n+1, rid
			return nil
		})
	if err != nil {
		return 0, 0, err
	}
	for k, list := range rids {
		// (kinds IS NULL: a write in another node's transaction since the read stored its own)
		if _, err := tx.Exec(`UPDATE records SET kinds = `+strconv.FormatInt(k, 10)+` WHERE kinds IS NULL AND `+tx.Dialect().InInts("rid", "?"), stored.RIDsJSON(list)); err != nil {
			return 0, 0, errs.Wrap(err, "fill in record kinds")
		}
	}
	return n, last, nil
}

// storedKinds is kinds worked out from values in the stored form (every null in it is an
// empty cell before the last value, or a dropped field's: either way a null).
func storedKinds(vals []byte) (int64, error) {
	var k int64
	err := stored.EachValue(vals, func(_ int, v []byte) {
		if string(v) == "null" {
			k |= stored.KindNull
			return
		}
		k |= stored.ValueKinds(v)
	})
	return stored.SettleKinds(k), err
}
