package recordset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// InsertRecords adds records to a sheet in the order given, validating them (types,
// required, enum options, references, unique and composite-unique constraints) in the same
// transaction. Values for keys the sheet does not define are rejected, even when the sheet
// allows additional fields: fields are added to the schema first. Emits records:created and
// sheet:counts-updated. Errors: not_found, invalid, forbidden (locked or read-only sheet).
func (db *DB) InsertRecords(ctx context.Context, sheetID string, in []RecordIn, opt WriteOptions) (*WriteResult, error) {
	return db.insert(ctx, sheetID, len(in), opt, true, func(rs *stored.Sheet, i int, rid int64) (*stored.State, error) {
		return inputState(rs, rid, &in[i])
	})
}

// InsertRows is InsertRecords for plain values given as rows aligned with keys, the shape
// file extraction produces; nil leaves a cell empty. The result carries no records.
func (db *DB) InsertRows(ctx context.Context, sheetID string, keys []string, rows [][]json.RawMessage, opt WriteOptions) (*WriteResult, error) {
	var idx []int
	var idxOf *stored.Sheet // (a write run again loads the sheet again)
	return db.insert(ctx, sheetID, len(rows), opt, false, func(rs *stored.Sheet, i int, rid int64) (*stored.State, error) {
		if idxOf != rs {
			idx, idxOf = idx[:0], rs
			for _, k := range keys {
				j, ok := rs.Schema.Index(k)
				if !ok {
					return nil, records.UnknownField(k)
				}
				idx = append(idx, j)
			}
		}
		if len(rows[i]) > len(idx) {
			return nil, errs.Invalidf("rows", "Row %d has %d values for %d keys", i, len(rows[i]), len(idx))
		}
		row := make(records.Row, len(rs.Schema.Rules))
		for j, v := range rows[i] {
			row[idx[j]] = v
		}
		return newState(rs, rid, row), nil
	})
}

// insert runs one insert of n records built by build: on PostgreSQL first on the guess that
// it leaves every kept value list kept (writeCtx.guess), and again without it when the
// guess was wrong (build may then be called again for the same i).
func (db *DB) insert(ctx context.Context, sheetID string, n int, opt WriteOptions, withRecords bool, build func(rs *stored.Sheet, i int, rid int64) (*stored.State, error)) (*WriteResult, error) {
	res, err := db.insertOnce(ctx, sheetID, n, opt, withRecords, true, build)
	if sqldb.WriteAgain(err) {
		db.againWrites.Add(1)
		res, err = db.insertOnce(ctx, sheetID, n, opt, withRecords, false, build)
	}
	return res, err
}

