package recordset

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// CountedCellValues is CellValues computed by counting the records, never from a kept list.
func (db *DB) CountedCellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery) ([]CellCount, error) {
	vals, _, err := db.cellValues(ctx, accountID, sheetID, key, q, false, 0, nil)
	return vals, err
}

// SetFTSSlice makes FTS5 builds add n records a transaction (tests of writes during a
// build); the returned func restores it.
func SetFTSSlice(n int) func() {
	old := ftsSlice
	ftsSlice = n
	return func() { ftsSlice = old }
}

// SetFTSBulk sets how many records one write changes in an FTS5 index itself; the
// returned func restores it.
func SetFTSBulk(n int) func() {
	old := ftsBulk
	ftsBulk = n
	return func() { ftsBulk = old }
}

// ExplainForTest is the database's plan of the keys query of a page of q (PostgreSQL's
// EXPLAIN, with sequential scans off: whether an index can answer it on a test's few
// records; SQLite's EXPLAIN QUERY PLAN), one line a row.
func (db *DB) ExplainForTest(ctx context.Context, accountID, sheetID string, q RecordQuery) (string, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return "", err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader, db: db}
	where, err := rc.where(rs, &q)
	if err != nil {
		return "", err
	}
	explain := "EXPLAIN QUERY PLAN "
	var on sqldb.Querier = db.Reader
	if db.Postgres() {
		explain = "EXPLAIN "
		tx, err := db.Reader.BeginTx(ctx) // (rolled back)
		if err != nil {
			return "", err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return "", err
		}
		on = tx
	}
	var plan []string
	err = sqldb.EachRow(ctx, on, "explain", explain+`SELECT r.rid FROM records r WHERE `+where.SQL, where.Args, func(rows *sql.Rows) error {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			return err
		}
		plan = append(plan, fmt.Sprint(*(vals[len(vals)-1].(*any))))
		return nil
	})
	return strings.Join(plan, "\n"), err
}

// TextForTest runs a query of one text value.
func (db *DB) TextForTest(ctx context.Context, q string, args ...any) (string, error) {
	var s string
	err := db.Reader.QueryRowContext(ctx, q, args...).Scan(&s)
	return s, err
}

// PatchedOrdersForTest is how many kept sorted orders were patched after writes.
func (db *DB) PatchedOrdersForTest() int64 { return db.sorts.patched.Load() }

// SetSplitMin sets the size of sheet whose scans are split in two; the returned func
// restores it.
func SetSplitMin(n int64) func() {
	old := splitMin
	splitMin = n
	return func() { splitMin = old }
}

// GroupedValuesForTest counts the distinct values of field key among the records q selects,
// the most frequent first (only the first top when top > 0), by the tally when tallied
// (distinct_tally.go, whatever the sheet's size, slice keys a query), else by SQL's GROUP BY.
func (db *DB) GroupedValuesForTest(ctx context.Context, accountID, sheetID, key string, q RecordQuery, top int, tallied bool, slice int64) ([]CellCount, error) {
	rc, rs, where, err := db.selectionForTest(ctx, accountID, sheetID, q)
	if err != nil {
		return nil, err
	}
	i, _ := rs.Schema.Index(key)
	if tallied {
		defer db.tallyEverySheet(slice)()
		scope, err := rc.tallyScope(rs, q, where)
		if err != nil {
			return nil, err
		}
		vals, _, ok, err := rc.tallied(rs, rs.Layout.Cols[i], scope, tally.Order{Top: top})
		if err == nil && !ok {
			err = fmt.Errorf("not tallied")
		}
		return vals, err
	}
	query, args := groupedValues(rs, key, where, byCount)
	if top > 0 {
		query += fmt.Sprintf(" LIMIT %d", top)
	}
	out := []CellCount{}
	err = db.eachGrouped(ctx, query, args, func(c CellCount) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

// SortedKeysForTest is the order of the records q selects by q.SortField: tallied
// (sort_tally.go, whatever the sheet's size, slice keys a query), else by SQL's ORDER BY.
func (db *DB) SortedKeysForTest(ctx context.Context, accountID, sheetID string, q RecordQuery, tallied bool, slice int64) ([]int64, error) {
	rc, rs, where, err := db.selectionForTest(ctx, accountID, sheetID, q)
	if err != nil {
		return nil, err
	}
	if tallied {
		defer db.tallyEverySheet(slice)()
		i, _ := rs.Schema.Index(q.SortField)
		rids, ok, err := rc.tallySorted(ctx, rs, i, where, q.SortDesc)
		if err == nil && !ok {
			err = fmt.Errorf("not tallied")
		}
		return rids, err
	}
	order, err := orderBy(rs, &q)
	if err != nil {
		return nil, err
	}
	query, args := keysQuery("", where, order)
	return stored.QueryRIDs(ctx, db.Reader, "sort", query, args...)
}

// selectionForTest reads the sheet and the where of q, as a page of it does.
func (db *DB) selectionForTest(ctx context.Context, accountID, sheetID string, q RecordQuery) (*readCtx, *stored.Sheet, ffql.Frag, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, nil, ffql.Frag{}, err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader, db: db}
	where, err := rc.where(rs, &q)
	return rc, rs, where, err
}

// tallyEverySheet makes every sheet tallied, slice keys a query; the returned func restores
// the sizes.
func (db *DB) tallyEverySheet(slice int64) func() {
	oldMin, oldSlice := db.Settings().TallyMin, tally.SliceSize
	db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1 })
	tally.SliceSize = slice
	return func() {
		db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = oldMin })
		tally.SliceSize = oldSlice
	}
}

