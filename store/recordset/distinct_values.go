package recordset

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// cellValuesKept is the most distinct values a kept list holds (bigger lists are computed
// for each request rather than held in memory).
const cellValuesKept = 100000

// CellCount is a distinct value of a field with the number of records that hold it (tally
// counts them in Go on big sheets, the database on others).
type CellCount = tally.CellCount

// CellValues returns every distinct non-empty value of field key among the records q
// selects, exactly, with their counts, the most frequent first (ties in value order). The
// list is kept until the sheet's next write, so the pages and menus after the first are
// answered from memory. Errors: not_found, invalid (unknown field, bad query).
func (db *DB) CellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery) ([]CellCount, error) {
	return db.CellValuesPage(ctx, accountID, sheetID, key, q, CellsPage{})
}

// TopCellValues is CellValues' n most frequent values (the grid's filter-by-value menu).
func (db *DB) TopCellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery, n int) ([]CellCount, error) {
	return db.CellValuesPage(ctx, accountID, sheetID, key, q, CellsPage{Limit: n})
}

// CellsPage is a part of a field's distinct values: in value order (ByValue, Desc) instead
// of the most frequent first, from Offset, at most Limit of them (0: all).
type CellsPage struct {
	ByValue, Desc bool
	Offset, Limit int
}

// CellValuesPage is a page of CellValues. A field with too many values to keep is read from
// its counted values once they are built (distinct_counts.go), a page as a range of an index;
// before that, a page of the most frequent values is counted only that far.
func (db *DB) CellValuesPage(ctx context.Context, accountID, sheetID, key string, q RecordQuery, p CellsPage) ([]CellCount, error) {
	defer db.reads.Reading()()
	limit := 0
	if p.Limit > 0 && !p.ByValue {
		limit = p.Offset + p.Limit
	}
	vals, paged, err := db.cellValues(ctx, accountID, sheetID, key, q, true, limit, &p)
	if err != nil || paged {
		return vals, err
	}
	if p.ByValue {
		vals = slices.Clone(vals) // (a kept or remembered list is shared)
		sortCells(vals, true, p.Desc)
	}
	from := min(p.Offset, len(vals))
	if p.Limit > 0 {
		return vals[from:min(from+p.Limit, len(vals))], nil
	}
	return vals[from:], nil
}

// cellValues is CellValues; kept false counts the records even where a list is kept (tests
// compare the two); limit > 0 counts only that many of the most frequent values when the
// list is not kept (the answer is then neither kept nor remembered). With page, a field's
// counted values answer the page itself (paged).
func (db *DB) cellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery, kept bool, limit int, page *CellsPage) (vals []CellCount, paged bool, err error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, false, err
	}
	i, ok := rs.Schema.Index(key)
	if !ok {
		return nil, false, errs.Invalidf("fieldKey", "The sheet has no field %q", key)
	}
	col := rs.Layout.Cols[i]
	if rs.SK == 0 || col < 0 {
		return []CellCount{}, false, nil
	}
	rc := &readCtx{ctx: ctx, q: db.Reader}
	whole := q.plain() && (q.Filter == "" || q.Filter == "all" || q.Filter == "valid" || q.Filter == "error")
	tooMany := false
	if whole && kept {
		vals, answer, err := keptCells(rc, rs, col, q.Filter, page)
		if answer == wholeList || answer == pageOnly || err != nil {
			return vals, answer == pageOnly, err
		}
		tooMany = answer == tooManyKept
		if tooMany {
			// Counted from now on, once built; the build starts once this count is done,
			// rather than beside it on the same cores.
			defer db.startValueCounts(rs, col)
		}
	}
	where, err := rc.where(rs, &q)
	if err != nil {
		return nil, false, err
	}
	inGo := q.rowWise() // (others are grouped by SQL)
	scope, err := rc.tallyScope(rs, q, where)
	if err != nil {
		return nil, false, err
	}
	if inGo && tooMany && page != nil && page.ByValue && page.Limit > 0 {
		// A page in value order: a tally keeps the values up to it and answers the page (SQL
		// counts them all, sorted below).
		order := tally.Order{ByValue: true, Desc: page.Desc, Top: page.Offset + page.Limit}
		if vals, _, tallied, err := rc.tallied(rs, col, scope, order); tallied || err != nil {
			return vals[min(page.Offset, len(vals)):], true, err
		}
	}
	query, args := groupedValues(rs, key, where, byCount)
	var order tally.Order
	if limit > 0 && tooMany {
		// Only for a field known to have too many values to keep: a count of any other is
		// worth keeping whole.
		query += ` LIMIT ` + strconv.Itoa(limit)
		order.Top, kept = limit, false // a part of the list: not to be kept or remembered as the whole
	} else if limit > 0 && !whole {
		// A part of the sheet: the tally keeps the whole list while it is small enough to be
		// remembered, else only the values up to the page (a search matching every record of
		// a field with a value per record: 0.7 s to 0.2 s at 1,000,000).
		order.Top, order.Whole = limit, cellValuesKept
	}
	compute := func(ctx context.Context) ([]CellCount, error) {
		if inGo {
			vals, cut, tallied, err := rc.tallied(rs, col, scope, order)
			if cut {
				kept = false
			}
			if tallied || err != nil {
				return vals, err
			}
		}
		out := []CellCount{}
		err := db.eachGrouped(ctx, query, args, func(c CellCount) error {
			out = append(out, c)
			return nil
		})
		return out, err
	}
	gen, err := db.sheetGen(ctx, db.Reader, rs.SK)
	if err != nil {
		return nil, false, err
	}
	ck := "cells\x00" + sortKey(query, args)
	if vals, ok := db.sorts.get(ctx, rs.SK, gen, ck); ok && kept {
		return vals.([]CellCount), false, nil
	}
	// A count of the whole sheet that finds few enough values is kept in the database from
	// then on, if no write came between (changes, read before counting).
	var changes int64 = -1
	if whole && kept && (q.Filter == "" || q.Filter == "all") {
		if db.sorts.shared {
			changes = int64(gen) // on PostgreSQL sheetGen is the sheet's count of writes
		} else if changes, err = sheetChanges(ctx, db.Reader, rs.SK); err != nil {
			return nil, false, err
		}
	}
	vals, err = compute(ctx)
	if err != nil {
		return nil, false, err
	}
	if kept && len(vals) <= cellValuesKept && (changes < 0 || len(vals) > valueListMax) {
		db.sorts.put(rs.SK, gen, ck, vals, nil) // (a list kept in the database needs no copy here)
	}
	if changes >= 0 && len(vals) <= valueListMax {
		if err := db.UpdateSheet(ctx, rs.ID, func(tx *Tx) error { return tx.keepValues(rs.SK, col, changes, vals) }); err != nil {
			return nil, false, err
		}
	}
	return vals, false, nil
}

