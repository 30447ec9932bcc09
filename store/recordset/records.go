package recordset

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// Record is a record as read: cells in schema order (fields with a value or a message),
// messages merged from Sluice's checks and from agents.
type Record struct {
	ID        string
	Cells     []Cell
	Valid     bool
	Messages  []records.Message // record-level messages from agents
	Metadata  json.RawMessage   // nil: none
	Config    json.RawMessage   // nil: none
	VersionID string
	UpdatedAt time.Time
}

// Cell is one field of a read record.
type Cell struct {
	Key      string
	Value    json.RawMessage // nil: empty
	Valid    bool
	Messages []records.Message
	Layer    string // the layer the value was written in; "" for the base layer
}

// Counts are a sheet's record counts.
type Counts struct {
	Total         int64
	Valid         int64
	Error         int64
	ErrorsByField map[string]int64
	EmptyByField  map[string]int64
}

// RecordIn is one record of an insert or an update.
type RecordIn struct {
	ID          string // update: the record's id
	Values      map[string]CellIn
	Messages    []records.Message // record-level messages from an agent
	HasMessages bool              // Messages was sent (an empty list clears them)
	Metadata    json.RawMessage   // nil: none on insert, unchanged on update
	Config      json.RawMessage   // nil: none on insert, unchanged on update
}

// CellIn is one cell of a RecordIn.
type CellIn struct {
	Value       json.RawMessage // JSON value; null empties the cell
	HasValue    bool            // the cell object carried "value"
	Messages    []records.Message
	HasMessages bool // the cell object carried "messages": they replace the agent's messages of that cell
	Layer       string
	HasLayer    bool // the cell object carried "layer" ("" moves the value back to the base layer)
}

// WriteResult is what a write reports back.
type WriteResult struct {
	VersionID string
	Records   []*Record // insert: the new records, in the order given
	Count     int       // records written
	// Scope is where the written sheet sits, as the write loaded it (insert).
	Scope *SheetScope
}

