package stored

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/sqldb"
)

// State is a record as the write path holds it.
type State struct {
	RID   int64
	Row   records.Row
	Msgs  records.Cells // Sluice's own messages, by rule index
	UMsgs records.Cells // agents' messages, by rule index
	RMsgs []records.Message
	Lays  []string        // layer of each cell by rule index; nil: all in the base layer
	Meta  json.RawMessage // nil: none
	Cfg   json.RawMessage // nil: none
	Dups  []int64         // unique rules the record breaks, sorted
	EFS   []string        // keys of fields with an error outside unique rules; "" marks a record-level error
	Valid bool
	Enc   string // the row already encoded, when it will not change again
	// EncKinds is the kinds of enc's tokens + 1 (0: not worked out with it), taken beside it
	EncKinds int64
	// preCounted: the values were counted ahead for the kept value lists (preTally), as a
	// valid record or not (preValid).
	PreCounted, PreValid bool
	// UKeys are the row's unique keys by rule, when computed ahead (uhas false: not taking part).
	UKeys []string
	UHas  []bool
	Line  int // the row of the file it was read from (Lines), 0: none
}

// UniqueKey is the row's key for rule number ui of the schema.
func (st *State) UniqueKey(u *records.Unique, ui int) (string, bool) {
	if st.UHas != nil {
		return st.UKeys[ui], st.UHas[ui]
	}
	return u.UniqueKey(st.Row)
}

// PrecomputeKeys works out the row's unique keys ahead of the write (rows that will not
// change before it).
func (st *State) PrecomputeKeys(s *records.Schema) {
	st.UKeys, st.UHas = make([]string, len(s.Uniques)), make([]bool, len(s.Uniques))
	for i, u := range s.Uniques {
		st.UKeys[i], st.UHas[i] = u.UniqueKey(st.Row)
	}
}

const EFSSep = "\x1f"

// EncodeEFS stores error field keys as x1f k1 x1f k2 x1f, so a key is found with instr.
func EncodeEFS(keys []string) any {
	if len(keys) == 0 {
		return nil
	}
	return EFSSep + strings.Join(keys, EFSSep) + EFSSep
}

func DecodeEFS(s sql.NullString) []string {
	if !s.Valid || len(s.String) < 2 {
		return nil
	}
	return strings.Split(s.String[1:len(s.String)-1], EFSSep)
}

// EncodeDups stores rule ids as ,a,b, so one is found with instr(dups, ',a,').
func EncodeDups(ucs []int64) any {
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

func DecodeDups(s sql.NullString) []int64 {
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

func HasError(ms []records.Message) bool {
	for _, m := range ms {
		if m.Type == records.LevelError || m.Type == "" {
			return true
		}
	}
	return false
}

// Settle derives efs from the messages; valid needs dups set first.
func (rs *Sheet) Settle(st *State) {
	st.EFS = st.EFS[:0]
	for i, r := range rs.Schema.Rules {
		if (st.Msgs != nil && HasError(st.Msgs[i])) || (st.UMsgs != nil && HasError(st.UMsgs[i])) {
			st.EFS = append(st.EFS, r.Key)
		}
	}
	if HasError(st.RMsgs) {
		st.EFS = append(st.EFS, "")
	}
	st.Valid = rs.ValidOf(st.EFS, st.Dups)
}

// ValidOf is the record validity from its error fields and broken unique rules.
func (rs *Sheet) ValidOf(efs []string, dups []int64) bool {
	if len(efs) > 0 {
		return false
	}
	for _, uc := range dups {
		if u := rs.ByUC[uc]; u != nil && u.Level == records.LevelError {
			return false
		}
	}
	return true
}

// ErrorKeys lists the field keys that count as in error for the counts.
func (rs *Sheet) ErrorKeys(efs []string, dups []int64) []string {
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
		u := rs.ByUC[uc]
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

// recExtra is the x column: what most records do not have.
type recExtra struct {
	M    map[string][]records.Message `json:"m,omitempty"`
	U    map[string][]records.Message `json:"u,omitempty"`
	R    []records.Message            `json:"r,omitempty"`
	L    map[string]string            `json:"l,omitempty"`
	Meta json.RawMessage              `json:"meta,omitempty"`
	Cfg  json.RawMessage              `json:"cfg,omitempty"`
}

// EncodeExtra stores a state's messages, metadata and config; nil when it has none.
func (rs *Sheet) EncodeExtra(st *State) any {
	x := recExtra{M: rs.cellMap(st.Msgs), U: rs.cellMap(st.UMsgs), R: st.RMsgs, L: rs.layerMap(st.Lays), Meta: st.Meta, Cfg: st.Cfg}
	if x.M == nil && x.U == nil && len(x.R) == 0 && x.L == nil && len(x.Meta) == 0 && len(x.Cfg) == 0 {
		return nil
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// DecodeExtra fills a state from the x column.
func (rs *Sheet) DecodeExtra(s sql.NullString, st *State) {
	if !s.Valid || s.String == "" {
		return
	}
	var x recExtra
	if json.Unmarshal([]byte(s.String), &x) != nil {
		return
	}
	st.Msgs, st.UMsgs, st.RMsgs = rs.cells(x.M), rs.cells(x.U), x.R
	st.Lays = rs.layers(x.L)
	if len(x.Meta) > 0 {
		st.Meta = x.Meta
	}
	if len(x.Cfg) > 0 {
		st.Cfg = x.Cfg
	}
}

// cellMap keys messages by field; nil when there are none.
func (rs *Sheet) cellMap(c records.Cells) map[string][]records.Message {
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
func (rs *Sheet) layerMap(lays []string) map[string]string {
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
func (rs *Sheet) layers(m map[string]string) []string {
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

// SetLayer puts cell i in layer l.
func (st *State) SetLayer(n, i int, l string) {
	if st.Lays == nil {
		if l == "" {
			return
		}
		st.Lays = make([]string, n)
	}
	st.Lays[i] = l
}

// cells aligns messages keyed by field with the rules; keys no longer in the schema are dropped.
func (rs *Sheet) cells(m map[string][]records.Message) records.Cells {
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

// StateColumns are the columns ScanState reads, in order.
const StateColumns = `rid, vals, x, efs, dups, valid`

// ScanState reads one record row in StateColumns order.
func (rs *Sheet) ScanState(sc sqldb.Scanner) (*State, error) {
	var st State
	var vals string
	var x, efs, dups sql.NullString
	var valid int
	if err := sc.Scan(&st.RID, &vals, &x, &efs, &dups, &valid); err != nil {
		return nil, errs.Wrap(err, "scan record")
	}
	return rs.buildState(st.RID, vals, x, efs, dups, valid)
}

// buildState makes a state from stored columns.
func (rs *Sheet) buildState(rid int64, vals string, x, efs, dups sql.NullString, valid int) (*State, error) {
	row, err := rs.Decode([]byte(vals))
	if err != nil {
		return nil, err
	}
	st := &State{RID: rid, Row: row, Valid: valid == 1}
	rs.DecodeExtra(x, st)
	st.EFS, st.Dups = DecodeEFS(efs), DecodeDups(dups)
	return st, nil
}

// RIDsJSON encodes record keys as a JSON array, so one parameter can carry any number of
// them: Dialect.InInts("rid", "?").
func RIDsJSON(rids []int64) string {
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

// QueryRIDs runs a query whose rows are single record keys.
func QueryRIDs(ctx context.Context, q sqldb.Querier, what, query string, args ...any) ([]int64, error) {
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
