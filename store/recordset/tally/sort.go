package tally

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// The first sorted page of a big sheet computes the whole order (package recordset): SQLite took
// 0.4-0.47 s for 1,000,000 records, most of it taking the values out of the stored arrays
// (json_extract parses each) and sorting them with its sorter; PostgreSQL 0.35-0.55 s. The
// order is worked out here as the tally reads values (tally.go): the two halves of
// the keys at once, a slice per query; each value gets a prefix of its place in the
// databases' typed order (empty, then numbers — booleans as 1 and 0 — by value, then text by
// its bytes: SQLite's ORDER BY, and PostgreSQL's as orderBy writes it), each half is sorted
// by it (radix) and the runs of equal prefix by the whole value; the halves are merged.
// Equal values keep key order, as the query's ", r.rid" has it; a descending order is the
// ascending one reversed (values and keys both descending). 1,000,000 records: 0.13-0.16 s
// on SQLite, 0.27-0.37 s on PostgreSQL.

// sortEnt is one record in a tallied sort: its order prefix, its key, and its value — a
// number's bits, or where its text sits in the half's arena.
type sortEnt struct {
	pre uint64
	rid int64
	aux uint64 // float64 bits (numbers), or offset<<32 | length (text)
}

// Classes of values in SQLite's order, in a prefix's top two bits.
const (
	sortNull = 0
	sortNum  = 1
	sortText = 2
)

func (e sortEnt) class() uint64 { return e.pre >> 62 }

// SortHalf is one half's records in order.
type SortHalf struct {
	ents  []sortEnt
	arena []byte
	texts bool // (ReadSortHalf)
}

func (h *SortHalf) text(e sortEnt) []byte {
	off, n := e.aux>>32, e.aux&0xffffffff
	return h.arena[off : off+n : off+n]
}

// compare orders two entries of equal prefix by their whole values (0: equal values).
func (h *SortHalf) compare(a sortEnt, o *SortHalf, b sortEnt) int {
	switch a.class() {
	case sortNum:
		return cmp.Compare(math.Float64frombits(a.aux), math.Float64frombits(b.aux))
	case sortText:
		return bytes.Compare(h.text(a), o.text(b))
	}
	return 0
}

// ReadSortHalf reads the values at position col of the records where selects among keys, a
// slice of keys per query, and sorts them. texts: the database sorts the field's values as
// text (PostgreSQL's order of a text field, orderBy): a number or a boolean in it is left to
// the database.
func ReadSortHalf(ctx context.Context, p *sqldb.Pool, where ffql.Frag, col int, keys *KeySlices, texts bool) (*SortHalf, error) {
	h := &SortHalf{texts: texts}
	err := eachSlice(ctx, p, "sort records", beforeWhere(sortQuery(p.Dialect(), col)), where, keys, func(cols [][]byte) error {
		var rids []byte // (SQLite's second column)
		if len(cols) > 1 {
			rids = cols[1]
		}
		return h.add(p.Dialect(), cols[0], rids, col)
	})
	if err != nil {
		return nil, err
	}
	h.sort()
	return h, nil
}

// sortQuery is the query of a slice's values and keys but for its where. SQLite joins the
// stored arrays, a line each, and the keys in a second column (both aggregates see the
// rows in the same order); PostgreSQL joins a line for each record of its key, a space and
// its value's JSON text (one aggregate: those of a query may put together the parts of
// parallel workers): for a record of plain text alone (records.kinds), its value's text in
// quotes, which is the same, rather than jsonb's writing of JSON text (14.3 ms instead of
// 16.3 per 50,000 records).
func sortQuery(d sqldb.Dialect, col int) string {
	if d.JSONB() {
		c := strconv.Itoa(col)
		return `SELECT string_agg(CAST(r.rid AS TEXT) || ' ' || CASE WHEN (r.kinds & ` + strconv.Itoa(stored.KindsNotText) + `) = 0 THEN COALESCE('"' || (r.vals ->> ` + c + `) || '"', 'null')
			ELSE COALESCE(CAST(r.vals -> ` + c + ` AS TEXT), 'null') END, E'\n') FROM records r WHERE `
	}
	return `SELECT CAST(group_concat(r.vals, char(10)) AS BLOB), CAST(group_concat(r.rid, ',') AS BLOB) FROM records r WHERE `
}

