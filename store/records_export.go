package store

import (
	"context"

	"github.com/sluice/sluice/model"
)

// exportPage is how many records EachRecord reads at a time.
const exportPage = 5000

// EachRecord calls fn for every record q selects, in order, a page at a time: by key when the
// query has no sort (each page starts after the last key), by page number otherwise. Memory
// stays at one page whatever the sheet's size. Errors: as GetRecords, or fn's.
func (db *DB) EachRecord(ctx context.Context, accountID, sheetID string, q RecordQuery, fn func(*Record) error) error {
	q.Page = model.Page{Size: exportPage, Number: 1}
	for {
		recs, _, err := db.GetRecords(ctx, accountID, sheetID, q, false)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(recs) < exportPage {
			return nil
		}
		if q.SortField != "" {
			q.Page.Number++
			continue
		}
		rid, err := ParseRecordID(recs[len(recs)-1].ID)
		if err != nil {
			return err
		}
		q.after = rid
	}
}
