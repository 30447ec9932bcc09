package store

import "context"

// ExecForTest runs a statement on the writer; tests use it to set up rows that have no API yet.
func (db *DB) ExecForTest(ctx context.Context, q string, args ...any) error {
	_, err := db.w.ExecContext(ctx, q, args...)
	return err
}

// CountForTest runs a COUNT query.
func (db *DB) CountForTest(ctx context.Context, q string, args ...any) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}