// add takes a slice's lines (sortQuery's): on SQLite each a stored array whose element col
// is the value, rids holding their keys joined by commas; on PostgreSQL each a key and the
// value.
func (h *SortHalf) add(d sqldb.Dialect, lines, rids []byte, col int) error {
	from := len(h.ents)
	defer func() {
		// Equal values keep key order: the radix sort is stable, so each slice's records
		// must come in key order, which PostgreSQL's scans need not give.
		if part := h.ents[from:]; !slices.IsSortedFunc(part, byRid) {
			slices.SortFunc(part, byRid)
		}
	}()
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte{'\n'})
		var key, v []byte
		ok := false
		if d.JSONB() {
			key, v, ok = bytes.Cut(line, []byte{' '})
			ok = ok && len(key) > 0
		} else {
			key, rids, _ = bytes.Cut(rids, []byte{','})
			v, ok = elementAt(line, col)
			ok = ok && (len(lines) == 0) == (len(rids) == 0)
		}
		rid, err := strconv.ParseInt(string(key), 10, 64)
		if err != nil || !ok {
			return ErrOff // not what Sluice stores: left to SQL
		}
		e := sortEnt{rid: rid}
		switch {
		case v == nil || string(v) == "null":
		case string(v) == "true" || string(v) == "false" || (v[0] != '"' && v[0] != '[' && v[0] != '{'):
			if h.texts {
				return ErrOff
			}
			f := 0.0
			if v[0] == 't' {
				f = 1
			} else if v[0] != 'f' {
				if f, err = strconv.ParseFloat(string(v), 64); err != nil || !floatExact(d, v, f) {
					return ErrOff
				}
			}
			e.pre, e.aux = sortNum<<62|orderedFloat(f)>>2, math.Float64bits(f)
		default:
			text := v // a list or an object: its JSON, as json_extract (and #>> '{}') gives it
			if v[0] == '"' {
				if PlainString(v) {
					text = v[1 : len(v)-1]
				} else {
					var s string
					if json.Unmarshal(v, &s) != nil {
						return ErrOff
					}
					text = []byte(s)
				}
			}
			if len(h.arena)+len(text) > tallyMax {
				return ErrOff
			}
			e.pre, e.aux = sortText<<62|textPrefix(text)>>2, uint64(len(h.arena))<<32|uint64(len(text))
			h.arena = append(h.arena, text...)
		}
		h.ents = append(h.ents, e)
	}
	return nil
}

// sort orders the half's entries by value, then key: a stable radix sort by prefix (the
// entries come in key order), then each run of equal prefix whose values differ by value.
func (h *SortHalf) sort() {
	a := h.ents
	if len(a) > 1 {
		tmp := make([]sortEnt, len(a))
		var counts [1 << tallyDigit]int
		for shift := 0; shift < 64; shift += tallyDigit {
			clear(counts[:])
			for _, e := range a {
				counts[e.pre>>shift&(1<<tallyDigit-1)]++
			}
			at := 0
			for d, c := range counts {
				counts[d] = at
				at += c
			}
			for _, e := range a {
				d := e.pre >> shift & (1<<tallyDigit - 1)
				tmp[counts[d]] = e
				counts[d]++
			}
			a, tmp = tmp, a
		}
	}
	for i := 0; i < len(a); {
		j := i + 1
		same := true
		for ; j < len(a) && a[j].pre == a[i].pre; j++ {
			same = same && h.compare(a[i], h, a[j]) == 0
		}
		if !same {
			slices.SortStableFunc(a[i:j], func(x, y sortEnt) int { return h.compare(x, h, y) })
		}
		i = j
	}
	h.ents = a
}

// MergeSorted merges two sorted halves (every key of a below every key of b) into one
// order of keys.
func MergeSorted(a, b *SortHalf) []int64 {
	out := make([]int64, 0, len(a.ents)+len(b.ents))
	i, j := 0, 0
	for i < len(a.ents) && j < len(b.ents) {
		x, y := a.ents[i], b.ents[j]
		c := cmp.Compare(x.pre, y.pre)
		if c == 0 {
			c = a.compare(x, b, y)
		}
		if c <= 0 { // (equal values: a's key is the lower)
			out = append(out, x.rid)
			i++
		} else {
			out = append(out, y.rid)
			j++
		}
	}
	for ; i < len(a.ents); i++ {
		out = append(out, a.ents[i].rid)
	}
	for ; j < len(b.ents); j++ {
		out = append(out, b.ents[j].rid)
	}
	return out
}

// floatExact: the number v (f) compares as the database compares it. SQLite compares
// integers exactly (beyond 2^53 a double cannot tell them apart) and other numbers as
// doubles; PostgreSQL compares every number exactly (numeric), so a number of more than 15
// significant digits is left to it.
func floatExact(d sqldb.Dialect, v []byte, f float64) bool {
	if !d.JSONB() {
		return math.Abs(f) <= 1<<53 || bytes.ContainsAny(v, ".eE")
	}
	digits, leading := 0, true
	for _, c := range v {
		switch {
		case c == 'e' || c == 'E':
			return digits <= 15
		case c == '0' && leading:
		case c >= '0' && c <= '9':
			digits, leading = digits+1, false
		}
	}
	return digits <= 15
}

func byRid(a, b sortEnt) int { return cmp.Compare(a.rid, b.rid) }
