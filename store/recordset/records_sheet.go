package recordset

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/sqldb"
)

// recSheet is a sheet prepared for record reads and writes: its schema compiled, its sheet
// key and the ids of its unique rules.
type recSheet struct {
	*model.Sheet
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Schema        *records.Schema
	sk            int64 // 0 when the sheet never held records
	total         int64
	shape         int64  // changes when records are added or removed
	hash          string // schema hash the stored records were validated against
	ucOf          map[*records.Unique]int64
	byUC          map[int64]*records.Unique
	layout        *layout
	d             sqldb.Dialect // of the database the sheet was read from
	caps          limits.Caps   // of the database's settings: how long a value may be
	fresh         int64         // the first record key this transaction reserved (nextRids); 0: none
}

// recordSheetColumns reads a live sheet with the ids its events need.
const recordSheetQuery = `SELECT sh.id, sh.workbook_id, sh.name, sh.slug, sh.config, sh.namespace, sh.locked_by, sh.locked_at,
	w.account_id, w.environment_id, w.space_id
	FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id
	WHERE sh.id = ? AND sh.deleted_at IS NULL AND w.deleted_at IS NULL`

// loadRecSheet loads a sheet of the account for record work. Errors: not_found.
func loadRecSheet(ctx context.Context, q sqldb.Querier, accountID, sheetID string) (*recSheet, error) {
	var s model.Sheet
	rs := &recSheet{Sheet: &s, d: q.Dialect(), caps: q.Settings().Caps}
	var cfg string
	var locked sql.NullInt64
	err := q.QueryRowContext(ctx, recordSheetQuery, sheetID).Scan(&s.ID, &s.WorkbookID, &s.Name, &s.Slug, &cfg, &s.Namespace, &s.LockedBy, &locked,
		&rs.AccountID, &rs.EnvironmentID, &rs.SpaceID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && accountID != "" && rs.AccountID != accountID) {
		return nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "load sheet")
	}
	if err := json.Unmarshal([]byte(cfg), &s.Config); err != nil {
		return nil, errs.Wrap(err, "decode sheet config")
	}
	s.LockedAt = sqldb.FromNullMillis(locked)
	if rs.Schema, err = records.Compile(&s.Config); err != nil {
		return nil, err
	}
	err = q.QueryRowContext(ctx, `SELECT sk, total, shape, schema_hash FROM record_sheets WHERE sheet_id = ?`, sheetID).Scan(&rs.sk, &rs.total, &rs.shape, &rs.hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, errs.Wrap(err, "load record sheet")
	}
	if err := rs.loadLayout(ctx, q); err != nil {
		return nil, err
	}
	return rs, rs.loadRules(ctx, q)
}

