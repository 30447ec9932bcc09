package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// Resource kinds a job source or an action target can name.
const (
	KindSpace    = "space"
	KindWorkbook = "workbook"
	KindSheet    = "sheet"
	KindFile     = "file"
	KindDocument = "document"
)

// Resource is what an id names, with the ids of the resources around it.
type Resource struct {
	Kind          string // one of the Kind constants, or "" for an id Sluice does not know
	ID            string
	EnvironmentID string // empty when the resource's table does not exist yet
	SpaceID       string
	WorkbookID    string
	SheetID       string
	FileID        string
	DocumentID    string
}

// In reports whether the resource lies in environment envID and, when spaceID is set, in
// that space: the scope a job or an event may name resources within.
func (r *Resource) In(envID, spaceID string) bool {
	return r.EnvironmentID == envID && (spaceID == "" || r.SpaceID == spaceID)
}

// KindOf names the kind of resource an id's prefix denotes, or "" when it denotes none that
// jobs and actions work on.
func KindOf(id string) string {
	switch {
	case strings.HasPrefix(id, sqldb.PrefixSpace):
		return KindSpace
	case strings.HasPrefix(id, sqldb.PrefixWorkbook):
		return KindWorkbook
	case strings.HasPrefix(id, sqldb.PrefixSheet):
		return KindSheet
	case strings.HasPrefix(id, sqldb.PrefixFile), strings.HasPrefix(id, "us_file_"):
		return KindFile
	case strings.HasPrefix(id, sqldb.PrefixDocument):
		return KindDocument
	}
	return ""
}

// ResolveResource finds what id names in the account. An id with an unknown prefix resolves
// to a Resource of kind "" without error. Errors: not_found about key (a space, workbook or
// sheet id that names no live resource).
func (db *DB) ResolveResource(ctx context.Context, accountID, key, id string) (*Resource, error) {
	return resolveResource(ctx, db.Reader, accountID, key, id)
}

func resolveResource(ctx context.Context, q sqldb.Querier, accountID, key, id string) (*Resource, error) {
	r := &Resource{Kind: KindOf(id), ID: id}
	var err error
	switch r.Kind {
	case KindSpace:
		r.SpaceID = id
		err = q.QueryRowContext(ctx, `SELECT environment_id FROM spaces WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID).
			Scan(&r.EnvironmentID)
	case KindWorkbook:
		r.WorkbookID = id
		err = q.QueryRowContext(ctx, `SELECT environment_id, space_id FROM workbooks WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID).
			Scan(&r.EnvironmentID, &r.SpaceID)
	case KindSheet:
		r.SheetID = id
		err = q.QueryRowContext(ctx, `SELECT w.environment_id, w.space_id, w.id FROM sheets s JOIN workbooks w ON w.id = s.workbook_id
			WHERE s.id = ? AND w.account_id = ? AND s.deleted_at IS NULL AND w.deleted_at IS NULL`, id, accountID).
			Scan(&r.EnvironmentID, &r.SpaceID, &r.WorkbookID)
	case KindFile:
		r.FileID = id
		err = q.QueryRowContext(ctx, `SELECT environment_id, space_id FROM files WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID).
			Scan(&r.EnvironmentID, &r.SpaceID)
	case KindDocument:
		r.DocumentID = id
		err = q.QueryRowContext(ctx, `SELECT environment_id, space_id FROM documents WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID).
			Scan(&r.EnvironmentID, &r.SpaceID)
	}
	if err == sql.ErrNoRows {
		return nil, errs.NotFoundf(key, "%s %s not found", strings.ToUpper(r.Kind[:1])+r.Kind[1:], id)
	}
	if err != nil {
		return nil, errs.Wrap(err, "resolve %s", id)
	}
	return r, nil
}

// SheetIDsOfWorkbook returns the live sheets of a workbook in position order.
func (db *DB) SheetIDsOfWorkbook(ctx context.Context, workbookID string) ([]string, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT id FROM sheets WHERE workbook_id = ? AND deleted_at IS NULL ORDER BY position, created_at`, workbookID)
	if err != nil {
		return nil, errs.Wrap(err, "list sheets of workbook")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, errs.Wrap(err, "scan sheet id")
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