// readCtx runs read queries on the reader pool or inside a transaction.
type readCtx struct {
	ctx     context.Context
	q       sqldb.Querier
	sorts   *sortCache   // nil inside a write transaction
	anchors *pageAnchors // nil inside a write transaction
	db      *DB          // for the sheet's generation (sheetGen)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// cellMessages merges Sluice's messages, the unique rules broken and the agent's messages.
func cellMessages(rs *stored.Sheet, i int, msgs, umsgs records.Cells, dups []int64) []records.Message {
	var out []records.Message
	if msgs != nil {
		out = append(out, msgs[i]...)
	}
	for _, uc := range dups {
		u := rs.ByUC[uc]
		if u == nil {
			continue
		}
		for _, fi := range u.Fields {
			if fi == i {
				out = append(out, records.Message{Type: u.Level, Source: records.SourceUnique, Message: u.Message})
			}
		}
	}
	if umsgs != nil {
		out = append(out, umsgs[i]...)
	}
	return out
}

// output turns a state into a read record.
func output(rs *stored.Sheet, st *stored.State, updated time.Time, versionID string) *Record {
	rec := &Record{ID: stored.RecordID(st.RID), Valid: st.Valid, Messages: st.RMsgs, Metadata: st.Meta, Config: st.Cfg, UpdatedAt: updated, VersionID: versionID}
	rec.Cells = make([]Cell, 0, len(rs.Schema.Rules))
	for i, r := range rs.Schema.Rules {
		ms := cellMessages(rs, i, st.Msgs, st.UMsgs, st.Dups)
		v := st.Row[i]
		if v == nil && len(ms) == 0 {
			continue
		}
		cell := Cell{Key: r.Key, Value: v, Valid: !stored.HasError(ms), Messages: ms}
		if st.Lays != nil {
			cell.Layer = st.Lays[i]
		}
		rec.Cells = append(rec.Cells, cell)
	}
	return rec
}

// agentMessages keeps the messages an agent may own: Sluice's own sources are dropped, since
// Sluice recomputes them, and a missing type means error.
func agentMessages(in []records.Message) []records.Message {
	var out []records.Message
	for _, m := range in {
		switch m.Source {
		case records.SourceRequired, records.SourceUnique, records.SourceOption, records.SourceUnlinked:
			continue
		}
		if m.Type == "" {
			m.Type = records.LevelError
		}
		out = append(out, m)
	}
	return out
}

// GetRecords returns one page of q's records, and the number of records q selects when
// withTotal is set. Errors: not_found, invalid (bad filter, q, field or id).
func (db *DB) GetRecords(ctx context.Context, accountID, sheetID string, q RecordQuery, withTotal bool) ([]*Record, int64, error) {
	done, err := db.pageTurn(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	defer db.reads.Reading()()
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, 0, err
	}
	rc := &readCtx{ctx: ctx, q: db.Reader, sorts: &db.sorts, anchors: &db.anchors, db: db}
	if q.Whole() && len(q.IDs) == 0 {
		rc.q = db.Lookup // by key range and key: plans made once serve (sqldb.DB.Lookup)
	}
	if q.SearchValue != "" {
		db.ensureSearchIndex(rs)
	}
	if q.Page.Size <= 0 {
		q.Page = recordPage
	}
	recs, err := rc.page(rs, &q)
	if err != nil || !withTotal {
		return recs, 0, err
	}
	n, err := rc.count(rs, &q)
	return recs, n, err
}

// recordPage is the default page: Flatfile's 10,000 records.
var recordPage = model.Page{Size: 10000, Number: 1}

// page selects the keys of one page first, so skipped rows are never read in full.
func (rc *readCtx) page(rs *stored.Sheet, q *RecordQuery) ([]*Record, error) {
	if rs.SK == 0 {
		return []*Record{}, nil
	}
	where, err := rc.where(rs, q)
	if err != nil {
		return nil, err
	}
	order, err := orderBy(rs, q)
	if err != nil {
		return nil, err
	}
	hint := ""
	if q.Filter == "error" && q.SortField == "" {
		hint = rs.Dialect.IndexedBy("records_errors")
	}
	query, args := keysQuery(hint, where, order)
	if q.SortField != "" && rc.sorts != nil {
		// A sorted query reads every value anyway: the first page computes the whole order
		// and keeps it, so the next pages are slices of it.
		reader := rc.q
		gen, err := rc.db.sheetGen(rc.ctx, rc.q, rs.SK)
		if err != nil {
			return nil, err
		}
		all, err := kept(rc.ctx, rc.sorts, rs.SK, gen, sortKey(query, args), func(ctx context.Context) ([]int64, error) {
			if q.rowWise() {
				i, _ := rs.Schema.Index(q.SortField)
				if rids, sorted, err := rc.tallySorted(ctx, rs, i, where, q.SortDesc); sorted || err != nil {
					return rids, err
				}
			}
			if p, ok := reader.(*sqldb.Pool); ok && !p.Dialect().PgxRows() {
				return driverRids(ctx, p, query, args)
			} else if ok {
				return pgxRids(ctx, p, query, args)
			}
			return stored.QueryRIDs(ctx, reader, "sort records", query, args...)
		}, patchOrder(reader, where, order))
		if err != nil {
			return nil, err
		}
		from := min(q.Page.Offset(), len(all))
		return rc.load(rs, all[from:min(from+q.Page.Size, len(all))])
	}
	offset := q.Page.Offset()
	if k := offset / anchorStep; k > 0 && rc.anchors != nil && q.plain() && (q.Filter == "" || q.Filter == "all") && q.SortField == "" && !q.SortDesc {
		// A deep page of the whole sheet starts at the nearest anchor below it.
		from, ok, err := rc.anchor(rs, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			return []*Record{}, nil
		}
		_, hi := stored.RIDRange(rs.SK)
		query, args, offset = `SELECT r.rid FROM records r WHERE r.rid BETWEEN ? AND ? ORDER BY r.rid`, []any{from, hi}, offset%anchorStep
	}
	if lo, mid, hi, ok := rc.halves(rs, q, hint); ok {
		rids, err := rc.splitRids(where, order, lo, mid, hi, q.SortDesc, offset, q.Page.Size)
		if err != nil {
			return nil, err
		}
		return rc.load(rs, rids)
	}
	if rest, ok := strings.CutPrefix(query, `SELECT r.rid `); ok && offset == 0 && q.Whole() && rs.Dialect.RoundTrips() {
		// The first page of the whole sheet is read by the keys' query itself, a range of
		// the primary key: one statement and round trip instead of two. (Not a filtered one:
		// asked for the rows, PostgreSQL walked the key in order past the rows the filter
		// left out rather than take its index — the first page of errors at 200,000
		// records 6.9 → 23 ms.)
		recs, _, err := rc.loadRows(rs, `SELECT `+recordColumnsOfR+`, r.vseq `+rest+` LIMIT ?`, append(args, q.Page.Size))
		return recs, err
	}
	rids, err := stored.QueryRIDs(rc.ctx, rc.q, "select records", query+` LIMIT ? OFFSET ?`, append(args, q.Page.Size, offset)...)
	if err != nil {
		return nil, err
	}
	return rc.load(rs, rids)
}

// recordColumnsOfR are stored.StateColumns of the records aliased r (keysQuery's).
var recordColumnsOfR = `r.` + strings.ReplaceAll(stored.StateColumns, `, `, `, r.`)

// keysQuery selects the keys of the records where selects, in order (hint: an INDEXED BY
// clause, or "").
func keysQuery(hint string, where, order ffql.Frag) (string, []any) {
	return `SELECT r.rid FROM records r` + hint + ` WHERE ` + where.SQL + ` ORDER BY ` + order.SQL, append(append([]any{}, where.Args...), order.Args...)
}

// patchOrder places records changed by writes in a kept order of the records where
// selects, sorted by order: each is left out, or put where it now belongs, found by binary
// search with the database comparing two records at a time by order itself (so the
// comparison is the sort's, whatever the field's type, direction and collation).
func patchOrder(q sqldb.Querier, where, order ffql.Frag) patchFunc {
	return func(ctx context.Context, old, changed []int64) ([]int64, error) {
		gone := make(map[int64]bool, len(changed))
		list := make([]any, 0, len(changed))
		for _, rid := range uniqueRids(changed) {
			gone[rid] = true
			list = append(list, rid)
		}
		// Which of them the query selects now, in key order (a deleted record: none).
		members, err := stored.QueryRIDs(ctx, q, "patch sorted order", `SELECT r.rid FROM records r WHERE (`+where.SQL+`) AND r.rid IN (`+sqldb.Placeholders(len(list))+`) ORDER BY r.rid`,
			append(append([]any{}, where.Args...), list...)...)
		if err != nil {
			return nil, err
		}
		out := make([]int64, 0, len(old)+len(members))
		for _, rid := range old {
			if !gone[rid] {
				out = append(out, rid)
			}
		}
		before := `SELECT r.rid FROM records r WHERE r.rid IN (?, ?) ORDER BY ` + order.SQL + ` LIMIT 1`
		for _, rid := range members {
			// The first place whose record comes after rid's.
			var cerr error
			at := sort.Search(len(out), func(i int) bool {
				if cerr != nil {
					return true
				}
				var first int64
				if err := q.QueryRowContext(ctx, before, append([]any{out[i], rid}, order.Args...)...).Scan(&first); err != nil {
					cerr = errs.Wrap(err, "patch sorted order")
					return true
				}
				return first == rid
			})
			if cerr != nil {
				return nil, cerr
			}
			out = slices.Insert(out, at, rid)
		}
		return out, nil
	}
}

// driverRids reads a query's record keys straight from the SQLite driver: a sorted order of
// 1,000,000 keys read row by row through database/sql costs 0.1-0.2 s more than SQLite's
// sort itself (issue 17: the first sorted page).
func driverRids(ctx context.Context, p *sqldb.Pool, query string, args []any) ([]int64, error) {
	conn, done, err := sortingConn(ctx, p)
	if err != nil {
		return nil, errs.Wrap(err, "sort records")
	}
	defer done()
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, errs.Wrap(err, "sort records")
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	var out []int64
	err = conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			out, err = stored.QueryRIDs(ctx, p, "sort records", query, args...)
			return err
		}
		rows, err := qc.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		for {
			if err := rows.Next(dest); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			rid, ok := dest[0].(int64)
			if !ok {
				return fmt.Errorf("record key %v is not an integer", dest[0])
			}
			out = append(out, rid)
		}
	})
	if err != nil {
		return nil, errs.Wrap(err, "sort records")
	}
	return out, nil
}

