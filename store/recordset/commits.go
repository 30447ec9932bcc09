package recordset

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/sqldb"
)

// workbookScope holds the ids an event about a workbook's content needs.
type workbookScope struct {
	AccountID, EnvironmentID, SpaceID string
	TrackChanges                      bool
}

func (tx *Tx) workbookScope(workbookID string) (*workbookScope, error) {
	var s workbookScope
	var settings string
	err := tx.QueryRow(`SELECT account_id, environment_id, space_id, settings FROM workbooks WHERE id = ?`, workbookID).
		Scan(&s.AccountID, &s.EnvironmentID, &s.SpaceID, &settings)
	if err == sql.ErrNoRows {
		return nil, errs.NotFoundf("workbookId", "Workbook not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "load workbook scope")
	}
	var set struct {
		TrackChanges bool `json:"trackChanges"`
	}
	_ = json.Unmarshal([]byte(settings), &set)
	s.TrackChanges = set.TrackChanges
	return &s, nil
}

// CreateCommit opens a commit on sheet for a write by actor. With hooks, it emits
// commit:created (context with sheetSlug, dataUrl pointing at the commit's records) and stays
// pending until a hook's write-back or POST /commits/:id/complete completes it. Without hooks
// (writes sent with X-Disable-Hooks) nothing will process it, so it completes at once.
func (tx *Tx) CreateCommit(sheet *model.Sheet, actor string, hooks bool) (*model.Commit, error) {
	scope, err := tx.workbookScope(sheet.WorkbookID)
	if err != nil {
		return nil, err
	}
	return tx.createCommit(scope, sheet, "", actor, hooks)
}

// createCommit is CreateCommit in a workbook of the given scope.
func (tx *Tx) createCommit(scope *workbookScope, sheet *model.Sheet, id, actor string, hooks bool) (*model.Commit, error) {
	c := &model.Commit{ID: cmp.Or(id, sqldb.NewID(sqldb.PrefixVersion)), SheetID: sheet.ID, WorkbookID: sheet.WorkbookID, CreatedBy: actor, CreatedAt: tx.Now()}
	if err := tx.Later("create commit", `INSERT INTO commits (id, sheet_id, workbook_id, created_by, created_at) VALUES (?, ?, ?, ?, ?)`,
		c.ID, c.SheetID, c.WorkbookID, c.CreatedBy, sqldb.Millis(tx.Now())); err != nil {
		return nil, err
	}
	ctx := commitContext(scope, sheet, c, actor)
	if !hooks {
		return c, tx.completeCommit(c, scope, sheet.Slug, actor)
	}
	payload := map[string]any{"sheetId": sheet.ID, "workbookId": sheet.WorkbookID, "versionId": c.ID, "commitId": c.ID,
		"sheetSlug": sheet.Slug, "trackChanges": scope.TrackChanges}
	_, err := tx.EmitData("commit:created", ctx, payload, "v1/sheets/"+sheet.ID+"/records?commitId="+c.ID)
	return c, err
}

func commitContext(scope *workbookScope, sheet *model.Sheet, c *model.Commit, actor string) model.EventContext {
	return model.EventContext{AccountID: scope.AccountID, EnvironmentID: scope.EnvironmentID, SpaceID: scope.SpaceID,
		WorkbookID: c.WorkbookID, SheetID: c.SheetID, SheetSlug: sheet.Slug, VersionID: c.ID, CommitID: c.ID, ActorID: actor}
}

func (tx *Tx) completeCommit(c *model.Commit, scope *workbookScope, slug, actor string) error {
	now := tx.Now()
	c.CompletedAt, c.CompletedBy = &now, actor
	if _, err := tx.Exec(`UPDATE commits SET completed_at = ?, completed_by = ? WHERE id = ?`, sqldb.Millis(now), actor, c.ID); err != nil {
		return errs.Wrap(err, "complete commit")
	}
	sheet := &model.Sheet{ID: c.SheetID, WorkbookID: c.WorkbookID, Slug: slug}
	_, err := tx.Emit("commit:completed", commitContext(scope, sheet, c, actor),
		map[string]any{"sheetId": c.SheetID, "workbookId": c.WorkbookID, "versionId": c.ID, "commitId": c.ID})
	return err
}

// CompleteCommitTx completes a pending commit inside tx (an update that references the
// commit); completing a completed commit does nothing. Errors: not_found.
func (tx *Tx) CompleteCommitTx(accountID, id, actor string) (*model.Commit, error) {
	c, err := scanCommit(tx.QueryRow(`SELECT `+commitColumns+` FROM commits WHERE id = ?`, id))
	if err != nil {
		return nil, err
	}
	scope, err := tx.workbookScope(c.WorkbookID)
	if err != nil {
		return nil, err
	}
	if accountID != "" && scope.AccountID != accountID {
		return nil, errs.NotFoundf("commitId", "Commit not found")
	}
	if c.CompletedAt != nil {
		return c, nil
	}
	var slug string
	_ = tx.QueryRow(`SELECT slug FROM sheets WHERE id = ?`, c.SheetID).Scan(&slug)
	return c, tx.completeCommit(c, scope, slug, actor)
}

// CompleteCommit marks a commit complete and emits commit:completed. Errors: not_found.
func (db *DB) CompleteCommit(ctx context.Context, accountID, id, actor string) (*model.Commit, error) {
	var c *model.Commit
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		c, err = tx.CompleteCommitTx(accountID, id, actor)
		return err
	})
	return c, err
}

