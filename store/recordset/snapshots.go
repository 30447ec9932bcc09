package recordset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// Snapshot is a copy of a sheet's records and schema at one moment.
type Snapshot struct {
	ID        string
	SheetID   string
	Label     string
	ThreadID  string
	CreatedBy string
	CreatedAt time.Time
	Config    model.SheetConfig
	Summary   *SnapshotSummary // only when asked for
	ssk       int64
}

// SnapshotSummary compares a snapshot with the sheet as it is now.
type SnapshotSummary struct {
	CreatedSince SummarySection
	UpdatedSince SummarySection
	DeletedSince SummarySection
	SchemaDiff   map[string]string // field key → added | removed | unchanged
	Config       model.SheetConfig // the snapshot's schema
}

// SummarySection counts records of one kind of change; ByField counts changed cells.
type SummarySection struct {
	Total   int64
	ByField map[string]int64
}

// Snapshot change types.
const (
	CreatedSince = "createdSince"
	UpdatedSince = "updatedSince"
	DeletedSince = "deletedSince"
)

// CreateSnapshot copies the sheet's records and schema and emits snapshot:created.
// Errors: not_found.
func (db *DB) CreateSnapshot(ctx context.Context, accountID, sheetID, label, threadID, actor string) (*Snapshot, error) {
	var snap *Snapshot
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, err := stored.Load(ctx, tx, accountID, sheetID)
		if err != nil {
			return err
		}
		cfg, _ := json.Marshal(rs.Config)
		snap = &Snapshot{ID: sqldb.NewID(sqldb.PrefixSnapshot), SheetID: rs.ID, Label: label, ThreadID: threadID, CreatedBy: actor, CreatedAt: tx.Now(), Config: rs.Config}
		if err := tx.QueryRow(`INSERT INTO snapshots (id, sheet_id, label, thread_id, config, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ssk`,
			snap.ID, snap.SheetID, label, threadID, string(cfg), actor, sqldb.Millis(tx.Now())).Scan(&snap.ssk); err != nil {
			return errs.Wrap(err, "insert snapshot")
		}
		if rs.SK != 0 {
			lo, hi := stored.RIDRange(rs.SK)
			if _, err := tx.Exec(`INSERT INTO snapshot_records (ssk, rid, vals, x) SELECT ?, rid, vals, x FROM records WHERE rid BETWEEN ? AND ?`, snap.ssk, lo, hi); err != nil {
				return errs.Wrap(err, "copy records")
			}
		}
		ctx := rs.EventContext(actor, "")
		ctx.SnapshotID = snap.ID
		payload, _ := json.Marshal(map[string]any{"snapshotId": snap.ID, "sheetId": rs.ID, "label": label})
		return tx.emitWorkbook("snapshot:created", ctx, payload)
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

const snapshotColumns = `ssk, id, sheet_id, label, thread_id, config, created_by, created_at`

func scanSnapshot(sc sqldb.Scanner) (*Snapshot, error) {
	var s Snapshot
	var cfg string
	var created int64
	err := sc.Scan(&s.ssk, &s.ID, &s.SheetID, &s.Label, &s.ThreadID, &cfg, &s.CreatedBy, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("snapshotId", "Snapshot not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan snapshot")
	}
	_ = json.Unmarshal([]byte(cfg), &s.Config)
	s.CreatedAt = sqldb.FromMillis(created)
	return &s, nil
}

// ListSnapshots returns the sheet's snapshots, oldest first; threadID, when set, narrows
// them. Errors: not_found.
func (db *DB) ListSnapshots(ctx context.Context, accountID, sheetID, threadID string) ([]*Snapshot, error) {
	if _, err := stored.LoadScope(ctx, db.Reader, accountID, sheetID); err != nil {
		return nil, err
	}
	q := `SELECT ` + snapshotColumns + ` FROM snapshots WHERE sheet_id = ?`
	args := []any{sheetID}
	if threadID != "" {
		q += ` AND thread_id = ?`
		args = append(args, threadID)
	}
	rows, err := db.Reader.QueryContext(ctx, q+` ORDER BY created_at, ssk`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list snapshots")
	}
	defer rows.Close()
	out := []*Snapshot{}
	for rows.Next() {
		s, err := scanSnapshot(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// snapshotOf loads a snapshot with its sheet, both of the account. Errors: not_found.
func snapshotOf(ctx context.Context, q sqldb.Querier, accountID, id string) (*Snapshot, *stored.Sheet, error) {
	s, err := scanSnapshot(q.QueryRowContext(ctx, `SELECT `+snapshotColumns+` FROM snapshots WHERE id = ?`, id))
	if err != nil {
		return nil, nil, err
	}
	rs, err := stored.Load(ctx, q, accountID, s.SheetID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil, errs.NotFoundf("snapshotId", "Snapshot not found")
	}
	return s, rs, err
}

// GetSnapshot returns a snapshot, with its summary when asked (that compares every record,
// so it costs a scan of the sheet). Errors: not_found.
func (db *DB) GetSnapshot(ctx context.Context, accountID, id string, withSummary bool) (*Snapshot, error) {
	s, rs, err := snapshotOf(ctx, db.Reader, accountID, id)
	if err != nil || !withSummary {
		return s, err
	}
	s.Summary, err = summarize(ctx, db.Reader, s, rs)
	return s, err
}

func summarize(ctx context.Context, q sqldb.Querier, s *Snapshot, rs *stored.Sheet) (*SnapshotSummary, error) {
	sum := &SnapshotSummary{SchemaDiff: map[string]string{}, Config: s.Config}
	for _, f := range s.Config.Fields {
		sum.SchemaDiff[f.Key] = "removed"
	}
	for _, f := range rs.Config.Fields {
		if _, ok := sum.SchemaDiff[f.Key]; ok {
			sum.SchemaDiff[f.Key] = "unchanged"
		} else {
			sum.SchemaDiff[f.Key] = "added"
		}
	}
	lo, hi := stored.RIDRange(rs.SK)
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM records r WHERE r.rid BETWEEN ?2 AND ?3 AND NOT EXISTS (SELECT 1 FROM snapshot_records s WHERE s.ssk = ?1 AND s.rid = r.rid)),
		(SELECT count(*) FROM snapshot_records s WHERE s.ssk = ?1 AND NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = s.rid))`,
		s.ssk, lo, hi).Scan(&sum.CreatedSince.Total, &sum.DeletedSince.Total)
	if err != nil {
		return nil, errs.Wrap(err, "summarize snapshot")
	}
	sum.UpdatedSince.ByField = map[string]int64{}
	sel := "count(*)"
	var args []any
	keys := make([]string, 0, len(rs.Config.Fields))
	for _, f := range rs.Config.Fields {
		a, aargs := rs.ValueExpr("r", f.Key)
		b, bargs := rs.ValueExpr("s", f.Key)
		sel += ", coalesce(sum(CASE WHEN " + a + " IS DISTINCT FROM " + b + " THEN 1 ELSE 0 END), 0)"
		args = append(append(args, aargs...), bargs...)
		keys = append(keys, f.Key)
	}
	dest := make([]any, len(keys)+1)
	dest[0] = &sum.UpdatedSince.Total
	counts := make([]int64, len(keys))
	for i := range keys {
		dest[i+1] = &counts[i]
	}
	args = append(args, s.ssk, lo, hi)
	err = q.QueryRowContext(ctx, `SELECT `+sel+` FROM records r JOIN snapshot_records s ON s.ssk = ? AND s.rid = r.rid
		WHERE r.rid BETWEEN ? AND ? AND r.vals <> s.vals`, args...).Scan(dest...)
	if err != nil {
		return nil, errs.Wrap(err, "summarize snapshot")
	}
	for i, k := range keys {
		if counts[i] > 0 {
			sum.UpdatedSince.ByField[k] = counts[i]
		}
	}
	return sum, nil
}

// DeleteSnapshot removes a snapshot and its copy. Errors: not_found.
func (db *DB) DeleteSnapshot(ctx context.Context, accountID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		s, _, err := snapshotOf(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM snapshot_records WHERE ssk = ?`, s.ssk); err != nil {
			return errs.Wrap(err, "delete snapshot records")
		}
		if _, err := tx.Exec(`DELETE FROM snapshots WHERE ssk = ?`, s.ssk); err != nil {
			return errs.Wrap(err, "delete snapshot")
		}
		return nil
	})
}

