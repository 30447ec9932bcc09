package store

import (
	"context"
	"encoding/json"
	"math"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
)

// ValueCount is one distinct value of a field and how many records hold it.
type ValueCount struct {
	Value json.RawMessage // the JSON value as stored
	Count int64
}

// FieldValues returns the most frequent non-empty values of one field among the sheet's
// first scan records (0: all of them), the most frequent first (ties in value order), at
// most limit. It is a scan: the grid asks for it only when a column's menu opens, and caps
// it so the menu opens quickly on big sheets. Errors: not_found, invalid (unknown field).
func (db *DB) FieldValues(ctx context.Context, accountID, sheetID, key string, limit, scan int) ([]ValueCount, error) {
	rs, err := db.readSheet(ctx, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	if rs.Schema.Rule(key) == nil {
		return nil, errs.Invalidf("field", "The sheet has no field %q", key)
	}
	if rs.sk == 0 {
		return nil, nil
	}
	where, err := (&readCtx{ctx: ctx, q: db.r}).where(rs, &RecordQuery{})
	if err != nil {
		return nil, err
	}
	v, args := rs.valueExpr("r", key)
	if scan <= 0 {
		scan = math.MaxInt64 // no limit
	}
	ty := rs.d.typing()
	sv := ffql.Frag{SQL: "s.v"}
	empty, asJSON, order := ty.Empty(sv, false), ty.JSON(sv), ty.Order(sv, " ASC")
	args = append(append(append(append(append(asJSON.Args, args...), where.Args...), scan), empty.Args...), order.Args...)
	rows, err := db.r.QueryContext(ctx, `SELECT `+asJSON.SQL+`, count(*) AS n FROM (SELECT `+v+` AS v FROM records r WHERE `+where.SQL+` ORDER BY r.rid LIMIT ?) AS s
		WHERE NOT `+empty.SQL+` GROUP BY s.v ORDER BY n DESC, `+order.SQL+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, errs.Wrap(err, "field values")
	}
	defer rows.Close()
	var out []ValueCount
	for rows.Next() {
		var vc ValueCount
		var raw string
		if err := rows.Scan(&raw, &vc.Count); err != nil {
			return nil, errs.Wrap(err, "scan field values")
		}
		vc.Value = json.RawMessage(raw)
		out = append(out, vc)
	}
	return out, rows.Err()
}