// QueryRowForTest scans one row of q into dest.
func (db *DB) QueryRowForTest(ctx context.Context, q string, dest ...any) error {
	return db.Reader.QueryRowContext(ctx, q).Scan(dest...)
}

// SearchShortcutForTest turns the search's trust in its first pass on or off (records_query.go,
// firstPassTrusted); the returned func restores it.
func SearchShortcutForTest(on bool) func() {
	old := searchShortcut
	searchShortcut = on
	return func() { searchShortcut = old }
}

// StaleCountForTest counts the records q selects as a read inside a write can see them: the
// sheet as stored, not first revalidated after a change of its schema.
func (db *DB) StaleCountForTest(ctx context.Context, accountID, sheetID string, q RecordQuery) (n int, err error) {
	rs, err := stored.Load(ctx, db.Reader, accountID, sheetID)
	if err != nil {
		return 0, err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader, db: db}
	where, err := rc.where(rs, &q)
	if err != nil {
		return 0, err
	}
	err = db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM records r WHERE `+where.SQL, where.Args...).Scan(&n)
	return n, err
}

// SetKindsSlice sets how many records a transaction of FillRecordKinds fills in; the returned
// func restores it.
func SetKindsSlice(n int) func() {
	old := kindsSlice
	kindsSlice = n
	return func() { kindsSlice = old }
}

// RareStartForTest returns where a scan's first pass of sheetID starts in needle's JSON text
// (search_split_sqlite.go, rareStart), and turns the choice on or off for the searches after.
func (db *DB) RareStartForTest(ctx context.Context, accountID, sheetID, needle string, on bool) (int, func(), error) {
	old := rareStarts
	rareStarts = on
	restore := func() { rareStarts = old }
	rs, err := stored.Load(ctx, db.Reader, accountID, sheetID)
	if err != nil {
		return 0, restore, err
	}
	q := string(records.Quote(records.ASCIILower(needle)))
	return (&readCtx{ctx: ctx, q: db.Reader, db: db}).rareStart(rs, q[1:len(q)-1], false), restore, nil
}

// SearchBloomsForTest turns the search filters of PostgreSQL (search_blooms_postgres.go) on or off,
// has sheets of min records or more use them and makes blocks 1<<shift keys (a test's sheet
// then has many); the returned func restores all three.
func SearchBloomsForTest(on bool, min int64, shift int) func() {
	old, oldMin, oldShift := searchBlooms, bloomSearchMin, bloomShift
	searchBlooms, bloomSearchMin, bloomShift = on, min, shift
	return func() { searchBlooms, bloomSearchMin, bloomShift = old, oldMin, oldShift }
}

// BloomReadsForTest reports how many of the sheet's records a search for needle reads
// through the filters (-1: it scans the sheet).
func (db *DB) BloomReadsForTest(ctx context.Context, accountID, sheetID, needle string) (int64, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return 0, err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader, db: db}
	f, ok := rc.bloomRanges(rs, records.ASCIILower(needle))
	if !ok {
		return -1, nil
	}
	lo, hi := stored.RIDRange(rs.SK)
	var n int64
	err = db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM records r WHERE r.rid BETWEEN ? AND ? AND `+f.SQL, append([]any{lo, hi}, f.Args...)...).Scan(&n)
	return n, err
}

// TallyPacksForTest makes blocks 1<<shift keys (tally packs and search filters) and keeps
// lists of no more than listMax values; the returned func restores both.
func TallyPacksForTest(shift, listMax int) func() {
	oldShift, oldMax := bloomShift, valueListMax
	bloomShift, valueListMax = shift, listMax
	return func() { bloomShift, valueListMax = oldShift, oldMax }
}

// AgainWritesForTest is how many inserts ran again because their guess was wrong.
func (db *DB) AgainWritesForTest() int64 { return db.againWrites.Load() }

// PageByKeySQL are the statements that read a page's records and versions by key.
func PageByKeySQL(d sqldb.Dialect) []string { return []string{recordsByKey(d), versionsByKey(d)} }
