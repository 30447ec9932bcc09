package recordset

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// The grid's undo history. A write made with WriteOptions.Undo set is noted as
// an entry of its actor's history in the sheet; applyChanges records, for every record the
// write touches, what undoing needs (undo_records): the records it added, the fields it
// changed with the record as it was, the records it removed as they were. Undo writes that
// back as a new commit, through the same validation and events as any write, and notes on
// the entry's other side what the undo itself replaced, which is what redo writes. A new
// change ends what could be redone; each person keeps their last UndoDepth changes per sheet.

// UndoDepth is how many changes of one person's in one sheet can be undone.
const UndoDepth = 50

// UndoMaxAge is how long a change can be undone; older history is removed hourly.
const UndoMaxAge = 7 * 24 * 60 * 60 * 1000 // milliseconds

// Kinds of undo records.
const (
	undoAdded   = 0
	undoChanged = 1
	undoRemoved = 2
)

// undoLog is the entry one write notes its changes in; uk is 0 until the first change.
type undoLog struct {
	what  string
	uk    int64
	side  int
	count int
}

// UndoResult says what an undo or redo wrote: What is the entry's kind of change (empty when
// there was nothing to undo or redo), Count the records written back, Skipped those that
// could not be (removed since, or back already).
type UndoResult struct {
	What      string `json:"what"`
	Count     int    `json:"count"`
	Skipped   int    `json:"skipped"`
	VersionID string `json:"versionId,omitempty"`
	UndoState
}

// UndoState says whether a person has something to undo or redo in a sheet.
type UndoState struct {
	CanUndo bool `json:"canUndo"`
	CanRedo bool `json:"canRedo"`
}

// noteUndo records what undoing changes needs, in w's undo entry (opened by the first call).
func (tx *Tx) noteUndo(rs *stored.Sheet, w *writeCtx, changes []*change) error {
	u := w.undo
	type note struct {
		rid    int64
		kind   int
		fields any
		vals   any
		x      any
	}
	notes := make([]note, 0, len(changes))
	for _, c := range changes {
		switch c.kind {
		case kInsert:
			notes = append(notes, note{rid: c.new.RID, kind: undoAdded})
		case kDelete:
			notes = append(notes, note{rid: c.old.RID, kind: undoRemoved, vals: rs.Encoded(c.old), x: rs.EncodeExtra(c.old)})
		case kUpdate:
			var keys []string
			for i := range c.old.Row {
				if !bytes.Equal(c.old.Row[i], c.new.Row[i]) {
					keys = append(keys, rs.Schema.Rules[i].Key)
				}
			}
			if keys == nil {
				continue
			}
			fields, _ := json.Marshal(keys)
			notes = append(notes, note{rid: c.old.RID, kind: undoChanged, fields: string(fields), vals: rs.Encoded(c.old), x: rs.EncodeExtra(c.old)})
		}
	}
	if len(notes) == 0 {
		return nil
	}
	if u.uk == 0 {
		if err := tx.openUndo(rs, w.opt.Actor, u); err != nil {
			return err
		}
	}
	const per = 100
	for start := 0; start < len(notes); start += per {
		chunk := notes[start:min(start+per, len(notes))]
		args := make([]any, 0, 7*len(chunk))
		for _, n := range chunk {
			args = append(args, u.uk, u.side, n.rid, n.kind, n.fields, n.vals, n.x)
		}
		q := `INSERT INTO undo_records (uk, side, rid, kind, fields, vals, x) VALUES ` +
			sqldb.Tuples(len(chunk), 7) + ` ON CONFLICT DO NOTHING`
		if _, err := tx.Exec(q, args...); err != nil {
			return errs.Wrap(err, "note undo")
		}
	}
	u.count += len(notes)
	if _, err := tx.Exec(`UPDATE undo_entries SET count = ? WHERE uk = ?`, u.count, u.uk); err != nil {
		return errs.Wrap(err, "note undo")
	}
	return nil
}

