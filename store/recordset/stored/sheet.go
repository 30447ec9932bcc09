package stored

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

// Sheet is a sheet prepared for record reads and writes: its schema compiled, its sheet
// key and the ids of its unique rules.
type Sheet struct {
	*model.Sheet
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Schema        *records.Schema
	SK            int64 // 0 when the sheet never held records
	Total         int64
	Shape         int64  // changes when records are added or removed
	Hash          string // schema hash the stored records were validated against
	// TrackChanges is the workbook's setting (commits say whether to track them).
	TrackChanges bool
	// RefMarks counts the writes of sheets this one refers to (sheet_ref_marks); RefsChecked
	// is the count its records were last checked at in full.
	RefMarks, RefsChecked int64
	UCOf                  map[*records.Unique]int64
	ByUC                  map[int64]*records.Unique
	Layout                *layout
	Dialect               sqldb.Dialect // of the database the sheet was read from
	Caps                  limits.Caps   // of the database's settings: how long a value may be
	Fresh                 int64         // the first record key this transaction reserved (nextRids); 0: none
}

// recordSheetQuery reads a live sheet with the ids its events need, its workbook's settings
// and what the record engine keeps of it (no record_sheets row: it never held records), in
// one round trip.
const recordSheetQuery = `SELECT sh.id, sh.workbook_id, sh.name, sh.slug, sh.config, sh.namespace, sh.locked_by, sh.locked_at,
	w.account_id, w.environment_id, w.space_id, w.settings,
	coalesce(r.sk, 0), coalesce(r.total, 0), coalesce(r.shape, 0), coalesce(r.schema_hash, ''), coalesce(r.refs_checked, 0),
	coalesce((SELECT n FROM sheet_ref_marks WHERE sheet_id = sh.id), 0)
	FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id LEFT JOIN record_sheets r ON r.sheet_id = sh.id
	WHERE sh.id = ? AND sh.deleted_at IS NULL AND w.deleted_at IS NULL`

// Load loads a sheet of the account for record work. Errors: not_found.
func Load(ctx context.Context, q sqldb.Querier, accountID, sheetID string) (*Sheet, error) {
	var s model.Sheet
	rs := &Sheet{Sheet: &s, Dialect: q.Dialect(), Caps: q.Settings().Caps}
	var cfg, settings string
	var locked sql.NullInt64
	err := q.QueryRowContext(ctx, recordSheetQuery, sheetID).Scan(&s.ID, &s.WorkbookID, &s.Name, &s.Slug, &cfg, &s.Namespace, &s.LockedBy, &locked,
		&rs.AccountID, &rs.EnvironmentID, &rs.SpaceID, &settings, &rs.SK, &rs.Total, &rs.Shape, &rs.Hash, &rs.RefsChecked, &rs.RefMarks)
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
	var set struct {
		TrackChanges bool `json:"trackChanges"`
	}
	_ = json.Unmarshal([]byte(settings), &set)
	rs.TrackChanges = set.TrackChanges
	if err := rs.loadLayout(ctx, q); err != nil {
		return nil, err
	}
	return rs, rs.loadRules(ctx, q)
}

// loadRules maps the schema's unique constraints to their stored rule ids.
func (rs *Sheet) loadRules(ctx context.Context, q sqldb.Querier) error {
	rs.UCOf, rs.ByUC = map[*records.Unique]int64{}, map[int64]*records.Unique{}
	if rs.SK == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT uc, name FROM unique_rules WHERE sk = ?`, rs.SK)
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
			rs.UCOf[u], rs.ByUC[uc] = uc, u
		}
	}
	return rows.Err()
}

// SchemaHash fingerprints what record validation depends on, so a changed schema is noticed.
func SchemaHash(cfg *model.SheetConfig) string {
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

// Stale reports whether stored validation results predate the sheet's current schema, or
// the last write of a sheet its references point at.
func (rs *Sheet) Stale() bool {
	return rs.SK != 0 && rs.Total > 0 && (rs.Hash != SchemaHash(&rs.Config) || rs.RefMarks > rs.RefsChecked)
}

// CheckWritable refuses writes to locked or read-only sheets. Errors: forbidden.
func (rs *Sheet) CheckWritable() error {
	if rs.LockedAt != nil {
		return errs.E(errs.Forbidden, "sheetId", "Sheet is locked; unlock it before changing records")
	}
	if rs.Config.Readonly {
		return errs.E(errs.Forbidden, "sheetId", "Sheet is readonly; records cannot be changed")
	}
	return nil
}

// EventContext is the context of record events of the sheet.
func (rs *Sheet) EventContext(actor, versionID string) model.EventContext {
	return model.EventContext{AccountID: rs.AccountID, EnvironmentID: rs.EnvironmentID, SpaceID: rs.SpaceID, WorkbookID: rs.WorkbookID,
		SheetID: rs.ID, SheetSlug: rs.Slug, VersionID: versionID, CommitID: versionID, ActorID: actor}
}
