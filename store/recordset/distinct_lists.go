package recordset

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sort"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// Kept value lists: for each field, its distinct values with how many records
// hold each (all, and valid), in record_values, changed in the transaction of every write
// by what the write added and removed. The filter-by-value menu and GET …/cells read a
// list instead of grouping the whole sheet (0.5 s at 1,000,000 records).
//
// A list is kept only while it is small: a field with more than valueListMax distinct
// values (ids, e-mails) stops being kept at the write that passes the limit, and is counted
// when asked, as is a field whose list is not known (sheets from before the table, or after
// a count that did not add up). Counting the whole sheet with few enough values keeps the
// list again (keepValues).

// valueListMax is the most distinct values a kept list holds (a variable for tests).
var valueListMax = 4096

const (
	// valueListBytes is the most bytes a kept list takes.
	valueListBytes = 256 << 10
)

// Value list states (record_values.state); no row: not known.
const (
	valuesKept    = 0
	valuesTooMany = 1
)

type valueCount struct{ total, valid int64 }

// valueDelta is what one write changes in the kept lists of one sheet, by rule index (nil
// where the field's list is not kept).
type valueDelta struct {
	at    []map[string]*valueCount
	canon bool // values may come from PostgreSQL's jsonb: made canonical before counting
	// pre marks rules whose new values a streamed insert counted ahead (preTally): tally
	// leaves them out for new records, and correct fixes the few whose validity the write
	// decided otherwise. over marks rules that had too many values to count ahead.
	pre, over []bool
	// gens: the generation of the rules whose values are counted in value_counts
	// (distinct_counts.go), 0 for kept lists.
	gens []int64
}

// keptValues starts a write's delta for the fields of the sheet whose lists are kept or
// whose values are counted; nil when none are.
func (tx *Tx) keptValues(rs *stored.Sheet) (*valueDelta, error) {
	if rs.SK == 0 {
		return nil, nil
	}
	kept, gens, err := keptFields(tx.Context(), tx, rs)
	if err != nil {
		return nil, err
	}
	var vd *valueDelta
	for i, k := range kept {
		if !k && gens[i] == 0 {
			continue
		}
		if vd == nil {
			vd = &valueDelta{at: make([]map[string]*valueCount, len(rs.Schema.Rules)), canon: rs.Dialect.JSONB(), gens: gens}
		}
		vd.at[i] = map[string]*valueCount{}
	}
	return vd, nil
}

// tally adds (sign 1) or removes (sign -1) a record's values; fresh says the record is
// new in this write, whose values the pre-tallied rules already hold.
func (vd *valueDelta) tally(row records.Row, valid bool, sign int64, fresh bool) {
	if vd == nil {
		return
	}
	for i, m := range vd.at {
		if m == nil || i >= len(row) || (fresh && vd.pre != nil && vd.pre[i]) || records.IsEmpty(row[i]) {
			continue
		}
		v := row[i]
		if vd.canon {
			v = records.Canonical(v)
		}
		c := m[string(v)]
		if c == nil {
			c = &valueCount{}
			m[string(v)] = c
		}
		c.total += sign
		if valid {
			c.valid += sign
		}
	}
}

// correct moves a new record counted ahead as valid (or not) to what the write found.
func (vd *valueDelta) correct(row records.Row, was, is bool) {
	if vd == nil || vd.pre == nil || was == is {
		return
	}
	for i, m := range vd.at {
		if m == nil || !vd.pre[i] || i >= len(row) || records.IsEmpty(row[i]) {
			continue
		}
		v := row[i]
		if vd.canon {
			v = records.Canonical(v)
		}
		if c := m[string(v)]; c != nil {
			if is {
				c.valid++
			} else {
				c.valid--
			}
		}
	}
}

