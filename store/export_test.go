package store

import "context"

// CountedCellValues is CellValues computed by counting the records, never from a kept list.
func (db *DB) CountedCellValues(ctx context.Context, accountID, sheetID, key string, q RecordQuery) ([]CellCount, error) {
	return db.cellValues(ctx, accountID, sheetID, key, q, false, 0, nil)
}

// SetFTSSlice makes FTS5 builds add n records a transaction (tests of writes during a
// build); the returned func restores it.
func SetFTSSlice(n int) func() {
	old := ftsSlice
	ftsSlice = n
	return func() { ftsSlice = old }
}

// SetFTSBulk sets how many records one write changes in an FTS5 index itself; the
// returned func restores it.
func SetFTSBulk(n int) func() {
	old := ftsBulk
	ftsBulk = n
	return func() { ftsBulk = old }
}
