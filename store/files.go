package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const fileColumns = `id, account_id, environment_id, space_id, name, ext, mimetype, encoding, status, mode, origin, size, bytes_received,
	actions, workbook_id, sheet_id, description, created_by, created_at, updated_at`

func scanFile(s sqldb.Scanner) (*model.File, error) {
	var f model.File
	var actions string
	var c, u int64
	err := s.Scan(&f.ID, &f.AccountID, &f.EnvironmentID, &f.SpaceID, &f.Name, &f.Ext, &f.Mimetype, &f.Encoding, &f.Status, &f.Mode, &f.Origin,
		&f.Size, &f.BytesReceived, &actions, &f.WorkbookID, &f.SheetID, &f.Description, &f.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("fileId", "File not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan file")
	}
	f.Actions = sqldb.RawOr(actions, "[]")
	f.CreatedAt, f.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &f, nil
}

func fileContext(f *model.File, actor string) model.EventContext {
	return model.EventContext{AccountID: f.AccountID, EnvironmentID: f.EnvironmentID, SpaceID: f.SpaceID, FileID: f.ID, WorkbookID: f.WorkbookID, ActorID: actor}
}

// NewFileID reserves an id for an upload, so its bytes can be stored before the row exists.
func NewFileID() string { return sqldb.NewID(sqldb.PrefixFile) }

// CreateFile stores an uploaded file (its id set by NewFileID), emits file:created and moves
// the space's lastActivityAt.
func (db *DB) CreateFile(ctx context.Context, f *model.File, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		f.CreatedAt, f.UpdatedAt, f.CreatedBy = tx.Now(), tx.Now(), actor
		if len(f.Actions) == 0 || string(f.Actions) == "null" {
			f.Actions = json.RawMessage("[]")
		}
		if _, err := tx.Exec(`INSERT INTO files (id, account_id, environment_id, space_id, name, ext, mimetype, encoding, status, mode, origin, size,
			bytes_received, actions, workbook_id, sheet_id, description, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			f.ID, f.AccountID, f.EnvironmentID, f.SpaceID, f.Name, f.Ext, f.Mimetype, f.Encoding, f.Status, f.Mode, f.Origin, f.Size, f.BytesReceived,
			string(f.Actions), f.WorkbookID, f.SheetID, f.Description, actor, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "insert file")
		}
		if _, err := tx.Emit("file:created", fileContext(f, actor), map[string]any{"fileId": f.ID, "spaceId": f.SpaceID, "name": f.Name, "status": f.Status}); err != nil {
			return err
		}
		return tx.TouchSpace(f.SpaceID)
	})
}

// GetFile returns a live file of the account. Errors: not_found.
func (db *DB) GetFile(ctx context.Context, accountID, id string) (*model.File, error) {
	return scanFile(db.Reader.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// FileFilter selects files.
type FileFilter struct {
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Mode          string
	Page          model.Page
}

// ListFiles returns a page of files, newest first, and the number matching.
func (db *DB) ListFiles(ctx context.Context, f FileFilter) ([]*model.File, int, error) {
	where := []string{"account_id = ?", "deleted_at IS NULL"}
	args := []any{f.AccountID}
	for col, v := range map[string]string{"environment_id": f.EnvironmentID, "space_id": f.SpaceID, "mode": f.Mode} {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM files WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count files")
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+fileColumns+` FROM files WHERE `+cond+` ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list files")
	}
	defer rows.Close()
	out := []*model.File{}
	for rows.Next() {
		fl, err := scanFile(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, fl)
	}
	return out, total, rows.Err()
}

// SaveFile writes a file's changeable fields and emits file:updated. Errors: not_found.
func (db *DB) SaveFile(ctx context.Context, f *model.File, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		f.UpdatedAt = tx.Now()
		res, err := tx.Exec(`UPDATE files SET name = ?, mode = ?, status = ?, encoding = ?, actions = ?, workbook_id = ?, sheet_id = ?, description = ?, updated_at = ?
			WHERE id = ? AND deleted_at IS NULL`, f.Name, f.Mode, f.Status, f.Encoding, string(f.Actions), f.WorkbookID, f.SheetID, f.Description, sqldb.Millis(tx.Now()), f.ID)
		if err != nil {
			return errs.Wrap(err, "update file")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("fileId", "File not found")
		}
		_, err = tx.Emit("file:updated", fileContext(f, actor), map[string]any{"fileId": f.ID, "status": f.Status, "workbookId": f.WorkbookID})
		return err
	})
}

// DeleteFile soft-deletes a file and emits file:deleted. Errors: not_found.
func (db *DB) DeleteFile(ctx context.Context, f *model.File, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE files SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), f.ID)
		if err != nil {
			return errs.Wrap(err, "delete file")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("fileId", "File not found")
		}
		_, err = tx.Emit("file:deleted", fileContext(f, actor), map[string]any{"fileId": f.ID})
		return err
	})
}

// FailInterruptedFiles marks files whose extraction was running when the server stopped
// (analyzing or analyzed) as failed, with a description saying so; it returns how many.
// Call it at start-up, before the built-in worker runs, and when a node is found stopped.
// Extractions running on the live nodes named (other nodes sharing the database) go on.
func (db *DB) FailInterruptedFiles(ctx context.Context, live ...string) (int, error) {
	var n int
	err := db.Update(ctx, func(tx *Tx) error {
		q := `SELECT ` + fileColumns + ` FROM files WHERE status IN ('analyzing', 'analyzed') AND deleted_at IS NULL`
		args := []any{}
		if len(live) > 0 {
			q += ` AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.source = files.id AND j.status = 'executing' AND j.runner IN (` + sqldb.Placeholders(len(live)) + `))`
			for _, r := range live {
				args = append(args, r)
			}
		}
		rows, err := tx.QueryContext(tx.Context(), q, args...)
		if err != nil {
			return errs.Wrap(err, "find interrupted files")
		}
		defer rows.Close()
		var files []*model.File
		for rows.Next() {
			f, err := scanFile(rows)
			if err != nil {
				rows.Close()
				return err
			}
			files = append(files, f)
		}
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "find interrupted files")
		}
		rows.Close()
		for _, f := range files {
			f.Status = model.FileStatusFailed
			f.Description = "Extraction was interrupted by a restart of Sluice; nothing of it was kept: upload the file again"
			// All or nothing: the rows read so far go with the file's workbook.
			if f.WorkbookID != "" {
				if err := tx.dropWorkbook(f.WorkbookID); err != nil {
					return err
				}
			}
			f.WorkbookID, f.SheetID = "", ""
			if _, err := tx.Exec(`UPDATE files SET status = ?, description = ?, workbook_id = '', sheet_id = '', updated_at = ? WHERE id = ?`, f.Status, f.Description, sqldb.Millis(tx.Now()), f.ID); err != nil {
				return errs.Wrap(err, "fail interrupted file")
			}
			if _, err := tx.Emit("file:updated", fileContext(f, "us_usr_sluice"), map[string]any{"fileId": f.ID, "status": f.Status}); err != nil {
				return err
			}
		}
		n = len(files)
		return nil
	})
	return n, err
}

// FileKnown reports whether a file id has a row (deleted or not): bytes on disk without one
// are what an upload interrupted between writing and recording left behind.
func (db *DB) FileKnown(ctx context.Context, id string) (bool, error) {
	var n int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM files WHERE id = ?`, id).Scan(&n); err != nil {
		return false, errs.Wrap(err, "find file")
	}
	return n > 0, nil
}