// preTally counts the values of a batch of new states ahead of its write (a streamed
// insert does it in the goroutine that reads the rows, while the previous batch is being
// written), for the rules in want. A rule with more distinct values than a list keeps in
// the batch alone is marked over instead. Each state notes the validity it was counted with.
func preTally(rs *stored.Sheet, states []*stored.State, want []bool) *valueDelta {
	vd := &valueDelta{at: make([]map[string]*valueCount, len(want)), pre: make([]bool, len(want)), over: make([]bool, len(want)), canon: rs.Dialect.JSONB()}
	for i, w := range want {
		if w {
			vd.at[i], vd.pre[i] = map[string]*valueCount{}, true
		}
	}
	for _, st := range states {
		st.PreCounted, st.PreValid = true, !hasAnyError(st.Msgs)
	}
	for i, m := range vd.at {
		if m == nil {
			continue
		}
		for _, st := range states {
			v := st.Row[i]
			if records.IsEmpty(v) {
				continue
			}
			c := m[string(v)]
			if c == nil {
				if len(m) == valueListMax {
					vd.at[i], vd.over[i] = nil, true
					break
				}
				c = &valueCount{}
				m[string(v)] = c
			}
			c.total++
			if st.PreValid {
				c.valid++
			}
		}
	}
	return vd
}

// adopt takes a batch's pre-tally into the write's delta for the rules both have; the
// write counts the rest itself.
func (vd *valueDelta) adopt(pre *valueDelta) {
	if vd == nil || pre == nil {
		return
	}
	vd.pre, vd.over = make([]bool, len(vd.at)), make([]bool, len(vd.at))
	for i, m := range vd.at {
		if m == nil || i >= len(pre.pre) || !pre.pre[i] {
			continue
		}
		vd.pre[i] = true
		if pre.over[i] {
			vd.over[i] = true
		} else {
			vd.at[i] = pre.at[i]
		}
	}
}

// changes reports whether a delta moves any count.
func changes(d map[string]*valueCount) bool {
	for _, c := range d {
		if c.total != 0 || c.valid != 0 {
			return true
		}
	}
	return false
}

func hasAnyError(cells records.Cells) bool {
	for _, c := range cells {
		if stored.HasError(c) {
			return true
		}
	}
	return false
}

// keptRules reports, by rule index, the lists still kept after applyValues.
func (vd *valueDelta) keptRules(n int) []bool {
	out := make([]bool, n)
	if vd != nil {
		for i, m := range vd.at {
			out[i] = m != nil && vd.counted(i) == 0
		}
	}
	return out
}

// counted is the generation of rule i's counted values, 0 when it has none.
func (vd *valueDelta) counted(i int) int64 {
	if i < len(vd.gens) {
		return vd.gens[i]
	}
	return 0
}

// keptFields reads, by rule index, which fields' lists are kept, and the generation of
// those whose values are counted in value_counts (0 for the others).
func keptFields(ctx context.Context, q sqldb.Querier, rs *stored.Sheet) (kept []bool, gens []int64, err error) {
	kept, gens = make([]bool, len(rs.Schema.Rules)), make([]int64, len(rs.Schema.Rules))
	err = sqldb.EachRow(ctx, q, "kept value lists", `SELECT col, state, gen FROM record_values WHERE sk = ? AND state IN (?, ?)`, []any{rs.SK, valuesKept, valuesCounted}, func(rows *sql.Rows) error {
		var col, state int
		var gen int64
		if err := rows.Scan(&col, &state, &gen); err != nil {
			return errs.Wrap(err, "scan kept value list")
		}
		if i, ok := rs.Layout.ByCol[col]; ok {
			if state == valuesKept {
				kept[i] = true
			} else {
				gens[i] = gen
			}
		}
		return nil
	})
	return kept, gens, err
}

