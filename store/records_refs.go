package store

import (
	"database/sql"
	"fmt"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
)

// checkRefs adds an "unlinked" error to every reference cell whose value matches no record
// of the referenced sheet on the referenced field. Records changed later in the referenced
// sheet do not re-check the cells that point at them.
func (tx *Tx) checkRefs(rs *recSheet, states []*recState) error {
	for _, r := range rs.Schema.Refs {
		if r.Config == nil || r.Config.Ref == "" || r.Config.Key == "" {
			continue
		}
		wanted := map[string]bool{}
		for _, st := range states {
			for _, v := range records.Elements(st.row[r.Index]) {
				wanted[v] = false
			}
		}
		if len(wanted) == 0 {
			continue
		}
		missing, err := tx.findRefs(rs, r, wanted)
		if err != nil {
			return err
		}
		for _, st := range states {
			for _, v := range records.Elements(st.row[r.Index]) {
				if wanted[v] {
					continue
				}
				if st.msgs == nil {
					st.msgs = make(records.Cells, len(rs.Schema.Rules))
				}
				msg := fmt.Sprintf("No record of %s has %s %q", r.Config.Ref, r.Config.Key, v)
				if missing != "" {
					msg = missing
				}
				st.msgs[r.Index] = append(st.msgs[r.Index], records.Message{Type: records.LevelError, Source: records.SourceUnlinked, Message: msg})
				break
			}
		}
	}
	return nil
}

// findRefs marks in wanted the values that exist in the referenced sheet. It returns a
// message for every value when the referenced sheet or field itself is missing.
func (tx *Tx) findRefs(rs *recSheet, r *records.Rule, wanted map[string]bool) (string, error) {
	var targetID string
	err := tx.queryRow(`SELECT id FROM sheets WHERE workbook_id = ? AND (slug = ? OR id = ?) AND deleted_at IS NULL ORDER BY slug = ? DESC LIMIT 1`,
		rs.WorkbookID, r.Config.Ref, r.Config.Ref, r.Config.Ref).Scan(&targetID)
	if err == sql.ErrNoRows {
		return fmt.Sprintf("Referenced sheet %q not found", r.Config.Ref), nil
	}
	if err != nil {
		return "", errs.Wrap(err, "find referenced sheet")
	}
	target, err := loadRecSheet(tx.ctx, tx, "", targetID)
	if err != nil {
		return "", err
	}
	tr := target.Schema.Rule(r.Config.Key)
	if tr == nil {
		return fmt.Sprintf("Referenced field %q not found in %s", r.Config.Key, r.Config.Ref), nil
	}
	if target.sk == 0 {
		return "", nil
	}
	if u := tr.Unique; u != nil && target.ucOf[u] != 0 && target.hash == schemaHash(&target.Config) {
		return "", tx.findRefsByIndex(target.ucOf[u], tr, u, wanted)
	}
	return "", tx.findRefsByScan(target, tr, wanted)
}

// findRefsByIndex looks values up in the referenced field's unique index.
func (tx *Tx) findRefsByIndex(uc int64, tr *records.Rule, u *records.Unique, wanted map[string]bool) error {
	keyOf := map[string][]string{}
	var keys []string
	for v := range wanted {
		raw, _ := tr.Coerce(records.Quote(v))
		if k, ok := u.Key(raw); ok {
			if keyOf[k] == nil {
				keys = append(keys, k)
			}
			keyOf[k] = append(keyOf[k], v)
		}
	}
	found, err := tx.lookupHolders(uc, keys)
	if err != nil {
		return err
	}
	for k := range found {
		for _, v := range keyOf[k] {
			wanted[v] = true
		}
	}
	return nil
}

// findRefsByScan reads the referenced sheet's field, in one pass, when it has no unique index.
func (tx *Tx) findRefsByScan(target *recSheet, tr *records.Rule, wanted map[string]bool) error {
	lo, hi := ridRange(target.sk)
	list := make([]string, 0, len(wanted))
	for v := range wanted {
		list = append(list, v)
	}
	expr, eargs := target.valueExpr("r", tr.Key)
	args := append(append(append(append([]any{}, eargs...), lo, hi), eargs...), stringsJSON(list))
	return eachRow(tx.ctx, tx, "look up references", `SELECT DISTINCT CAST(`+expr+` AS TEXT) FROM records r
		WHERE r.rid BETWEEN ? AND ? AND CAST(`+expr+` AS TEXT) IN (SELECT value FROM json_each(?))`, args, func(rows *sql.Rows) error {
		var v string
		if err := rows.Scan(&v); err != nil {
			return errs.Wrap(err, "scan reference")
		}
		wanted[v] = true
		return nil
	})
}
