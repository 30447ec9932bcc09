package recordset

import (
	"context"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// prepareWrite makes sure the sheet has a sheet key and unique rules for every unique
// constraint, and revalidates its records when the schema changed since they were checked.
func (tx *Tx) prepareWrite(rs *stored.Sheet) (err error) {
	// What LoadWrite read with the sheet is of no use once this changed the sheet's columns,
	// value lists or records: the write reads them again.
	// (the write changes the sheet's columns and rules below, not its config: hashed once)
	h := stored.SchemaHash(&rs.Config)
	fresh, next, retiring := rs.SK == 0, rs.Layout.Next, len(rs.Layout.Retire) > 0
	stale := h != rs.Hash || rs.RefMarks > rs.RefsChecked
	defer func() {
		if fresh || stale || retiring || rs.Layout.Next != next {
			rs.DropPreread()
		}
	}()
	if rs.SK == 0 {
		if err := tx.QueryRow(`INSERT INTO record_sheets (sheet_id, schema_hash) VALUES (?, ?) RETURNING sk`, rs.ID, h).Scan(&rs.SK); err != nil {
			return errs.Wrap(err, "create record sheet")
		}
		rs.Hash = h
	}
	if err := tx.assignColumns(rs); err != nil {
		return err
	}
	for _, u := range rs.Schema.Uniques {
		if _, ok := rs.UCOf[u]; ok {
			continue
		}
		var uc int64
		if err := tx.QueryRow(`INSERT INTO unique_rules (sk, name) VALUES (?, ?) RETURNING uc`, rs.SK, u.Name).Scan(&uc); err != nil {
			return errs.Wrap(err, "create unique rule")
		}
		rs.UCOf[u], rs.ByUC[uc] = uc, u
	}
	if h != rs.Hash || rs.RefMarks > rs.RefsChecked {
		// The marks as read when the sheet was loaded, before any referenced sheet was read:
		// a write of one that commits after that leaves a greater count, and the sheet stale.
		if err := tx.revalidate(rs); err != nil {
			return err
		}
		tx.touch(rs.SK)
		if _, err := tx.Exec(`UPDATE record_sheets SET schema_hash = ?, refs_checked = ? WHERE sk = ?`, h, rs.RefMarks, rs.SK); err != nil {
			return errs.Wrap(err, "store schema hash")
		}
		rs.Hash, rs.RefsChecked = h, rs.RefMarks
	}
	return nil
}

// revalidate rechecks every record of the sheet against its current schema: the unique
// index and counts are rebuilt from scratch, a batch at a time, under one new version.
func (tx *Tx) revalidate(rs *stored.Sheet) error {
	tx.touch(rs.SK)
	known := []any{rs.SK}
	for uc := range rs.ByUC {
		known = append(known, uc)
	}
	for _, q := range []string{
		`DELETE FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM record_dups WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM record_field_counts WHERE sk = ?`,
		`UPDATE record_sheets SET total = 0, valid = 0 WHERE sk = ?`,
	} {
		if _, err := tx.Exec(q, rs.SK); err != nil {
			return errs.Wrap(err, "reset record index")
		}
	}
	if err := tx.resetValues(rs.SK); err != nil {
		return err
	}
	// Rules of constraints the schema no longer has go away.
	drop := `DELETE FROM unique_rules WHERE sk = ?`
	if len(known) > 1 {
		drop += ` AND uc NOT IN (` + sqldb.Placeholders(len(known)-1) + `)`
	}
	if _, err := tx.Exec(drop, known...); err != nil {
		return errs.Wrap(err, "drop unique rules")
	}
	rs.Total = 0
	w := &writeCtx{opt: WriteOptions{Actor: "system", DisableHooks: true}, emptyBefore: true}
	if err := tx.newVersion(rs, w); err != nil {
		return err
	}
	lo, hi := stored.RIDRange(rs.SK)
	for last := lo - 1; ; {
		rows, err := tx.QueryContext(tx.Context(), `SELECT `+stored.StateColumns+` FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT 5000`, last, hi)
		if err != nil {
			return errs.Wrap(err, "read records")
		}
		var changes []*change
		for rows.Next() {
			old, err := rs.ScanState(rows)
			if err != nil {
				rows.Close()
				return err
			}
			st := clone(old)
			st.Msgs = rs.Schema.Check(st.Row)
			changes = append(changes, &change{kind: kRecheck, old: old, new: st})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "read records")
		}
		if len(changes) == 0 {
			return nil
		}
		if err := tx.applyChanges(rs, changes, w); err != nil {
			return err
		}
		w.emptyBefore = false
		last = changes[len(changes)-1].rid()
	}
}

// readSheet loads a sheet for reading, first revalidating its records when the schema
// changed since they were checked. Errors: not_found.
func (db *DB) readSheet(ctx context.Context, accountID, sheetID string) (*stored.Sheet, error) {
	rs, err := stored.Load(ctx, db.Lookup, accountID, sheetID)
	if err != nil || !rs.Stale() {
		return rs, err
	}
	err = db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, err = stored.Load(ctx, tx, accountID, sheetID)
		if err != nil || !rs.Stale() {
			return err
		}
		return tx.prepareWrite(rs)
	})
	if err != nil {
		return nil, err
	}
	return stored.Load(ctx, db.Lookup, accountID, sheetID)
}

// RevalidateRecords rechecks a sheet's records inside tx when its schema changed since they
// were last checked (sheet updates call it after saving a new config). Errors: not_found.
func (tx *Tx) RevalidateRecords(sheetID string) error {
	rs, err := stored.Load(tx.Context(), tx, "", sheetID)
	if err != nil || !rs.Stale() {
		return err
	}
	return tx.prepareWrite(rs)
}

// SheetScope names where a sheet sits, for authorizing record work on it.
type SheetScope struct {
	SheetID       string
	WorkbookID    string
	SpaceID       string
	EnvironmentID string
	AccountID     string
	Config        model.SheetConfig
}

// RecordSheetScope returns the scope of a live sheet of the account. Errors: not_found.
func (db *DB) RecordSheetScope(ctx context.Context, accountID, sheetID string) (*SheetScope, error) {
	rs, err := stored.LoadScope(ctx, db.Lookup, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	return scopeOf(rs), nil
}

func scopeOf(rs *stored.Sheet) *SheetScope {
	return &SheetScope{SheetID: rs.ID, WorkbookID: rs.WorkbookID, SpaceID: rs.SpaceID, EnvironmentID: rs.EnvironmentID, AccountID: rs.AccountID, Config: rs.Config}
}