// applyValues writes the delta into the kept lists. A list that would pass the limits
// stops being kept; one whose counts do not add up (a value removed that it does not
// hold) is dropped, to be counted again when next asked.
func (tx *Tx) applyValues(rs *stored.Sheet, vd *valueDelta) error {
	if vd == nil {
		return nil
	}
	for i, d := range vd.at {
		col := rs.Layout.Cols[i]
		if gen := vd.counted(i); gen != 0 && d != nil {
			ok := false
			var err error
			if vd.over != nil && vd.over[i] {
				err = tx.uncount(rs.SK, col) // counted ahead: the batch alone has too many
			} else {
				ok, err = tx.applyCounted(rs.SK, col, gen, d)
			}
			if !ok {
				vd.at[i] = nil
			}
			if err != nil {
				return err
			}
			continue
		}
		var merged []byte
		var err error
		if vd.over != nil && vd.over[i] {
			err = errTooManyValues // counted ahead: the batch alone has too many
		} else {
			if !changes(d) {
				continue // an edit of other fields: every value removed and added back
			}
			var list []byte
			err = tx.QueryRow(`SELECT list FROM record_values WHERE sk = ? AND col = ? AND state = ?`, rs.SK, col, valuesKept).Scan(&list)
			if errors.Is(err, sql.ErrNoRows) {
				vd.at[i] = nil
				continue
			}
			if err != nil {
				return errs.Wrap(err, "read value list")
			}
			merged, err = mergeValues(list, d)
		}
		if err != nil {
			vd.at[i] = nil
		}
		switch {
		case errors.Is(err, errValuesOff):
			_, err = tx.Exec(`DELETE FROM record_values WHERE sk = ? AND col = ?`, rs.SK, col)
		case errors.Is(err, errTooManyValues):
			_, err = tx.Exec(`UPDATE record_values SET state = ?, list = ? WHERE sk = ? AND col = ?`, valuesTooMany, []byte{}, rs.SK, col)
		case err == nil:
			_, err = tx.Exec(`UPDATE record_values SET list = ? WHERE sk = ? AND col = ?`, merged, rs.SK, col)
		}
		if err != nil {
			return errs.Wrap(err, "write value list")
		}
	}
	return nil
}

// keepNewColumn starts the (empty) list of a value position just given to a field.
func (tx *Tx) keepNewColumn(sk int64, col int) error {
	if _, err := tx.Exec(`INSERT INTO record_values (sk, col, state, list) VALUES (?, ?, ?, ?)`, sk, col, valuesKept, []byte{}); err != nil {
		return errs.Wrap(err, "start value list")
	}
	return nil
}

// resetValues empties the lists of every live position, for a revalidation that counts
// every record again.
func (tx *Tx) resetValues(sk int64) error {
	for _, table := range []string{"record_values", "value_counts"} {
		if _, err := tx.Exec(`DELETE FROM `+table+` WHERE sk = ?`, sk); err != nil {
			return errs.Wrap(err, "reset value lists")
		}
	}
	if _, err := tx.Exec(`INSERT INTO record_values (sk, col, state, list) SELECT sk, col, ?, ? FROM record_columns WHERE sk = ? AND retired = 0`,
		valuesKept, []byte{}, sk); err != nil {
		return errs.Wrap(err, "reset value lists")
	}
	return nil
}

var (
	errTooManyValues = errors.New("too many distinct values to keep")
	errValuesOff     = errors.New("kept value counts do not add up")
)

