package tally

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
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

const (
	// ValidFlag marks a tallied value's record as valid (in Ent.n, above the length).
	ValidFlag = 1 << 31
	// tallyInvalid marks the value of an invalid record read again (PostgreSQL), after it
	// was counted as valid: it takes one off the value's valid count.
	tallyInvalid = 1 << 30
	// tallyMax is the most bytes of values one half holds (more: counted by SQLite).
	tallyMax = 128 << 20
	// MaxRecords is the biggest sheet tallied.
	MaxRecords = 3000000
)

// ErrOff: the tally cannot count these values; the database's GROUP BY does.
var ErrOff = errors.New("values not tallied")

// Turn lets one tally run at a time in the process (each holds up to a few hundred MB).
var Turn = make(chan struct{}, 1)

// Ent is one record's value: its hash, its order prefix, and where it sits in the
// half's arena.
type Ent struct {
	Hash, Pre uint64
	Off       uint32
	N         uint32 // length | ValidFlag
}

// Half is one half's values in hash order.
type Half struct {
	Ents  []Ent
	Arena []byte
}

func (t *Half) value(e Ent) []byte {
	end := e.Off + e.N&^(ValidFlag|tallyInvalid)
	return t.Arena[e.Off:end:end]
}

// Order is the order of tallied values: the most frequent first, ties in value order,
// or byValue (desc: the other way); the first top of them only, when top > 0, but all of
// them while there are no more than whole.
type Order struct {
	ByValue, Desc bool
	Top, Whole    int
	Valid         bool // the valid records' counts only (tallyScope)
}

// MergeInHalves merges two tallies (Merge) into the values of order o, the lower and
// the upper half of the hashes at once, and puts the two selections together.
func MergeInHalves(a, b *Half, o Order) (vals []CellCount, cut bool) {
	mid := uint64(1) << (tallyRadix - 1)
	ia := sort.Search(len(a.Ents), func(i int) bool { return a.Ents[i].SortKey() >= mid })
	ib := sort.Search(len(b.Ents), func(i int) bool { return b.Ents[i].SortKey() >= mid })
	sel, upper := &Top{Order: o}, &Top{Order: o}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Merge(&Half{Ents: a.Ents[ia:], Arena: a.Arena}, &Half{Ents: b.Ents[ib:], Arena: b.Arena}, upper.Add)
	}()
	Merge(&Half{Ents: a.Ents[:ia], Arena: a.Arena}, &Half{Ents: b.Ents[:ib], Arena: b.Arena}, sel.Add)
	<-done
	if upper.Cut {
		sel.keepTop() // (the upper half's own values were more than o.whole)
	}
	for _, c := range upper.cells {
		sel.Add(c)
	}
	return sel.Sorted(), sel.Cut
}

// KeySlices hands out the slices of SliceSize keys from lo to hi in key order, to one
// reader or, shared, to whichever of two asks first.
type KeySlices struct {
	lo, hi int64
	next   atomic.Int64
}

func NewKeySlices(lo, hi int64) *KeySlices {
	k := &KeySlices{lo: lo, hi: hi}
	k.next.Store(lo)
	return k
}

// KeySlice is the records where selects among the keys from to to (where: within).
type KeySlice struct {
	where    ffql.Frag
	From, To int64
}

// Of is the slices still to read of the records where selects.
func (k *KeySlices) Of(where ffql.Frag) iter.Seq[KeySlice] {
	return func(yield func(KeySlice) bool) {
		for {
			from := k.next.Add(SliceSize) - SliceSize
			to := min(k.hi, from+SliceSize-1)
			if from > k.hi || !yield(KeySlice{stored.Within(where, [2]int64{from, to}), from, to}) {
				return
			}
		}
	}
}