// ReplayCommit emits commit:created again for a commit, so hooks run once more. Errors: not_found.
func (db *DB) ReplayCommit(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		c, err := scanCommit(tx.QueryRow(`SELECT `+commitColumns+` FROM commits WHERE id = ?`, id))
		if err != nil {
			return err
		}
		scope, err := tx.workbookScope(c.WorkbookID)
		if err != nil {
			return err
		}
		if scope.AccountID != accountID {
			return errs.NotFoundf("commitId", "Commit not found")
		}
		var slug string
		_ = tx.QueryRow(`SELECT slug FROM sheets WHERE id = ?`, c.SheetID).Scan(&slug)
		sheet := &model.Sheet{ID: c.SheetID, WorkbookID: c.WorkbookID, Slug: slug}
		payload := map[string]any{"sheetId": c.SheetID, "workbookId": c.WorkbookID, "versionId": c.ID, "commitId": c.ID, "sheetSlug": slug, "trackChanges": scope.TrackChanges}
		_, err = tx.EmitData("commit:created", commitContext(scope, sheet, c, actor), payload, "v1/sheets/"+c.SheetID+"/records?commitId="+c.ID)
		return err
	})
}

const commitColumns = `id, sheet_id, workbook_id, created_by, completed_by, created_at, completed_at`

func scanCommit(s sqldb.Scanner) (*model.Commit, error) {
	var c model.Commit
	var created int64
	var completed sql.NullInt64
	err := s.Scan(&c.ID, &c.SheetID, &c.WorkbookID, &c.CreatedBy, &c.CompletedBy, &created, &completed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("commitId", "Commit not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan commit")
	}
	c.CreatedAt, c.CompletedAt = sqldb.FromMillis(created), sqldb.FromNullMillis(completed)
	return &c, nil
}

// GetCommit returns a commit and the workbook it belongs to. Errors: not_found.
func (db *DB) GetCommit(ctx context.Context, id string) (*model.Commit, error) {
	return scanCommit(db.Reader.QueryRowContext(ctx, `SELECT `+commitColumns+` FROM commits WHERE id = ?`, id))
}

// ListCommits returns the commits of a workbook (column "workbook_id") or a sheet
// ("sheet_id"), oldest first; completed filters by state when set.
func (db *DB) ListCommits(ctx context.Context, column, id string, completed *bool) ([]*model.Commit, error) {
	if column != "workbook_id" && column != "sheet_id" {
		return nil, errs.Wrap(nil, "bad commit column")
	}
	q := `SELECT ` + commitColumns + ` FROM commits WHERE ` + column + ` = ?`
	if completed != nil {
		if *completed {
			q += ` AND completed_at IS NOT NULL`
		} else {
			q += ` AND completed_at IS NULL`
		}
	}
	rows, err := db.Reader.QueryContext(ctx, q+` ORDER BY created_at, id`, id)
	if err != nil {
		return nil, errs.Wrap(err, "list commits")
	}
	defer rows.Close()
	out := []*model.Commit{}
	for rows.Next() {
		c, err := scanCommit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// PendingCommits counts a workbook's commits that have not completed; with trackChanges on,
// actions wait for it to reach zero.
func (db *DB) PendingCommits(ctx context.Context, workbookID string) (int, error) {
	var n int
	err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM commits WHERE workbook_id = ? AND completed_at IS NULL`, workbookID).Scan(&n)
	if err != nil {
		return 0, errs.Wrap(err, "count pending commits")
	}
	return n, nil
}
