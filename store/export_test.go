package store

import "context"

// CountedCellValues is CellValues computed by counting the records, never from a kept list.
func (db *DB) CountedCellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery) ([]CellCount, error) {
	return db.cellValues(ctx, accountID, sheetID, key, q, false)
}