func (db *DB) insertOnce(ctx context.Context, sheetID string, n int, opt WriteOptions, withRecords, guess bool, build func(rs *stored.Sheet, i int, rid int64) (*stored.State, error)) (*WriteResult, error) {
	res := &WriteResult{Records: []*Record{}}
	write := func(tx *Tx) error {
		if err := tx.reserveEarly(sheetID, n); err != nil {
			return err
		}
		rs, w, err := tx.beginSheetWrite(sheetID, opt)
		if err != nil {
			return err
		}
		res.VersionID, res.Scope = w.versionID, scopeOf(rs)
		if n == 0 {
			return nil
		}
		w.guess = guess && rs.Dialect.RoundTrips() && w.pre == nil
		first, err := tx.nextRids(rs, n)
		if err != nil {
			return err
		}
		changes := make([]*change, n)
		for i := range changes {
			st, err := build(rs, i, first+int64(i))
			if err != nil {
				return err
			}
			changes[i] = &change{kind: kInsert, new: st}
		}
		if err := tx.applyChanges(rs, changes, w); err != nil {
			return err
		}
		ids := make([]string, n)
		for i, c := range changes {
			ids[i] = stored.RecordID(c.new.RID)
			if withRecords {
				rec := output(rs, c.new, tx.Now(), w.versionID)
				rec.ID = ids[i]
				res.Records = append(res.Records, rec)
			}
		}
		res.Count = n
		// Adding records is space activity (lastActivityAt).
		if err := tx.TouchSpace(rs.SpaceID); err != nil {
			return err
		}
		return tx.emitRecords(rs, w, "created", ids)
	}
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		return tx.keepAnswer(opt, res)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// inputState builds the state of a new record from what a client sent.
func inputState(rs *stored.Sheet, rid int64, in *RecordIn) (*stored.State, error) {
	row := make(records.Row, len(rs.Schema.Rules))
	var umsgs records.Cells
	for k, c := range in.Values {
		i, ok := rs.Schema.Index(k)
		if !ok {
			return nil, records.UnknownField(k)
		}
		if c.HasValue {
			if err := checkLength(rs, k, c.Value); err != nil {
				return nil, err
			}
			row[i] = c.Value
		}
		if ms := agentMessages(c.Messages); len(ms) > 0 {
			if umsgs == nil {
				umsgs = make(records.Cells, len(rs.Schema.Rules))
			}
			umsgs[i] = ms
		}
	}
	st := newState(rs, rid, row)
	for k, c := range in.Values {
		if c.HasLayer {
			i, _ := rs.Schema.Index(k)
			st.SetLayer(len(row), i, c.Layer)
		}
	}
	st.UMsgs, st.RMsgs = umsgs, agentMessages(in.Messages)
	st.Meta, st.Cfg = mergeMeta(emptyObjectNil(in.Metadata), st.Meta), emptyObjectNil(in.Config)
	return st, nil
}

// emptyObjectNil stores {} and null as nothing.
func emptyObjectNil(r json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(r)
	if len(t) == 0 || string(t) == "null" || string(t) == "{}" {
		return nil
	}
	return t
}

// clone copies a state for editing; dups are recomputed by the write.
func clone(st *stored.State) *stored.State {
	c := *st
	c.Row = append(records.Row(nil), st.Row...)
	if st.UMsgs != nil {
		c.UMsgs = append(records.Cells(nil), st.UMsgs...)
	}
	if st.Lays != nil {
		c.Lays = append([]string(nil), st.Lays...)
	}
	c.Dups, c.EFS = nil, nil
	c.Enc, c.UKeys, c.UHas = "", nil, nil // derived from the row, which the edit may change
	return &c
}

// recordConfig is the part of a record's config Sluice enforces.
type recordConfig struct {
	Readonly bool `json:"readonly"`
	Fields   map[string]struct {
		Readonly bool `json:"readonly"`
	} `json:"fields"`
}

func parseRecordConfig(r json.RawMessage) recordConfig {
	var c recordConfig
	if len(r) > 0 {
		_ = json.Unmarshal(r, &c)
	}
	return c
}

// readonlyCell reports whether cell i of a record with config cfg may not change.
func readonlyCell(rs *stored.Sheet, cfg recordConfig, i int) bool {
	r := rs.Schema.Rules[i]
	return cfg.Readonly || r.Readonly || cfg.Fields[r.Key].Readonly
}

// UpdateRecords changes records by id: only the cells sent change; a cell's "messages"
// replace the messages agents gave that cell; metadata, config and record messages replace
// theirs when sent. Changing a read-only record or cell (record config, cell config or
// field readonly) is refused; sending its current value is not a change. Emits
// records:updated and sheet:counts-updated. Errors: not_found, invalid, forbidden.
func (db *DB) UpdateRecords(ctx context.Context, sheetID string, in []RecordIn, opt WriteOptions) (*WriteResult, error) {
	res := &WriteResult{}
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, w, err := tx.beginSheetWrite(sheetID, opt)
		if err != nil {
			return err
		}
		res.VersionID = w.versionID
		olds, order, err := tx.loadByID(rs, in)
		if err != nil {
			return err
		}
		news := map[int64]*stored.State{}
		for i := range in {
			rid := order[i]
			st := news[rid]
			if st == nil {
				st = clone(olds[rid])
				news[rid] = st
			}
			if err := applyInput(rs, st, &in[i]); err != nil {
				return err
			}
		}
		changes := make([]*change, 0, len(news))
		for _, rid := range uniqueRids(order) {
			st := news[rid]
			st.Msgs = rs.Schema.Check(st.Row)
			if err := checkReadonly(rs, olds[rid], st); err != nil {
				return err
			}
			changes = append(changes, &change{kind: kUpdate, old: olds[rid], new: st})
		}
		if err := tx.applyChanges(rs, changes, w); err != nil {
			return err
		}
		res.Count = len(changes)
		if err := tx.emitRecords(rs, w, "updated", ridIDs(uniqueRids(order))); err != nil {
			return err
		}
		return tx.keepAnswer(opt, res)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// loadByID loads the records named by in, returning their keys in input order.
func (tx *Tx) loadByID(rs *stored.Sheet, in []RecordIn) (map[int64]*stored.State, []int64, error) {
	order := make([]int64, len(in))
	for i, r := range in {
		if r.ID == "" {
			return nil, nil, errs.Invalidf("id", "Record %d has no id", i)
		}
		rid, err := stored.ParseRecordID(r.ID)
		if err != nil {
			return nil, nil, errs.NotFoundf("id", "Record %s not found in this sheet", r.ID)
		}
		order[i] = rid
	}
	olds, err := tx.loadStates(rs, uniqueRids(order))
	if err != nil {
		return nil, nil, err
	}
	for i, rid := range order {
		if olds[rid] == nil || rid>>stored.SeqBits != rs.SK {
			return nil, nil, errs.NotFoundf("id", "Record %s not found in this sheet", in[i].ID)
		}
	}
	return olds, order, nil
}

// checkLength refuses a value longer than the cap (a list counts as its JSON text).
func checkLength(rs *stored.Sheet, key string, v json.RawMessage) error {
	if len(v) <= rs.Caps.CellLength {
		return nil
	}
	text := string(v)
	var s string
	if json.Unmarshal(v, &s) == nil {
		text = s
	}
	if !limits.Over(text, rs.Caps.CellLength) {
		return nil
	}
	return errs.Invalidf(key, "%s", rs.Caps.Cell(fmt.Sprintf("Field %q", key), text))
}

// applyInput merges one update into st.
func applyInput(rs *stored.Sheet, st *stored.State, in *RecordIn) error {
	for k, c := range in.Values {
		i, ok := rs.Schema.Index(k)
		if !ok {
			return records.UnknownField(k)
		}
		if c.HasValue {
			if err := checkLength(rs, k, c.Value); err != nil {
				return err
			}
			st.Row[i] = c.Value
		}
		if c.HasMessages {
			if st.UMsgs == nil {
				st.UMsgs = make(records.Cells, len(rs.Schema.Rules))
			}
			st.UMsgs[i] = agentMessages(c.Messages)
		}
		if c.HasLayer {
			st.SetLayer(len(rs.Schema.Rules), i, c.Layer)
		}
	}
	if in.HasMessages {
		st.RMsgs = agentMessages(in.Messages)
	}
	if in.Metadata != nil {
		st.Meta = emptyObjectNil(in.Metadata)
	}
	if in.Config != nil {
		st.Cfg = emptyObjectNil(in.Config)
	}
	return nil
}

// checkReadonly refuses value changes to read-only cells, judged by the config the record
// had before the write. Errors: invalid naming the field.
func checkReadonly(rs *stored.Sheet, old, st *stored.State) error {
	cfg := parseRecordConfig(old.Cfg)
	for i := range rs.Schema.Rules {
		if !bytes.Equal(old.Row[i], st.Row[i]) && readonlyCell(rs, cfg, i) {
			k := rs.Schema.Rules[i].Key
			if cfg.Readonly {
				return errs.Invalidf(k, "Record %s is readonly; its values cannot be changed", stored.RecordID(old.RID))
			}
			return errs.Invalidf(k, "Field %q of record %s is readonly", k, stored.RecordID(old.RID))
		}
	}
	return nil
}

// DeleteRecords removes records by id; ids of other sheets or unknown ids are errors.
// Emits records:deleted and sheet:counts-updated. Errors: not_found, invalid, forbidden.
func (db *DB) DeleteRecords(ctx context.Context, sheetID string, ids []string, opt WriteOptions) (*WriteResult, error) {
	in := make([]RecordIn, len(ids))
	for i, id := range ids {
		in[i].ID = id
	}
	res := &WriteResult{}
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, w, err := tx.beginSheetWrite(sheetID, opt)
		if err != nil {
			return err
		}
		res.VersionID = w.versionID
		olds, order, err := tx.loadByID(rs, in)
		if err != nil {
			return err
		}
		rids := uniqueRids(order)
		if err := tx.deleteStates(rs, w, olds, rids); err != nil {
			return err
		}
		res.Count = len(rids)
		return tx.emitRecords(rs, w, "deleted", ridIDs(rids))
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (tx *Tx) deleteStates(rs *stored.Sheet, w *writeCtx, olds map[int64]*stored.State, rids []int64) error {
	changes := make([]*change, 0, len(rids))
	for _, rid := range rids {
		changes = append(changes, &change{kind: kDelete, old: olds[rid]})
	}
	return tx.applyChanges(rs, changes, w)
}

// uniqueRids returns the keys in first-seen order without repeats.
func uniqueRids(rids []int64) []int64 {
	seen := make(map[int64]bool, len(rids))
	out := make([]int64, 0, len(rids))
	for _, r := range rids {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

func ridIDs(rids []int64) []string {
	out := make([]string, len(rids))
	for i, r := range rids {
		out[i] = stored.RecordID(r)
	}
	return out
}
