package store

import (
	"encoding/json"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
)

type changeKind int

const (
	kInsert  changeKind = iota // a new row
	kUpdate                    // an existing row, old state counted and indexed
	kDelete                    // a row going away
	kRecheck                   // an existing row revalidated after its sheet's index and counts were reset
)

// change is one record's move from old to new state inside a write.
type change struct {
	kind     changeKind
	old, new *recState
}

func (c *change) rid() int64 {
	if c.new != nil {
		return c.new.rid
	}
	return c.old.rid
}

// WriteOptions says who writes and which events follow.
type WriteOptions struct {
	Actor string
	// AccountID limits the write to sheets of one account; empty skips the check (tests, workers).
	AccountID string
	// Silent suppresses records:* events (bulk-update's silent flag).
	Silent bool
	// DisableHooks marks the write as one that must not wake record hooks (X-Disable-Hooks).
	DisableHooks bool
	// CommitID attributes the write to an existing commit instead of opening a new one.
	CommitID string
}

// writeCtx is the state shared by the steps of one versioned write.
type writeCtx struct {
	opt         WriteOptions
	vseq        int64
	versionID   string
	emptyBefore bool // the sheet had no records when the write began
	touched     int  // records outside the write rewritten (duplicate twins)
}

// beginWrite checks the sheet accepts writes, prepares its index and opens a version.
func (tx *Tx) beginWrite(rs *recSheet, opt WriteOptions) (*writeCtx, error) {
	if err := rs.checkWritable(); err != nil {
		return nil, err
	}
	if err := tx.prepareWrite(rs); err != nil {
		return nil, err
	}
	w := &writeCtx{opt: opt, emptyBefore: rs.total == 0}
	return w, tx.newVersion(rs, w)
}

// newVersion opens the version (commit) the write's rows are stamped with.
func (tx *Tx) newVersion(rs *recSheet, w *writeCtx) error {
	w.versionID = w.opt.CommitID
	if w.versionID == "" {
		w.versionID = NewID(PrefixVersion)
	}
	res, err := tx.exec(`INSERT INTO record_versions (id, sk, created_at) VALUES (?, ?, ?)`, w.versionID, rs.sk, ms(tx.now))
	if err != nil {
		return errs.Wrap(err, "create version")
	}
	w.vseq, err = res.LastInsertId()
	if err != nil {
		return errs.Wrap(err, "create version")
	}
	return nil
}

// applyChanges validates what references and unique constraints need, writes the rows and
// the counts. Type, required and enum checks have already run on the new states.
func (tx *Tx) applyChanges(rs *recSheet, changes []*change, w *writeCtx) error {
	var news []*recState
	for _, c := range changes {
		if c.new != nil {
			c.new.dups = c.new.dups[:0]
			news = append(news, c.new)
		}
	}
	if err := tx.checkRefs(rs, news); err != nil {
		return err
	}
	d := newCountDelta()
	if err := tx.reconcileUniques(rs, changes, w, d); err != nil {
		return err
	}
	var ins, ups []*recState
	var dels []int64
	for _, c := range changes {
		if c.old != nil && c.kind != kRecheck {
			d.tally(rs, c.old, -1)
		}
		if c.new != nil {
			rs.settle(c.new)
			d.tally(rs, c.new, 1)
		}
		switch c.kind {
		case kInsert:
			ins = append(ins, c.new)
		case kUpdate, kRecheck:
			ups = append(ups, c.new)
		case kDelete:
			dels = append(dels, c.old.rid)
		}
	}
	if err := tx.insertRows(rs, ins, w); err != nil {
		return err
	}
	if err := tx.updateRows(rs, ups, w); err != nil {
		return err
	}
	if err := tx.deleteRows(dels); err != nil {
		return err
	}
	return tx.applyCounts(rs, d)
}

const (
	rowCols  = 13
	rowChunk = 200
)

func (rs *recSheet) rowArgs(args []any, st *recState, w *writeCtx, now int64) []any {
	return append(args, st.rid, string(rs.Schema.Encode(st.row)), rs.encodeCells(st.msgs), rs.encodeCells(st.umsgs), encodeMessages(st.rmsgs),
		encodeEFS(st.efs), encodeDups(st.dups), rawOrNil(st.meta), rawOrNil(st.cfg), boolInt(st.valid), w.vseq, st.created, now)
}

