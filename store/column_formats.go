package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/formats"
)

// SaveColumnFormats keeps what each column of a sheet can be read as.
func (db *DB) SaveColumnFormats(ctx context.Context, sheetID string, cols map[string]*formats.Column) error {
	b, err := json.Marshal(cols)
	if err != nil {
		return errs.Wrap(err, "encode column formats")
	}
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`INSERT INTO column_formats (sheet_id, columns) VALUES (?, ?)
			ON CONFLICT(sheet_id) DO UPDATE SET columns = excluded.columns`, sheetID, string(b)); err != nil {
			return errs.Wrap(err, "save column formats")
		}
		return nil
	})
}

// ColumnFormats reads what SaveColumnFormats kept; an empty map when the sheet has none.
func (db *DB) ColumnFormats(ctx context.Context, sheetID string) (map[string]*formats.Column, error) {
	var raw string
	err := db.Reader.QueryRowContext(ctx, `SELECT columns FROM column_formats WHERE sheet_id = ?`, sheetID).Scan(&raw)
	out := map[string]*formats.Column{}
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "read column formats")
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, errs.Wrap(err, "decode column formats")
	}
	return out, nil
}