// groupOrder is the order of groupedValues' rows.
type groupOrder int

const (
	// byCount: the most frequent first, ties in value order
	byCount groupOrder = iota
	// byValue: value order on PostgreSQL (which then stores the counted values' rows in the
	// order of their index), none on SQLite
	byValue
)

// groupedValues is the query of the distinct values of field key among the records where
// selects, each as its JSON with how many records and valid records hold it; empty cells
// (null, "" and []) are left out, as records.IsEmpty has it.
func groupedValues(rs *stored.Sheet, key string, where ffql.Frag, order groupOrder) (string, []any) {
	i, _ := rs.Schema.Index(key)
	if rs.Dialect.JSONB() {
		// Grouped by each value's JSON text in the "C" collation, as SQLite groups and the
		// kept lists key them: comparing text is much cheaper than comparing jsonb (a page
		// of a field with 1,000,000 distinct values: 2.2 s grouped by jsonb, 0.8 s by text).
		v := "r.vals -> " + strconv.Itoa(rs.Layout.Cols[i])
		query := `SELECT s.t, count(*) AS n, CAST(sum(s.valid) AS BIGINT) FROM (SELECT CAST(` + v + ` AS TEXT) COLLATE "C" AS t, r.valid AS valid FROM records r
		WHERE (` + where.SQL + `) AND ` + v + ` NOT IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb)) AS s GROUP BY s.t`
		switch order {
		case byCount:
			query += ` ORDER BY n DESC, ` + jsonTextOrder("s.t")
		case byValue:
			query += ` ORDER BY ` + jsonTextOrder("s.t")
		}
		return query, where.Args
	}
	// Grouped by each value's JSON text (->), which keeps true and false (json_extract
	// reads them as 1 and 0); ties in SQLite's order of the values.
	args := append([]any{"$[" + strconv.Itoa(rs.Layout.Cols[i]) + "]"}, where.Args...)
	query := `SELECT s.j, count(*) AS n, CAST(sum(s.valid) AS BIGINT) FROM (SELECT r.vals -> ? AS j, r.valid AS valid FROM records r WHERE ` + where.SQL + `) AS s
		WHERE s.j NOT IN ('null', '""', '[]') GROUP BY s.j`
	if order == byCount {
		query += ` ORDER BY n DESC, json_extract(s.j, '$') ASC`
	}
	return query, args
}

// jsonTextOrder orders PostgreSQL rows by t, a value's JSON text, in value order as the
// typed order of values has it: numbers and booleans (as 1 and 0) by value, then text by its
// bytes (a list or an object by its JSON), reading t as jsonb only for a string with an
// escape in it.
func jsonTextOrder(t string) string {
	text := `left(` + t + `, 1) IN ('"', '[', '{')`
	return `(CASE WHEN ` + text + ` THEN 2 ELSE 1 END), (CASE WHEN ` + t + ` = 'true' THEN 1 WHEN ` + t + ` = 'false' THEN 0 WHEN ` + text + ` THEN NULL ELSE CAST(` + t + ` AS numeric) END),
		(CASE WHEN left(` + t + `, 1) <> '"' THEN ` + t + ` WHEN strpos(` + t + `, '\') = 0 THEN substr(` + t + `, 2, length(` + t + `) - 2) ELSE CAST(` + t + ` AS jsonb) #>> '{}' END) COLLATE "C"`
}

// eachGrouped runs a groupedValues query and hands fn each value. On SQLite it runs on a
// connection that sorts with two threads: GROUP BY sorts every value.
func (db *DB) eachGrouped(ctx context.Context, query string, args []any, fn func(CellCount) error) error {
	var q sqldb.Querier = db.Reader
	if !db.Postgres() {
		conn, done, err := sortingConn(ctx, db.Reader)
		if err != nil {
			return errs.Wrap(err, "count values")
		}
		defer done()
		q = connQuerier{conn, db.Reader.Settings()}
	}
	return sqldb.EachRow(ctx, q, "count values", query, args, func(rows *sql.Rows) error {
		var c CellCount
		var raw string
		if err := rows.Scan(&raw, &c.Total, &c.Valid); err != nil {
			return errs.Wrap(err, "scan values")
		}
		c.Value, c.Error = json.RawMessage(raw), c.Total-c.Valid
		return fn(c)
	})
}

// connQuerier runs SQLite's SQL on one connection of its pool (the dialect needs no rebinding).
type connQuerier struct {
	*sql.Conn
	set *sqldb.Settings
}

func (connQuerier) Dialect() sqldb.Dialect { return sqldb.SQLiteDialect }

func (c connQuerier) Settings() *sqldb.Settings { return c.set }
