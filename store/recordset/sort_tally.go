package recordset

import (
	"context"
	"slices"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// tallySorted returns the keys of the records where selects in the order of field number
// field (desc: descending), as the query's ORDER BY (orderBy) gives them. ok false: not a
// sheet to sort so (inHalves), or values it does not order as the database (floatExact;
// numbers in a text field on PostgreSQL); the caller sorts with SQL.
func (rc *readCtx) tallySorted(ctx context.Context, rs *stored.Sheet, field int, where ffql.Frag, desc bool) (rids []int64, ok bool, err error) {
	col := rs.Layout.Cols[field]
	if col < 0 {
		return nil, false, nil
	}
	texts := rs.Dialect.JSONB() && stored.TextOnly(rs.Schema.Rules[field])
	var halves [2]*tally.SortHalf
	ok, err = rc.inHalves(ctx, rs, false, func(ctx context.Context, p *sqldb.Pool, i int, keys *tally.KeySlices) error {
		var err error
		halves[i], err = tally.ReadSortHalf(ctx, p, where, col, keys, texts)
		return err
	}, func() { rids = tally.MergeSorted(halves[0], halves[1]) })
	if !ok || err != nil {
		return nil, ok, err
	}
	if desc {
		slices.Reverse(rids)
	}
	return rids, true, nil
}
