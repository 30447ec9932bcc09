package recordset

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// BatchSize is how many records a bulk operation (find and replace, clear column, delete
// or update by filter) changes per transaction; each batch is its own version with its own
// events, as Flatfile's find and replace does.
const BatchSize = 10000

// BatchBytes caps the values one streamed insert batch holds: a job reading rows
// of wide, long values flushes early, so its memory stays within a few such batches (the one
// being read, two queued, the one being written) whatever the file's shape.
const BatchBytes = 16 << 20

// BulkResult reports a bulk operation.
type BulkResult struct {
	VersionID  string   // the last batch's version
	VersionIDs []string // every batch's version, in order
	Count      int      // records changed
}

// batchFn edits one batch of loaded records inside its transaction and returns the changes.
type batchFn func(tx *Tx, rs *stored.Sheet, states []*stored.State) ([]*change, error)

// eachBatch runs fn over the records q selects, BatchSize at a time in key order, each batch
// in its own transaction. check runs on the sheet first in every batch. verb names the
// records event of the batch.
func (db *DB) eachBatch(ctx context.Context, sheetID string, q RecordQuery, opt WriteOptions, verb string, check func(rs *stored.Sheet) error, fn batchFn) (*BulkResult, error) {
	res := &BulkResult{}
	last := q.after
	var undo *undoLog // one entry for every batch
	if opt.Undo != "" {
		undo = &undoLog{what: opt.Undo}
	}
	for {
		done := false
		err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
			rs, err := stored.Load(ctx, tx, opt.AccountID, sheetID)
			if err != nil {
				return err
			}
			if check != nil {
				if err := check(rs); err != nil {
					return err
				}
			}
			if err := rs.CheckWritable(); err != nil {
				return err
			}
			if err := tx.prepareWrite(rs); err != nil {
				return err
			}
			states, err := tx.selectBatch(rs, &q, last)
			if err != nil {
				return err
			}
			if len(states) == 0 {
				done = true
				return nil
			}
			last = states[len(states)-1].RID
			changes, err := fn(tx, rs, states)
			if err != nil || len(changes) == 0 {
				return err
			}
			w := &writeCtx{opt: opt, undo: undo}
			if err := tx.newVersion(rs, w); err != nil {
				return err
			}
			if err := tx.applyChanges(rs, changes, w); err != nil {
				return err
			}
			ids := make([]string, len(changes))
			for i, c := range changes {
				ids[i] = stored.RecordID(c.rid())
			}
			res.VersionID = w.versionID
			res.VersionIDs = append(res.VersionIDs, w.versionID)
			res.Count += len(changes)
			return tx.emitRecords(rs, w, verb, ids)
		})
		if err != nil {
			return res, err
		}
		if done {
			return res, nil
		}
	}
}

