package recordset

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// checkRefs adds an "unlinked" error to every reference cell whose value matches no record
// of the referenced sheet on the referenced field. Changes in the referenced sheet mark this
// sheet for a full recheck (staleReferrers).
func (tx *Tx) checkRefs(rs *stored.Sheet, states []*stored.State) error {
	for _, r := range rs.Schema.Refs {
		if r.Config == nil || r.Config.Ref == "" || r.Config.Key == "" {
			continue
		}
		wanted := map[string]bool{}
		for _, st := range states {
			for _, v := range records.Elements(st.Row[r.Index]) {
				wanted[v] = false
			}
		}
		if len(wanted) == 0 {
			continue
		}
		missing, err := tx.findRefs(rs, r, wanted)
		if err != nil {
			return err
		}
		for _, st := range states {
			for _, v := range records.Elements(st.Row[r.Index]) {
				if wanted[v] {
					continue
				}
				if st.Msgs == nil {
					st.Msgs = make(records.Cells, len(rs.Schema.Rules))
				}
				msg := fmt.Sprintf("No record of %s has %s %q", r.Config.Ref, r.Config.Key, v)
				if missing != "" {
					msg = missing
				}
				st.Msgs[r.Index] = append(st.Msgs[r.Index], records.Message{Type: records.LevelError, Source: records.SourceUnlinked, Message: msg})
				break
			}
		}
	}
	return nil
}

// findRefs marks in wanted the values that exist in the referenced sheet. It returns a
// message for every value when the referenced sheet or field itself is missing.
func (tx *Tx) findRefs(rs *stored.Sheet, r *records.Rule, wanted map[string]bool) (string, error) {
	var targetID string
	err := tx.QueryRow(`SELECT id FROM sheets WHERE workbook_id = ? AND (slug = ? OR id = ?) AND deleted_at IS NULL ORDER BY slug = ? DESC LIMIT 1`,
		rs.WorkbookID, r.Config.Ref, r.Config.Ref, r.Config.Ref).Scan(&targetID)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Sprintf("Referenced sheet %q not found", r.Config.Ref), nil
	}
	if err != nil {
		return "", errs.Wrap(err, "find referenced sheet")
	}
	target, err := stored.Load(tx.Context(), tx, "", targetID)
	if err != nil {
		return "", err
	}
	tr := target.Schema.Rule(r.Config.Key)
	if tr == nil {
		return fmt.Sprintf("Referenced field %q not found in %s", r.Config.Key, r.Config.Ref), nil
	}
	if target.SK == 0 {
		return "", nil
	}
	if u := tr.Unique; u != nil && target.UCOf[u] != 0 && target.Hash == stored.SchemaHash(&target.Config) {
		return "", tx.findRefsByIndex(target.UCOf[u], tr, u, wanted)
	}
	return "", tx.findRefsByScan(target, tr, wanted)
}

// findRefsByIndex looks values up in the referenced field's unique index.
func (tx *Tx) findRefsByIndex(uc int64, tr *records.Rule, u *records.Unique, wanted map[string]bool) error {
	keyOf := map[string][]string{}
	var keys []string
	for v := range wanted {
		raw, _ := tr.Coerce(records.Quote(v))
		if k, ok := u.Key(raw); ok {
			if keyOf[k] == nil {
				keys = append(keys, k)
			}
			keyOf[k] = append(keyOf[k], v)
		}
	}
	found, err := tx.lookupHolders(uc, keys)
	if err != nil {
		return err
	}
	for k := range found {
		for _, v := range keyOf[k] {
			wanted[v] = true
		}
	}
	return nil
}

// findRefsByScan reads the referenced sheet's field, in one pass, when it has no unique index.
func (tx *Tx) findRefsByScan(target *stored.Sheet, tr *records.Rule, wanted map[string]bool) error {
	lo, hi := stored.RIDRange(target.SK)
	list := make([]string, 0, len(wanted))
	for v := range wanted {
		list = append(list, v)
	}
	text := target.Dialect.Typing().Text(target.Value("r", tr.Key))
	args := append(append(append(append([]any{}, text.Args...), lo, hi), text.Args...), stringsJSON(list))
	return sqldb.EachRow(tx.Context(), tx, "look up references", `SELECT DISTINCT `+text.SQL+` FROM records r
		WHERE r.rid BETWEEN ? AND ? AND `+tx.Dialect().InTexts(text.SQL, "?"), args, func(rows *sql.Rows) error {
		var v string
		if err := rows.Scan(&v); err != nil {
			return errs.Wrap(err, "scan reference")
		}
		wanted[v] = true
		return nil
	})
}

// staleReferrers marks the sheets whose reference fields point at rs as needing revalidation:
// a record added, changed or deleted here can make their references dangle or resolve. They
// are rechecked in full on their next read or write (stored.Sheet.Stale).
func (tx *Tx) staleReferrers(rs *stored.Sheet) error {
	candidates, ok := rs.TakeReferrers()
	if !ok {
		err := sqldb.EachRow(tx.Context(), tx, "find referring sheets", `SELECT o.id, o.config `+stored.MayRefer(tx.Dialect(), "?", "?"),
			[]any{rs.WorkbookID, rs.ID}, func(rows *sql.Rows) error {
				var ref stored.Referrer
				if err := rows.Scan(&ref.ID, &ref.Config); err != nil {
					return errs.Wrap(err, "scan referring sheet")
				}
				candidates = append(candidates, ref)
				return nil
			})
		if err != nil {
			return err
		}
	}
	var stale []string
	for _, ref := range candidates {
		var cfg model.SheetConfig
		if json.Unmarshal([]byte(ref.Config), &cfg) != nil {
			continue
		}
		for _, f := range cfg.Fields {
			if (f.Type == model.FieldReference || f.Type == model.FieldReferenceList) && f.Config != nil && (f.Config.Ref == rs.Slug || f.Config.Ref == rs.ID) {
				stale = append(stale, ref.ID)
				break
			}
		}
	}
	// In order of id: two writes that mark the same sheets take their rows in one order.
	slices.Sort(stale)
	for _, id := range stale {
		if err := tx.Later("mark referring sheet", `INSERT INTO sheet_ref_marks (sheet_id, n) VALUES (?, 1)
			ON CONFLICT (sheet_id) DO UPDATE SET n = sheet_ref_marks.n + 1`, id); err != nil {
			return err
		}
	}
	return nil
}
