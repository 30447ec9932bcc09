package recordset

import (
	"database/sql"
	"sort"

	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// countDelta accumulates changes to a sheet's counts during a write.
type countDelta struct {
	total, valid int64
	shape        int64 // 1 when records are added or removed (record_sheets.shape)
	errors       map[string]int64
	empties      map[string]int64
	emptyAt      []int64 // empties by rule index, folded into empties when applied
	values       *valueDelta
}

func newCountDelta() *countDelta {
	return &countDelta{errors: map[string]int64{}, empties: map[string]int64{}}
}

// tally adds (sign 1) or removes (sign -1) a full record's contribution.
func (d *countDelta) tally(rs *stored.Sheet, st *stored.State, sign int64) {
	d.total += sign
	d.tallyStatus(rs, st.EFS, st.Dups, sign)
	d.values.tally(st.Row, rs.ValidOf(st.EFS, st.Dups), sign, sign > 0 && st.PreCounted)
	if d.emptyAt == nil {
		d.emptyAt = make([]int64, len(rs.Schema.Rules))
	}
	for i, v := range st.Row {
		if records.IsEmpty(v) {
			d.emptyAt[i] += sign
		}
	}
}

// tallyStatus adds or removes the validity and error-field part only.
func (d *countDelta) tallyStatus(rs *stored.Sheet, efs []string, dups []int64, sign int64) {
	if rs.ValidOf(efs, dups) {
		d.valid += sign
	}
	for _, k := range rs.ErrorKeys(efs, dups) {
		d.errors[k] += sign
	}
}

// apply writes the delta to the counts tables.
func (tx *Tx) applyCounts(rs *stored.Sheet, d *countDelta) error {
	tx.touchRecords(rs.SK)
	if err := tx.applyValues(rs, d.values); err != nil {
		return err
	}
	p := tx.sheetPatch(rs.SK)
	// (p.changes is read after the commit: the statement may go with the commit's)
	if err := tx.LaterScan("update counts", `UPDATE record_sheets SET total = total + ?, valid = valid + ?, shape = shape + ?, changes = changes + 1 WHERE sk = ? RETURNING changes`,
		[]any{&p.changes}, d.total, d.valid, d.shape, rs.SK); err != nil {
		return err
	}
	p.bumps++
	rs.Total += d.total
	for i, n := range d.emptyAt {
		if n != 0 {
			d.empties[rs.Schema.Rules[i].Key] += n
		}
	}
	d.emptyAt = nil
	keys := make([]string, 0, len(d.errors)+len(d.empties))
	for k := range d.errors {
		keys = append(keys, k)
	}
	for k := range d.empties {
		if _, ok := d.errors[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		e, m := d.errors[k], d.empties[k]
		if e == 0 && m == 0 {
			continue
		}
		err := tx.Later("update field counts", `INSERT INTO record_field_counts (sk, field_key, errors, empties) VALUES (?, ?, ?, ?)
			ON CONFLICT (sk, field_key) DO UPDATE SET errors = record_field_counts.errors + excluded.errors, empties = record_field_counts.empties + excluded.empties`, rs.SK, k, e, m)
		if err != nil {
			return err
		}
	}
	return nil
}

// loadStates reads the records with the given keys; keys not found are left out.
func (tx *Tx) loadStates(rs *stored.Sheet, rids []int64) (map[int64]*stored.State, error) {
	out := make(map[int64]*stored.State, len(rids))
	err := sqldb.EachRow(tx.Context(), tx, "load records", `SELECT `+stored.StateColumns+` FROM records WHERE `+tx.Dialect().InInts("rid", "?"),
		[]any{stored.RIDsJSON(rids)}, func(rows *sql.Rows) error {
			st, err := rs.ScanState(rows)
			if err == nil {
				out[st.RID] = st
			}
			return err
		})
	return out, err
}