func (tx *Tx) insertRows(rs *recSheet, list []*recState, w *writeCtx) error {
	now := ms(tx.now)
	for start := 0; start < len(list); start += rowChunk {
		chunk := list[start:min(start+rowChunk, len(list))]
		args := make([]any, 0, rowCols*len(chunk))
		for _, st := range chunk {
			st.created = now
			args = rs.rowArgs(args, st, w, now)
		}
		_, err := tx.exec(`INSERT INTO records (rid, vals, msgs, umsgs, rmsgs, efs, dups, meta, cfg, valid, vseq, created_at, updated_at) VALUES `+
			rowMarks(len(chunk), rowCols), args...)
		if err != nil {
			return errs.Wrap(err, "insert records")
		}
	}
	return nil
}

func (tx *Tx) updateRows(rs *recSheet, list []*recState, w *writeCtx) error {
	now := ms(tx.now)
	for start := 0; start < len(list); start += rowChunk {
		chunk := list[start:min(start+rowChunk, len(list))]
		args := make([]any, 0, rowCols*len(chunk))
		for _, st := range chunk {
			args = rs.rowArgs(args, st, w, now)
		}
		// column1…column13 follow rowArgs; vseq and updated_at repeat per row.
		_, err := tx.exec(`UPDATE records SET vals = v.column2, msgs = v.column3, umsgs = v.column4, rmsgs = v.column5, efs = v.column6,
			dups = v.column7, meta = v.column8, cfg = v.column9, valid = v.column10, vseq = v.column11, updated_at = v.column13
			FROM (VALUES `+rowMarks(len(chunk), rowCols)+`) AS v WHERE records.rid = v.column1`, args...)
		if err != nil {
			return errs.Wrap(err, "update records")
		}
	}
	return nil
}

func (tx *Tx) deleteRows(rids []int64) error {
	for start := 0; start < len(rids); start += 500 {
		chunk := rids[start:min(start+500, len(rids))]
		args := make([]any, len(chunk))
		for i, r := range chunk {
			args[i] = r
		}
		if _, err := tx.exec(`DELETE FROM records WHERE rid IN (`+placeholders(len(chunk))+`)`, args...); err != nil {
			return errs.Wrap(err, "delete records")
		}
	}
	return nil
}

// nextRids reserves n record keys of the sheet, in order.
func (tx *Tx) nextRids(rs *recSheet, n int) (int64, error) {
	var first int64
	err := tx.queryRow(`UPDATE record_sheets SET next_seq = next_seq + ? WHERE sk = ? RETURNING next_seq - ?`, n, rs.sk, n).Scan(&first)
	if err != nil {
		return 0, errs.Wrap(err, "reserve record ids")
	}
	if first+int64(n) >= 1<<seqBits {
		return 0, errs.Invalidf("sheetId", "Sheet has reached the maximum number of records")
	}
	return rs.sk<<seqBits | first, nil
}

// emitRecords writes the records:<verb> and sheet:counts-updated events of a write.
func (tx *Tx) emitRecords(rs *recSheet, w *writeCtx, verb string, ids []string) error {
	if w.opt.Silent {
		return nil
	}
	ctx := rs.eventContext(w.opt.Actor, w.versionID)
	if len(ids) > 0 {
		if err := tx.emitWorkbook("records:"+verb, ctx, map[string]any{"sheetId": rs.ID, "recordIds": ids, "recordCount": len(ids)}); err != nil {
			return err
		}
	}
	_, err := tx.Emit("sheet:counts-updated", ctx, map[string]any{"sheetId": rs.ID})
	return err
}

// emitWorkbook writes an event with domain "workbook", where Flatfile's listeners expect
// record and snapshot events (Emit would take the domain from the topic).
func (tx *Tx) emitWorkbook(topic string, ctx model.EventContext, payload any) error {
	p, err := json.Marshal(payload)
	if err != nil {
		return errs.Wrap(err, "encode event payload")
	}
	return tx.insertEvent(&model.Event{ID: NewID(PrefixEvent), Topic: topic, Domain: "workbook", Context: ctx, Payload: p, CreatedAt: tx.now})
}

// newState starts a record state for rid with its values checked.
func (rs *recSheet) newState(rid int64, row records.Row) *recState {
	st := &recState{rid: rid, row: row}
	st.msgs = rs.Schema.Check(row)
	return st
}
