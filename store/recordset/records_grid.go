package recordset

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
)

// GridEdit is one change made in the grid (a cell edit, a paste, a fill), written as one
// commit: cells set on existing records, records added after the last
// (values by field key) and records removed.
type GridEdit struct {
	Set    []GridRecord `json:"set,omitempty"`
	Add    []GridRecord `json:"add,omitempty"`
	Remove []string     `json:"remove,omitempty"`
}

// GridRecord is a record's values by field key (null empties a cell); ID is empty for a
// record to add.
type GridRecord struct {
	ID     string                     `json:"id,omitempty"`
	Values map[string]json.RawMessage `json:"values"`
}

// GridEditResult reports a grid edit.
type GridEditResult struct {
	VersionID string   `json:"versionId"`
	Set       int      `json:"set"`     // records changed
	Added     []string `json:"added"`   // ids of the records added, in order
	Removed   int      `json:"removed"` // records removed
	Skipped   int      `json:"skipped"` // cells left as they were: read-only field, record or cell
}

// ApplyGridEdit writes e in one transaction and commit, through the same validation, counts
// and events as the API's writes (a locked or read-only sheet refuses it), noted for undo
// when opt.Undo says so. Unlike UpdateRecords, cells the grid may not change (read-only
// fields, records and cells) are skipped and counted rather than refused, as a
// spreadsheet's paste skips locked cells. Errors: not_found, invalid, forbidden.
func (db *DB) ApplyGridEdit(ctx context.Context, sheetID string, e GridEdit, opt WriteOptions) (*GridEditResult, error) {
	res := &GridEditResult{Added: []string{}}
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		rs, w, err := tx.beginSheetWrite(sheetID, opt)
		if err != nil {
			return err
		}
		res.VersionID = w.versionID
		var changes []*change

		// Cells of existing records, each record once.
		ids := make([]RecordIn, 0, len(e.Set)+len(e.Remove))
		for _, r := range e.Set {
			ids = append(ids, RecordIn{ID: r.ID})
		}
		for _, id := range e.Remove {
			ids = append(ids, RecordIn{ID: id})
		}
		olds, order, err := tx.loadByID(rs, ids)
		if err != nil {
			return err
		}
		news := map[int64]*stored.State{}
		for i, r := range e.Set {
			rid := order[i]
			old := olds[rid]
			st := news[rid]
			if st == nil {
				st = clone(old)
				news[rid] = st
			}
			cfg := parseRecordConfig(old.Cfg)
			for k, v := range r.Values {
				j, ok := rs.Schema.Index(k)
				if !ok {
					return records.UnknownField(k)
				}
				if readonlyCell(rs, cfg, j) {
					res.Skipped++
					continue
				}
				if len(v) == 0 {
					v = json.RawMessage("null")
				}
				if err := checkLength(rs, k, v); err != nil {
					return err
				}
				st.Row[j] = nullToNil(v)
			}
		}
		for _, rid := range uniqueRids(order[:len(e.Set)]) {
			st, old := news[rid], olds[rid]
			st.Msgs = rs.Schema.Check(st.Row) // coerces: "12" pasted into a number field is 12
			if sameRow(old.Row, st.Row) {
				continue
			}
			changes = append(changes, &change{kind: kUpdate, old: old, new: st})
			res.Set++
		}
		for _, rid := range uniqueRids(order[len(e.Set):]) {
			if news[rid] != nil {
				continue // set and removed in one edit: removing wins
			}
			changes = append(changes, &change{kind: kDelete, old: olds[rid]})
			res.Removed++
		}
		// Records added after the last.
		if n := len(e.Add); n > 0 {
			first, err := tx.nextRids(rs, n)
			if err != nil {
				return err
			}
			for i, r := range e.Add {
				in := RecordIn{Values: map[string]CellIn{}}
				for k, v := range r.Values {
					if j, ok := rs.Schema.Index(k); ok && readonlyCell(rs, recordConfig{}, j) {
						res.Skipped++
						continue
					}
					if len(v) > 0 && string(v) != "null" {
						in.Values[k] = CellIn{Value: v, HasValue: true}
					}
				}
				st, err := inputState(rs, first+int64(i), &in)
				if err != nil {
					return err
				}
				changes = append(changes, &change{kind: kInsert, new: st})
				res.Added = append(res.Added, stored.RecordID(st.RID))
			}
		}
		if len(changes) == 0 {
			return nil
		}
		if err := tx.applyChanges(rs, changes, w); err != nil {
			return err
		}
		return tx.emitChanges(rs, w, changes)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func nullToNil(v json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}

func sameRow(a, b records.Row) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
