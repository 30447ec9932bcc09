package recordset

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/sqldb"
)

// A record's values are stored as a JSON array: the value of each field sits at the
// position the sheet's column registry (record_columns) gave that field, empty cells are
// null and trailing ones are left out. Compared with an object keyed by field, rows are
// about a third smaller, and no field key ever appears in a JSON path. Positions are never
// reused: a dropped field's position is retired (values left there are ignored and vanish
// when the record is next written), so a field added again starts empty, while snapshots,
// which remember the key of every position, still restore what it held.

// layout maps a sheet's fields to value positions.
type layout struct {
	cols   []int          // rule index → position, -1 while the field has none
	byCol  map[int]int    // position → rule index, for fields in the schema
	keyOf  map[int]string // position → field key, also of retired positions
	next   int            // the next free position
	retire []int          // live positions of fields the schema dropped
}

// settled reports whether the stored arrays hold values of the schema's fields only: the
// write that retires a dropped field's position rewrites every record (revalidate), and
// reads revalidate a sheet whose schema changed first, but a read inside a write may come
// before that.
func (l *layout) settled() bool { return len(l.retire) == 0 }

// loadLayout reads the sheet's column registry.
func (rs *recSheet) loadLayout(ctx context.Context, q sqldb.Querier) error {
	l := &layout{cols: make([]int, len(rs.Schema.Rules)), byCol: map[int]int{}, keyOf: map[int]string{}}
	for i := range l.cols {
		l.cols[i] = -1
	}
	rs.layout = l
	if rs.sk == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT col, field_key, retired FROM record_columns WHERE sk = ?`, rs.sk)
	if err != nil {
		return errs.Wrap(err, "load record columns")
	}
	defer rows.Close()
	for rows.Next() {
		var col, retired int
		var key string
		if err := rows.Scan(&col, &key, &retired); err != nil {
			return errs.Wrap(err, "scan record column")
		}
		l.keyOf[col] = key
		l.next = max(l.next, col+1)
		if retired == 1 {
			continue
		}
		if i, ok := rs.Schema.Index(key); ok {
			l.cols[i], l.byCol[col] = col, i
		} else {
			l.retire = append(l.retire, col)
		}
	}
	return rows.Err()
}

// assignColumns retires the positions of dropped fields and gives every field of the
// schema a position.
func (tx *Tx) assignColumns(rs *recSheet) error {
	l := rs.layout
	for _, col := range l.retire {
		if _, err := tx.Exec(`UPDATE record_columns SET retired = 1 WHERE sk = ? AND col = ?`, rs.sk, col); err != nil {
			return errs.Wrap(err, "retire record column")
		}
		tables := []string{"record_values", "value_counts"}
		if rs.d.KeepsTallyPacks() {
			tables = append(tables, "tally_packs")
		}
		for _, table := range tables {
			if _, err := tx.Exec(`DELETE FROM `+table+` WHERE sk = ? AND col = ?`, rs.sk, col); err != nil {
				return errs.Wrap(err, "retire value list")
			}
		}
	}
	l.retire = nil
	for i, col := range l.cols {
		if col >= 0 {
			continue
		}
		col = l.next
		key := rs.Schema.Rules[i].Key
		if _, err := tx.Exec(`INSERT INTO record_columns (sk, col, field_key) VALUES (?, ?, ?)`, rs.sk, col, key); err != nil {
			return errs.Wrap(err, "add record column")
		}
		if err := tx.keepNewColumn(rs.sk, col); err != nil {
			return err
		}
		l.cols[i], l.byCol[col], l.keyOf[col] = col, i, key
		l.next++
	}
	return nil
}

// Kinds of token in a record's stored values (records.kinds, which may say more than the
// record holds: insertPlain): the first four are where a search's first pass, over the
// values' JSON text, can match while no value's text does (firstPassTrusted); with the
// other two, they tell a record of plain text alone (kindsNotText).
const (
	kindEscape  = 1 << iota // a backslash: a string with an escaped character
	kindNull                // an empty cell before the last value: null, whose text is none
	kindBool                // true or false (their text on SQLite: 1 and 0)
	kindNumber              // a number SQLite writes otherwise as text: a fraction or an exponent (12.50 as 12.5), -0, more than 18 digits
	kindInteger             // another number
	kindList                // a list or an object
	// kindQuoteEscapes: with kindEscape, every escape in the record is \" or \\ (an escaped
	// quote or backslash), which no needle a first pass is trusted with can match a part of
	// (firstPassTrusted): the record's first pass is trusted as one without escapes. A bit
	// set rather than one for the other escapes, so records written before it are tested
	// as before.
	kindQuoteEscapes
	// kindLetterEscape is valueKinds' note of another escape (\n, \t, \u0001 …); settled
	// into the absence of kindQuoteEscapes, never stored.
	kindLetterEscape
	// kindsNotText are the kinds a record of plain text alone (strings without an escape,
	// and empty cells) has none of: PostgreSQL's tally and tallied sort take its values'
	// text (->>) as their JSON text once quoted.
	kindsNotText = kindEscape | kindBool | kindNumber | kindInteger | kindList
	// kindsAll is every kind stored at once.
	kindsAll = kindQuoteEscapes<<1 - 1
)

// kinds returns the kinds of token in the stored form of row (encode's).
func (rs *recSheet) kinds(row records.Row) int64 {
	l := rs.layout
	var k int64
	last, n := -1, 0
	for i, v := range row {
		if v == nil || l.cols[i] < 0 {
			continue
		}
		last, n = max(last, l.cols[i]), n+1
		k |= valueKinds(v)
	}
	if n < last+1 {
		k |= kindNull
	}
	return settleKinds(k)
}

// lacksKinds is the SQL condition that a record's kinds hold none of mask, an escape of
// quotes and backslashes alone (kindQuoteEscapes) not counting as kindEscape.
func lacksKinds(mask int64) string {
	return `(r.kinds & ` + strconv.FormatInt(mask|kindQuoteEscapes, 10) + `) IN (0, ` + strconv.Itoa(kindEscape|kindQuoteEscapes) + `)`
}

// settleKinds turns the kinds of a record's values, put together, into the record's: it
// has kindQuoteEscapes only if none of its values has another escape.
func settleKinds(k int64) int64 {
	if k&kindLetterEscape != 0 {
		k &^= kindQuoteEscapes | kindLetterEscape
	}
	return k
}

// unionKinds is the kinds of two records together (insertPlain's statements say their
// rows' union): kindQuoteEscapes only if every one with an escape has it.
func unionKinds(a, b int64) int64 {
	u := a | b
	for _, k := range []int64{a, b} {
		if k&kindEscape != 0 && k&kindQuoteEscapes == 0 {
			u &^= kindQuoteEscapes
		}
	}
	return u
}

// valueKinds is the kinds of token in a value (not empty) as stored.
func valueKinds(v []byte) int64 {
	var k int64
	switch c := v[0]; {
	case c == '"' || c == '[' || c == '{':
		if c != '"' {
			k = kindList
		}
		if bytes.IndexByte(v, '\\') >= 0 {
			k |= kindEscape | escapesKind(v)
		}
	case c == 't' || c == 'f':
		k = kindBool
	case bytes.ContainsAny(v, ".eE") || len(bytes.TrimPrefix(v, []byte("-"))) > 18 || string(v) == "-0":
		k = kindNumber
	default:
		k = kindInteger
	}
	return k
}

// escapesKind is kindQuoteEscapes when every escape in v (JSON text) is \" or \\, and
// kindLetterEscape otherwise.
func escapesKind(v []byte) int64 {
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		if i+1 >= len(v) || v[i+1] != '"' && v[i+1] != '\\' {
			return kindLetterEscape
		}
		i++
	}
	return kindQuoteEscapes
}

// kindsOf is kinds of the state's row, taken when it was encoded ahead if it was.
func (rs *recSheet) kindsOf(st *recState) int64 {
	if st.enc != "" && st.encKinds > 0 {
		return st.encKinds - 1
	}
	return rs.kinds(st.row)
}

// encoded is the state's values in the stored form.
func (rs *recSheet) encoded(st *recState) string {
	if st.enc != "" {
		return st.enc
	}
	return rs.encode(st.row)
}

// encode writes a row in the stored form, with one allocation.
func (rs *recSheet) encode(row records.Row) string {
	l := rs.layout
	last, size := -1, 2
	for i, v := range row {
		if v != nil && l.cols[i] >= 0 {
			last = max(last, l.cols[i])
			size += len(v)
		}
	}
	if last < 0 {
		return "[]"
	}
	if last < len(row) && l.identity(last) {
		// (each field at its own index: the row is the array, as in a file's sheet)
		return encodeArray(row[:last+1], size+5*(last+1))
	}
	at := make([]json.RawMessage, last+1)
	for i, v := range row {
		if v != nil && l.cols[i] >= 0 {
			at[l.cols[i]] = v
		}
	}
	return encodeArray(at, size+5*(last+1))
}

// identity reports whether rules 0 to last are stored at positions 0 to last.
func (l *layout) identity(last int) bool {
	for i := 0; i <= last; i++ {
		if l.cols[i] != i {
			return false
		}
	}
	return true
}

// encodeArray writes vals as a JSON array, nil as null, in a buffer of size.
func encodeArray(at []json.RawMessage, size int) string {
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('[')
	for p, v := range at {
		if p > 0 {
			b.WriteByte(',')
		}
		if v == nil {
			b.WriteString("null")
		} else {
			b.Write(v)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// decode reads stored values into a row whose values are slices of vals.
func (rs *recSheet) decode(vals []byte) (records.Row, error) {
	row := make(records.Row, len(rs.Schema.Rules))
	err := eachValue(vals, func(p int, v []byte) {
		if i, ok := rs.layout.byCol[p]; ok && string(v) != "null" {
			row[i] = v
		}
	})
	return row, err
}

// decodeSaved reads values saved in a snapshot, matching positions to fields by the key
// they had, so values come back even into a field that was dropped and added again.
func (rs *recSheet) decodeSaved(vals []byte) (records.Row, error) {
	row := make(records.Row, len(rs.Schema.Rules))
	err := eachValue(vals, func(p int, v []byte) {
		if i, ok := rs.Schema.Index(rs.layout.keyOf[p]); ok && string(v) != "null" {
			row[i] = v
		}
	})
	return row, err
}

// decodeAll reads stored values keyed by field, including fields the schema dropped.
func (rs *recSheet) decodeAll(vals []byte) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := eachValue(vals, func(p int, v []byte) {
		if k, ok := rs.layout.keyOf[p]; ok && string(v) != "null" {
			out[k] = v
		}
	})
	return out, err
}

// eachValue calls fn with the position and raw JSON of each element of a stored array.
// PostgreSQL's jsonb writes a space after each comma and colon: values are passed on
// compact all the same.
func eachValue(b []byte, fn func(p int, v []byte)) error {
	bad := errs.E(errs.Internal, "", "stored record values are not a JSON array")
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return bad
	}
	if len(b) == 2 {
		return nil
	}
	for i, p := skipSpace(b, 1), 0; ; p++ {
		end := skipValue(b, i)
		if end < 0 || end >= len(b) {
			return bad
		}
		v := b[i:end:end]
		if (v[0] == '[' || v[0] == '{') && bytes.IndexByte(v, ' ') >= 0 {
			var c bytes.Buffer
			if json.Compact(&c, v) != nil {
				return bad
			}
			v = c.Bytes()
		}
		fn(p, v)
		switch b[end] {
		case ',':
			i = skipSpace(b, end+1)
		case ']':
			if end != len(b)-1 {
				return bad
			}
			return nil
		default:
			return bad
		}
	}
}

// skipSpace returns the index of the first byte from i that is not a space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the compact JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = skipString(b, j); j < 0 {
					return -1
				}
				j--
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != ']' && b[j] != '}' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// valueExpr is the SQL for a field's stored value in the vals column of alias (NULL when
// the field has no position yet, or the value is null): in SQLite as json_extract gives it,
// in PostgreSQL as jsonb (tested through the dialect's ffql.Typing).
func (rs *recSheet) valueExpr(alias, key string) (string, []any) {
	i, ok := rs.Schema.Index(key)
	if !ok || rs.layout.cols[i] < 0 {
		return "NULL", nil
	}
	col := strconv.Itoa(rs.layout.cols[i])
	if rs.d.JSONB() {
		return "NULLIF(" + alias + ".vals -> " + col + ", 'null'::jsonb)", nil
	}
	return "json_extract(" + alias + ".vals, ?)", []any{"$[" + col + "]"}
}

// value is valueExpr as an ffql fragment.
func (rs *recSheet) value(alias, key string) ffql.Frag {
	sql, args := rs.valueExpr(alias, key)
	return ffql.Frag{SQL: sql, Args: args}
}
