package recordset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// Kept value lists: for each field, its distinct values with how many records
// hold each (all, and valid), a row per value in kept_values (the list's state and size in
// record_values), changed in the transaction of every write by what the write added and
// removed: one upsert of the changed values of every field, not a rewrite of each list. The
// filter-by-value menu and GET …/cells read a list instead of grouping the whole sheet
// (0.5 s at 1,000,000 records).
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

// tooBigToKeep: a list of n values taking bytes passes a kept list's limits.
func tooBigToKeep(n, bytes int64) bool { return n > int64(valueListMax) || bytes > valueListBytes }

// countsBroken: a value's counts that cannot be (a value removed that the list did not
// hold): its list is dropped, to be counted again when next asked.
func countsBroken(total, valid int64) bool { return total < 0 || valid < 0 || valid > total }

// Value list states (record_values.state); no row: not known.
const (
	valuesKept    = 0
	valuesTooMany = 1
	// valuesDropped is not stored: a list whose counts stop adding up loses its row (not
	// known) and is counted again when next asked.
	valuesDropped = -1
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
	// sent is the answer of the kept lists' statement sent ahead (sendKept), nil if none.
	sent *keptReply
}

// keptValues starts a write's delta for the fields of the sheet whose lists are kept or
// whose values are counted; nil when none are.
func (tx *Tx) keptValues(rs *stored.Sheet) (*valueDelta, error) {
	if rs.SK == 0 {
		return nil, nil
	}
	var kept []bool
	var gens []int64
	var err error
	if rows, ok := rs.TakeValues(); ok {
		kept, gens = keptFieldsOf(rs, rows)
	} else if kept, gens, err = keptFields(tx.Context(), tx, rs); err != nil {
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
	var rows [][3]int64
	err = sqldb.EachRow(ctx, q, "kept value lists", `SELECT col, state, gen FROM record_values WHERE sk = ? AND state IN (?, ?)`, []any{rs.SK, valuesKept, valuesCounted}, func(r *sql.Rows) error {
		var v [3]int64
		if err := r.Scan(&v[0], &v[1], &v[2]); err != nil {
			return errs.Wrap(err, "scan kept value list")
		}
		rows = append(rows, v)
		return nil
	})
	kept, gens = keptFieldsOf(rs, rows)
	return kept, gens, err
}

// keptFieldsOf is keptFields of the sheet's record_values rows [col, state, gen].
func keptFieldsOf(rs *stored.Sheet, rows [][3]int64) (kept []bool, gens []int64) {
	kept, gens = make([]bool, len(rs.Schema.Rules)), make([]int64, len(rs.Schema.Rules))
	for _, r := range rows {
		i, ok := rs.Layout.ByCol[int(r[0])]
		switch {
		case !ok:
		case r[1] == valuesKept:
			kept[i] = true
		case r[1] == valuesCounted:
			gens[i] = r[2]
		}
	}
	return kept, gens
}

// applyValues writes the delta into the kept lists. A list that would pass the limits
// stops being kept; one whose counts do not add up (a value removed that it does not
// hold) is dropped, to be counted again when next asked.
func (tx *Tx) applyValues(rs *stored.Sheet, vd *valueDelta) error {
	if vd == nil {
		return nil
	}
	var counted []int // rules whose counted values go in one statement (applyCounted)
	for i, d := range vd.at {
		col := rs.Layout.Cols[i]
		if gen := vd.counted(i); gen != 0 && d != nil {
			if vd.over == nil || !vd.over[i] {
				counted = append(counted, i)
				continue
			}
			vd.at[i] = nil
			if err := tx.uncount(rs.SK, col); err != nil { // counted ahead: the batch alone has too many
				return err
			}
			continue
		}
		if vd.over != nil && vd.over[i] {
			// counted ahead: the batch alone has too many
			if err := tx.stopKeeping(rs.SK, col, valuesTooMany); err != nil {
				return err
			}
			vd.at[i] = nil
			continue
		}
	}
	if err := tx.applyCounted(rs, vd, counted); err != nil {
		return err
	}
	if vd.sent != nil {
		return tx.endKept(rs, vd, vd.sent)
	}
	return tx.applyKept(rs, vd, vd.keptChanges(rs))
}

// keptChanges is what the write changes in its kept lists: those of rules whose values are
// neither counted (value_counts) nor counted ahead past the limit.
func (vd *valueDelta) keptChanges(rs *stored.Sheet) []keptChange {
	var kept []keptChange
	for i, d := range vd.at {
		if d == nil || vd.counted(i) != 0 || (vd.over != nil && vd.over[i]) || !changes(d) {
			continue // (no change: an edit of other fields, every value removed and added back)
		}
		for v, c := range d {
			if c.total != 0 || c.valid != 0 {
				kept = append(kept, keptChange{col: rs.Layout.Cols[i], v: v, c: c})
			}
		}
	}
	return kept
}

// keptReply is what the kept lists' statements answered: the values that left a list
// (gone: col, v pairs) and the lists to stop keeping, by col (valuesTooMany or
// valuesDropped).
type keptReply struct {
	gone []any
	stop map[int]int
	// guessed: no answer was asked for (sendKept's guess); the statement fails the write
	// where it would have answered something
	guessed bool
}

// sendKept holds back, on PostgreSQL, the statement that applies the write's changes to its
// kept lists and their sizes (one statement: sendKeptSQL), so that it goes in one round
// trip with the write's next statement (the rows' insert or update); applyValues reads
// its answer. SQLite, whose statements cost no round trip, applies them there (applyKept).
// guess (writeCtx.guess): the statement answers nothing and fails the write when a list
// stops being kept or loses a value (sqldb.WriteAgain), so it may go with the commit.
func (tx *Tx) sendKept(rs *stored.Sheet, vd *valueDelta, guess bool) error {
	if vd == nil || !rs.Dialect.RoundTrips() {
		return nil
	}
	kept := vd.keptChanges(rs)
	if len(kept) == 0 {
		return nil
	}
	r := &keptReply{stop: map[int]int{}}
	for len(kept) > 0 {
		chunk := kept[:min(len(kept), 500)]
		kept = kept[len(chunk):]
		args := make([]any, 0, 4*len(chunk)+2)
		for _, k := range chunk {
			args = append(args, k.col, k.v, k.c.total, k.c.valid)
		}
		args = append(args, rs.SK, rs.SK)
		if guess {
			if err := tx.Later("write value lists", keptSQL(len(chunk), true), append(args, valueListMax, valueListBytes)...); err != nil {
				return err
			}
			continue
		}
		err := tx.LaterRows("write value lists", keptSQL(len(chunk), false), func(scan func(...any) error) error {
			var kind, col int
			var v string
			var a, b int64
			if err := scan(&kind, &col, &v, &a, &b); err != nil {
				return err
			}
			switch {
			case kind == 1: // a list's new size
				if tooBigToKeep(a, b) {
					r.stop[col] = valuesTooMany
				}
			case countsBroken(a, b): // total, valid
				r.stop[col] = valuesDropped
			case a == 0:
				r.gone = append(r.gone, col, v)
			}
			return nil
		}, args...)
		if err != nil {
			return err
		}
	}
	r.guessed = guess
	vd.sent = r
	return nil
}

// keptSQL is sendKept's statement for n changed values: the upsert of their counts, then
// each list's size moved by the values it gained (a row whose total is the change's: no
// row holds 0) and lost (total 0), except in lists whose counts stopped adding up. It
// answers the values left at 0 and the rows of lists that do not add up (kind 0: col, v,
// total, valid), and the new sizes (kind 1: col, n, bytes). applyKept is the same in two
// statements and Go. guess: it answers nothing, and fails the transaction (sqldb.WriteAgain)
// where it would answer a row kind 0 or a size past the limits (two more arguments).
func keptSQL(n int, guess bool) string {
	upsert := `WITH d (col, v, total, valid) AS (VALUES ` + strings.TrimSuffix(strings.Repeat(`(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT)), `, n), ", ") + `),
	up AS (INSERT INTO kept_values (sk, col, v, total, valid) SELECT CAST(? AS BIGINT), col, v, total, valid FROM d
		ON CONFLICT (sk, col, v) DO UPDATE SET total = kept_values.total + excluded.total, valid = kept_values.valid + excluded.valid
		RETURNING col, v, total, valid),
	j AS (SELECT up.col, up.v, up.total, up.valid, d.total AS dt FROM up JOIN d ON d.col = up.col AND d.v = up.v),
	bad AS (SELECT DISTINCT col FROM j WHERE total < 0 OR valid < 0 OR valid > total),
	g AS (SELECT col, sum(CASE WHEN total = 0 THEN -1 WHEN total = dt AND dt > 0 THEN 1 ELSE 0 END) AS n,
		sum(CASE WHEN total = 0 THEN -octet_length(v) WHEN total = dt AND dt > 0 THEN octet_length(v) ELSE 0 END) AS b
		FROM j WHERE col NOT IN (SELECT col FROM bad) GROUP BY col),
	sz AS (UPDATE record_values rv SET n = rv.n + g.n, bytes = rv.bytes + g.b FROM g
		WHERE rv.sk = CAST(? AS BIGINT) AND rv.col = g.col AND (g.n <> 0 OR g.b <> 0) RETURNING rv.col, rv.n, rv.bytes)`
	if guess {
		return upsert + `
	SELECT ` + sqldb.WriteAgainSQL("value lists") + ` FROM (SELECT 1 FROM j WHERE total = 0 OR col IN (SELECT col FROM bad)
		UNION ALL SELECT 1 FROM sz WHERE n > CAST(? AS BIGINT) OR bytes > CAST(? AS BIGINT)) AS x LIMIT 1`
	}
	return upsert + `
	SELECT 0, col, v, total, valid FROM j WHERE total = 0 OR col IN (SELECT col FROM bad)
	UNION ALL SELECT 1, col, '', n, bytes FROM sz`
}

// keptChange is what a write changes in the kept list at col: value v's counts.
type keptChange struct {
	col int
	v   string
	c   *valueCount
}

// applyKept writes the changes to the kept lists of every field in one upsert, then their
// sizes in one update: a write of a sheet under 4,096 records no longer reads and rewrites
// each field's whole list. A value left with no record goes; a list that would pass the
// limits stops being kept; one whose counts do not add up (a value removed that it does not
// hold) is dropped, to be counted again when next asked.
func (tx *Tx) applyKept(rs *stored.Sheet, vd *valueDelta, kept []keptChange) error {
	if len(kept) == 0 {
		return nil
	}
	type key struct {
		col int
		v   string
	}
	byKey := make(map[key]*keptChange, len(kept))
	for k := range kept {
		byKey[key{kept[k].col, kept[k].v}] = &kept[k]
	}
	type size struct{ n, bytes int64 }
	grow := map[int]*size{} // by col
	stop := map[int]int{}   // lists to stop keeping, by col: valuesTooMany or valuesDropped
	var gone []any
	for len(kept) > 0 {
		chunk := kept[:min(len(kept), 500)]
		kept = kept[len(chunk):]
		args := make([]any, 0, 5*len(chunk))
		for _, k := range chunk {
			args = append(args, rs.SK, k.col, k.v, k.c.total, k.c.valid)
		}
		err := sqldb.EachRow(tx.Context(), tx, "write value lists", `INSERT INTO kept_values (sk, col, v, total, valid) VALUES `+
			sqldb.Tuples(len(chunk), 5)+`
			ON CONFLICT (sk, col, v) DO UPDATE SET total = kept_values.total + excluded.total, valid = kept_values.valid + excluded.valid
			RETURNING col, v, total, valid`, args, func(rows *sql.Rows) error {
			var col int
			var v string
			var total, valid int64
			if err := rows.Scan(&col, &v, &total, &valid); err != nil {
				return err
			}
			k := byKey[key{col, v}]
			if k == nil {
				return nil
			}
			g := grow[col]
			if g == nil {
				g = &size{}
				grow[col] = g
			}
			switch {
			case countsBroken(total, valid):
				stop[col] = valuesDropped
			case total == 0:
				g.n, g.bytes = g.n-1, g.bytes-int64(len(v))
				gone = append(gone, col, v)
			case total == k.c.total && k.c.total > 0: // a value new to the list (no row holds 0)
				g.n, g.bytes = g.n+1, g.bytes+int64(len(v))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	var cases []string
	var nArgs, bytesArgs, cols []any
	for col, g := range grow {
		if _, stopped := stop[col]; stopped || (g.n == 0 && g.bytes == 0) {
			continue
		}
		cases = append(cases, `WHEN ? THEN CAST(? AS BIGINT)`)
		nArgs, bytesArgs, cols = append(nArgs, col, g.n), append(bytesArgs, col, g.bytes), append(cols, col)
	}
	if len(cols) > 0 {
		args := append(append(append(nArgs, bytesArgs...), rs.SK), cols...)
		err := sqldb.EachRow(tx.Context(), tx, "write value lists", `UPDATE record_values SET n = n + CASE col `+strings.Join(cases, " ")+` END,
			bytes = bytes + CASE col `+strings.Join(cases, " ")+` END WHERE sk = ? AND col IN (`+sqldb.Placeholders(len(cols))+`) RETURNING col, n, bytes`,
			args, func(rows *sql.Rows) error {
				var col int
				var n, bytes int64
				if err := rows.Scan(&col, &n, &bytes); err != nil {
					return err
				}
				if tooBigToKeep(n, bytes) {
					stop[col] = valuesTooMany
				}
				return nil
			})
		if err != nil {
			return err
		}
	}
	return tx.endKept(rs, vd, &keptReply{gone: gone, stop: stop})
}

// endKept removes the values that left their lists and stops keeping the lists r names.
func (tx *Tx) endKept(rs *stored.Sheet, vd *valueDelta, r *keptReply) error {
	if r.guessed {
		return nil // (nothing to read: the statement may go with the commit)
	}
	if err := tx.Flush(); err != nil { // (sendKept's statement, if nothing sent it yet)
		return err
	}
	for gone := r.gone; len(gone) > 0; {
		chunk := gone[:min(len(gone), 1000)]
		gone = gone[len(chunk):]
		if err := tx.Later("write value lists", `DELETE FROM kept_values WHERE sk = ? AND (`+strings.TrimSuffix(strings.Repeat("(col = ? AND v = ?) OR ", len(chunk)/2), " OR ")+`)`,
			append([]any{rs.SK}, chunk...)...); err != nil {
			return err
		}
	}
	for i := range vd.at {
		col := rs.Layout.Cols[i]
		state, stopped := r.stop[col]
		if !stopped {
			continue
		}
		if err := tx.stopKeeping(rs.SK, col, state); err != nil {
			return err
		}
		vd.at[i] = nil
	}
	return nil
}

// stopKeeping ends the kept list at col: state valuesTooMany (too many values to keep) or
// valuesDropped (its counts stopped adding up: not known, counted again when next asked).
func (tx *Tx) stopKeeping(sk int64, col int, state int) error {
	q := `UPDATE record_values SET state = ?, n = 0, bytes = 0 WHERE sk = ? AND col = ?`
	args := []any{state, sk, col}
	if state == valuesDropped {
		q, args = `DELETE FROM record_values WHERE sk = ? AND col = ?`, []any{sk, col}
	}
	if _, err := tx.Exec(q, args...); err != nil {
		return errs.Wrap(err, "stop keeping a value list")
	}
	if _, err := tx.Exec(`DELETE FROM kept_values WHERE sk = ? AND col = ?`, sk, col); err != nil {
		return errs.Wrap(err, "stop keeping a value list")
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
	for _, table := range []string{"record_values", "kept_values", "value_counts"} {
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
	var gen int64
	err := rc.q.QueryRowContext(rc.ctx, `SELECT state, gen FROM record_values WHERE sk = ? AND col = ?`, rs.SK, col).Scan(&state, &gen)
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
	err = sqldb.EachRow(rc.ctx, rc.q, "read value list", `SELECT v, total, valid FROM kept_values WHERE sk = ? AND col = ?`, []any{rs.SK, col}, func(rows *sql.Rows) error {
		var v string
		var total, valid int64
		if err := rows.Scan(&v, &total, &valid); err != nil {
			return err
		}
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
		return nil, notKept, err
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
	var n, bytes int64
	for v, c := range d {
		if countsBroken(c.total, c.valid) {
			return nil // odd counts: stays counted when asked
		}
		if c.total > 0 {
			n, bytes = n+1, bytes+int64(len(v))
		}
	}
	if tooBigToKeep(n, bytes) {
		return nil // too many to keep: stays counted when asked
	}
	res, err := tx.Exec(`INSERT INTO record_values (sk, col, state, list, n, bytes) SELECT ?, ?, ?, ?, ?, ?
		WHERE EXISTS (SELECT 1 FROM record_sheets WHERE sk = ? AND changes = ?)
		ON CONFLICT (sk, col) DO UPDATE SET state = excluded.state, list = excluded.list, n = excluded.n, bytes = excluded.bytes`,
		sk, col, valuesKept, []byte{}, n, bytes, sk, changes)
	if err != nil {
		return errs.Wrap(err, "keep value list")
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return nil // a write came between
	}
	if _, err := tx.Exec(`DELETE FROM kept_values WHERE sk = ? AND col = ?`, sk, col); err != nil {
		return errs.Wrap(err, "keep value list")
	}
	rows := make([]any, 0, 5*len(d))
	for v, c := range d {
		if c.total > 0 {
			rows = append(rows, sk, col, v, c.total, c.valid)
		}
	}
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), 5*500)]
		rows = rows[len(chunk):]
		if _, err := tx.Exec(`INSERT INTO kept_values (sk, col, v, total, valid) VALUES `+sqldb.Tuples(len(chunk)/5, 5), chunk...); err != nil {
			return errs.Wrap(err, "keep value list")
		}
	}
	return nil
}
