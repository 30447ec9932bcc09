package stored

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
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
	Cols   []int          // rule index → position, -1 while the field has none
	ByCol  map[int]int    // position → rule index, for fields in the schema
	KeyOf  map[int]string // position → field key, also of retired positions
	Next   int            // the next free position
	Retire []int          // live positions of fields the schema dropped
}

// Settled reports whether the stored arrays hold values of the schema's fields only: the
// write that retires a dropped field's position rewrites every record (revalidate), and
// reads revalidate a sheet whose schema changed first, but a read inside a write may come
// before that.
func (l *layout) Settled() bool { return len(l.Retire) == 0 }

// readLayout reads the sheet's column registry from the JSON rows [col, key, retired] Load read.
func (rs *Sheet) readLayout(text string) error {
	l := &layout{Cols: make([]int, len(rs.Schema.Rules)), ByCol: map[int]int{}, KeyOf: map[int]string{}}
	for i := range l.Cols {
		l.Cols[i] = -1
	}
	rs.Layout = l
	if rs.SK == 0 {
		return nil
	}
	rows, err := jsonRows(text, "record columns")
	if err != nil {
		return err
	}
	for _, r := range rows {
		var col, retired int
		var key string
		if len(r) != 3 || json.Unmarshal(r[0], &col) != nil || json.Unmarshal(r[1], &key) != nil || json.Unmarshal(r[2], &retired) != nil {
			return errs.E(errs.Internal, "", "a record column row of sheet %d is not [col, key, retired]", rs.SK)
		}
		l.KeyOf[col] = key
		l.Next = max(l.Next, col+1)
		if retired == 1 {
			continue
		}
		if i, ok := rs.Schema.Index(key); ok {
			l.Cols[i], l.ByCol[col] = col, i
		} else {
			l.Retire = append(l.Retire, col)
		}
	}
	return nil
}

// Kinds of token in a record's stored values (records.kinds, which may say more than the
// record holds: insertPlain): the first four are where a search's first pass, over the
// values' JSON text, can match while no value's text does (firstPassTrusted); with the
// other two, they tell a record of plain text alone (kindsNotText).
const (
	KindEscape  = 1 << iota // a backslash: a string with an escaped character
	KindNull                // an empty cell before the last value: null, whose text is none
	KindBool                // true or false (their text on SQLite: 1 and 0)
	KindNumber              // a number SQLite writes otherwise as text: a fraction or an exponent (12.50 as 12.5), -0, more than 18 digits
	kindInteger             // another number
	KindList                // a list or an object
	// kindQuoteEscapes: with kindEscape, every escape in the record is \" or \\ (an escaped
	// quote or backslash), which no needle a first pass is trusted with can match a part of
	// (firstPassTrusted): the record's first pass is trusted as one without escapes. A bit
	// set rather than one for the other escapes, so records written before it are tested
	// as before.
	kindQuoteEscapes
	// kindLetterEscape is valueKinds' note of another escape (\n, \t, \u0001 …); settled
	// into the absence of kindQuoteEscapes, never stored.
	kindLetterEscape
	// KindsNotText are the kinds a record of plain text alone (strings without an escape,
	// and empty cells) has none of: PostgreSQL's tally and tallied sort take its values'
	// text (->>) as their JSON text once quoted.
	KindsNotText = KindEscape | KindBool | KindNumber | kindInteger | KindList
	// KindsAll is every kind stored at once.
	KindsAll = kindQuoteEscapes<<1 - 1
)

// Kinds returns the kinds of token in the stored form of row (encode's).
func (rs *Sheet) Kinds(row records.Row) int64 {
	l := rs.Layout
	var k int64
	last, n := -1, 0
	for i, v := range row {
		if v == nil || l.Cols[i] < 0 {
			continue
		}
		last, n = max(last, l.Cols[i]), n+1
		k |= ValueKinds(v)
	}
	if n < last+1 {
		k |= KindNull
	}
	return SettleKinds(k)
}

// LacksKinds is the SQL condition that a record's kinds hold none of mask, an escape of
// quotes and backslashes alone (kindQuoteEscapes) not counting as kindEscape.
func LacksKinds(mask int64) string {
	return `(r.kinds & ` + strconv.FormatInt(mask|kindQuoteEscapes, 10) + `) IN (0, ` + strconv.Itoa(KindEscape|kindQuoteEscapes) + `)`
}

// SettleKinds turns the kinds of a record's values, put together, into the record's: it
// has kindQuoteEscapes only if none of its values has another escape.
func SettleKinds(k int64) int64 {
	if k&kindLetterEscape != 0 {
		k &^= kindQuoteEscapes | kindLetterEscape
	}
	return k
}

// UnionKinds is the kinds of two records together (insertPlain's statements say their
// rows' union): kindQuoteEscapes only if every one with an escape has it.
func UnionKinds(a, b int64) int64 {
	u := a | b
	for _, k := range []int64{a, b} {
		if k&KindEscape != 0 && k&kindQuoteEscapes == 0 {
			u &^= kindQuoteEscapes
		}
	}
	return u
}

