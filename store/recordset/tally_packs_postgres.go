package recordset

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// Tally packs (PostgreSQL, issue 17). A tally of a field with a value per record read every
// record's jsonb and took its value out: 230 ms of PostgreSQL's CPU for 1,000,000 e-mails,
// beside Sluice's 105 on the same two cores, so the first request of such a field's
// distinct values took 0.2-0.25 s. A write now also stores, for each block of 1,024 record
// keys (search_blooms_postgres.go's blocks) and each value position of a field whose values are not
// kept in a list (too many distinct ones: ids, e-mails, names), its records' values joined
// as the tally's query joins them (tally_packs.lines): the tally reads the packs of a
// slice's blocks, 45 ms of PostgreSQL's time for the whole million, and the records of only
// the blocks without one.
//
// A line is a string's text (a JSON string without an escape) or, after a byte 1, a
// number's or a boolean's JSON text as PostgreSQL writes it back (num: a text field's
// tally takes a number as its text, and reads such blocks' records); empty values have no
// line. A block whose records hold any other value at the position (an escape, a list, an
// object, a number PostgreSQL writes otherwise) has no row for it. A row holds every record
// of its block: the transaction of a write that changes a value at its position, deletes a
// record of the block or adds one it does not take deletes the row (the block's records are
// then read), so a tally's statement, of one snapshot, finds a row exactly when the row is
// right.

// packWork is what a write changes in its sheet's packs: rows that go, and the values of
// its new records by block, worked out beside the write's statements.
type packWork struct {
	stale  map[packKey]bool
	blocks []packBlock
	done   chan struct{}
}

// packKey is a pack's position and block; col packAll: every position of the block.
type packKey struct {
	col int
	blk int64
}

const packAll = -1

// packBlock is the values of a block's new records, first the first of them, by rule index.
type packBlock struct {
	blk, first int64
	rules      []packLines
}

// packLines is a block's lines for one position; off: a value no pack holds came.
type packLines struct {
	lines    []byte
	num, off bool
}

// add adds a stored value's line (none for an empty one).
func (p *packLines) add(v json.RawMessage) {
	if p.off || tally.IsEmptyJSON(v) {
		return
	}
	var text []byte
	num := false
	switch {
	case tally.PlainString(v):
		text = v[1 : len(v)-1]
	case string(v) == "true" || string(v) == "false" || pgWritesNumber(string(v)):
		text, num = v, true
	default:
		p.off, p.lines = true, nil
		return
	}
	if len(p.lines) > 0 {
		p.lines = append(p.lines, '\n')
	}
	if num {
		p.lines, p.num = append(p.lines, 1), true
	}
	p.lines = append(p.lines, text...)
}

// sameLine: a and b give the same line (both empty: none).
func sameLine(a, b json.RawMessage) bool {
	return bytes.Equal(a, b) || (tally.IsEmptyJSON(a) && tally.IsEmptyJSON(b))
}

func valueAt(row []json.RawMessage, i int) json.RawMessage {
	if i < len(row) {
		return row[i]
	}
	return nil
}

