package recordset

import (
	"encoding/json"
	"sort"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// A layer is a named overlay of a sheet's cell values: an agent that writes derived or
// suggested values can put them in a layer of its own (the cell value's `layer`), and the
// UI and readers tell them apart from what people typed (the base layer, no name). A layer
// comes into being the first time a write uses its name in a sheet; layer:created (domain
// workbook, as Flatfile's listeners expect) announces it, with the sheet's context ids.

// registerLayers records the layers the new states use and announces the new ones.
func (tx *Tx) registerLayers(rs *stored.Sheet, news []*stored.State, w *writeCtx) error {
	var names map[string]bool
	for _, st := range news {
		for _, l := range st.Lays {
			if l != "" {
				if names == nil {
					names = map[string]bool{}
				}
				names[l] = true
			}
		}
	}
	if names == nil {
		return nil
	}
	sorted := make([]string, 0, len(names))
	for l := range names {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	for _, l := range sorted {
		res, err := tx.Exec(`INSERT INTO sheet_layers (sheet_id, name, created_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			rs.ID, l, w.opt.Actor, sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "register layer")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		payload, _ := json.Marshal(map[string]string{"sheetId": rs.ID, "layer": l})
		if err := tx.emitWorkbook("layer:created", rs.EventContext(w.opt.Actor, w.versionID), payload); err != nil {
			return err
		}
	}
	return nil
}
