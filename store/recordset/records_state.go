package recordset

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
)

// recState is a record as the write path holds it.
type recState struct {
	rid   int64
	row   records.Row
	msgs  records.Cells // Sluice's own messages, by rule index
	umsgs records.Cells // agents' messages, by rule index
	rmsgs []records.Message
	lays  []string        // layer of each cell by rule index; nil: all in the base layer
	meta  json.RawMessage // nil: none
	cfg   json.RawMessage // nil: none
	dups  []int64         // unique rules the record breaks, sorted
	efs   []string        // keys of fields with an error outside unique rules; "" marks a record-level error
	valid bool
	enc   string // the row already encoded, when it will not change again
	// encKinds is the kinds of enc's tokens + 1 (0: not worked out with it), taken beside it
	encKinds int64
	// preCounted: the values were counted ahead for the kept value lists (preTally), as a
	// valid record or not (preValid).
	preCounted, preValid bool
	// ukeys are the row's unique keys by rule, when computed ahead (uhas false: not taking part).
	ukeys []string
	uhas  []bool
	line  int // the row of the file it was read from (Lines), 0: none
}

// uniqueKey is the row's key for rule number ui of the schema.
func (st *recState) uniqueKey(u *records.Unique, ui int) (string, bool) {
	if st.uhas != nil {
		return st.ukeys[ui], st.uhas[ui]
	}
	return u.UniqueKey(st.row)
}

// precomputeKeys works out the row's unique keys ahead of the write (rows that will not
// change before it).
func (st *recState) precomputeKeys(s *records.Schema) {
	st.ukeys, st.uhas = make([]string, len(s.Uniques)), make([]bool, len(s.Uniques))
	for i, u := range s.Uniques {
		st.ukeys[i], st.uhas[i] = u.UniqueKey(st.row)
	}
}

const efsSep = "\x1f"

// encodeEFS stores error field keys as x1f k1 x1f k2 x1f, so a key is found with instr.
func encodeEFS(keys []string) any {
	if len(keys) == 0 {
		return nil
	}
	return efsSep + strings.Join(keys, efsSep) + efsSep
}

func decodeEFS(s sql.NullString) []string {
	if !s.Valid || len(s.String) < 2 {
		return nil
	}
	return strings.Split(s.String[1:len(s.String)-1], efsSep)
}

// encodeDups stores rule ids as ,a,b, so one is found with instr(dups, ',a,').
func encodeDups(ucs []int64) any {
	if len(ucs) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteByte(',')
	for _, uc := range ucs {
		b.WriteString(strconv.FormatInt(uc, 10))
		b.WriteByte(',')
	}
	return b.String()
}