// eachSlice runs query over the records where selects among keys (query(slice): the
// statement for the records a slice selects), a slice of SliceSize keys per query, handing
// fn each slice's row's columns.
func eachSlice(ctx context.Context, p *sqldb.Pool, what string, query func(s KeySlice) ffql.Frag, where ffql.Frag, keys *KeySlices, fn func(cols [][]byte) error) error {
	ranges := keys.Of(where)
	if p.Dialect().JSONB() {
		return EachSliceRaw(ctx, p, what, query, ranges, fn)
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
func beforeWhere(query string) func(s KeySlice) ffql.Frag {
	return func(s KeySlice) ffql.Frag { return ffql.Frag{SQL: query + s.where.SQL, Args: s.where.Args} }
}

// EachSliceRaw is eachSlice on PostgreSQL, on one connection through pgx itself: fn gets
// each slice's row as it came over the wire, where database/sql would copy it into a string
// and the string into bytes (1.5 MB a slice of e-mails). (Sending the next slice's query
// while fn counts a row made no difference, measured twice: the cores are busy either way.)
func EachSliceRaw(ctx context.Context, p *sqldb.Pool, what string, query func(s KeySlice) ffql.Frag, ranges iter.Seq[KeySlice], fn func(cols [][]byte) error) error {
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

// ReadHalf reads the values at position col of the records where selects among the keys it
// takes, a slice of keys per query (query: Query's or packedTallyQuery's), and returns
// them in hash order.
func ReadHalf(ctx context.Context, p *sqldb.Pool, query func(s KeySlice) ffql.Frag, where ffql.Frag, col int, keys *KeySlices, seed maphash.Seed) (*Half, error) {
	t := &Half{}
	read := 0
	err := eachSlice(ctx, p, "count values", query, where, keys, func(cols [][]byte) error {
		if read++; read == 2 {
			// Room for the rest, as many values and bytes a slice as the first had, for half
			// of the sheet's slices (growing by doubling copied each value three times over).
			grow := float64(keys.hi-keys.lo+1) / float64(SliceSize) / 2 * 1.05
			t.Ents = slices.Grow(t.Ents, int(float64(len(t.Ents))*grow))
			t.Arena = slices.Grow(t.Arena, min(int(float64(len(t.Arena))*grow), tallyMax))
		}
		if !p.Dialect().JSONB() {
			return t.addStored(cols[0], cols[1], col, seed)
		}
		if len(cols) != 2 {
			return ErrOff
		}
		if err := t.addLines(cols[0], ValidFlag, seed); err != nil {
			return err
		}
		return t.addLines(cols[1], tallyInvalid, seed)
	})
	if err != nil {
		return nil, err
	}
	t.Ents = RadixSort(t.Ents)
	return t, nil
}

// Query is the query of a slice's values. SQLite joins the stored arrays, a line each,
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
func Query(d sqldb.Dialect, col int, text bool) func(s KeySlice) ffql.Frag {
	if !d.JSONB() {
		return beforeWhere(`SELECT CAST(group_concat(r.vals, char(10)) AS BLOB), CAST(group_concat(r.valid <> 0, '') AS BLOB) FROM records r WHERE `)
	}
	values := ValuesSQL(col, text)
	return func(s KeySlice) ffql.Frag {
		invalid := InvalidValues(values, s)
		return ffql.Frag{
			SQL:  `SELECT ` + values + `, ` + invalid.SQL + ` FROM records r WHERE ` + s.where.SQL,
			Args: append(slices.Clip(invalid.Args), s.where.Args...),
		}
	}
}

// InvalidValues is the subquery of the invalid records' values among a slice's (values:
// ValuesSQL'), through the index of records with errors.
func InvalidValues(values string, s KeySlice) ffql.Frag {
	return ffql.Frag{SQL: `(SELECT ` + values + ` FROM records r WHERE (` + s.where.SQL + `) AND r.valid = 0)`, Args: s.where.Args}
}

// ValuesSQL is PostgreSQL's aggregate of the lines of the values at position col of the
// records r (Query).
func ValuesSQL(col int, text bool) string {
	c := strconv.Itoa(col)
	notText := int64(stored.KindsNotText)
	if text {
		notText = stored.KindEscape | stored.KindList
	}
	return `string_agg(CASE WHEN (r.kinds & ` + strconv.FormatInt(notText, 10) + `) = 0 THEN COALESCE(r.vals ->> ` + c + `, '')
		ELSE E'\x01' || COALESCE(CAST(r.vals -> ` + c + ` AS TEXT), 'null') END, E'\n')`
}

// addLines tallies a column of lines of Query's on PostgreSQL, each a value's plain text
// or, after a byte 1, its JSON text, with flag (ValidFlag, or tallyInvalid).
func (t *Half) addLines(lines []byte, flag uint32, seed maphash.Seed) error {
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

// addStored tallies a slice of SQLite's (Query's): lines each a stored array whose
// element col is the value, valid holding a digit per line.
func (t *Half) addStored(lines, valid []byte, col int, seed maphash.Seed) error {
	for n := 0; len(lines) > 0; n++ {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte{'\n'})
		v, ok := elementAt(line, col)
		if !ok || n >= len(valid) || (len(lines) == 0 && n != len(valid)-1) {
			return ErrOff // not values as Sluice stores them: left to SQL
		}
		flag := uint32(0)
		if valid[n] == '1' {
			flag = ValidFlag
		}
		if err := t.put(v, false, flag, seed); err != nil {
			return err
		}
	}
	return nil
}

// put tallies a value: JSON text, or (quote) a string's plain text; an empty JSON value
// (IsEmptyJSON) is left out. flag: ValidFlag, tallyInvalid or neither.
func (t *Half) put(v []byte, quote bool, flag uint32, seed maphash.Seed) error {
	if !quote && IsEmptyJSON(v) {
		return nil
	}
	if len(t.Arena)+len(v)+2 > tallyMax {
		return ErrOff
	}
	off := len(t.Arena)
	if quote {
		t.Arena = append(append(append(t.Arena, '"'), v...), '"')
	} else {
		t.Arena = append(t.Arena, v...)
	}
	v = t.Arena[off:]
	t.Ents = append(t.Ents, Ent{Hash: maphash.Bytes(seed, v), Pre: OrderPrefix(v), Off: uint32(off), N: uint32(len(v)) | flag})
	return nil
}

// IsEmptyJSON: an empty cell (null, "" or []), which distinct values leave out.
func IsEmptyJSON(v []byte) bool {
	s := string(v)
	return len(v) == 0 || s == "null" || s == `""` || s == "[]"
}

// elementAt returns the element at position p of a stored array (nil when the array is
// shorter: the value is empty); ok false when b is not a JSON array.
func elementAt(b []byte, p int) (v []byte, ok bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	i := stored.SkipSpace(b, 1)
	if i == len(b)-1 {
		return nil, true
	}
	for k := 0; ; k++ {
		end := stored.SkipValue(b, i)
		if end < 0 || end >= len(b) {
			return nil, false
		}
		if k == p {
			return b[i:end], true
		}
		if b[end] != ',' {
			return nil, end == len(b)-1
		}
		i = stored.SkipSpace(b, end+1)
	}
}

// tallyRadix is the bits of the hash tally entries are sorted on, in passes of tallyDigit
// bits: values whose hashes agree on these are counted together, their bytes compared.
const (
	tallyRadix = 33
	tallyDigit = 11
)

// SortKey is the part of an entry's hash that orders it.
func (e Ent) SortKey() uint64 { return e.Hash >> (64 - tallyRadix) }

// RadixSort orders entries by sortKey, a digit a pass (a digit's counts fit the
// processor's first cache: 3 passes of 11 bits took half the time of 4 of 16).
func RadixSort(a []Ent) []Ent {
	if len(a) < 2 {
		return a
	}
	tmp := make([]Ent, len(a))
	var counts [1 << tallyDigit]int
	for shift := 0; shift < tallyRadix; shift += tallyDigit {
		clear(counts[:])
		for _, e := range a {
			counts[e.SortKey()>>shift&(1<<tallyDigit-1)]++
		}
		at := 0
		for d, c := range counts {
			counts[d] = at
			at += c
		}
		for _, e := range a {
			d := e.SortKey() >> shift & (1<<tallyDigit - 1)
			tmp[counts[d]] = e
			counts[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// Merge walks two tallies in hash order and calls fn once for each distinct value
// with how many records, and valid records, hold it.
func Merge(a, b *Half, fn func(v Held)) {
	var first Held
	var odd []Held // values whose hash another value has too (rare)
	count := func(t *Half, e Ent) {
		v, total, ok := t.value(e), int64(1), int64(e.N>>31)
		if e.N&tallyInvalid != 0 {
			total, ok = 0, -1 // (an invalid record's value, counted as valid before)
		}
		// (A value's bytes are read only to tell it from another of its hash: reading each
		// value, in hash order, from all over the arena would take longer than the tally.)
		if first.Cell.Value == nil || bytes.Equal(v, first.Cell.Value) {
			first.Cell.Value, first.Pre, first.Cell.Total, first.Cell.Valid = v, e.Pre, first.Cell.Total+total, first.Cell.Valid+ok
			return
		}
		for k := range odd {
			if bytes.Equal(odd[k].Cell.Value, v) {
				odd[k].Cell.Total, odd[k].Cell.Valid = odd[k].Cell.Total+total, odd[k].Cell.Valid+ok
				return
			}
		}
		odd = append(odd, Held{Cell: CellCount{Value: v, Total: total, Valid: ok}, Pre: e.Pre})
	}
	emit := func(c Held) {
		// (A value's valid count is kept within its total as a guard.)
		if c.Cell.Total > 0 {
			c.Cell.Valid = max(0, min(c.Cell.Valid, c.Cell.Total))
			fn(c)
		}
	}
	for i, j := 0, 0; i < len(a.Ents) || j < len(b.Ents); {
		h := uint64(0)
		if j == len(b.Ents) || (i < len(a.Ents) && a.Ents[i].SortKey() <= b.Ents[j].SortKey()) {
			h = a.Ents[i].SortKey()
		} else {
			h = b.Ents[j].SortKey()
		}
		first, odd = Held{}, odd[:0]
		for ; i < len(a.Ents) && a.Ents[i].SortKey() == h; i++ {
			count(a, a.Ents[i])
		}
		for ; j < len(b.Ents) && b.Ents[j].SortKey() == h; j++ {
			count(b, b.Ents[j])
		}
		emit(first)
		for _, c := range odd {
			emit(c)
		}
	}
}

// Top keeps the first o.top values it is given in order o, or all of them. Values
// gather in a buffer of up to twice o.top; a full buffer keeps its first o.top
// (selectFirst), the last of which bounds the values taken after. A bounded heap had cost
// more than the rest of a tally for a deep page (page 500 of 1,000,000 e-mails in value
// order: a heap of 50,000, re-ordered for each of 150,000 values that came before its top).
type Top struct {
	Order Order
	cells []Held
	bound *Held // once cut to o.top: the last of them, which later values must come before
	Cut   bool  // more than o.whole values came: only the first o.top are kept
}

func (s *Top) Add(c Held) {
	if s.Order.Valid {
		if c.Cell.Total = c.Cell.Valid; c.Cell.Total == 0 {
			return
		}
	}
	c.Cell.Error = c.Cell.Total - c.Cell.Valid
	if s.bound != nil && !s.Order.Before(c, *s.bound) {
		return
	}
	s.cells = append(s.cells, c)
	switch {
	case s.Order.Top == 0:
	case s.Order.Whole > 0 && !s.Cut:
		if len(s.cells) > s.Order.Whole { // all of them, until there are more than whole
			s.keepTop()
		}
	case len(s.cells) >= 2*s.Order.Top:
		s.trim()
	}
}

// keepTop keeps only the first o.top values from now on (o.top > 0), as after more than
// o.whole came.
func (s *Top) keepTop() {
	if s.Cut || s.Order.Top == 0 {
		return
	}
	s.Cut = true
	s.trim()
}

// trim keeps the first o.top values and, when there are as many, bounds later values by
// the last of them.
func (s *Top) trim() {
	if len(s.cells) < s.Order.Top {
		return
	}
	SelectFirst(s.cells, s.Order.Top, s.Order.Before)
	s.cells = s.cells[:s.Order.Top]
	last := s.cells[s.Order.Top-1]
	s.bound = &last
}

// SelectFirst reorders a so that its first k values (k ≤ len(a)) are the first k in order
// less, a[k-1] the last of them (quickselect: a median of three pivots each round).
func SelectFirst(a []Held, k int, less func(x, y Held) bool) {
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
func (s *Top) order() {
	slices.SortFunc(s.cells, func(a, b Held) int {
		if s.Order.Before(a, b) {
			return -1
		}
		return 1 // (no two values are equal)
	})
}

// Sorted returns the values kept in order, each value copied out of the tallies (one
// allocation for them all).
func (s *Top) Sorted() []CellCount {
	s.order()
	if s.Order.Top > 0 && (s.Order.Whole == 0 || s.Cut) {
		s.cells = s.cells[:min(s.Order.Top, len(s.cells))]
	}
	out := make([]CellCount, len(s.cells))
	size := 0
	for _, h := range s.cells {
		size += len(h.Cell.Value)
	}
	arena := make([]byte, 0, size)
	for i, h := range s.cells {
		out[i] = h.Cell
		at := len(arena)
		arena = append(arena, h.Cell.Value...)
		out[i].Value = json.RawMessage(arena[at:len(arena):len(arena)])
	}
	return out
}

// Held is a value with its counts and its order prefix.
type Held struct {
	Cell CellCount
	Pre  uint64
}

// Before: a comes before b in order o (two different values are never tied: those equal in
// value order, such as a string written with and without an escape, by their JSON text).
func (o Order) Before(a, b Held) bool {
	if !o.ByValue && a.Cell.Total != b.Cell.Total {
		return a.Cell.Total > b.Cell.Total
	}
	c := cmp.Compare(a.Pre, b.Pre)
	if c == 0 {
		if c = CompareStored(a.Cell.Value, b.Cell.Value); c == 0 {
			c = bytes.Compare(a.Cell.Value, b.Cell.Value)
		}
	}
	if o.ByValue && o.Desc {
		return c > 0
	}
	return c < 0
}

// OrderPrefix is a number in the order of the values (CompareStored's): a value whose
// prefix is less comes first; values of equal prefix are compared whole. Numbers (and
// booleans, as 1 and 0) by value, then text by its first bytes.
func OrderPrefix(v []byte) uint64 {
	text := []byte(nil)
	if PlainString(v) {
		text = v[1 : len(v)-1]
	} else if k := KeyOf(v); k.num {
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

// CompareStored orders two stored values as Key does, comparing strings without an
// escape in place (most values: decoding each would cost more than the rest of the tally).
func CompareStored(a, b []byte) int {
	if PlainString(a) && PlainString(b) {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1])
	}
	return KeyOf(a).Compare(KeyOf(b))
}

// PlainString: a JSON string without escapes, whose text is the bytes between its quotes.
func PlainString(v []byte) bool {
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0
}

// SliceSize is how many keys one query of a tally reads: 48 blocks of 1,024 (a tally's
// slices are whole blocks: packedTallyQuery).
var SliceSize int64 = 48 << 10

// CellCount is one distinct value of a field and the records that hold it: all of them,
// the valid ones and those with an error.
type CellCount struct {
	Value               json.RawMessage // the JSON value as stored
	Total, Valid, Error int64
}