// selectBatch reads the next batch of q's records after key last, in key order.
func (tx *Tx) selectBatch(rs *stored.Sheet, q *RecordQuery, last int64) ([]*stored.State, error) {
	if rs.SK == 0 {
		return nil, nil
	}
	if q.SearchValue != "" || q.Q != "" {
		if err := tx.PlanEachRun(); err != nil {
			return nil, err
		}
	}
	rc := &readCtx{ctx: tx.Context(), q: tx}
	bq := *q
	bq.after = last
	where, err := rc.where(rs, &bq)
	if err != nil {
		return nil, err
	}
	var out []*stored.State
	read := func(where ffql.Frag, limit int) error {
		return sqldb.EachRow(tx.Context(), tx, "select batch", `SELECT r.`+strings.ReplaceAll(stored.StateColumns, ", ", ", r.")+` FROM records r WHERE `+where.SQL+` ORDER BY r.rid LIMIT ?`,
			append(append([]any{}, where.Args...), limit), func(rows *sql.Rows) error {
				st, err := rs.ScanState(rows)
				out = append(out, st)
				return err
			})
	}
	if !rs.Dialect.WindowsBatches() {
		return out, read(where, BatchSize)
	}
	// PostgreSQL guesses that a few records of the keys after the last batch pass a filter
	// (a find & replace's), reads them all and sorts them for each batch (0.36 s at 500,000
	// keys, 41 s for a find & replace of 1,000,000 e-mails): a window of BatchSize keys a
	// query is read by its key index, as many windows as the batch needs.
	lo, hi, found, err := rc.keyBounds(rs)
	if err != nil || !found {
		return nil, err
	}
	for from := max(lo, last+1); from <= hi && len(out) < BatchSize; from += BatchSize {
		if err := read(stored.Within(where, [2]int64{from, min(hi, from+BatchSize-1)}), BatchSize-len(out)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// edits turns per-record edits into update changes; edit changes a copy and reports
// whether it may have changed anything. A record that reads the same once its values are
// checked (a bulk update writing the value it already holds, "42" onto 42) is left alone:
// no write, no event, not counted.
func edits(rs *stored.Sheet, states []*stored.State, edit func(st *stored.State) bool) []*change {
	var out []*change
	for _, old := range states {
		st := clone(old)
		if !edit(st) {
			continue
		}
		st.Msgs = rs.Schema.Check(st.Row)
		if sameRow(old.Row, st.Row) && reflect.DeepEqual(old.UMsgs, st.UMsgs) && reflect.DeepEqual(old.Lays, st.Lays) &&
			bytes.Equal(old.Meta, st.Meta) && bytes.Equal(old.Cfg, st.Cfg) {
			continue
		}
		out = append(out, &change{kind: kUpdate, old: old, new: st})
	}
	return out
}

// FindReplace is a find and replace in one field.
type FindReplace struct {
	FieldKey string
	// Find is the JSON value to look for: "\"x\"" (a string wrapped in double quotes) matches
	// whole cells equal to x; other text matches cells containing it, ignoring ASCII case,
	// and replaces each occurrence; null or absent matches empty cells.
	Find json.RawMessage
	// Replace is the JSON value written; "" stays an empty string, null empties the cell (or
	// removes the found text).
	Replace json.RawMessage
	// ExcludeReadOnly skips read-only records and cells, and refuses a read-only field.
	ExcludeReadOnly bool
	// LegacyReplace replaces the whole cell when it contains Find, instead of the found text.
	LegacyReplace bool
}

// FindAndReplace replaces values in one field of q's records, BatchSize records per
// version. Errors: not_found, invalid (unknown field; read-only field with
// ExcludeReadOnly), forbidden (locked or read-only sheet).
func (db *DB) FindAndReplace(ctx context.Context, sheetID string, q RecordQuery, fr FindReplace, opt WriteOptions) (*BulkResult, error) {
	m := newMatcher(fr)
	var idx int
	check := func(rs *stored.Sheet) error {
		r := rs.Schema.Rule(fr.FieldKey)
		if r == nil {
			return records.UnknownField(fr.FieldKey)
		}
		if r.Readonly && fr.ExcludeReadOnly {
			return errs.Invalidf("fieldKey", "Field %q is readonly; it cannot be replaced in with excludeReadOnly", fr.FieldKey)
		}
		idx = r.Index
		return nil
	}
	// Narrow the scan in SQL; the matcher decides per cell.
	q.pre = m.prefilter(fr.FieldKey)
	return db.eachBatch(ctx, sheetID, q, opt, "updated", check, func(tx *Tx, rs *stored.Sheet, states []*stored.State) ([]*change, error) {
		return edits(rs, states, func(st *stored.State) bool {
			if fr.ExcludeReadOnly && readonlyCell(rs, parseRecordConfig(st.Cfg), idx) {
				return false
			}
			v, ok := m.replace(st.Row[idx])
			if ok {
				st.Row[idx] = v
			}
			return ok
		}), nil
	})
}

// matcher applies a FindReplace to cells.
type matcher struct {
	exact, empty, legacy bool
	find                 string          // exact: the text; partial: lower-cased text
	with                 json.RawMessage // the canonical replacement
	replaceText          string
	replaceNull          bool
}

func newMatcher(fr FindReplace) *matcher {
	m := &matcher{legacy: fr.LegacyReplace, with: records.Canonical(fr.Replace)}
	m.replaceNull = len(fr.Replace) == 0 || string(m.with) == "null"
	if el := records.Elements(m.with); len(el) > 0 {
		m.replaceText = el[0]
	}
	find := records.Canonical(fr.Find)
	switch {
	case len(fr.Find) == 0 || string(find) == "null" || string(find) == `""` || string(find) == `"\"\""`:
		m.empty = true
	default:
		text := strings.Join(records.Elements(find), ",")
		if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
			m.exact, m.find = true, text[1:len(text)-1]
		} else {
			m.find = records.ASCIILower(text)
		}
	}
	return m
}

// prefilter is an FFQL condition every matching record meets, so batches skip the rest.
func (m *matcher) prefilter(key string) string {
	k := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
	v := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(m.find) + `"`
	switch {
	case m.empty:
		return k + ` eq ""`
	case m.exact:
		return k + ` eq "` + v[1:len(v)-1] + `"`
	}
	return k + ` ilike "%` + strings.NewReplacer(`%`, `_`).Replace(v[1:len(v)-1]) + `%"`
}

// replace returns the new value of a cell and whether the cell matched.
func (m *matcher) replace(v json.RawMessage) (json.RawMessage, bool) {
	if m.empty {
		if !records.IsEmpty(v) {
			return nil, false
		}
		return m.whole(), true
	}
	if records.IsEmpty(v) {
		return nil, false
	}
	if v[0] == '[' {
		return m.replaceList(v)
	}
	return m.replaceText1(records.Elements(v)[0])
}

func (m *matcher) whole() json.RawMessage {
	if m.replaceNull {
		return nil
	}
	return m.with
}

func (m *matcher) replaceText1(text string) (json.RawMessage, bool) {
	if m.exact {
		if text != m.find {
			return nil, false
		}
		return m.whole(), true
	}
	if !strings.Contains(records.ASCIILower(text), m.find) {
		return nil, false
	}
	if m.legacy {
		return m.whole(), true
	}
	return records.Quote(replaceFold(text, m.find, m.replaceText)), true
}

func (m *matcher) replaceList(v json.RawMessage) (json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil, false
	}
	hit := false
	out := items[:0]
	for _, it := range items {
		if nv, ok := m.replaceText1(records.Elements(it)[0]); ok {
			hit = true
			if nv != nil {
				out = append(out, nv)
			}
			continue
		}
		out = append(out, it)
	}
	if !hit {
		return nil, false
	}
	b, _ := json.Marshal(out)
	return b, true
}

// replaceFold replaces every occurrence of lowerFind in s, ignoring ASCII case, with repl.
func replaceFold(s, lowerFind, repl string) string {
	if lowerFind == "" {
		return s
	}
	lower := records.ASCIILower(s) // same byte offsets as s
	var b strings.Builder
	for i := 0; ; {
		j := strings.Index(lower[i:], lowerFind)
		if j < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		b.WriteString(s[i : i+j])
		b.WriteString(repl)
		i += j + len(lowerFind)
	}
}

// Column-clearing errors, worded as the interface specifies.
var (
	ErrColumnReadonly = errs.Invalidf("fieldKey", "Column is readonly and cannot be cleared")
	ErrSheetReadonly  = errs.Invalidf("sheetId", "Sheet is readonly. Column cannot be cleared")
)

// ClearColumn empties one field in every record, BatchSize records per version, after
// taking a snapshot labelled with the field key. Read-only records and cells are left
// untouched. Errors: not_found, invalid (unknown or read-only field, read-only sheet),
// forbidden (locked sheet).
func (db *DB) ClearColumn(ctx context.Context, sheetID, fieldKey string, opt WriteOptions) (*BulkResult, error) {
	rs, err := stored.Load(ctx, db.Reader, opt.AccountID, sheetID)
	if err != nil {
		return nil, err
	}
	check := func(rs *stored.Sheet) error {
		r := rs.Schema.Rule(fieldKey)
		switch {
		case r == nil:
			return records.UnknownField(fieldKey)
		case rs.Config.Readonly:
			return ErrSheetReadonly
		case r.Readonly:
			return ErrColumnReadonly
		}
		return nil
	}
	if err := check(rs); err != nil {
		return nil, err
	}
	if err := rs.CheckWritable(); err != nil {
		return nil, err
	}
	if _, err := db.CreateSnapshot(ctx, opt.AccountID, sheetID, fieldKey, "", opt.Actor); err != nil {
		return nil, err
	}
	idx := rs.Schema.Rule(fieldKey).Index
	q := RecordQuery{pre: ffql.String(&ffql.Compare{Field: fieldKey, Op: "ne", Value: ""})}
	return db.eachBatch(ctx, sheetID, q, opt, "updated", check, func(tx *Tx, rs *stored.Sheet, states []*stored.State) ([]*change, error) {
		return edits(rs, states, func(st *stored.State) bool {
			if st.Row[idx] == nil || readonlyCell(rs, parseRecordConfig(st.Cfg), idx) {
				return false
			}
			st.Row[idx] = nil
			return true
		}), nil
	})
}

// DeleteWhere deletes the records q selects, BatchSize per version. Errors: not_found,
// invalid, forbidden.
func (db *DB) DeleteWhere(ctx context.Context, sheetID string, q RecordQuery, opt WriteOptions) (*BulkResult, error) {
	return db.eachBatch(ctx, sheetID, q, opt, "deleted", nil, func(tx *Tx, rs *stored.Sheet, states []*stored.State) ([]*change, error) {
		out := make([]*change, len(states))
		for i, st := range states {
			out[i] = &change{kind: kDelete, old: st}
		}
		return out, nil
	})
}

// BulkUpdate sets the given cells in every record q selects, BatchSize per version.
// Read-only records and cells are skipped. Errors: not_found, invalid, forbidden.
func (db *DB) BulkUpdate(ctx context.Context, sheetID string, q RecordQuery, cells map[string]CellIn, opt WriteOptions) (*BulkResult, error) {
	in := RecordIn{Values: cells}
	check := func(rs *stored.Sheet) error {
		for k := range cells {
			if rs.Schema.Rule(k) == nil {
				return records.UnknownField(k)
			}
		}
		return nil
	}
	return db.eachBatch(ctx, sheetID, q, opt, "updated", check, func(tx *Tx, rs *stored.Sheet, states []*stored.State) ([]*change, error) {
		var err error
		out := edits(rs, states, func(st *stored.State) bool {
			before := append(records.Row(nil), st.Row...)
			cfg := parseRecordConfig(st.Cfg)
			if err = applyInput(rs, st, &in); err != nil {
				return false
			}
			for i := range st.Row {
				if readonlyCell(rs, cfg, i) {
					st.Row[i] = before[i]
				}
			}
			return true
		})
		return out, err
	})
}

// errEnoughMatches stops CountMatches at its cap.
var errEnoughMatches = errors.New("enough matches")

// CountMatches is how many records find & replace would change in fr.FieldKey among those q
// selects (what the dialog shows before Replace all), counting at most max; more reports
// whether there were more.
func (db *DB) CountMatches(ctx context.Context, accountID, sheetID string, q RecordQuery, fr FindReplace, max int) (n int, more bool, err error) {
	m := newMatcher(fr)
	q.pre = m.prefilter(fr.FieldKey)
	err = db.EachRecord(ctx, accountID, sheetID, q, func(r *Record) error {
		var v json.RawMessage
		for _, c := range r.Cells {
			if c.Key == fr.FieldKey {
				v = c.Value
			}
		}
		if _, ok := m.replace(v); ok {
			if n == max {
				more = true
				return errEnoughMatches
			}
			n++
		}
		return nil
	})
	if errors.Is(err, errEnoughMatches) {
		err = nil
	}
	return n, more, err
}
