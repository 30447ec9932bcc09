package recordset

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/sqldb"
)

// Distinct values counted in Go. SQLite groups by sorting: the first page of a
// field with a value per record took 0.76 s at 1,000,000 records (0.28 s taking the values
// out of the stored arrays with ->, the rest sorting a million strings); PostgreSQL took 1.3-1.5
// s (grouping, and ordering a million groups by value). On a big sheet the values are
// tallied here instead: the two halves of the sheet's keys are read at once, each a slice of
// keys per query as one row of the slice's values joined (tallyQuery: 50,000 records a row
// rather than a row each, which through the driver cost more than the database's read of
// it); each half hashes its values (maphash) and sorts the hashes (radix); the two sorted
// halves are walked together, counting equal values (values of equal hash compared byte for
// byte, so a collision costs time, never a wrong count). A page of the most frequent is then
// chosen by a bounded selection (topCells) rather than by sorting every value, comparing a
// prefix of each value's order taken while it was read (the values, read again in hash order
// from all over memory, cost more than the rest of the tally). 1,000,000 values of a field
// with a value per record: 0.17-0.2 s on SQLite, 0.10-0.13 s on PostgreSQL (tally packs). A
// tally holds 24 bytes a record and its values (60 MB a million e-mails): tallies take turns,
// and a sheet of more than tallyRecords records is counted by the database's GROUP BY, which
// spills to disk.

const (
	// tallyValid marks a tallied value's record as valid (in tallyEnt.n, above the length).
	tallyValid = 1 << 31
	// tallyInvalid marks the value of an invalid record read again (PostgreSQL), after it
	// was counted as valid: it takes one off the value's valid count.
	tallyInvalid = 1 << 30
	// tallyMax is the most bytes of values one half holds (more: counted by SQLite).
	tallyMax = 128 << 20
	// tallyRecords is the biggest sheet tallied.
	tallyRecords = 3000000
)

// TallyMin is the size of sheet whose values are tallied rather than grouped by the
// database (a variable for tests).
var TallyMin int64 = 100000

// errTallyOff: the tally cannot count these values; the database's GROUP BY does.
var errTallyOff = errors.New("values not tallied")

// tallyTurn lets one tally run at a time in the process (each holds up to a few hundred MB).
var tallyTurn = make(chan struct{}, 1)

// tallyEnt is one record's value: its hash, its order prefix, and where it sits in the
// half's arena.
type tallyEnt struct {
	h, pre uint64
	off    uint32
	n      uint32 // length | tallyValid
}

// tally is one half's values in hash order.
type tally struct {
	ents  []tallyEnt
	arena []byte
}

func (t *tally) value(e tallyEnt) []byte {
	end := e.off + e.n&^(tallyValid|tallyInvalid)
	return t.arena[e.off:end:end]
}

// tallyOrder is the order of tallied values: the most frequent first, ties in value order,
// or byValue (desc: the other way); the first top of them only, when top > 0, but all of
// them while there are no more than whole.
type tallyOrder struct {
	byValue, desc bool
	top, whole    int
	valid         bool // the valid records' counts only (tallyScope)
}

// tallyScope is what a tally of the records q selects (where) reads: where itself; or, for
// the whole sheet or its valid records on PostgreSQL, every record (every: the tally packs
// answer, tally_packs_postgres.go), of which only the valid records' counts are kept for the valid
// ones (valid).
type tallyScope struct {
	where        ffql.Frag
	every, valid bool
}