// planPacks sorts a write's changes out for its sheet's packs and starts working out its
// new records' lines (nil: a SQLite sheet) for the fields whose values are not kept in a
// list before the write (vd), or whose new values alone are too many to keep (an import's
// batch counted ahead: its first); another field whose list this write drops gets rows
// from the next write on. Like the search filters, a write of fewer than bloomMin new
// records leaves their blocks without rows.
func planPacks(rs *stored.Sheet, changes []*change, vd *valueDelta) *packWork {
	if rs.Dialect != sqldb.PostgresDialect || rs.SK == 0 {
		return nil
	}
	pw := &packWork{stale: map[packKey]bool{}, done: make(chan struct{})}
	var fresh []*stored.State
	for _, c := range changes {
		blk := blockOf(c.rid())
		switch {
		case c.kind == kInsert && rs.Fresh > 0 && c.new.RID >= rs.Fresh:
			fresh = append(fresh, c.new)
		case c.old == nil || c.new == nil: // a deletion, or an undo putting a record back
			pw.stale[packKey{packAll, blk}] = true
		default:
			for i, col := range rs.Layout.Cols {
				if col >= 0 && !sameLine(valueAt(c.old.Row, i), valueAt(c.new.Row, i)) {
					pw.stale[packKey{col, blk}] = true
				}
			}
		}
	}
	if len(fresh) < bloomMin {
		for _, st := range fresh {
			pw.stale[packKey{packAll, blockOf(st.RID)}] = true
		}
		close(pw.done)
		return pw
	}
	go func() {
		defer close(pw.done)
		sortByKey(fresh)
		var want []int // (rule indexes)
		for r, col := range rs.Layout.Cols {
			if col >= 0 && (vd == nil || vd.at[r] == nil || vd.counted(r) != 0 || (vd.over != nil && vd.over[r])) {
				want = append(want, r)
			}
		}
		for i := 0; i < len(fresh); {
			pb := packBlock{blk: blockOf(fresh[i].RID), first: fresh[i].RID, rules: make([]packLines, len(rs.Layout.Cols))}
			for r := range pb.rules {
				pb.rules[r].off = !slices.Contains(want, r)
			}
			for ; i < len(fresh) && blockOf(fresh[i].RID) == pb.blk; i++ {
				for _, r := range want {
					pb.rules[r].add(valueAt(fresh[i].Row, r))
				}
			}
			pw.blocks = append(pw.blocks, pb)
		}
	}()
	return pw
}

// wait returns once the new records' lines are worked out (at once for nil).
func (pw *packWork) wait() {
	if pw != nil {
		<-pw.done
	}
}