// RestoreOptions choose what a restore undoes; all true by default.
type RestoreOptions struct {
	Created bool // delete records created since the snapshot
	Updated bool // put back the values of records changed since
	Deleted bool // bring back records deleted since, with their ids
}

// RestoreSnapshot brings the sheet's records back to the snapshot in one transaction and
// one version, revalidating everything it writes against the current schema. Values of
// fields the sheet no longer has are dropped. Emits records:created, records:updated and
// records:deleted as applicable. Errors: not_found, forbidden (locked or read-only sheet).
func (db *DB) RestoreSnapshot(ctx context.Context, accountID, id string, o RestoreOptions, opt WriteOptions) (*Snapshot, error) {
	var snap *Snapshot
	err := db.Update(ctx, func(tx *Tx) error {
		s, rs, err := snapshotOf(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		snap = s
		w, err := tx.beginWrite(rs, opt)
		if err != nil {
			return err
		}
		w.emptyBefore = false
		lo, hi := stored.RIDRange(rs.SK)
		steps := []struct {
			on   bool
			verb string
			q    string
		}{
			{o.Created, "deleted", `SELECT r.rid FROM records r WHERE r.rid BETWEEN ?2 AND ?3 AND NOT EXISTS (SELECT 1 FROM snapshot_records s WHERE s.ssk = ?1 AND s.rid = r.rid)`},
			{o.Updated, "updated", `SELECT r.rid FROM records r JOIN snapshot_records s ON s.ssk = ?1 AND s.rid = r.rid WHERE r.rid BETWEEN ?2 AND ?3 AND (r.vals <> s.vals OR r.x IS DISTINCT FROM s.x)`},
			{o.Deleted, "created", `SELECT s.rid FROM snapshot_records s WHERE s.ssk = ?1 AND s.rid BETWEEN ?2 AND ?3 AND NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = s.rid)`},
		}
		for _, step := range steps {
			if !step.on {
				continue
			}
			rids, err := tx.ridList(step.q, s.ssk, lo, hi)
			if err != nil {
				return err
			}
			for start := 0; start < len(rids); start += BatchSize {
				chunk := rids[start:min(start+BatchSize, len(rids))]
				if err := tx.restoreChunk(rs, w, s, step.verb, chunk); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

func (tx *Tx) ridList(q string, args ...any) ([]int64, error) {
	out, err := stored.QueryRIDs(tx.Context(), tx, "select records", q, args...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, err
}

// restoreChunk applies one chunk of a restore: verb is the records event it amounts to.
func (tx *Tx) restoreChunk(rs *stored.Sheet, w *writeCtx, s *Snapshot, verb string, rids []int64) error {
	var cur, saved map[int64]*stored.State
	var err error
	if verb != "created" {
		if cur, err = tx.loadStates(rs, rids); err != nil {
			return err
		}
	}
	if verb != "deleted" {
		if saved, err = tx.loadSnapshotStates(rs, s.ssk, rids); err != nil {
			return err
		}
	}
	changes := make([]*change, 0, len(rids))
	for _, rid := range rids {
		c := &change{old: cur[rid], new: saved[rid]}
		switch verb {
		case "deleted":
			c.kind = kDelete
		case "updated":
			c.kind = kUpdate
		default:
			c.kind = kInsert
		}
		if (c.old == nil && c.kind != kInsert) || (c.new == nil && c.kind != kDelete) {
			continue
		}
		changes = append(changes, c)
	}
	if err := tx.applyChanges(rs, changes, w); err != nil {
		return err
	}
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = stored.RecordID(c.rid())
	}
	return tx.emitRecords(rs, w, verb, ids)
}

// loadSnapshotStates reads saved records as new states, revalidated against the schema.
func (tx *Tx) loadSnapshotStates(rs *stored.Sheet, ssk int64, rids []int64) (map[int64]*stored.State, error) {
	out := make(map[int64]*stored.State, len(rids))
	err := sqldb.EachRow(tx.Context(), tx, "load snapshot records", `SELECT rid, vals, x FROM snapshot_records WHERE ssk = ? AND `+tx.Dialect().InInts("rid", "?"),
		[]any{ssk, stored.RIDsJSON(rids)}, func(rows *sql.Rows) error {
			var rid int64
			var vals string
			var x sql.NullString
			if err := rows.Scan(&rid, &vals, &x); err != nil {
				return errs.Wrap(err, "scan snapshot record")
			}
			st, err := savedState(rs, rid, vals, x)
			if err == nil {
				out[rid] = st
			}
			return err
		})
	return out, err
}

// DiffRecord is a record that changed since a snapshot, with the snapshot's values.
type DiffRecord struct {
	*Record
	Change         string
	SnapshotValues map[string]json.RawMessage // updated and deleted records: the values then
}

// GetSnapshotRecords pages through the records that changed since the snapshot, of one
// change type or, when changeType is empty, all of them in key order. Errors: not_found,
// invalid.
func (db *DB) GetSnapshotRecords(ctx context.Context, accountID, id, changeType string, page model.Page) ([]*DiffRecord, error) {
	s, rs, err := snapshotOf(ctx, db.Reader, accountID, id)
	if err != nil {
		return nil, err
	}
	if rs.SK == 0 {
		return []*DiffRecord{}, nil
	}
	lo, hi := stored.RIDRange(rs.SK)
	parts := map[string]string{
		CreatedSince: `SELECT r.rid, 'createdSince' AS kind FROM records r WHERE r.rid BETWEEN ?2 AND ?3 AND NOT EXISTS (SELECT 1 FROM snapshot_records s WHERE s.ssk = ?1 AND s.rid = r.rid)`,
		UpdatedSince: `SELECT r.rid, 'updatedSince' AS kind FROM records r JOIN snapshot_records s ON s.ssk = ?1 AND s.rid = r.rid WHERE r.rid BETWEEN ?2 AND ?3 AND r.vals <> s.vals`,
		DeletedSince: `SELECT s.rid, 'deletedSince' AS kind FROM snapshot_records s WHERE s.ssk = ?1 AND NOT EXISTS (SELECT 1 FROM records r WHERE r.rid = s.rid)`,
	}
	var q string
	switch changeType {
	case "":
		q = parts[CreatedSince] + " UNION ALL " + parts[UpdatedSince] + " UNION ALL " + parts[DeletedSince]
	case CreatedSince, UpdatedSince, DeletedSince:
		q = parts[changeType]
	default:
		return nil, errs.Invalidf("changeType", "changeType must be createdSince, updatedSince or deletedSince")
	}
	if page.Size <= 0 {
		page = recordPage
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT rid, kind FROM (`+q+`) AS c ORDER BY rid LIMIT ?4 OFFSET ?5`, s.ssk, lo, hi, page.Size, page.Offset())
	if err != nil {
		return nil, errs.Wrap(err, "select snapshot changes")
	}
	kinds := map[int64]string{}
	var rids []int64
	for rows.Next() {
		var rid int64
		var kind string
		if err := rows.Scan(&rid, &kind); err != nil {
			rows.Close()
			return nil, errs.Wrap(err, "select snapshot changes")
		}
		kinds[rid] = kind
		rids = append(rids, rid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "select snapshot changes")
	}
	return db.diffRecords(ctx, rs, s, rids, kinds)
}

func (db *DB) diffRecords(ctx context.Context, rs *stored.Sheet, s *Snapshot, rids []int64, kinds map[int64]string) ([]*DiffRecord, error) {
	rc := &readCtx{ctx: ctx, q: db.Reader}
	current, err := rc.load(rs, rids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Record{}
	for _, r := range current {
		byID[r.ID] = r
	}
	out := make([]*DiffRecord, 0, len(rids))
	for _, rid := range rids {
		d := &DiffRecord{Record: byID[stored.RecordID(rid)], Change: kinds[rid]}
		if d.Change != CreatedSince {
			var vals string
			var x sql.NullString
			err := db.Reader.QueryRowContext(ctx, `SELECT vals, x FROM snapshot_records WHERE ssk = ? AND rid = ?`, s.ssk, rid).Scan(&vals, &x)
			if err != nil {
				return nil, errs.Wrap(err, "load snapshot record")
			}
			if d.SnapshotValues, err = rs.DecodeAll([]byte(vals)); err != nil {
				return nil, err
			}
			if d.Record == nil {
				st, err := savedState(rs, rid, vals, x)
				if err != nil {
					return nil, err
				}
				rs.Settle(st)
				d.Record = output(rs, st, s.CreatedAt, "")
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// savedState builds the state of a record saved in a snapshot, checked against the current
// schema.
func savedState(rs *stored.Sheet, rid int64, vals string, x sql.NullString) (*stored.State, error) {
	row, err := rs.DecodeSaved([]byte(vals))
	if err != nil {
		return nil, err
	}
	st := &stored.State{RID: rid, Row: row}
	rs.DecodeExtra(x, st)
	st.Msgs = rs.Schema.Check(st.Row)
	return st, nil
}