// openUndo starts a new entry in actor's history of the sheet: what could be redone is
// dropped, and so are entries past UndoDepth.
func (tx *Tx) openUndo(rs *stored.Sheet, actor string, u *undoLog) error {
	if err := tx.dropUndo(`sk = ? AND actor = ? AND undone = 1`, rs.SK, actor); err != nil {
		return err
	}
	var keep int64
	err := tx.QueryRow(`SELECT uk FROM undo_entries WHERE sk = ? AND actor = ? ORDER BY uk DESC LIMIT 1 OFFSET ?`, rs.SK, actor, UndoDepth-2).Scan(&keep)
	if err == nil {
		if err := tx.dropUndo(`sk = ? AND actor = ? AND uk < ?`, rs.SK, actor, keep); err != nil {
			return err
		}
	} else if err != sql.ErrNoRows {
		return errs.Wrap(err, "trim undo history")
	}
	if err := tx.QueryRow(`INSERT INTO undo_entries (sk, actor, what, created_at) VALUES (?, ?, ?, ?) RETURNING uk`, rs.SK, actor, u.what, sqldb.Millis(tx.Now())).Scan(&u.uk); err != nil {
		return errs.Wrap(err, "open undo entry")
	}
	return nil
}

// dropUndo removes the undo entries where says (over undo_entries) and their records.
func (tx *Tx) dropUndo(where string, args ...any) error {
	if _, err := tx.Exec(`DELETE FROM undo_records WHERE uk IN (SELECT uk FROM undo_entries WHERE `+where+`)`, args...); err != nil {
		return errs.Wrap(err, "drop undo history")
	}
	if _, err := tx.Exec(`DELETE FROM undo_entries WHERE `+where, args...); err != nil {
		return errs.Wrap(err, "drop undo history")
	}
	return nil
}

// Undo writes back the earlier values of the last change opt.Actor made in the sheet that is
// not undone yet, as one commit. Errors: not_found, forbidden (locked or read-only sheet),
// invalid (a value no longer allowed, e.g. a unique one taken since).
func (db *DB) Undo(ctx context.Context, sheetID string, opt WriteOptions) (*UndoResult, error) {
	return db.replayUndo(ctx, sheetID, opt, true)
}

// Redo writes again the change the last Undo of opt.Actor's in the sheet took back, when
// no new change was made since.
func (db *DB) Redo(ctx context.Context, sheetID string, opt WriteOptions) (*UndoResult, error) {
	return db.replayUndo(ctx, sheetID, opt, false)
}

func (db *DB) replayUndo(ctx context.Context, sheetID string, opt WriteOptions, undo bool) (*UndoResult, error) {
	res := &UndoResult{}
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, err := stored.Load(ctx, tx, opt.AccountID, sheetID)
		if err != nil || rs.SK == 0 {
			return err
		}
		// Undo takes the newest change not undone; redo the oldest undone one, which is the
		// one undone last. The UPDATE claims it: a second undo at once finds it taken.
		pick := `SELECT uk FROM undo_entries WHERE sk = ? AND actor = ? AND undone = 0 ORDER BY uk DESC LIMIT 1`
		from := 0
		if !undo {
			pick = `SELECT uk FROM undo_entries WHERE sk = ? AND actor = ? AND undone = 1 ORDER BY uk LIMIT 1`
			from = 1
		}
		var uk int64
		var side int
		err = tx.QueryRow(`UPDATE undo_entries SET undone = 1 - undone, side = 1 - side WHERE uk = (`+pick+`) AND undone = ? RETURNING uk, side, what`,
			rs.SK, opt.Actor, from).Scan(&uk, &side, &res.What)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return errs.Wrap(err, "claim undo entry")
		}
		w, err := tx.beginWrite(rs, opt)
		if err != nil {
			return err
		}
		res.VersionID = w.versionID
		// What this writes is noted on the other side, for the way back.
		w.undo = &undoLog{what: res.What, uk: uk, side: side}
		last := int64(-1)
		for {
			batch, err := tx.undoBatch(rs, uk, 1-side, last)
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				break
			}
			last = batch[len(batch)-1].rid
			if err := tx.putBack(rs, w, batch, res); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`DELETE FROM undo_records WHERE uk = ? AND side = ?`, uk, 1-side); err != nil {
			return errs.Wrap(err, "finish undo")
		}
		if _, err := tx.Exec(`UPDATE undo_entries SET count = ? WHERE uk = ?`, w.undo.count, uk); err != nil {
			return errs.Wrap(err, "finish undo")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st, err := db.UndoState(ctx, sheetID, opt.Actor)
	if err != nil {
		return nil, err
	}
	res.UndoState = *st
	return res, nil
}

// undoNote is one record of an undo entry.
type undoNote struct {
	rid    int64
	kind   int
	fields []string
	saved  *stored.State
}