// mergeValues applies d to an encoded list: (uvarint length, value, uvarint total,
// uvarint valid) per value, values with no records left out.
func mergeValues(list []byte, d map[string]*valueCount) ([]byte, error) {
	out := make([]byte, 0, len(list)+16*len(d))
	n := 0
	add := func(v []byte, total, valid int64) error {
		if total < 0 || valid < 0 || valid > total {
			return errValuesOff
		}
		if total == 0 {
			return nil
		}
		if n++; n > valueListMax {
			return errTooManyValues
		}
		out = binary.AppendUvarint(out, uint64(len(v)))
		out = append(out, v...)
		out = binary.AppendUvarint(out, uint64(total))
		out = binary.AppendUvarint(out, uint64(valid))
		if len(out) > valueListBytes {
			return errTooManyValues
		}
		return nil
	}
	err := eachListed(list, func(v []byte, total, valid int64) error {
		if c := d[string(v)]; c != nil {
			total, valid = total+c.total, valid+c.valid
			delete(d, string(v))
		}
		return add(v, total, valid)
	})
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(d))
	for v := range d {
		keys = append(keys, v)
	}
	sort.Strings(keys) // the same list whatever the map's order
	for _, v := range keys {
		if err := add([]byte(v), d[v].total, d[v].valid); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachListed calls fn with each value of an encoded list; a list it cannot read is
// errValuesOff.
func eachListed(list []byte, fn func(v []byte, total, valid int64) error) error {
	for len(list) > 0 {
		l, k := binary.Uvarint(list)
		if k <= 0 || uint64(len(list)-k) < l {
			return errValuesOff
		}
		v := list[k : k+int(l) : k+int(l)]
		list = list[k+int(l):]
		total, k1 := binary.Uvarint(list)
		if k1 <= 0 {
			return errValuesOff
		}
		valid, k2 := binary.Uvarint(list[k1:])
		if k2 <= 0 {
			return errValuesOff
		}
		list = list[k1+k2:]
		if err := fn(v, int64(total), int64(valid)); err != nil {
			return err
		}
	}
	return nil
}

// keptAnswer says how keptCells answered.
type keptAnswer int

const (
	notKept     keptAnswer = iota // no list and no counted values: the records are counted
	tooManyKept                   // too many values to keep, not counted yet: the records are counted
	wholeList                     // the field's kept list
	pageOnly                      // the page asked for, from the field's counted values
)

// keptCells answers CellValues from the field's kept list, or the page asked for from its
// counted values (filter "", "all", "valid" or "error"; page nil: the whole list only).
func keptCells(rc *readCtx, rs *stored.Sheet, col int, filter string, page *CellsPage) ([]CellCount, keptAnswer, error) {
	var state int
	var list []byte
	var gen int64
	err := rc.q.QueryRowContext(rc.ctx, `SELECT state, list, gen FROM record_values WHERE sk = ? AND col = ?`, rs.SK, col).Scan(&state, &list, &gen)
	switch {
	case err == nil && state == valuesCounted && page != nil:
		out, err := countedCells(rc, rs.SK, col, gen, filter, *page)
		return out, pageOnly, err
	case err == nil && state == valuesTooMany:
		return nil, tooManyKept, nil
	case errors.Is(err, sql.ErrNoRows) || (err == nil && state != valuesKept):
		return nil, notKept, nil
	case err != nil:
		return nil, notKept, errs.Wrap(err, "read value list")
	}
	out := []CellCount{}
	err = eachListed(list, func(v []byte, total, valid int64) error {
		c := CellCount{Value: json.RawMessage(v), Total: total, Valid: valid, Error: total - valid}
		switch filter {
		case "valid":
			c.Total, c.Error = valid, 0
		case "error":
			c.Total, c.Valid = total-valid, 0
		}
		if c.Total > 0 {
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		return nil, notKept, nil //nolint:nilerr // unreadable: counted instead
	}
	sortCells(out, false, false)
	return out, wholeList, nil
}

// sortCells orders values in place: the most frequent first (byValue false), ties and
// byValue in the order the databases sort values: numbers (booleans as 1 and 0) by value,
// then text by its bytes (desc: the other way).
func sortCells(cs []CellCount, byValue, desc bool) {
	keys := make([]tally.Key, len(cs))
	for i, c := range cs {
		keys[i] = tally.KeyOf(c.Value)
	}
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &cs[idx[a]], &cs[idx[b]]
		if !byValue && x.Total != y.Total {
			return x.Total > y.Total
		}
		if desc {
			return keys[idx[b]].Compare(keys[idx[a]]) < 0
		}
		return keys[idx[a]].Compare(keys[idx[b]]) < 0
	})
	sorted := make([]CellCount, len(cs))
	for i, j := range idx {
		sorted[i] = cs[j]
	}
	copy(cs, sorted)
}

// keepValues stores a list counted from the whole sheet as its kept list, when it is
// small enough and no write reached the sheet since changes was read before counting.
func (tx *Tx) keepValues(sk int64, col int, changes int64, vals []CellCount) error {
	d := make(map[string]*valueCount, len(vals))
	for _, c := range vals {
		v := string(records.Canonical(c.Value))
		if e := d[v]; e != nil {
			e.total, e.valid = e.total+c.Total, e.valid+c.Valid
		} else {
			d[v] = &valueCount{total: c.Total, valid: c.Valid}
		}
	}
	list, err := mergeValues(nil, d)
	if err != nil {
		return nil //nolint:nilerr // too many to keep (or odd counts): stays counted when asked
	}
	_, err = tx.Exec(`INSERT INTO record_values (sk, col, state, list) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM record_sheets WHERE sk = ? AND changes = ?)
		ON CONFLICT (sk, col) DO UPDATE SET state = excluded.state, list = excluded.list`, sk, col, valuesKept, list, sk, changes)
	if err != nil {
		return errs.Wrap(err, "keep value list")
	}
	return nil
}
