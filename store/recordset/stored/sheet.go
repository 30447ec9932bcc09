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
	coalesce((SELECT n FROM sheet_ref_marks WHERE sheet_id = sh.id), 0)`

const recordSheetFrom = `
	FROM sheets sh JOIN workbooks w ON w.id = sh.workbook_id LEFT JOIN record_sheets r ON r.sheet_id = sh.id
	WHERE sh.id = ? AND sh.deleted_at IS NULL AND w.deleted_at IS NULL`

// loadQueries are, by dialect, the query of Load: the sheet's row with its stored columns
// and unique rules (JSON arrays), all in the same round trip.
var loadQueries = func() map[sqldb.Dialect]string {
	out := map[sqldb.Dialect]string{}
	for _, d := range []sqldb.Dialect{sqldb.SQLiteDialect, sqldb.PostgresDialect} {
		out[d] = recordSheetQuery + `,
	(SELECT ` + d.JSONRows("col", "field_key", "retired") + ` FROM record_columns WHERE sk = r.sk),
	(SELECT ` + d.JSONRows("uc", "name") + ` FROM unique_rules WHERE sk = r.sk)` + recordSheetFrom
	}
	return out
}()

// LoadScope reads the sheet of the account as Load does, without what records need: its
// row and its configuration, not its compiled schema, stored columns or rules. Errors:
// not_found.
func LoadScope(ctx context.Context, q sqldb.Querier, accountID, sheetID string) (*Sheet, error) {
	rs := &Sheet{Sheet: &model.Sheet{}, Dialect: q.Dialect(), Caps: q.Settings().Caps}
	var cfg, settings string
	if err := rs.scanRow(ctx, q, recordSheetQuery+recordSheetFrom, sheetID, accountID, &cfg, &settings); err != nil {
		return nil, err
	}
	return rs, nil
}

// Load loads a sheet of the account for record work. Errors: not_found.
func Load(ctx context.Context, q sqldb.Querier, accountID, sheetID string) (*Sheet, error) {
	rs := &Sheet{Sheet: &model.Sheet{}, Dialect: q.Dialect(), Caps: q.Settings().Caps}
	var cfg, settings, cols, rules string
	if err := rs.scanRow(ctx, q, loadQueries[q.Dialect()], sheetID, accountID, &cfg, &settings, &cols, &rules); err != nil {
		return nil, err
	}
	var err error
	if rs.Schema, err = records.Compile(&rs.Config); err != nil {
		return nil, err
	}
	var set struct {
		TrackChanges bool `json:"trackChanges"`
	}
	_ = json.Unmarshal([]byte(settings), &set)
	rs.TrackChanges = set.TrackChanges
	if err := rs.readLayout(cols); err != nil {
		return nil, err
	}
	return rs, rs.readRules(rules)
}

// scanRow reads sheet sheetID with query (recordSheetQuery's columns, then more: Load's
// lists) and decodes its configuration; cfg and settings receive the sheet's and the
// workbook's JSON. In a transaction the query goes with what it held back (sqldb.ScanRow):
// the first read of a sheet's write takes the sheet's lock in the same round trip.
func (rs *Sheet) scanRow(ctx context.Context, q sqldb.Querier, query, sheetID, accountID string, cfg, settings *string, more ...any) error {
	s := rs.Sheet
	var locked sql.NullInt64
	err := sqldb.ScanRow(ctx, q, append([]any{&s.ID, &s.WorkbookID, &s.Name, &s.Slug, cfg, &s.Namespace, &s.LockedBy, &locked,
		&rs.AccountID, &rs.EnvironmentID, &rs.SpaceID, settings, &rs.SK, &rs.Total, &rs.Shape, &rs.Hash, &rs.RefsChecked, &rs.RefMarks}, more...), query, sheetID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && accountID != "" && rs.AccountID != accountID) {
		return errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return errs.Wrap(err, "load sheet")
	}
	if err := json.Unmarshal([]byte(*cfg), &s.Config); err != nil {
		return errs.Wrap(err, "decode sheet config")
	}
	s.LockedAt = sqldb.FromNullMillis(locked)
	return nil
}

// jsonRows decodes a JSON array of arrays (sqldb.Dialect.JSONRows) into its rows.
func jsonRows(text, what string) ([][]json.RawMessage, error) {
	var rows [][]json.RawMessage
	if err := json.Unmarshal([]byte(text), &rows); err != nil {
		return nil, errs.Wrap(err, "decode %s", what)
	}
	return rows, nil
}

// readRules maps the schema's unique constraints to their stored rule ids, from the JSON
// rows [uc, name] Load read.
func (rs *Sheet) readRules(text string) error {
	rs.UCOf, rs.ByUC = map[*records.Unique]int64{}, map[int64]*records.Unique{}
	if rs.SK == 0 {
		return nil
	}
	rows, err := jsonRows(text, "unique rules")
	if err != nil {
		return err
	}
	byName := map[string]*records.Unique{}
	for _, u := range rs.Schema.Uniques {
		byName[u.Name] = u
	}
	for _, r := range rows {
		var uc int64
		var name string
		if len(r) != 2 || json.Unmarshal(r[0], &uc) != nil || json.Unmarshal(r[1], &name) != nil {
			return errs.E(errs.Internal, "", "a unique rule row of sheet %d is not [uc, name]", rs.SK)
		}
		if u := byName[name]; u != nil {
			rs.UCOf[u], rs.ByUC[uc] = uc, u
		}
	}
	return nil
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
