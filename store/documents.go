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

const documentColumns = `id, account_id, environment_id, space_id, title, body, treatments, actions, created_at, updated_at`

func scanDocument(s sqldb.Scanner) (*model.Document, error) {
	var d model.Document
	var treatments, actions string
	var c, u int64
	err := s.Scan(&d.ID, &d.AccountID, &d.EnvironmentID, &d.SpaceID, &d.Title, &d.Body, &treatments, &actions, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("documentId", "Document not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan document")
	}
	d.Treatments, d.Actions = sqldb.StringList(treatments), sqldb.RawOr(actions, "[]")
	d.CreatedAt, d.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &d, nil
}

func documentContext(d *model.Document, actor string) model.EventContext {
	return model.EventContext{AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, SpaceID: d.SpaceID, DocumentID: d.ID, ActorID: actor}
}

// CreateDocument stores d in its space (ids and times filled) and emits document:created.
func (db *DB) CreateDocument(ctx context.Context, d *model.Document, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		d.ID = sqldb.NewID(sqldb.PrefixDocument)
		d.CreatedAt, d.UpdatedAt = tx.Now(), tx.Now()
		if d.Treatments == nil {
			d.Treatments = []string{}
		}
		if len(d.Actions) == 0 || string(d.Actions) == "null" {
			d.Actions = json.RawMessage("[]")
		}
		if _, err := tx.Exec(`INSERT INTO documents (id, account_id, environment_id, space_id, title, body, treatments, actions, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, d.AccountID, d.EnvironmentID, d.SpaceID, d.Title, d.Body, sqldb.JSONText(d.Treatments),
			string(d.Actions), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "insert document")
		}
		_, err := tx.Emit("document:created", documentContext(d, actor), map[string]any{"documentId": d.ID, "spaceId": d.SpaceID, "title": d.Title})
		return err
	})
}

// GetDocument returns a live document of a space. Errors: not_found.
func (db *DB) GetDocument(ctx context.Context, spaceID, id string) (*model.Document, error) {
	return scanDocument(db.Reader.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = ? AND space_id = ? AND deleted_at IS NULL`, id, spaceID))
}

// ListDocuments returns a space's live documents, oldest first.
func (db *DB) ListDocuments(ctx context.Context, spaceID string) ([]*model.Document, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE space_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, spaceID)
	if err != nil {
		return nil, errs.Wrap(err, "list documents")
	}
	defer rows.Close()
	out := []*model.Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// UpdateDocument replaces a document's title, body, treatments and actions (nil keeps them)
// and emits document:updated. Errors: not_found.
func (db *DB) UpdateDocument(ctx context.Context, d *model.Document, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		d.UpdatedAt = tx.Now()
		res, err := tx.Exec(`UPDATE documents SET title = ?, body = ?, treatments = ?, actions = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,
			d.Title, d.Body, sqldb.JSONText(d.Treatments), string(d.Actions), sqldb.Millis(tx.Now()), d.ID)
		if err != nil {
			return errs.Wrap(err, "update document")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("documentId", "Document not found")
		}
		_, err = tx.Emit("document:updated", documentContext(d, actor), map[string]any{"documentId": d.ID, "spaceId": d.SpaceID, "title": d.Title})
		return err
	})
}

// DeleteDocument soft-deletes a document and emits document:deleted. Errors: not_found.
func (db *DB) DeleteDocument(ctx context.Context, d *model.Document, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE documents SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), d.ID)
		if err != nil {
			return errs.Wrap(err, "delete document")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("documentId", "Document not found")
		}
		_, err = tx.Emit("document:deleted", documentContext(d, actor), map[string]any{"documentId": d.ID, "spaceId": d.SpaceID})
		return err
	})
}
