package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// PrefixView is the id prefix of saved views.
const PrefixView = "us_vi_"

// View is a saved set of records-query parameters for a sheet.
type View struct {
	ID        string
	AccountID string
	SheetID   string
	Name      string
	Config    json.RawMessage
	CreatedBy string
}

// SaveView creates (no id) or replaces a view.
func (db *DB) SaveView(ctx context.Context, v *View) error {
	return db.Update(ctx, func(tx *Tx) error {
		var err error
		if v.ID == "" {
			v.ID = sqldb.NewID(PrefixView)
			_, err = tx.Exec(`INSERT INTO views (id, account_id, sheet_id, name, config, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				v.ID, v.AccountID, v.SheetID, v.Name, sqldb.JSONText(v.Config), v.CreatedBy, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		} else {
			_, err = tx.Exec(`UPDATE views SET name = ?, config = ?, updated_at = ? WHERE id = ?`, v.Name, sqldb.JSONText(v.Config), sqldb.Millis(tx.Now()), v.ID)
		}
		if err != nil {
			return errs.Wrap(err, "save view")
		}
		return nil
	})
}

func scanView(s sqldb.Scanner) (*View, error) {
	var v View
	var cfg string
	err := s.Scan(&v.ID, &v.AccountID, &v.SheetID, &v.Name, &cfg, &v.CreatedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("viewId", "View not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan view")
	}
	v.Config = sqldb.RawOr(cfg, "{}")
	return &v, nil
}

// GetView returns a view of the account. Errors: not_found.
func (db *DB) GetView(ctx context.Context, accountID, id string) (*View, error) {
	return scanView(db.Reader.QueryRowContext(ctx, `SELECT id, account_id, sheet_id, name, config, created_by FROM views WHERE id = ? AND account_id = ?`, id, accountID))
}

// ListViews returns a page of a sheet's views (one creator's when createdBy is set), oldest
// first, and how many there are.
func (db *DB) ListViews(ctx context.Context, sheetID, createdBy string, p model.Page) ([]*View, int, error) {
	cond, args := `sheet_id = ?`, []any{sheetID}
	if createdBy != "" {
		cond, args = cond+` AND created_by = ?`, append(args, createdBy)
	}
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM views WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count views")
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, account_id, sheet_id, name, config, created_by FROM views WHERE `+cond+` ORDER BY created_at, id LIMIT ? OFFSET ?`,
		append(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list views")
	}
	defer rows.Close()
	out := []*View{}
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// DeleteView removes a view. Errors: not_found.
func (db *DB) DeleteView(ctx context.Context, accountID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM views WHERE id = ? AND account_id = ?`, id, accountID)
		if err != nil {
			return errs.Wrap(err, "delete view")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("viewId", "View not found")
		}
		return nil
	})
}

// ColumnWidths are a person's column widths in a sheet's grid, in pixels by field key.
type ColumnWidths map[string]int

// GetColumnWidths returns the widths userID left the sheet's columns at (none: empty).
func (db *DB) GetColumnWidths(ctx context.Context, userID, sheetID string) (ColumnWidths, error) {
	var raw string
	err := db.Reader.QueryRowContext(ctx, `SELECT widths FROM sheet_layouts WHERE user_id = ? AND sheet_id = ?`, userID, sheetID).Scan(&raw)
	if err == sql.ErrNoRows {
		return ColumnWidths{}, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "read column widths")
	}
	w := ColumnWidths{}
	_ = json.Unmarshal([]byte(raw), &w)
	return w, nil
}

// SaveColumnWidths keeps userID's column widths of the sheet (replacing what was kept).
func (db *DB) SaveColumnWidths(ctx context.Context, userID, sheetID string, w ColumnWidths) error {
	raw, _ := json.Marshal(w)
	return db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO sheet_layouts (user_id, sheet_id, widths, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, sheet_id) DO UPDATE SET widths = excluded.widths, updated_at = excluded.updated_at`, userID, sheetID, string(raw), sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "save column widths")
		}
		return nil
	})
}