// ValueKinds is the kinds of token in a value (not empty) as stored.
func ValueKinds(v []byte) int64 {
	var k int64
	switch c := v[0]; {
	case c == '"' || c == '[' || c == '{':
		if c != '"' {
			k = KindList
		}
		if bytes.IndexByte(v, '\\') >= 0 {
			k |= KindEscape | escapesKind(v)
		}
	case c == 't' || c == 'f':
		k = KindBool
	case bytes.ContainsAny(v, ".eE") || len(bytes.TrimPrefix(v, []byte("-"))) > 18 || string(v) == "-0":
		k = KindNumber
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

// KindsOf is kinds of the state's row, taken when it was encoded ahead if it was.
func (rs *Sheet) KindsOf(st *State) int64 {
	if st.Enc != "" && st.EncKinds > 0 {
		return st.EncKinds - 1
	}
	return rs.Kinds(st.Row)
}

// Encoded is the state's values in the stored form.
func (rs *Sheet) Encoded(st *State) string {
	if st.Enc != "" {
		return st.Enc
	}
	return rs.Encode(st.Row)
}

// Encode writes a row in the stored form, with one allocation.
func (rs *Sheet) Encode(row records.Row) string {
	l := rs.Layout
	last, size := -1, 2
	for i, v := range row {
		if v != nil && l.Cols[i] >= 0 {
			last = max(last, l.Cols[i])
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
		if v != nil && l.Cols[i] >= 0 {
			at[l.Cols[i]] = v
		}
	}
	return encodeArray(at, size+5*(last+1))
}

// identity reports whether rules 0 to last are stored at positions 0 to last.
func (l *layout) identity(last int) bool {
	for i := 0; i <= last; i++ {
		if l.Cols[i] != i {
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

// Decode reads stored values into a row whose values are slices of vals.
func (rs *Sheet) Decode(vals []byte) (records.Row, error) {
	row := make(records.Row, len(rs.Schema.Rules))
	err := EachValue(vals, func(p int, v []byte) {
		if i, ok := rs.Layout.ByCol[p]; ok && string(v) != "null" {
			row[i] = v
		}
	})
	return row, err
}

// DecodeSaved reads values saved in a snapshot, matching positions to fields by the key
// they had, so values come back even into a field that was dropped and added again.
func (rs *Sheet) DecodeSaved(vals []byte) (records.Row, error) {
	row := make(records.Row, len(rs.Schema.Rules))
	err := EachValue(vals, func(p int, v []byte) {
		if i, ok := rs.Schema.Index(rs.Layout.KeyOf[p]); ok && string(v) != "null" {
			row[i] = v
		}
	})
	return row, err
}

// DecodeAll reads stored values keyed by field, including fields the schema dropped.
func (rs *Sheet) DecodeAll(vals []byte) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := EachValue(vals, func(p int, v []byte) {
		if k, ok := rs.Layout.KeyOf[p]; ok && string(v) != "null" {
			out[k] = v
		}
	})
	return out, err
}

// EachValue calls fn with the position and raw JSON of each element of a stored array.
// PostgreSQL's jsonb writes a space after each comma and colon: values are passed on
// compact all the same.
func EachValue(b []byte, fn func(p int, v []byte)) error {
	bad := errs.E(errs.Internal, "", "stored record values are not a JSON array")
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return bad
	}
	if len(b) == 2 {
		return nil
	}
	for i, p := SkipSpace(b, 1), 0; ; p++ {
		end := SkipValue(b, i)
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
			i = SkipSpace(b, end+1)
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

// SkipSpace returns the index of the first byte from i that is not a space.
func SkipSpace(b []byte, i int) int {
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

// SkipValue returns the index after the compact JSON value starting at b[i], or -1.
func SkipValue(b []byte, i int) int {
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

// ValueExpr is the SQL for a field's stored value in the vals column of alias (NULL when
// the field has no position yet, or the value is null): in SQLite as json_extract gives it,
// in PostgreSQL as jsonb (tested through the dialect's ffql.Typing).
func (rs *Sheet) ValueExpr(alias, key string) (string, []any) {
	i, ok := rs.Schema.Index(key)
	if !ok || rs.Layout.Cols[i] < 0 {
		return "NULL", nil
	}
	col := strconv.Itoa(rs.Layout.Cols[i])
	if rs.Dialect.JSONB() {
		return "NULLIF(" + alias + ".vals -> " + col + ", 'null'::jsonb)", nil
	}
	return "json_extract(" + alias + ".vals, ?)", []any{"$[" + col + "]"}
}

// Value is valueExpr as an ffql fragment.
func (rs *Sheet) Value(alias, key string) ffql.Frag {
	sql, args := rs.ValueExpr(alias, key)
	return ffql.Frag{SQL: sql, Args: args}
}

// TextOnly reports a field whose stored values are always text, a list or empty: Check
// turns anything written to these types into text.
func TextOnly(r *records.Rule) bool {
	switch r.Type {
	case model.FieldString, model.FieldStringList, model.FieldReference, model.FieldReferenceList:
		return true
	}
	return false
}