// pgxRids is driverRids for PostgreSQL: the keys read with pgx itself, which scans 1,000,000
// of them in a fraction of database/sql's time.
func pgxRids(ctx context.Context, p *sqldb.Pool, query string, args []any) ([]int64, error) {
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return nil, errs.Wrap(err, "sort records")
	}
	defer conn.Close()
	var out []int64
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			out, err = stored.QueryRIDs(ctx, p, "sort records", query, args...)
			return err
		}
		rows, err := c.Conn().Query(ctx, p.Dialect().Rebind(query), p.Dialect().Args(args)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var rid int64
			if err := rows.Scan(&rid); err != nil {
				return err
			}
			out = append(out, rid)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, errs.Wrap(err, "sort records")
	}
	return out, nil
}

// sortingConn is a read connection of SQLite's set up for a big sort (ORDER BY or GROUP BY
// over a whole sheet): SQLite sorts with helper threads only when a sort outgrows the cache,
// so it gets two threads and a 4 MiB cache for the sort, which takes 10-15% off 1,000,000
// values (0.45 s instead of 0.52). done restores the cache and returns the connection.
func sortingConn(ctx context.Context, p *sqldb.Pool) (*sql.Conn, func(), error) {
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	done := func() { conn.Close() }
	if _, err := conn.ExecContext(ctx, `PRAGMA threads = 2`); err == nil {
		if _, err := conn.ExecContext(ctx, `PRAGMA cache_size = -4096`); err == nil {
			done = func() {
				_, _ = conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA cache_size = `+strconv.Itoa(-sqldb.ReaderCacheKiB))
				conn.Close()
			}
		}
	}
	return conn, done, nil
}

// recordsByKey and versionsByKey read a page's records and their versions by key (a JSON
// array, stored.RIDsJSON).
func recordsByKey(d sqldb.Dialect) string {
	return `SELECT ` + stored.StateColumns + `, vseq FROM records WHERE ` + d.InInts("rid", "?")
}

func versionsByKey(d sqldb.Dialect) string {
	return `SELECT vseq, id, created_at FROM record_versions WHERE ` + d.InInts("vseq", "?")
}

// load reads full records by key, keeping the order of rids.
func (rc *readCtx) load(rs *stored.Sheet, rids []int64) ([]*Record, error) {
	recs, keys, err := rc.loadRows(rs, recordsByKey(rc.q.Dialect()), []any{stored.RIDsJSON(rids)})
	if err != nil {
		return nil, err
	}
	byRid := make(map[int64]*Record, len(recs))
	for i, rec := range recs {
		byRid[keys[i]] = rec
	}
	out := make([]*Record, 0, len(rids))
	for _, rid := range rids {
		if rec := byRid[rid]; rec != nil {
			out = append(out, rec)
		}
	}
	return out, nil
}

// loadRows reads the full records query selects (StateColumns and vseq), in its order,
// with their versions, and their keys.
func (rc *readCtx) loadRows(rs *stored.Sheet, query string, args []any) ([]*Record, []int64, error) {
	recs := []*Record{} // (an empty page is [], not null)
	var keys, seqs []int64
	versions := map[int64]version{}
	err := sqldb.EachRow(rc.ctx, rc.q, "load records", query, args, func(rows *sql.Rows) error {
		var vseq int64
		st, err := rs.ScanState(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &vseq)...) }))
		if err != nil {
			return err
		}
		versions[vseq] = version{}
		recs, keys, seqs = append(recs, output(rs, st, time.Time{}, "")), append(keys, st.RID), append(seqs, vseq)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := rc.versions(versions); err != nil {
		return nil, nil, err
	}
	for i, rec := range recs {
		v := versions[seqs[i]]
		rec.VersionID, rec.UpdatedAt = v.id, v.at
	}
	return recs, keys, nil
}

// version is a record version's id and time.
type version struct {
	id string
	at time.Time
}

// versions fills in the id and time of each version key in m, in one query (a page of
// records written by many small batches names as many versions).
func (rc *readCtx) versions(m map[int64]version) error {
	if len(m) == 0 {
		return nil
	}
	seqs := make([]int64, 0, len(m))
	for seq := range m {
		seqs = append(seqs, seq)
	}
	return sqldb.EachRow(rc.ctx, rc.q, "load versions", versionsByKey(rc.q.Dialect()), []any{stored.RIDsJSON(seqs)}, func(rows *sql.Rows) error {
		var seq, at int64
		var v version
		if err := rows.Scan(&seq, &v.id, &at); err != nil {
			return errs.Wrap(err, "scan version")
		}
		v.at = sqldb.FromMillis(at)
		m[seq] = v
		return nil
	})
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// count is the number of records q selects.
func (rc *readCtx) count(rs *stored.Sheet, q *RecordQuery) (int64, error) {
	if rs.SK == 0 {
		return 0, nil
	}
	if q.plain() && (q.Filter == "" || q.Filter == "all" || q.Filter == "valid" || q.Filter == "error") {
		// The whole sheet or one tab: the counts kept on write answer without a scan.
		var total, valid int64
		if err := rc.q.QueryRowContext(rc.ctx, `SELECT total, valid FROM record_sheets WHERE sk = ?`, rs.SK).Scan(&total, &valid); err != nil {
			return 0, errs.Wrap(err, "read counts")
		}
		switch q.Filter {
		case "valid":
			return valid, nil
		case "error":
			return total - valid, nil
		}
		return total, nil
	}
	where, err := rc.where(rs, q)
	if err != nil {
		return 0, err
	}
	if lo, mid, hi, ok := rc.halves(rs, q, ""); ok {
		return rc.splitCount(where, lo, mid, hi, q.CountCap)
	}
	return rc.countWhere(rc.ctx, where, q.CountCap)
}

// countWhere counts the records where selects; with countCap > 0 only up to countCap+1
// (the caller shows "more than countCap").
func (rc *readCtx) countWhere(ctx context.Context, where ffql.Frag, countCap int) (int64, error) {
	var n int64
	query := `SELECT count(*) FROM records r WHERE ` + where.SQL
	args := where.Args
	if countCap > 0 {
		query = `SELECT count(*) FROM (SELECT 1 FROM records r WHERE ` + where.SQL + ` LIMIT ?) AS c`
		args = append(append([]any{}, args...), countCap+1)
	}
	if err := rc.q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, errs.Wrap(err, "count records")
	}
	return n, nil
}
