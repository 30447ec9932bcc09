package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
)

// CellCount is one distinct value of a field and the records that hold it: all of them,
// the valid ones and those with an error.
type CellCount struct {
	Value               json.RawMessage // the JSON value as stored
	Total, Valid, Error int64
}

// cellValuesKept is the most distinct values a kept list holds (bigger lists are computed
// for each request rather than held in memory).
const cellValuesKept = 100000

// CellValues returns every distinct non-empty value of field key among the records q
// selects, exactly, with their counts, the most frequent first (ties in value order). The
// list is kept until the sheet's next write, so the pages and menus after the first are
// answered from memory. Errors: not_found, invalid (unknown field, bad query).
func (db *DB) CellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery) ([]CellCount, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	if rs.Schema.Rule(key) == nil {
		return nil, errs.Invalidf("fieldKey", "The sheet has no field %q", key)
	}
	if rs.sk == 0 {
		return []CellCount{}, nil
	}
	where, err := (&readCtx{ctx: ctx, q: db.r}).where(rs, &q)
	if err != nil {
		return nil, err
	}
	v, vargs := rs.valueExpr("r", key)
	ty := rs.d.typing()
	sv := ffql.Frag{SQL: "s.v"}
	empty, asJSON, order := ty.Empty(sv, false), ty.JSON(sv), ty.Order(sv, " ASC")
	args := append(append(append(append(append([]any{}, asJSON.Args...), vargs...), where.Args...), empty.Args...), order.Args...)
	query := `SELECT ` + asJSON.SQL + `, count(*) AS n, CAST(sum(s.valid) AS BIGINT) FROM (SELECT ` + v + ` AS v, r.valid AS valid FROM records r WHERE ` + where.SQL + `) AS s
		WHERE NOT ` + empty.SQL + ` GROUP BY s.v ORDER BY n DESC, ` + order.SQL
	compute := func(ctx context.Context) ([]CellCount, error) {
		out := []CellCount{}
		var q querier = db.r
		if !db.Postgres() {
			// GROUP BY sorts every value: on a connection that sorts with two threads.
			conn, done, err := sortingConn(ctx, db.r)
			if err != nil {
				return nil, errs.Wrap(err, "cell values")
			}
			defer done()
			q = connQuerier{conn}
		}
		err := eachRow(ctx, q, "cell values", query, args, func(rows *sql.Rows) error {
			var c CellCount
			var raw string
			if err := rows.Scan(&raw, &c.Total, &c.Valid); err != nil {
				return errs.Wrap(err, "scan cell values")
			}
			c.Value, c.Error = json.RawMessage(raw), c.Total-c.Valid
			out = append(out, c)
			return nil
		})
		return out, err
	}
	gen, err := db.sheetGen(ctx, db.r, rs.sk)
	if err != nil {
		return nil, err
	}
	ck := "cells\x00" + sortKey(query, args)
	if vals, ok := db.sorts.get(rs.sk, gen, ck); ok {
		return vals.([]CellCount), nil
	}
	vals, err := compute(ctx)
	if err == nil && len(vals) <= cellValuesKept {
		db.sorts.put(rs.sk, gen, ck, vals)
	}
	return vals, err
}

// connQuerier runs SQLite's SQL on one connection of its pool (the dialect needs no rebinding).
type connQuerier struct{ *sql.Conn }

func (connQuerier) dialect() dialect { return sqliteDialect }