// undoBatch reads the next BatchSize records of an entry's side after rid last.
func (tx *Tx) undoBatch(rs *stored.Sheet, uk int64, side int, last int64) ([]undoNote, error) {
	var out []undoNote
	err := sqldb.EachRow(tx.Context(), tx, "read undo records", `SELECT rid, kind, fields, vals, x FROM undo_records WHERE uk = ? AND side = ? AND rid > ? ORDER BY rid LIMIT ?`,
		[]any{uk, side, last, BatchSize}, func(rows *sql.Rows) error {
			var n undoNote
			var fields, vals, x sql.NullString
			if err := rows.Scan(&n.rid, &n.kind, &fields, &vals, &x); err != nil {
				return errs.Wrap(err, "scan undo record")
			}
			if fields.Valid {
				_ = json.Unmarshal([]byte(fields.String), &n.fields)
			}
			if vals.Valid {
				st, err := savedState(rs, n.rid, vals.String, x)
				if err != nil {
					return err
				}
				n.saved = st
			}
			out = append(out, n)
			return nil
		})
	return out, err
}

// putBack writes one batch of an entry back: added records go, changed fields get their
// saved values (and the text the file had, metadata.source), removed records come back as
// they were. Records changed since in a way that makes this impossible are skipped.
func (tx *Tx) putBack(rs *stored.Sheet, w *writeCtx, batch []undoNote, res *UndoResult) error {
	rids := make([]int64, len(batch))
	for i, n := range batch {
		rids[i] = n.rid
	}
	cur, err := tx.loadStates(rs, rids)
	if err != nil {
		return err
	}
	var changes []*change
	for _, n := range batch {
		now := cur[n.rid]
		switch {
		case n.kind == undoAdded && now != nil:
			changes = append(changes, &change{kind: kDelete, old: now})
		case n.kind == undoRemoved && now == nil && n.saved != nil:
			changes = append(changes, &change{kind: kInsert, new: n.saved})
		case n.kind == undoChanged && now != nil && n.saved != nil:
			st := clone(now)
			for _, k := range n.fields {
				if i, ok := rs.Schema.Index(k); ok {
					st.Row[i] = n.saved.Row[i]
				}
			}
			st.Meta = restoreSource(st.Meta, n.saved.Meta, n.fields)
			st.Msgs = rs.Schema.Check(st.Row)
			changes = append(changes, &change{kind: kUpdate, old: now, new: st})
		default:
			res.Skipped++
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if err := tx.applyChanges(rs, changes, w); err != nil {
		return err
	}
	res.Count += len(changes)
	return tx.emitChanges(rs, w, changes)
}

// restoreSource puts the saved metadata.source texts of keys back into meta (removing those
// the saved record had none for); the rest of meta stays as it is now.
func restoreSource(meta, saved json.RawMessage, keys []string) json.RawMessage {
	var m, sm map[string]json.RawMessage
	_ = json.Unmarshal(meta, &m)
	_ = json.Unmarshal(saved, &sm)
	var src, ssrc map[string]json.RawMessage
	_ = json.Unmarshal(m["source"], &src)
	_ = json.Unmarshal(sm["source"], &ssrc)
	changed := false
	for _, k := range keys {
		v, had := ssrc[k]
		if _, has := src[k]; !had && !has {
			continue
		}
		changed = true
		if src == nil {
			src = map[string]json.RawMessage{}
		}
		if had {
			src[k] = v
		} else {
			delete(src, k)
		}
	}
	if !changed {
		return meta
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	if len(src) == 0 {
		delete(m, "source")
	} else {
		m["source"], _ = json.Marshal(src)
	}
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

// UndoState says whether actor has a change to undo or redo in the sheet.
func (db *DB) UndoState(ctx context.Context, sheetID, actor string) (*UndoState, error) {
	var st UndoState
	var undos, redos int
	err := db.Reader.QueryRowContext(ctx, `SELECT COALESCE(SUM(1 - u.undone), 0), COALESCE(SUM(u.undone), 0) FROM undo_entries u
		JOIN record_sheets s ON s.sk = u.sk WHERE s.sheet_id = ? AND u.actor = ?`, sheetID, actor).Scan(&undos, &redos)
	if err != nil {
		return nil, errs.Wrap(err, "read undo state")
	}
	st.CanUndo, st.CanRedo = undos > 0, redos > 0
	return &st, nil
}

// PurgeUndo removes undo history older than UndoMaxAge.
func (tx *Tx) PurgeUndo() error {
	return tx.dropUndo(`created_at < ?`, sqldb.Millis(tx.Now())-UndoMaxAge)
}
