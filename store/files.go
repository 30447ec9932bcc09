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

// InterruptedByRestart and InterruptedByNode are why FailInterruptedFiles fails a file: this
// node started again, or another node took over the work of the one extracting it.
const (
	InterruptedByRestart = "Extraction was interrupted by a restart of Sluice; nothing of it was kept: upload the file again"
	InterruptedByNode    = "Extraction was interrupted: the Sluice node extracting it stopped; nothing of it was kept: upload the file again"
)

// FailInterruptedFiles fails, with reason, the files left analyzing by a stopped process,
// except those whose extraction job is executing on one of the live nodes. All or nothing:
// the records an extraction wrote into the file's workbook are deleted first (a batch a
// transaction; a stop in between leaves the file analyzing, and the next call goes on), then
// the workbook goes and the file fails, once however many nodes try. It returns how many
// files this call failed.
func (db *DB) FailInterruptedFiles(ctx context.Context, reason string, live ...string) (int, error) {
	q := `SELECT ` + fileColumns + ` FROM files WHERE status IN ('analyzing', 'analyzed') AND deleted_at IS NULL`
	args := []any{}
	if len(live) > 0 {
		q += ` AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.source = files.id AND j.status = 'executing' AND j.runner IN (` + sqldb.Placeholders(len(live)) + `))`
		for _, r := range live {
			args = append(args, r)
		}
	}
	var files []*model.File
	n := 0
	err := sqldb.EachRow(ctx, db.Reader, "find interrupted files", q, args, func(rows *sql.Rows) error {
		f, err := scanFile(rows)
		if err == nil {
			files = append(files, f)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, f := range files {
		sks, err := db.recordSheetsOf(ctx, f.WorkbookID)
		if err != nil {
			return n, err
		}
		for _, sk := range sks {
			if err := db.PurgeRecords(ctx, sk); err != nil {
				return n, err
			}
		}
		failed := false
		err = db.Update(ctx, func(tx *Tx) error {
			// The file is failed once: another node taking over, or starting, may have
			// read it too.
			res, err := tx.Exec(`UPDATE files SET status = ?, description = ?, workbook_id = '', sheet_id = '', updated_at = ?
				WHERE id = ? AND status IN ('analyzing', 'analyzed') AND deleted_at IS NULL`, model.FileStatusFailed, reason, sqldb.Millis(tx.Now()), f.ID)
			if err != nil {
				return errs.Wrap(err, "fail interrupted file")
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return nil // failed by another node meanwhile
			}
			for _, sk := range sks {
				if err := tx.DropRecordIndexes(sk); err != nil {
					return err
				}
			}
			if f.WorkbookID != "" {
				if err := tx.dropWorkbook(f.WorkbookID); err != nil {
					return err
				}
			}
			f.Status, f.Description = model.FileStatusFailed, reason
			f.WorkbookID, f.SheetID = "", ""
			_, err = tx.Emit("file:updated", fileContext(f, "us_usr_sluice"), map[string]any{"fileId": f.ID, "status": f.Status})
			failed = err == nil
			return err
		})
		if err != nil {
			return n, err
		}
		if failed {
			n++
		}
	}
	return n, nil
}

// recordSheetsOf lists the record keys of workbook id's sheets that hold records.
func (db *DB) recordSheetsOf(ctx context.Context, workbookID string) ([]int64, error) {
	var sks []int64
	if workbookID == "" {
		return nil, nil
	}
	err := sqldb.EachRow(ctx, db.Reader, "list the workbook's sheets", `SELECT rs.sk FROM sheets sh JOIN record_sheets rs ON rs.sheet_id = sh.id WHERE sh.workbook_id = ?`,
		[]any{workbookID}, func(rows *sql.Rows) error {
			var sk int64
			err := rows.Scan(&sk)
			sks = append(sks, sk)
			return err
		})
	return sks, err
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