// writePacks writes a write's changes to its sheet's packs, once worked out, for the
// positions of fields whose values are not kept in a list after the write (kept, by rule
// index: those are never tallied while kept). Rows go first; a block its new records start
// gets a row for each such position; one they do not start has its rows added to, or a new
// row when it holds no record before them; every other position of such a block loses its
// row (the new records are not in it).
func (tx *Tx) writePacks(rs *stored.Sheet, pw *packWork, kept []bool) error {
	if pw == nil {
		return nil
	}
	pw.wait()
	type newRow struct {
		col   int
		blk   int64
		lines []byte
		num   bool
	}
	var fresh []newRow
	var adds []packBlock // blocks the new records do not start
	for _, pb := range pw.blocks {
		starts := pb.first == blockStart(rs.SK, pb.blk)
		for r, pl := range pb.rules {
			col := rs.Layout.Cols[r]
			if col < 0 {
				continue
			}
			switch wanted := !pl.off && (r >= len(kept) || !kept[r]) && !pw.stale[packKey{packAll, pb.blk}] && !pw.stale[packKey{col, pb.blk}]; {
			case wanted && starts:
				fresh = append(fresh, newRow{col, pb.blk, pl.lines, pl.num})
			case !starts && !wanted:
				pw.stale[packKey{col, pb.blk}] = true
			}
		}
		if !starts {
			adds = append(adds, pb)
		}
	}
	if err := tx.dropPacks(rs.SK, pw.stale); err != nil {
		return err
	}
	if err := tx.repackDropped(rs, pw, kept); err != nil {
		return err
	}
	for _, pb := range adds {
		var more []newRow // (the block's rows to add to)
		for r, pl := range pb.rules {
			if col := rs.Layout.Cols[r]; col >= 0 && !pw.stale[packKey{col, pb.blk}] && !pw.stale[packKey{packAll, pb.blk}] {
				more = append(more, newRow{col, pb.blk, pl.lines, pl.num})
			}
		}
		if len(more) == 0 {
			continue
		}
		vals, args := make([]string, len(more)), make([]any, 0, 3*len(more)+2)
		for i, m := range more {
			vals[i] = `(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT))`
			args = append(args, m.col, sqldb.NonNil(m.lines), sqldb.BoolInt(m.num))
		}
		added := map[int]bool{}
		err := sqldb.EachRow(tx.Context(), tx, "update tally packs", `UPDATE tally_packs t SET lines = t.lines || E'\n' || v.column2, num = t.num | v.column3
			FROM (VALUES `+strings.Join(vals, ", ")+`) v WHERE t.sk = ? AND t.blk = ? AND t.col = v.column1 RETURNING t.col`,
			append(args, rs.SK, pb.blk), func(rows *sql.Rows) error {
				var col int
				if err := rows.Scan(&col); err != nil {
					return errs.Wrap(err, "scan tally pack")
				}
				added[col] = true
				return nil
			})
		if err != nil {
			return err
		}
		if len(added) == len(more) {
			continue
		}
		var before bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM records WHERE rid BETWEEN ? AND ?)`, blockStart(rs.SK, pb.blk), pb.first-1).Scan(&before); err != nil {
			return errs.Wrap(err, "update tally packs")
		}
		if before {
			continue // (records before the new ones, in no row of this position)
		}
		for _, m := range more {
			if !added[m.col] {
				fresh = append(fresh, m)
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	err := tx.CopyFrom(tx.Context(), "tally_packs", []string{"sk", "col", "blk", "lines", "num"}, len(fresh), func(i int, row []any) {
		f := fresh[i]
		row[0], row[1], row[2], row[3], row[4] = rs.SK, int64(f.col), f.blk, sqldb.NonNil(f.lines), int64(sqldb.BoolInt(f.num))
	})
	if err != nil {
		return errs.Wrap(err, "write tally packs")
	}
	return nil
}

// repackMin is the fewest blocks a write must take a position's rows from for the write to
// pack them again from the records (repack): a few edited blocks are read by tallies (0.4 ms
// a block), a bulk edit's would leave the next tally as slow as without packs (a bulk
// edit's batch of 10,000 records spans about ten blocks).
var repackMin = 4

// repackDropped packs again, from the records as the write leaves them, the blocks whose
// rows of a position the write dropped (edits, deletions), where it dropped repackMin or
// more of that position's.
func (tx *Tx) repackDropped(rs *stored.Sheet, pw *packWork, kept []bool) error {
	byCol := map[int][]int64{}
	for k := range pw.stale {
		for r, col := range rs.Layout.Cols {
			if col >= 0 && (k.col == col || k.col == packAll) && (r >= len(kept) || !kept[r]) && !rs.Schema.Rules[r].List {
				byCol[col] = append(byCol[col], k.blk)
			}
		}
	}
	for col, blks := range byCol {
		if len(blks) < repackMin {
			continue
		}
		slices.Sort(blks)
		if _, err := tx.repack(rs.SK, col, slices.Compact(blks)); err != nil {
			return err
		}
	}
	return nil
}

// repack writes the packs of position col of blocks blks of sheet sk from their records,
// which the transaction must keep from changing (a write's, or one holding the write lock),
// as PostgreSQL writes their values: a string without an escape as its text, a number or a
// boolean as its JSON text after a byte 1, no line for an empty value; a block with any other
// value gets no row. A block with a row already keeps it. It returns how many rows it wrote.
func (tx *Tx) repack(sk int64, col int, blks []int64) (int64, error) {
	c := strconv.Itoa(col)
	res, err := tx.Exec(`INSERT INTO tally_packs (sk, col, blk, lines, num)
		SELECT ?, ?, g.b, COALESCE(x.lines, ''), x.num FROM unnest(CAST(? AS BIGINT[])) g(b),
		LATERAL (SELECT string_agg(CASE WHEN e.t = 'string' THEN r.vals ->> `+c+` WHEN e.t IN ('number', 'boolean') THEN E'\x01' || CAST(e.v AS TEXT) END, E'\n') AS lines,
				COALESCE(max(CASE WHEN e.t IN ('number', 'boolean') THEN 1 ELSE 0 END), 0) AS num,
				bool_and(e.t IS NULL OR e.t IN ('null', 'number', 'boolean') OR (e.t = 'string' AND strpos(CAST(e.v AS TEXT), '\') = 0) OR e.v = '[]'::jsonb) AS ok
			FROM records r, LATERAL (SELECT r.vals -> `+c+` AS v, jsonb_typeof(r.vals -> `+c+`) AS t) e
			WHERE `+inBlock(sk).SQL+`) x
		WHERE x.ok IS NOT FALSE
		ON CONFLICT (sk, col, blk) DO NOTHING`,
		append([]any{sk, col, pgInt8Array(blks)}, inBlock(sk).Args...)...)
	if err != nil {
		return 0, errs.Wrap(err, "pack values")
	}
	n, err := res.RowsAffected()
	return n, err
}

// inBlock is the condition that a record r lies in block g.b of sheet sk (g(b): the block
// numbers a statement goes through).
func inBlock(sk int64) ffql.Frag {
	base, size := blockStart(sk, 0), int64(1)<<bloomShift
	return ffql.Frag{SQL: `r.rid BETWEEN CAST(? AS BIGINT) + g.b * CAST(? AS BIGINT) AND CAST(? AS BIGINT) + g.b * CAST(? AS BIGINT) + CAST(? AS BIGINT)`,
		Args: []any{base, size, base, size, size - 1}}
}

// pgInt8Array is PostgreSQL's text of an array of integers.
func pgInt8Array(v []int64) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// dropPacks deletes the rows of keys (col packAll: every position of the block).
func (tx *Tx) dropPacks(sk int64, keys map[packKey]bool) error {
	if len(keys) == 0 {
		return nil
	}
	var whole, some []string
	for k := range keys {
		if k.col == packAll {
			whole = append(whole, strconv.FormatInt(k.blk, 10))
		} else if !keys[packKey{packAll, k.blk}] {
			some = append(some, "("+strconv.Itoa(k.col)+", "+strconv.FormatInt(k.blk, 10)+")")
		}
	}
	var or []string
	if len(whole) > 0 {
		or = append(or, `blk IN (`+strings.Join(whole, ",")+`)`)
	}
	if len(some) > 0 {
		or = append(or, `(col, blk) IN (`+strings.Join(some, ",")+`)`)
	}
	if err := tx.Later("update tally packs", `DELETE FROM tally_packs WHERE sk = ? AND (`+strings.Join(or, " OR ")+`)`, sk); err != nil {
		return err
	}
	return nil
}

// hasPacks reports whether position col of sheet sk has a pack: a sheet without (written
// before them, or whose blocks hold values no pack takes) is read by tally.Query's
// statement, a range of keys at a time rather than a block (10-15% faster). A pack
// written or dropped after this answer is read or not by either statement as it should.
func (rc *readCtx) hasPacks(sk int64, col int) (bool, error) {
	var ok bool
	err := rc.q.QueryRowContext(rc.ctx, `SELECT EXISTS (SELECT 1 FROM tally_packs WHERE sk = ? AND col = ?)`, sk, col).Scan(&ok)
	if err != nil {
		return false, errs.Wrap(err, "read tally packs")
	}
	return ok, nil
}

// packedTallyQuery is tally.Query's on PostgreSQL for a tally of every record of sheet sk:
// the lines of the packs of the slice's blocks (those wholly in it), and the values of the
// records of its other blocks (a block a query: none to read once every block has a pack),
// in one column; the invalid records' values in the second, as tally.Query reads them.
func packedTallyQuery(sk int64, col int, text bool) func(s tally.KeySlice) ffql.Frag {
	values := tally.ValuesSQL(col, text)
	num := ""
	if text {
		num = ` AND num = 0`
	}
	base, size := blockStart(sk, 0), int64(1)<<bloomShift
	return func(s tally.KeySlice) ffql.Frag {
		b0, b1 := blockOf(s.From), blockOf(s.To)
		p0, p1 := b0, b1 // (the blocks wholly in the slice)
		if blockStart(sk, b0) < s.From {
			p0++
		}
		if blockStart(sk, b1+1)-1 > s.To {
			p1--
		}
		invalid := tally.InvalidValues(values, s)
		args := []any{b0, b1, s.From, base, size, s.To, base, size, size - 1}
		args = append(append(args, invalid.Args...), sk, col, p0, p1)
		return ffql.Frag{
			SQL: `SELECT concat_ws(E'\n', p.lines, (SELECT string_agg(x.v, E'\n') FROM generate_series(CAST(? AS BIGINT), CAST(? AS BIGINT)) g(b),
				LATERAL (SELECT ` + values + ` AS v FROM records r WHERE r.rid BETWEEN greatest(CAST(? AS BIGINT), CAST(? AS BIGINT) + g.b * CAST(? AS BIGINT))
					AND least(CAST(? AS BIGINT), CAST(? AS BIGINT) + g.b * CAST(? AS BIGINT) + CAST(? AS BIGINT))) x
				WHERE g.b <> ALL (p.blks))),
				` + invalid.SQL + `
				FROM (SELECT string_agg(lines, E'\n') AS lines, COALESCE(array_agg(blk), '{}') AS blks FROM tally_packs
					WHERE sk = ? AND col = ? AND blk BETWEEN ? AND ?` + num + `) p`,
			Args: args,
		}
	}
}

// FillTallyPacks packs, on PostgreSQL, the blocks without a pack of every sheet of
// sqldb.Settings.TallyMin records or more, for the positions of fields whose values are not kept in a list (nor
// lists themselves): sheets imported before migration 043, and blocks whose rows edits of
// a few records dropped. It works a slice of 48 blocks a transaction under the write lock
// (so no write changes a block between its reading and its row), each once nothing has read
// or written records for a moment, as FillRecordKinds does; it returns how many blocks it
// packed. A block holding a value no pack takes is read again by every call.
func (db *DB) FillTallyPacks(ctx context.Context) (int64, error) {
	if !db.Postgres() {
		return 0, nil
	}
	type sheet struct{ account, id string }
	var sheets []sheet
	err := sqldb.EachRow(ctx, db.Reader, "list sheets to pack", `SELECT w.account_id, sh.id FROM record_sheets rs JOIN sheets sh ON sh.id = rs.sheet_id
		JOIN workbooks w ON w.id = sh.workbook_id WHERE rs.total >= ? AND sh.deleted_at IS NULL AND w.deleted_at IS NULL ORDER BY rs.sk`, []any{db.Settings().TallyMin},
		func(rows *sql.Rows) error {
			var s sheet
			if err := rows.Scan(&s.account, &s.id); err != nil {
				return errs.Wrap(err, "scan sheet to pack")
			}
			sheets = append(sheets, s)
			return nil
		})
	if err != nil {
		return 0, err
	}
	var packed int64
	for _, s := range sheets {
		n, err := db.fillSheetPacks(ctx, s.account, s.id)
		if packed += n; err != nil && errs.CodeOf(err) != errs.NotFound {
			return packed, err
		}
	}
	return packed, nil
}

// packSlice is how many blocks one transaction of FillTallyPacks looks at.
const packSlice = 48

// fillSheetPacks is FillTallyPacks for one sheet.
func (db *DB) fillSheetPacks(ctx context.Context, accountID, sheetID string) (int64, error) {
	rs, err := stored.Load(ctx, db.Reader, accountID, sheetID)
	if err != nil || rs.SK == 0 {
		return 0, err
	}
	kept, _, err := keptFields(ctx, db.Reader, rs)
	if err != nil {
		return 0, err
	}
	lo, hi, found, err := (&readCtx{ctx: ctx, q: db.Reader, db: db}).keyBounds(rs)
	if err != nil || !found {
		return 0, err
	}
	var packed int64
	for r, col := range rs.Layout.Cols {
		if col < 0 || kept[r] || rs.Schema.Rules[r].List {
			continue
		}
		for b := blockOf(lo); b <= blockOf(hi); b += packSlice {
			if err := db.writes.Wait(ctx, stored.WritesQuiet, time.Minute); err != nil {
				return packed, err
			}
			if err := db.reads.Wait(ctx, stored.ReadsQuiet, stored.ReadsWaitMax); err != nil {
				return packed, err
			}
			err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
				var blks []int64
				err := sqldb.EachRow(ctx, tx, "find blocks to pack", `SELECT g.b FROM generate_series(CAST(? AS BIGINT), CAST(? AS BIGINT)) g(b)
					WHERE NOT EXISTS (SELECT 1 FROM tally_packs WHERE sk = ? AND col = ? AND blk = g.b)
					AND EXISTS (SELECT 1 FROM records r WHERE `+inBlock(rs.SK).SQL+`)`,
					append([]any{b, b + packSlice - 1, rs.SK, col}, inBlock(rs.SK).Args...),
					func(rows *sql.Rows) error {
						var blk int64
						if err := rows.Scan(&blk); err != nil {
							return errs.Wrap(err, "scan block to pack")
						}
						blks = append(blks, blk)
						return nil
					})
				if err != nil || len(blks) == 0 {
					return err
				}
				n, err := tx.repack(rs.SK, col, blks)
				packed += n
				return err
			})
			if err != nil {
				return packed, err
			}
		}
	}
	return packed, nil
}
