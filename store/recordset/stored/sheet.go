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
	// pre is what LoadWrite read with the sheet for the write that loaded it, which takes
	// each part once (TakeValues, TakeReferrers); later writes with the same Sheet read again.
	pre preread
}

// preread is what a write of a sheet needs besides the sheet, read in the same round trip
// (LoadWrite).
type preread struct {
	// values are the sheet's record_values rows: position, state and generation.
	values [][3]int64
	// referrers are the live sheets of its workbook, holding records, whose configuration
	// names a reference field (any: the caller sees which point here).
	referrers           []Referrer
	hasValues, hasRefer bool
}

// Referrer is a sheet that may refer to another: its id and configuration (JSON).
type Referrer struct{ ID, Config string }

// DropPreread forgets what LoadWrite read with the sheet: the write changed it first (new
// columns, a revalidation), and what it needs is read again.
func (rs *Sheet) DropPreread() { rs.pre = preread{} }

// TakeValues returns, once, the sheet's record_values rows [col, state, gen] LoadWrite read
// with it; false when there are none to take (read them).
func (rs *Sheet) TakeValues() ([][3]int64, bool) {
	v, ok := rs.pre.values, rs.pre.hasValues
	rs.pre.values, rs.pre.hasValues = nil, false
	return v, ok
}

// TakeReferrers returns, once, the sheets LoadWrite found that may refer to this one; false
// when there are none to take (read them).
func (rs *Sheet) TakeReferrers() ([]Referrer, bool) {
	v, ok := rs.pre.referrers, rs.pre.hasRefer
	rs.pre.referrers, rs.pre.hasRefer = nil, false
	return v, ok
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
// and unique rules (JSON arrays), all in the same round trip; writeQueries LoadWrite's,
// which adds what the write reads besides (preread).
var loadQueries, writeQueries = func() (map[sqldb.Dialect]string, map[sqldb.Dialect]string) {
	load, write := map[sqldb.Dialect]string{}, map[sqldb.Dialect]string{}
	for _, d := range []sqldb.Dialect{sqldb.SQLiteDialect, sqldb.PostgresDialect} {
		lists := `,
	(SELECT ` + d.JSONRows("col", "field_key", "retired") + ` FROM record_columns WHERE sk = r.sk),
	(SELECT ` + d.JSONRows("uc", "name") + ` FROM unique_rules WHERE sk = r.sk)`
		load[d] = recordSheetQuery + lists + recordSheetFrom
		write[d] = recordSheetQuery + lists + `,
	(SELECT ` + d.JSONRows("col", "state", "gen") + ` FROM record_values WHERE sk = r.sk),
	(SELECT ` + d.JSONRows("o.id", "o.config") + ` ` + MayRefer(d, "sh.workbook_id", "sh.id") + `)` + recordSheetFrom
	}
	return load, write
}()

// MayRefer is the FROM and WHERE of the sheets (o) a write of sheet's records may leave
// stale: the live sheets of workbook wb but sheet (both expressions) that hold records and
// name a reference field, whose configuration says which point at sheet.
func MayRefer(d sqldb.Dialect, wb, sheet string) string {
	return `FROM sheets o JOIN record_sheets orr ON orr.sheet_id = o.id
		WHERE o.workbook_id = ` + wb + ` AND o.id <> ` + sheet + ` AND o.deleted_at IS NULL AND orr.total > 0 AND ` + d.Contains("o.config", `'"type":"reference'`)
}

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
	return load(ctx, q, accountID, sheetID, false)
}

// LoadWrite is Load for a write of the sheet's records: on PostgreSQL what the write reads
// besides the sheet — its value lists' states, the sheets that may refer to it — comes with
// it, in the same round trip (TakeValues, TakeReferrers); on SQLite (no round trips) the
// write reads them itself.
func LoadWrite(ctx context.Context, q sqldb.Querier, accountID, sheetID string) (*Sheet, error) {
	return load(ctx, q, accountID, sheetID, q.Dialect().RoundTrips())
}

func load(ctx context.Context, q sqldb.Querier, accountID, sheetID string, write bool) (*Sheet, error) {
	rs := &Sheet{Sheet: &model.Sheet{}, Dialect: q.Dialect(), Caps: q.Settings().Caps}
	var cfg, settings, cols, rules, values, referrers string
	var err error
	if write {
		err = rs.scanRow(ctx, q, writeQueries[q.Dialect()], sheetID, accountID, &cfg, &settings, &cols, &rules, &values, &referrers)
	} else {
		err = rs.scanRow(ctx, q, loadQueries[q.Dialect()], sheetID, accountID, &cfg, &settings, &cols, &rules)
	}
	if err != nil {
		return nil, err
	}
	if write {
		if rs.pre, err = readPreread(values, referrers); err != nil {
			return nil, err
		}
	}
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

// readPreread decodes LoadWrite's lists: [col, state, gen] and [id, config] rows.
func readPreread(values, referrers string) (preread, error) {
	p := preread{hasValues: true, hasRefer: true}
	rows, err := jsonRows(values, "kept value lists")
	if err != nil {
		return p, err
	}
	for _, r := range rows {
		var v [3]int64
		if len(r) != 3 || json.Unmarshal(r[0], &v[0]) != nil || json.Unmarshal(r[1], &v[1]) != nil || json.Unmarshal(r[2], &v[2]) != nil {
			return p, errs.E(errs.Internal, "", "a value list row is not [col, state, gen]")
		}
		p.values = append(p.values, v)
	}
	if rows, err = jsonRows(referrers, "referring sheets"); err != nil {
		return p, err
	}
	for _, r := range rows {
		var ref Referrer
		if len(r) != 2 || json.Unmarshal(r[0], &ref.ID) != nil || json.Unmarshal(r[1], &ref.Config) != nil {
			return p, errs.E(errs.Internal, "", "a referring sheet row is not [id, config]")
		}
		p.referrers = append(p.referrers, ref)
	}
	return p, nil
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
