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

const sheetColumns = `id, workbook_id, name, slug, config, metadata, namespace, locked_by, locked_at, created_at, updated_at`

func scanSheet(s sqldb.Scanner) (*model.Sheet, error) {
	var sh model.Sheet
	var cfg, meta string
	var locked sql.NullInt64
	var c, u int64
	err := s.Scan(&sh.ID, &sh.WorkbookID, &sh.Name, &sh.Slug, &cfg, &meta, &sh.Namespace, &sh.LockedBy, &locked, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan sheet")
	}
	if err := json.Unmarshal([]byte(cfg), &sh.Config); err != nil {
		return nil, errs.Wrap(err, "decode sheet config")
	}
	sh.Config.Name, sh.Config.Slug = sh.Name, sh.Slug
	sh.Metadata = sqldb.RawOr(meta, "{}")
	sh.LockedAt = sqldb.FromNullMillis(locked)
	sh.CreatedAt, sh.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &sh, nil
}

func listSheets(ctx context.Context, q sqldb.Querier, workbookID string) ([]*model.Sheet, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+sheetColumns+` FROM sheets WHERE workbook_id = ? AND deleted_at IS NULL ORDER BY position, created_at, id`, workbookID)
	if err != nil {
		return nil, errs.Wrap(err, "list sheets")
	}
	defer rows.Close()
	out := []*model.Sheet{}
	for rows.Next() {
		s, err := scanSheet(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// GetSheet returns a live sheet of the account with its workbook. Errors: not_found.
func (db *DB) GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error) {
	return getSheet(ctx, db.Reader, accountID, id)
}

func getSheet(ctx context.Context, q sqldb.Querier, accountID, id string) (*model.Sheet, *model.Workbook, error) {
	var wbID string
	err := q.QueryRowContext(ctx, `SELECT workbook_id FROM sheets WHERE id = ? AND deleted_at IS NULL`, id).Scan(&wbID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return nil, nil, errs.Wrap(err, "find sheet")
	}
	w, err := getWorkbook(ctx, q, accountID, wbID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	if err != nil {
		return nil, nil, err
	}
	for _, s := range w.Sheets {
		if s.ID == id {
			return s, w, nil
		}
	}
	return nil, nil, errs.NotFoundf("sheetId", "Sheet not found")
}

// ListSheets returns the live sheets of a workbook in sidebar order. Errors: not_found.
func (db *DB) ListSheets(ctx context.Context, accountID, workbookID string) ([]*model.Sheet, *model.Workbook, error) {
	w, err := getWorkbook(ctx, db.Reader, accountID, workbookID)
	if err != nil {
		return nil, nil, err
	}
	return w.Sheets, w, nil
}

// saveSheet writes s's name, slug, config and metadata, emits sheet:updated and rechecks its
// records when the schema changed. Errors: conflict (slug taken in the workbook).
func (tx *Tx) saveSheet(w *model.Workbook, s *model.Sheet, actor string, revalidate bool) error {
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM sheets WHERE workbook_id = ? AND slug = ? AND id <> ? AND deleted_at IS NULL`, w.ID, s.Config.Slug, s.ID).Scan(&n); err != nil {
		return errs.Wrap(err, "check slug")
	}
	if n > 0 {
		return errs.E(errs.Conflict, "slug", "Another sheet of this workbook already has the slug %q", s.Config.Slug)
	}
	s.Name, s.Slug = s.Config.Name, s.Config.Slug
	s.UpdatedAt = tx.Now()
	cfg, err := json.Marshal(s.Config)
	if err != nil {
		return errs.Wrap(err, "encode sheet config")
	}
	if _, err := tx.Exec(`UPDATE sheets SET name = ?, slug = ?, config = ?, metadata = ?, updated_at = ? WHERE id = ?`,
		s.Name, s.Slug, string(cfg), sqldb.JSONText(s.Metadata), sqldb.Millis(tx.Now()), s.ID); err != nil {
		return errs.Wrap(err, "update sheet")
	}
	ctx := workbookContext(w, actor)
	ctx.SheetID, ctx.SheetSlug = s.ID, s.Slug
	if _, err := tx.Emit("sheet:updated", ctx, map[string]any{"sheetId": s.ID, "workbookId": w.ID, "name": s.Name, "slug": s.Slug}); err != nil {
		return err
	}
	if revalidate {
		return tx.RevalidateRecords(s.ID)
	}
	return nil
}

// ChangeSheet loads a sheet, lets change edit it (it returns whether the schema changed, or
// an error that aborts), then saves it. Errors: not_found, conflict, what change returns.
func (db *DB) ChangeSheet(ctx context.Context, accountID, id, actor string, change func(s *model.Sheet, w *model.Workbook) (bool, error)) (*model.Sheet, error) {
	var s *model.Sheet
	err := db.Update(ctx, func(tx *Tx) error {
		var w *model.Workbook
		var err error
		if s, w, err = getSheet(ctx, tx, accountID, id); err != nil {
			return err
		}
		schemaChanged, err := change(s, w)
		if err != nil {
			return err
		}
		if err := tx.saveSheet(w, s, actor, schemaChanged); err != nil {
			return err
		}
		return tx.TouchSpace(w.SpaceID)
	})
	return s, err
}

// DeleteSheet soft-deletes a sheet and emits sheet:deleted. Errors: not_found.
func (db *DB) DeleteSheet(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		s, w, err := getSheet(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE sheets SET deleted_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "delete sheet")
		}
		ctx := workbookContext(w, actor)
		ctx.SheetID, ctx.SheetSlug = s.ID, s.Slug
		_, err = tx.Emit("sheet:deleted", ctx, map[string]any{"sheetId": id, "workbookId": w.ID})
		return err
	})
}

// SetSheetLocked locks (content cannot change) or unlocks a sheet. Errors: not_found.
func (db *DB) SetSheetLocked(ctx context.Context, accountID, id string, locked bool, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		s, w, err := getSheet(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		if locked {
			_, err = tx.Exec(`UPDATE sheets SET locked_at = ?, locked_by = ?, updated_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), actor, sqldb.Millis(tx.Now()), id)
		} else {
			_, err = tx.Exec(`UPDATE sheets SET locked_at = NULL, locked_by = '', updated_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), id)
		}
		if err != nil {
			return errs.Wrap(err, "lock sheet")
		}
		ctx := workbookContext(w, actor)
		ctx.SheetID, ctx.SheetSlug = s.ID, s.Slug
		_, err = tx.Emit("sheet:updated", ctx, map[string]any{"sheetId": id, "workbookId": w.ID, "locked": locked})
		return err
	})
}