// loadRules maps the schema's unique constraints to their stored rule ids.
func (rs *recSheet) loadRules(ctx context.Context, q sqldb.Querier) error {
	rs.ucOf, rs.byUC = map[*records.Unique]int64{}, map[int64]*records.Unique{}
	if rs.sk == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT uc, name FROM unique_rules WHERE sk = ?`, rs.sk)
	if err != nil {
		return errs.Wrap(err, "load unique rules")
	}
	defer rows.Close()
	byName := map[string]*records.Unique{}
	for _, u := range rs.Schema.Uniques {
		byName[u.Name] = u
	}
	for rows.Next() {
		var uc int64
		var name string
		if err := rows.Scan(&uc, &name); err != nil {
			return errs.Wrap(err, "scan unique rule")
		}
		if u := byName[name]; u != nil {
			rs.ucOf[u], rs.byUC[uc] = uc, u
		}
	}
	return rows.Err()
}

// schemaHash fingerprints what record validation depends on, so a changed schema is noticed.
func schemaHash(cfg *model.SheetConfig) string {
	type field struct {
		Key         string                  `json:"k"`
		Type        string                  `json:"t"`
		IsArray     bool                    `json:"a,omitempty"`
		Multi       bool                    `json:"m,omitempty"`
		Constraints []model.FieldConstraint `json:"c,omitempty"`
		Config      *model.FieldConfig      `json:"o,omitempty"`
	}
	fs := make([]field, len(cfg.Fields))
	for i, f := range cfg.Fields {
		fs[i] = field{f.Key, f.Type, f.IsArray, f.Multi, f.Constraints, f.Config}
	}
	b, _ := json.Marshal(struct {
		F []field                 `json:"f"`
		C []model.SheetConstraint `json:"c,omitempty"`
	}{fs, cfg.Constraints})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// prepareWrite makes sure the sheet has a sheet key and unique rules for every unique
// constraint, and revalidates its records when the schema changed since they were checked.
func (tx *Tx) prepareWrite(rs *recSheet) error {
	if rs.sk == 0 {
		if err := tx.QueryRow(`INSERT INTO record_sheets (sheet_id, schema_hash) VALUES (?, ?) RETURNING sk`, rs.ID, schemaHash(&rs.Config)).Scan(&rs.sk); err != nil {
			return errs.Wrap(err, "create record sheet")
		}
		rs.hash = schemaHash(&rs.Config)
	}
	if err := tx.assignColumns(rs); err != nil {
		return err
	}
	for _, u := range rs.Schema.Uniques {
		if _, ok := rs.ucOf[u]; ok {
			continue
		}
		var uc int64
		if err := tx.QueryRow(`INSERT INTO unique_rules (sk, name) VALUES (?, ?) RETURNING uc`, rs.sk, u.Name).Scan(&uc); err != nil {
			return errs.Wrap(err, "create unique rule")
		}
		rs.ucOf[u], rs.byUC[uc] = uc, u
	}
	if h := schemaHash(&rs.Config); h != rs.hash {
		if err := tx.revalidate(rs); err != nil {
			return err
		}
		tx.touch(rs.sk)
		if _, err := tx.Exec(`UPDATE record_sheets SET schema_hash = ? WHERE sk = ?`, h, rs.sk); err != nil {
			return errs.Wrap(err, "store schema hash")
		}
		rs.hash = h
	}
	return nil
}

// stale reports whether stored validation results predate the sheet's current schema.
func (rs *recSheet) stale() bool {
	return rs.sk != 0 && rs.total > 0 && rs.hash != schemaHash(&rs.Config)
}

// checkWritable refuses writes to locked or read-only sheets. Errors: forbidden.
func (rs *recSheet) checkWritable() error {
	if rs.LockedAt != nil {
		return errs.E(errs.Forbidden, "sheetId", "Sheet is locked; unlock it before changing records")
	}
	if rs.Config.Readonly {
		return errs.E(errs.Forbidden, "sheetId", "Sheet is readonly; records cannot be changed")
	}
	return nil
}

// eventContext is the context of record events of the sheet.
func (rs *recSheet) eventContext(actor, versionID string) model.EventContext {
	return model.EventContext{AccountID: rs.AccountID, EnvironmentID: rs.EnvironmentID, SpaceID: rs.SpaceID, WorkbookID: rs.WorkbookID,
		SheetID: rs.ID, SheetSlug: rs.Slug, VersionID: versionID, CommitID: versionID, ActorID: actor}
}

// revalidate rechecks every record of the sheet against its current schema: the unique
// index and counts are rebuilt from scratch, a batch at a time, under one new version.
func (tx *Tx) revalidate(rs *recSheet) error {
	tx.touch(rs.sk)
	known := []any{rs.sk}
	for uc := range rs.byUC {
		known = append(known, uc)
	}
	for _, q := range []string{
		`DELETE FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM record_dups WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = ?)`,
		`DELETE FROM record_field_counts WHERE sk = ?`,
		`UPDATE record_sheets SET total = 0, valid = 0 WHERE sk = ?`,
	} {
		if _, err := tx.Exec(q, rs.sk); err != nil {
			return errs.Wrap(err, "reset record index")
		}
	}
	if err := tx.resetValues(rs.sk); err != nil {
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
	rs.total = 0
	w := &writeCtx{opt: WriteOptions{Actor: "system", DisableHooks: true}, emptyBefore: true}
	if err := tx.newVersion(rs, w); err != nil {
		return err
	}
	lo, hi := ridRange(rs.sk)
	for last := lo - 1; ; {
		rows, err := tx.QueryContext(tx.Context(), `SELECT `+stateColumns+` FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT 5000`, last, hi)
		if err != nil {
			return errs.Wrap(err, "read records")
		}
		var changes []*change
		for rows.Next() {
			old, err := rs.scanState(rows)
			if err != nil {
				rows.Close()
				return err
			}
			st := old.clone()
			st.msgs = rs.Schema.Check(st.row)
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
func (db *DB) readSheet(ctx context.Context, accountID, sheetID string) (*recSheet, error) {
	rs, err := loadRecSheet(ctx, db.Reader, accountID, sheetID)
	if err != nil || !rs.stale() {
		return rs, err
	}
	err = db.Update(ctx, func(tx *Tx) error {
		rs, err = loadRecSheet(ctx, tx, accountID, sheetID)
		if err != nil || !rs.stale() {
			return err
		}
		return tx.prepareWrite(rs)
	})
	if err != nil {
		return nil, err
	}
	return loadRecSheet(ctx, db.Reader, accountID, sheetID)
}

// RevalidateRecords rechecks a sheet's records inside tx when its schema changed since they
// were last checked (sheet updates call it after saving a new config). Errors: not_found.
func (tx *Tx) RevalidateRecords(sheetID string) error {
	rs, err := loadRecSheet(tx.Context(), tx, "", sheetID)
	if err != nil || !rs.stale() {
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
	rs, err := loadRecSheet(ctx, db.Reader, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	return &SheetScope{SheetID: rs.ID, WorkbookID: rs.WorkbookID, SpaceID: rs.SpaceID, EnvironmentID: rs.EnvironmentID, AccountID: rs.AccountID, Config: rs.Config}, nil
}