func decodeDups(s sql.NullString) []int64 {
	if !s.Valid {
		return nil
	}
	var out []int64
	for _, p := range strings.Split(strings.Trim(s.String, ","), ",") {
		if n, err := strconv.ParseInt(p, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func hasError(ms []records.Message) bool {
	for _, m := range ms {
		if m.Type == records.LevelError || m.Type == "" {
			return true
		}
	}
	return false
}

// settle derives efs from the messages; valid needs dups set first.
func (rs *recSheet) settle(st *recState) {
	st.efs = st.efs[:0]
	for i, r := range rs.Schema.Rules {
		if (st.msgs != nil && hasError(st.msgs[i])) || (st.umsgs != nil && hasError(st.umsgs[i])) {
			st.efs = append(st.efs, r.Key)
		}
	}
	if hasError(st.rmsgs) {
		st.efs = append(st.efs, "")
	}
	st.valid = rs.validOf(st.efs, st.dups)
}

// validOf is the record validity from its error fields and broken unique rules.
func (rs *recSheet) validOf(efs []string, dups []int64) bool {
	if len(efs) > 0 {
		return false
	}
	for _, uc := range dups {
		if u := rs.byUC[uc]; u != nil && u.Level == records.LevelError {
			return false
		}
	}
	return true
}

// errorKeys lists the field keys that count as in error for the counts.
func (rs *recSheet) errorKeys(efs []string, dups []int64) []string {
	if len(efs) == 0 && len(dups) == 0 {
		return nil
	}
	out := make([]string, 0, len(efs)+len(dups))
	seen := map[string]bool{}
	for _, k := range efs {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, uc := range dups {
		u := rs.byUC[uc]
		if u == nil || u.Level != records.LevelError {
			continue
		}
		for _, i := range u.Fields {
			if k := rs.Schema.Rules[i].Key; !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// countDelta accumulates changes to a sheet's counts during a write.
type countDelta struct {
	total, valid int64
	shape        int64 // 1 when records are added or removed (record_sheets.shape)
	errors       map[string]int64
	empties      map[string]int64
	emptyAt      []int64 // empties by rule index, folded into empties when applied
	values       *valueDelta
}

func newCountDelta() *countDelta {
	return &countDelta{errors: map[string]int64{}, empties: map[string]int64{}}
}

// tally adds (sign 1) or removes (sign -1) a full record's contribution.
func (d *countDelta) tally(rs *recSheet, st *recState, sign int64) {
	d.total += sign
	d.tallyStatus(rs, st.efs, st.dups, sign)
	d.values.tally(st.row, rs.validOf(st.efs, st.dups), sign, sign > 0 && st.preCounted)
	if d.emptyAt == nil {
		d.emptyAt = make([]int64, len(rs.Schema.Rules))
	}
	for i, v := range st.row {
		if records.IsEmpty(v) {
			d.emptyAt[i] += sign
		}
	}
}

// tallyStatus adds or removes the validity and error-field part only.
func (d *countDelta) tallyStatus(rs *recSheet, efs []string, dups []int64, sign int64) {
	if rs.validOf(efs, dups) {
		d.valid += sign
	}
	for _, k := range rs.errorKeys(efs, dups) {
		d.errors[k] += sign
	}
}

// apply writes the delta to the counts tables.
func (tx *Tx) applyCounts(rs *recSheet, d *countDelta) error {
	tx.touchRecords(rs.sk)
	if err := tx.applyValues(rs, d.values); err != nil {
		return err
	}
	p := tx.sheetPatch(rs.sk)
	if err := tx.QueryRow(`UPDATE record_sheets SET total = total + ?, valid = valid + ?, shape = shape + ?, changes = changes + 1 WHERE sk = ? RETURNING changes`, d.total, d.valid, d.shape, rs.sk).Scan(&p.changes); err != nil {
		return errs.Wrap(err, "update counts")
	}
	p.bumps++
	rs.total += d.total
	for i, n := range d.emptyAt {
		if n != 0 {
			d.empties[rs.Schema.Rules[i].Key] += n
		}
	}
	d.emptyAt = nil
	keys := make([]string, 0, len(d.errors)+len(d.empties))
	for k := range d.errors {
		keys = append(keys, k)
	}
	for k := range d.empties {
		if _, ok := d.errors[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		e, m := d.errors[k], d.empties[k]
		if e == 0 && m == 0 {
			continue
		}
		_, err := tx.Exec(`INSERT INTO record_field_counts (sk, field_key, errors, empties) VALUES (?, ?, ?, ?)
			ON CONFLICT (sk, field_key) DO UPDATE SET errors = record_field_counts.errors + excluded.errors, empties = record_field_counts.empties + excluded.empties`, rs.sk, k, e, m)
		if err != nil {
			return errs.Wrap(err, "update field counts")
		}
	}
	return nil
}

// recExtra is the x column: what most records do not have.
type recExtra struct {
	M    map[string][]records.Message `json:"m,omitempty"`
	U    map[string][]records.Message `json:"u,omitempty"`
	R    []records.Message            `json:"r,omitempty"`
	L    map[string]string            `json:"l,omitempty"`
	Meta json.RawMessage              `json:"meta,omitempty"`
	Cfg  json.RawMessage              `json:"cfg,omitempty"`
}

// encodeExtra stores a state's messages, metadata and config; nil when it has none.
func (rs *recSheet) encodeExtra(st *recState) any {
	x := recExtra{M: rs.cellMap(st.msgs), U: rs.cellMap(st.umsgs), R: st.rmsgs, L: rs.layerMap(st.lays), Meta: st.meta, Cfg: st.cfg}
	if x.M == nil && x.U == nil && len(x.R) == 0 && x.L == nil && len(x.Meta) == 0 && len(x.Cfg) == 0 {
		return nil
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// decodeExtra fills a state from the x column.
func (rs *recSheet) decodeExtra(s sql.NullString, st *recState) {
	if !s.Valid || s.String == "" {
		return
	}
	var x recExtra
	if json.Unmarshal([]byte(s.String), &x) != nil {
		return
	}
	st.msgs, st.umsgs, st.rmsgs = rs.cells(x.M), rs.cells(x.U), x.R
	st.lays = rs.layers(x.L)
	if len(x.Meta) > 0 {
		st.meta = x.Meta
	}
	if len(x.Cfg) > 0 {
		st.cfg = x.Cfg
	}
}

// cellMap keys messages by field; nil when there are none.
func (rs *recSheet) cellMap(c records.Cells) map[string][]records.Message {
	var m map[string][]records.Message
	for i, ms := range c {
		if len(ms) > 0 {
			if m == nil {
				m = map[string][]records.Message{}
			}
			m[rs.Schema.Rules[i].Key] = ms
		}
	}
	return m
}

// layerMap keys the cells' layers by field; nil when every cell is in the base layer.
func (rs *recSheet) layerMap(lays []string) map[string]string {
	var m map[string]string
	for i, l := range lays {
		if l != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[rs.Schema.Rules[i].Key] = l
		}
	}
	return m
}

// layers aligns layers keyed by field with the rules.
func (rs *recSheet) layers(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, len(rs.Schema.Rules))
	for k, l := range m {
		if i, ok := rs.Schema.Index(k); ok {
			out[i] = l
		}
	}
	return out
}

// setLayer puts cell i in layer l.
func (st *recState) setLayer(n, i int, l string) {
	if st.lays == nil {
		if l == "" {
			return
		}
		st.lays = make([]string, n)
	}
	st.lays[i] = l
}

// cells aligns messages keyed by field with the rules; keys no longer in the schema are dropped.
func (rs *recSheet) cells(m map[string][]records.Message) records.Cells {
	if len(m) == 0 {
		return nil
	}
	out := make(records.Cells, len(rs.Schema.Rules))
	for k, ms := range m {
		if i, ok := rs.Schema.Index(k); ok {
			out[i] = ms
		}
	}
	return out
}

// stateColumns are the columns scanState reads, in order.
const stateColumns = `rid, vals, x, efs, dups, valid`

// scanState reads one record row in stateColumns order.
func (rs *recSheet) scanState(sc sqldb.Scanner) (*recState, error) {
	var st recState
	var vals string
	var x, efs, dups sql.NullString
	var valid int
	if err := sc.Scan(&st.rid, &vals, &x, &efs, &dups, &valid); err != nil {
		return nil, errs.Wrap(err, "scan record")
	}
	return rs.buildState(st.rid, vals, x, efs, dups, valid)
}

// buildState makes a state from stored columns.
func (rs *recSheet) buildState(rid int64, vals string, x, efs, dups sql.NullString, valid int) (*recState, error) {
	row, err := rs.decode([]byte(vals))
	if err != nil {
		return nil, err
	}
	st := &recState{rid: rid, row: row, valid: valid == 1}
	rs.decodeExtra(x, st)
	st.efs, st.dups = decodeEFS(efs), decodeDups(dups)
	return st, nil
}

// loadStates reads the records with the given keys; keys not found are left out.
func (tx *Tx) loadStates(rs *recSheet, rids []int64) (map[int64]*recState, error) {
	out := make(map[int64]*recState, len(rids))
	err := sqldb.EachRow(tx.Context(), tx, "load records", `SELECT `+stateColumns+` FROM records WHERE rid IN (SELECT CAST(value AS BIGINT) FROM `+tx.Dialect().JSONTexts("?")+`)`,
		[]any{ridsJSON(rids)}, func(rows *sql.Rows) error {
			st, err := rs.scanState(rows)
			if err == nil {
				out[st.rid] = st
			}
			return err
		})
	return out, err
}

// ridsJSON encodes record keys as a JSON array, so one parameter can carry any number of
// them: rid IN (SELECT CAST(value AS BIGINT) FROM <dialect.JSONTexts("?")>).
func ridsJSON(rids []int64) string {
	b := make([]byte, 0, 2+20*len(rids))
	b = append(b, '[')
	for i, r := range rids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, r, 10)
	}
	return string(append(b, ']'))
}

// queryRids runs a query whose rows are single record keys.
func queryRids(ctx context.Context, q sqldb.Querier, what, query string, args ...any) ([]int64, error) {
	var out []int64
	err := sqldb.EachRow(ctx, q, what, query, args, func(rows *sql.Rows) error {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			return errs.Wrap(err, "%s", what)
		}
		out = append(out, rid)
		return nil
	})
	return out, err
}

// tuples returns n groups "(?, …)" of width parameters each, for a multi-row VALUES.
func tuples(n, width int) string {
	if n <= 0 {
		return ""
	}
	t := "(" + sqldb.Placeholders(width) + ")"
	return strings.Repeat(t+", ", n-1) + t
}