func (rc *readCtx) tallyScope(rs *recSheet, q RecordQuery, where ffql.Frag) (tallyScope, error) {
	if !q.plain() {
		return tallyScope{where: where}, nil
	}
	switch {
	case q.Filter == "" || q.Filter == "all":
		return tallyScope{where: where, every: true}, nil
	case q.Filter == "valid" && rs.d.KeepsTallyPacks(): // (all records' packs, less the invalid ones)
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
func (rc *readCtx) tallied(rs *recSheet, col int, sc tallyScope, o tallyOrder) (vals []CellCount, cut, ok bool, err error) {
	o.valid = sc.valid
	seed := maphash.MakeSeed()
	var halves [2]*tally
	// (a field of one text value a cell: a number or a boolean elsewhere in a record does not
	// keep its value's text from the tally; an escape, a list or an object does: tallyQuery)
	field, in := rs.layout.byCol[col]
	text := in && textOnly(rs.Schema.Rules[field]) && !rs.Schema.Rules[field].List
	query := tallyQuery(rc.q.Dialect(), col, text)
	if sc.every && rc.q.Dialect().KeepsTallyPacks() && rs.total >= TallyMin {
		packed, err := rc.hasPacks(rs.sk, col)
		if err != nil {
			return nil, false, false, err
		}
		if packed {
			query = packedTallyQuery(rs.sk, col, text)
		}
	}
	ok, err = rc.inHalves(rc.ctx, rs, true, func(ctx context.Context, p *sqldb.Pool, i int, keys *keySlices) error {
		var err error
		halves[i], err = tallyHalf(ctx, p, query, sc.where, col, keys, seed)
		return err
	}, func() { vals, cut = mergeInHalves(halves[0], halves[1], o) })
	return vals, cut, ok, err
}

// mergeInHalves merges two tallies (mergeTallies) into the values of order o, the lower and
// the upper half of the hashes at once, and puts the two selections together.
func mergeInHalves(a, b *tally, o tallyOrder) (vals []CellCount, cut bool) {
	mid := uint64(1) << (tallyRadix - 1)
	ia := sort.Search(len(a.ents), func(i int) bool { return a.ents[i].sortKey() >= mid })
	ib := sort.Search(len(b.ents), func(i int) bool { return b.ents[i].sortKey() >= mid })
	sel, upper := &topCells{o: o}, &topCells{o: o}
	done := make(chan struct{})
	go func() {
		defer close(done)
		mergeTallies(&tally{ents: a.ents[ia:], arena: a.arena}, &tally{ents: b.ents[ib:], arena: b.arena}, upper.add)
	}()
	mergeTallies(&tally{ents: a.ents[:ia], arena: a.arena}, &tally{ents: b.ents[:ib], arena: b.arena}, sel.add)
	<-done
	if upper.cut {
		sel.keepTop() // (the upper half's own values were more than o.whole)
	}
	for _, c := range upper.cells {
		sel.add(c)
	}
	return sel.sorted(), sel.cut
}

// inHalves runs half for the two halves of the sheet's keys at once, then (once both have
// read theirs) then, on a sheet of TallyMin to tallyRecords records read outside a
// transaction, one tally at a time (tallyTurn); a sheet without records has two empty
// halves. shared: the two take the sheet's slices of keys in turns, whichever asks first (a
// tally, which counts values wherever they come from: neither waits for the other when
// deleted records or invalid ones make one half of the keys the longer read), rather than a
// half each (a sort, whose halves are in key order). ok false: not such a sheet, or a half
// gave up (errTallyOff): the caller asks the database instead.
func (rc *readCtx) inHalves(ctx context.Context, rs *recSheet, shared bool, half func(ctx context.Context, p *sqldb.Pool, i int, keys *keySlices) error, then func()) (ok bool, err error) {
	p, isPool := rc.q.(*sqldb.Pool)
	if !isPool || rs.total < TallyMin || rs.total > tallyRecords {
		return false, nil
	}
	select {
	case tallyTurn <- struct{}{}:
		defer func() { <-tallyTurn }()
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
	// (a shared reader's slices start at a block's start: tallySlice is whole blocks, the
	// tally packs' and the search filters')
	all := newKeySlices(blockStart(rs.sk, blockOf(lo)), hi)
	ranges := [2]*keySlices{all, all}
	if !shared {
		ranges = [2]*keySlices{newKeySlices(lo, mid), newKeySlices(mid+1, hi)}
	}
	err = bothHalves(ctx, func(ctx context.Context, i int) error { return half(ctx, p, i, ranges[i]) })
	if errors.Is(err, errTallyOff) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	then()
	return true, nil
}

// keySlices hands out the slices of tallySlice keys from lo to hi in key order, to one
// reader or, shared, to whichever of two asks first.
type keySlices struct {
	lo, hi int64
	next   atomic.Int64
}

func newKeySlices(lo, hi int64) *keySlices {
	k := &keySlices{lo: lo, hi: hi}
	k.next.Store(lo)
	return k
}

// keySlice is the records where selects among the keys from to to (where: within).
type keySlice struct {
	where    ffql.Frag
	from, to int64
}

// of is the slices still to read of the records where selects.
func (k *keySlices) of(where ffql.Frag) iter.Seq[keySlice] {
	return func(yield func(keySlice) bool) {
		for {
			from := k.next.Add(tallySlice) - tallySlice
			to := min(k.hi, from+tallySlice-1)
			if from > k.hi || !yield(keySlice{within(where, [2]int64{from, to}), from, to}) {
				return
			}
		}
	}
}

// eachSlice runs query over the records where selects among keys (query(slice): the
// statement for the records a slice selects), a slice of tallySlice keys per query, handing
// fn each slice's row's columns.
func eachSlice(ctx context.Context, p *sqldb.Pool, what string, query func(s keySlice) ffql.Frag, where ffql.Frag, keys *keySlices, fn func(cols [][]byte) error) error {
	ranges := keys.of(where)
	if p.Dialect().JSONB() {
		return eachSliceRaw(ctx, p, what, query, ranges, fn)
	}
	for slice := range ranges {
		q := query(slice)
		err := sqldb.EachRow(ctx, p, what, q.SQL, q.Args, func(rows *sql.Rows) error {
			var a, b sql.RawBytes
			if err := rows.Scan(&a, &b); err != nil {
				return errs.Wrap(err, "scan values")
			}
			return fn([][]byte{a, b})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// beforeWhere is query(slice) of a statement that ends with its where.
func beforeWhere(query string) func(s keySlice) ffql.Frag {
	return func(s keySlice) ffql.Frag { return ffql.Frag{SQL: query + s.where.SQL, Args: s.where.Args} }
}

// eachSliceRaw is eachSlice on PostgreSQL, on one connection through pgx itself: fn gets
// each slice's row as it came over the wire, where database/sql would copy it into a string
// and the string into bytes (1.5 MB a slice of e-mails). (Sending the next slice's query
// while fn counts a row made no difference, measured twice: the cores are busy either way.)
func eachSliceRaw(ctx context.Context, p *sqldb.Pool, what string, query func(s keySlice) ffql.Frag, ranges iter.Seq[keySlice], fn func(cols [][]byte) error) error {
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return errs.Wrap(err, "%s", what)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%s: unexpected driver connection %T", what, dc)
		}
		for slice := range ranges {
			q := query(slice)
			rows, err := c.Conn().Query(ctx, p.Dialect().Rebind(q.SQL), p.Dialect().Args(q.Args)...)
			if err != nil {
				return errs.Wrap(err, "%s", what)
			}
			for rows.Next() {
				if err := fn(rows.RawValues()); err != nil {
					rows.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return errs.Wrap(err, "%s", what)
			}
		}
		return nil
	})
}

// keyBounds returns the sheet's least and greatest record keys (found false: no records).
func (rc *readCtx) keyBounds(rs *recSheet) (lo, hi int64, found bool, err error) {
	from, to := ridRange(rs.sk)
	var l, h sql.NullInt64
	// (Two subqueries: SQLite finds a min or a max alone by one seek, both at once by a scan.)
	err = rc.q.QueryRowContext(rc.ctx, `SELECT (SELECT min(rid) FROM records WHERE rid BETWEEN ? AND ?), (SELECT max(rid) FROM records WHERE rid BETWEEN ? AND ?)`,
		from, to, from, to).Scan(&l, &h)
	if err != nil {
		return 0, 0, false, errs.Wrap(err, "read record keys")
	}
	return l.Int64, h.Int64, l.Valid, nil
}

// tallyHalf reads the values at position col of the records where selects among the keys it
// takes, a slice of keys per query (query: tallyQuery's or packedTallyQuery's), and returns
// them in hash order.
func tallyHalf(ctx context.Context, p *sqldb.Pool, query func(s keySlice) ffql.Frag, where ffql.Frag, col int, keys *keySlices, seed maphash.Seed) (*tally, error) {
	t := &tally{}
	read := 0
	err := eachSlice(ctx, p, "count values", query, where, keys, func(cols [][]byte) error {
		if read++; read == 2 {
			// Room for the rest, as many values and bytes a slice as the first had, for half
			// of the sheet's slices (growing by doubling copied each value three times over).
			grow := float64(keys.hi-keys.lo+1) / float64(tallySlice) / 2 * 1.05
			t.ents = slices.Grow(t.ents, int(float64(len(t.ents))*grow))
			t.arena = slices.Grow(t.arena, min(int(float64(len(t.arena))*grow), tallyMax))
		}
		if !p.Dialect().JSONB() {
			return t.addStored(cols[0], cols[1], col, seed)
		}
		if len(cols) != 2 {
			return errTallyOff
		}
		if err := t.addLines(cols[0], tallyValid, seed); err != nil {
			return err
		}
		return t.addLines(cols[1], tallyInvalid, seed)
	})
	if err != nil {
		return nil, err
	}
	t.ents = radixSort(t.ents)
	return t, nil
}

// tallyQuery is the query of a slice's values. SQLite joins the stored arrays, a line each,
// the value taken out of each in Go (-> parses each array, which cost more than the rest of
// the tally), and gives each record's validity as a digit in a second column: both
// aggregates see the rows in the same order. PostgreSQL takes out the value itself (it finds
// a jsonb element without parsing) and joins a line for each record (one aggregate: those
// of a query may put together the parts of parallel workers), in two columns: every
// record's value, counted as a valid record's, and again each invalid record's, taken off
// its valid count (through the index of records with errors, in a subquery of the same
// statement, so of the same snapshot: a record written meanwhile is read as it was in both;
// before, the invalid records were read once a half after all its slices). A value is its
// text (->>), which the tally quotes, for a record without the kinds notText
// (records.kinds: kindsNotText, its values all plain text or empty; kindEscape and kindList
// for a text field, whose values are text unless invalid), or else its JSON text after a
// byte 1. A plain text holds no quote, backslash or control character (each would be an
// escape), JSON text no line break. jsonb's writing of JSON text was a quarter of the query
// (28 ms instead of 21 per 50,000 records), a validity digit before each line 15%.
func tallyQuery(d sqldb.Dialect, col int, text bool) func(s keySlice) ffql.Frag {
	if !d.JSONB() {
		return beforeWhere(`SELECT CAST(group_concat(r.vals, char(10)) AS BLOB), CAST(group_concat(r.valid <> 0, '') AS BLOB) FROM records r WHERE `)
	}
	values := tallyValues(col, text)
	return func(s keySlice) ffql.Frag {
		invalid := invalidValues(values, s)
		return ffql.Frag{
			SQL:  `SELECT ` + values + `, ` + invalid.SQL + ` FROM records r WHERE ` + s.where.SQL,
			Args: append(slices.Clip(invalid.Args), s.where.Args...),
		}
	}
}

// invalidValues is the subquery of the invalid records' values among a slice's (values:
// tallyValues'), through the index of records with errors.
func invalidValues(values string, s keySlice) ffql.Frag {
	return ffql.Frag{SQL: `(SELECT ` + values + ` FROM records r WHERE (` + s.where.SQL + `) AND r.valid = 0)`, Args: s.where.Args}
}

// tallyValues is PostgreSQL's aggregate of the lines of the values at position col of the
// records r (tallyQuery).
func tallyValues(col int, text bool) string {
	c := strconv.Itoa(col)
	notText := int64(kindsNotText)
	if text {
		notText = kindEscape | kindList
	}
	return `string_agg(CASE WHEN (r.kinds & ` + strconv.FormatInt(notText, 10) + `) = 0 THEN COALESCE(r.vals ->> ` + c + `, '')
		ELSE E'\x01' || COALESCE(CAST(r.vals -> ` + c + ` AS TEXT), 'null') END, E'\n')`
}

// addLines tallies a column of lines of tallyQuery's on PostgreSQL, each a value's plain text
// or, after a byte 1, its JSON text, with flag (tallyValid, or tallyInvalid).
func (t *tally) addLines(lines []byte, flag uint32, seed maphash.Seed) error {
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte{'\n'})
		var err error
		switch {
		case len(line) == 0:
			// empty
		case line[0] == 1:
			err = t.put(line[1:], false, flag, seed)
		default:
			err = t.put(line, true, flag, seed)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// addStored tallies a slice of SQLite's (tallyQuery's): lines each a stored array whose
// element col is the value, valid holding a digit per line.
func (t *tally) addStored(lines, valid []byte, col int, seed maphash.Seed) error {
	for n := 0; len(lines) > 0; n++ {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte{'\n'})
		v, ok := elementAt(line, col)
		if !ok || n >= len(valid) || (len(lines) == 0 && n != len(valid)-1) {
			return errTallyOff // not values as Sluice stores them: left to SQL
		}
		flag := uint32(0)
		if valid[n] == '1' {
			flag = tallyValid
		}
		if err := t.put(v, false, flag, seed); err != nil {
			return err
		}
	}
	return nil
}

// put tallies a value: JSON text, or (quote) a string's plain text; an empty JSON value
// (isEmptyJSON) is left out. flag: tallyValid, tallyInvalid or neither.
func (t *tally) put(v []byte, quote bool, flag uint32, seed maphash.Seed) error {
	if !quote && isEmptyJSON(v) {
		return nil
	}
	if len(t.arena)+len(v)+2 > tallyMax {
		return errTallyOff
	}
	off := len(t.arena)
	if quote {
		t.arena = append(append(append(t.arena, '"'), v...), '"')
	} else {
		t.arena = append(t.arena, v...)
	}
	v = t.arena[off:]
	t.ents = append(t.ents, tallyEnt{h: maphash.Bytes(seed, v), pre: orderPrefix(v), off: uint32(off), n: uint32(len(v)) | flag})
	return nil
}

// isEmptyJSON: an empty cell (null, "" or []), which distinct values leave out.
func isEmptyJSON(v []byte) bool {
	s := string(v)
	return len(v) == 0 || s == "null" || s == `""` || s == "[]"
}

// elementAt returns the element at position p of a stored array (nil when the array is
// shorter: the value is empty); ok false when b is not a JSON array.
func elementAt(b []byte, p int) (v []byte, ok bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	i := skipSpace(b, 1)
	if i == len(b)-1 {
		return nil, true
	}
	for k := 0; ; k++ {
		end := skipValue(b, i)
		if end < 0 || end >= len(b) {
			return nil, false
		}
		if k == p {
			return b[i:end], true
		}
		if b[end] != ',' {
			return nil, end == len(b)-1
		}
		i = skipSpace(b, end+1)
	}
}

// tallyRadix is the bits of the hash tally entries are sorted on, in passes of tallyDigit
// bits: values whose hashes agree on these are counted together, their bytes compared.
const (
	tallyRadix = 33
	tallyDigit = 11
)

// sortKey is the part of an entry's hash that orders it.
func (e tallyEnt) sortKey() uint64 { return e.h >> (64 - tallyRadix) }

// radixSort orders entries by sortKey, a digit a pass (a digit's counts fit the
// processor's first cache: 3 passes of 11 bits took half the time of 4 of 16).
func radixSort(a []tallyEnt) []tallyEnt {
	if len(a) < 2 {
		return a
	}
	tmp := make([]tallyEnt, len(a))
	var counts [1 << tallyDigit]int
	for shift := 0; shift < tallyRadix; shift += tallyDigit {
		clear(counts[:])
		for _, e := range a {
			counts[e.sortKey()>>shift&(1<<tallyDigit-1)]++
		}
		at := 0
		for d, c := range counts {
			counts[d] = at
			at += c
		}
		for _, e := range a {
			d := e.sortKey() >> shift & (1<<tallyDigit - 1)
			tmp[counts[d]] = e
			counts[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// mergeTallies walks two tallies in hash order and calls fn once for each distinct value
// with how many records, and valid records, hold it.
func mergeTallies(a, b *tally, fn func(v heldCell)) {
	var first heldCell
	var odd []heldCell // values whose hash another value has too (rare)
	count := func(t *tally, e tallyEnt) {
		v, total, ok := t.value(e), int64(1), int64(e.n>>31)
		if e.n&tallyInvalid != 0 {
			total, ok = 0, -1 // (an invalid record's value, counted as valid before)
		}
		// (A value's bytes are read only to tell it from another of its hash: reading each
		// value, in hash order, from all over the arena would take longer than the tally.)
		if first.c.Value == nil || bytes.Equal(v, first.c.Value) {
			first.c.Value, first.pre, first.c.Total, first.c.Valid = v, e.pre, first.c.Total+total, first.c.Valid+ok
			return
		}
		for k := range odd {
			if bytes.Equal(odd[k].c.Value, v) {
				odd[k].c.Total, odd[k].c.Valid = odd[k].c.Total+total, odd[k].c.Valid+ok
				return
			}
		}
		odd = append(odd, heldCell{c: CellCount{Value: v, Total: total, Valid: ok}, pre: e.pre})
	}
	emit := func(c heldCell) {
		// (A value's valid count is kept within its total as a guard.)
		if c.c.Total > 0 {
			c.c.Valid = max(0, min(c.c.Valid, c.c.Total))
			fn(c)
		}
	}
	for i, j := 0, 0; i < len(a.ents) || j < len(b.ents); {
		h := uint64(0)
		if j == len(b.ents) || (i < len(a.ents) && a.ents[i].sortKey() <= b.ents[j].sortKey()) {
			h = a.ents[i].sortKey()
		} else {
			h = b.ents[j].sortKey()
		}
		first, odd = heldCell{}, odd[:0]
		for ; i < len(a.ents) && a.ents[i].sortKey() == h; i++ {
			count(a, a.ents[i])
		}
		for ; j < len(b.ents) && b.ents[j].sortKey() == h; j++ {
			count(b, b.ents[j])
		}
		emit(first)
		for _, c := range odd {
			emit(c)
		}
	}
}

// topCells keeps the first o.top values it is given in order o, or all of them. Values
// gather in a buffer of up to twice o.top; a full buffer keeps its first o.top
// (selectFirst), the last of which bounds the values taken after. A bounded heap had cost
// more than the rest of a tally for a deep page (page 500 of 1,000,000 e-mails in value
// order: a heap of 50,000, re-ordered for each of 150,000 values that came before its top).
type topCells struct {
	o     tallyOrder
	cells []heldCell
	bound *heldCell // once cut to o.top: the last of them, which later values must come before
	cut   bool      // more than o.whole values came: only the first o.top are kept
}

func (s *topCells) add(c heldCell) {
	if s.o.valid {
		if c.c.Total = c.c.Valid; c.c.Total == 0 {
			return
		}
	}
	c.c.Error = c.c.Total - c.c.Valid
	if s.bound != nil && !s.o.before(c, *s.bound) {
		return
	}
	s.cells = append(s.cells, c)
	switch {
	case s.o.top == 0:
	case s.o.whole > 0 && !s.cut:
		if len(s.cells) > s.o.whole { // all of them, until there are more than whole
			s.keepTop()
		}
	case len(s.cells) >= 2*s.o.top:
		s.trim()
	}
}

// keepTop keeps only the first o.top values from now on (o.top > 0), as after more than
// o.whole came.
func (s *topCells) keepTop() {
	if s.cut || s.o.top == 0 {
		return
	}
	s.cut = true
	s.trim()
}

// trim keeps the first o.top values and, when there are as many, bounds later values by
// the last of them.
func (s *topCells) trim() {
	if len(s.cells) < s.o.top {
		return
	}
	selectFirst(s.cells, s.o.top, s.o.before)
	s.cells = s.cells[:s.o.top]
	last := s.cells[s.o.top-1]
	s.bound = &last
}

// selectFirst reorders a so that its first k values (k ≤ len(a)) are the first k in order
// less, a[k-1] the last of them (quickselect: a median of three pivots each round).
func selectFirst(a []heldCell, k int, less func(x, y heldCell) bool) {
	lo, hi := 0, len(a)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if less(a[mid], a[lo]) {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if less(a[hi], a[lo]) {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if less(a[mid], a[hi]) {
			a[mid], a[hi] = a[hi], a[mid]
		}
		p, i := a[hi], lo // (the median of the three, at hi)
		for j := lo; j < hi; j++ {
			if less(a[j], p) {
				a[i], a[j] = a[j], a[i]
				i++
			}
		}
		a[i], a[hi] = a[hi], a[i]
		switch {
		case i == k-1:
			return
		case i < k-1:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
}

// order sorts the values kept in order o.
func (s *topCells) order() {
	slices.SortFunc(s.cells, func(a, b heldCell) int {
		if s.o.before(a, b) {
			return -1
		}
		return 1 // (no two values are equal)
	})
}

// sorted returns the values kept in order, each value copied out of the tallies (one
// allocation for them all).
func (s *topCells) sorted() []CellCount {
	s.order()
	if s.o.top > 0 && (s.o.whole == 0 || s.cut) {
		s.cells = s.cells[:min(s.o.top, len(s.cells))]
	}
	out := make([]CellCount, len(s.cells))
	size := 0
	for _, h := range s.cells {
		size += len(h.c.Value)
	}
	arena := make([]byte, 0, size)
	for i, h := range s.cells {
		out[i] = h.c
		at := len(arena)
		arena = append(arena, h.c.Value...)
		out[i].Value = json.RawMessage(arena[at:len(arena):len(arena)])
	}
	return out
}

// heldCell is a value with its counts and its order prefix.
type heldCell struct {
	c   CellCount
	pre uint64
}

// before: a comes before b in order o (two different values are never tied: those equal in
// value order, such as a string written with and without an escape, by their JSON text).
func (o tallyOrder) before(a, b heldCell) bool {
	if !o.byValue && a.c.Total != b.c.Total {
		return a.c.Total > b.c.Total
	}
	c := cmp.Compare(a.pre, b.pre)
	if c == 0 {
		if c = compareStored(a.c.Value, b.c.Value); c == 0 {
			c = bytes.Compare(a.c.Value, b.c.Value)
		}
	}
	if o.byValue && o.desc {
		return c > 0
	}
	return c < 0
}

// orderPrefix is a number in the order of the values (compareStored's): a value whose
// prefix is less comes first; values of equal prefix are compared whole. Numbers (and
// booleans, as 1 and 0) by value, then text by its first bytes.
func orderPrefix(v []byte) uint64 {
	text := []byte(nil)
	if plainString(v) {
		text = v[1 : len(v)-1]
	} else if k := keyOf(v); k.num {
		return orderedFloat(k.n) >> 1
	} else {
		text = []byte(k.text)
	}
	return 1<<63 | textPrefix(text)>>1
}

// orderedFloat is f as an unsigned number in the same order (-0 as 0; NaN, which JSON has
// not, as 0).
func orderedFloat(f float64) uint64 {
	if f == 0 || math.IsNaN(f) {
		f = 0
	}
	bits := math.Float64bits(f)
	if bits>>63 == 1 {
		return ^bits
	}
	return bits | 1<<63
}

// textPrefix is the first eight bytes of text as a number in their order (shorter text
// padded with zeros).
func textPrefix(text []byte) uint64 {
	var first [8]byte
	copy(first[:], text)
	return binary.BigEndian.Uint64(first[:])
}

// compareStored orders two stored values as cellKey does, comparing strings without an
// escape in place (most values: decoding each would cost more than the rest of the tally).
func compareStored(a, b []byte) int {
	if plainString(a) && plainString(b) {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1])
	}
	return keyOf(a).compare(keyOf(b))
}

// plainString: a JSON string without escapes, whose text is the bytes between its quotes.
func plainString(v []byte) bool {
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0
}

// tallySlice is how many keys one query of a tally reads: 48 blocks of 1,024 (a tally's
// slices are whole blocks: packedTallyQuery).
var tallySlice int64 = 48 << 10
