package recordset

import (
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
)

// assignColumns retires the positions of dropped fields and gives every field of the
// schema a position.
func (tx *Tx) assignColumns(rs *stored.Sheet) error {
	l := rs.Layout
	for _, col := range l.Retire {
		if _, err := tx.Exec(`UPDATE record_columns SET retired = 1 WHERE sk = ? AND col = ?`, rs.SK, col); err != nil {
			return errs.Wrap(err, "retire record column")
		}
		tables := []string{"record_values", "kept_values", "value_counts"}
		if rs.Dialect.KeepsTallyPacks() {
			tables = append(tables, "tally_packs")
		}
		for _, table := range tables {
			if _, err := tx.Exec(`DELETE FROM `+table+` WHERE sk = ? AND col = ?`, rs.SK, col); err != nil {
				return errs.Wrap(err, "retire value list")
			}
		}
	}
	l.Retire = nil
	for i, col := range l.Cols {
		if col >= 0 {
			continue
		}
		col = l.Next
		key := rs.Schema.Rules[i].Key
		if _, err := tx.Exec(`INSERT INTO record_columns (sk, col, field_key) VALUES (?, ?, ?)`, rs.SK, col, key); err != nil {
			return errs.Wrap(err, "add record column")
		}
		if err := tx.keepNewColumn(rs.SK, col); err != nil {
			return err
		}
		l.Cols[i], l.ByCol[col], l.KeyOf[col] = col, i, key
		l.Next++
	}
	return nil
}
