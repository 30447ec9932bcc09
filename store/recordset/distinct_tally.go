package recordset

import (
	"context"
	"database/sql"
	"errors"
	"hash/maphash"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// tallyScope is what a tally of the records q selects (where) reads: where itself; or, for
// the whole sheet or its valid records on PostgreSQL, every record (every: the tally packs
// answer, tally_packs_postgres.go), of which only the valid records' counts are kept for the valid
// ones (valid).
type tallyScope struct {
	where        ffql.Frag
	every, valid bool
}

func (rc *readCtx) tallyScope(rs *stored.Sheet, q RecordQuery, where ffql.Frag) (tallyScope, error) {
	if !q.plain() {
		return tallyScope{where: where}, nil
	}
	switch {
	case q.Filter == "" || q.Filter == "all":
		return tallyScope{where: where, every: true}, nil
	case q.Filter == "valid" && rs.Dialect.KeepsTallyPacks(): // (all records' packs, less the invalid ones)
		q.Filter = ""
		all, err := rc.where(rs, &q)
		return tallyScope{where: all, every: true, valid: true}, err
	}
	return tallyScope{where: where}, nil
}

// tallied counts the distinct values at stored position col among the records sc selects,
// as groupedValues does, and returns them in order o; cut: only the first o.top of them
// (there were more than o.whole). ok false: not a sheet to tally (inHalves); the caller
// counts with SQL.
func (rc *readCtx) tallied(rs *stored.Sheet, col int, sc tallyScope, o tally.Order) (vals []CellCount, cut, ok bool, err error) {
	o.Valid = sc.valid
	seed := maphash.MakeSeed()
	var halves [2]*tally.Half
	// (a field of one text value a cell: a number or a boolean elsewhere in a record does not
	// keep its value's text from the tally; an escape, a list or an object does: tally.Query)
	field, in := rs.Layout.ByCol[col]
	text := in && stored.TextOnly(rs.Schema.Rules[field]) && !rs.Schema.Rules[field].List
	query := tally.Query(rc.q.Dialect(), col, text)
	if sc.every && rc.q.Dialect().KeepsTallyPacks() && rs.Total >= rc.q.Settings().TallyMin {
		packed, err := rc.hasPacks(rs.SK, col)
		if err != nil {
			return nil, false, false, err
		}
		if packed {
			query = packedTallyQuery(rs.SK, col, text)
		}
	}
	ok, err = rc.inHalves(rc.ctx, rs, true, func(ctx context.Context, p *sqldb.Pool, i int, keys *tally.KeySlices) error {
		var err error
		halves[i], err = tally.ReadHalf(ctx, p, query, sc.where, col, keys, seed)
		return err
	}, func() { vals, cut = tally.MergeInHalves(halves[0], halves[1], o) })
	return vals, cut, ok, err
}

// inHalves runs half for the two halves of the sheet's keys at once, then (once both have
// read theirs) then, on a sheet of sqldb.Settings.TallyMin to tally.MaxRecords records read outside a
// transaction, one tally at a time (tally.Turn); a sheet without records has two empty
// halves. shared: the two take the sheet's slices of keys in turns, whichever asks first (a
// tally, which counts values wherever they come from: neither waits for the other when
// deleted records or invalid ones make one half of the keys the longer read), rather than a
// half each (a sort, whose halves are in key order). ok false: not such a sheet, or a half
// gave up (tally.ErrOff): the caller asks the database instead.
func (rc *readCtx) inHalves(ctx context.Context, rs *stored.Sheet, shared bool, half func(ctx context.Context, p *sqldb.Pool, i int, keys *tally.KeySlices) error, then func()) (ok bool, err error) {
	p, isPool := rc.q.(*sqldb.Pool)
	if !isPool || rs.Total < rc.q.Settings().TallyMin || rs.Total > tally.MaxRecords {
		return false, nil
	}
	select {
	case tally.Turn <- struct{}{}:
		defer func() { <-tally.Turn }()
	case <-ctx.Done():
		return false, ctx.Err()
	}
	lo, hi, found, err := rc.keyBounds(rs)
	if err != nil {
		return false, err
	}
	if !found {
		lo, hi = 1, 0 // (no keys)
	}
	mid := lo + (hi-lo)/2
	// (a shared reader's slices start at a block's start: tally.SliceSize is whole blocks, the
	// tally packs' and the search filters')
	all := tally.NewKeySlices(blockStart(rs.SK, blockOf(lo)), hi)
	ranges := [2]*tally.KeySlices{all, all}
	if !shared {
		ranges = [2]*tally.KeySlices{tally.NewKeySlices(lo, mid), tally.NewKeySlices(mid+1, hi)}
	}
	err = bothHalves(ctx, func(ctx context.Context, i int) error { return half(ctx, p, i, ranges[i]) })
	if errors.Is(err, tally.ErrOff) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	then()
	return true, nil
}

// keyBounds returns the sheet's least and greatest record keys (found false: no records).
func (rc *readCtx) keyBounds(rs *stored.Sheet) (lo, hi int64, found bool, err error) {
	from, to := stored.RIDRange(rs.SK)
	var l, h sql.NullInt64
	// (Two subqueries: SQLite finds a min or a max alone by one seek, both at once by a scan.)
	err = rc.q.QueryRowContext(rc.ctx, `SELECT (SELECT min(rid) FROM records WHERE rid BETWEEN ? AND ?), (SELECT max(rid) FROM records WHERE rid BETWEEN ? AND ?)`,
		from, to, from, to).Scan(&l, &h)
	if err != nil {
		return 0, 0, false, errs.Wrap(err, "read record keys")
	}
	return l.Int64, h.Int64, l.Valid, nil
}
