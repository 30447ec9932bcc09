package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// PrefixDataClip is the id prefix of data clips.
const PrefixDataClip = "us_clp_"

// DataClip is some records of a source sheet copied into a clip sheet of their own.
type DataClip struct {
	ID, AccountID, EnvironmentID, SpaceID  string
	WorkbookID, SourceSheetID, ClipSheetID string
	Name, Description, Status              string
	Collaborators                          []string
	SharedLinkAccess                       string // restricted | public
	GuestID, AccessToken                   string // the guest and token of a public link
	CreatedBy                              string
	MergedAt                               *time.Time
	CreatedAt, UpdatedAt                   time.Time
}

// DataClipFilter narrows ListDataClips.
type DataClipFilter struct {
	AccountID, EnvironmentID, SpaceID, SheetID, Status string
}

const dataClipColumns = `id, account_id, environment_id, space_id, workbook_id, source_sheet_id, clip_sheet_id, name, description, status,
	collaborators, shared_link_access, guest_id, access_token, created_by, merged_at, created_at, updated_at`

func scanDataClip(s sqldb.Scanner) (*DataClip, error) {
	var d DataClip
	var collab string
	var merged sql.NullInt64
	var c, u int64
	err := s.Scan(&d.ID, &d.AccountID, &d.EnvironmentID, &d.SpaceID, &d.WorkbookID, &d.SourceSheetID, &d.ClipSheetID, &d.Name, &d.Description,
		&d.Status, &collab, &d.SharedLinkAccess, &d.GuestID, &d.AccessToken, &d.CreatedBy, &merged, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("dataClipId", "Data clip not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan data clip")
	}
	d.Collaborators = sqldb.StringList(collab)
	d.MergedAt = sqldb.FromNullMillis(merged)
	d.CreatedAt, d.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &d, nil
}

func dataClipContext(d *DataClip, actor string) model.EventContext {
	return model.EventContext{AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, SpaceID: d.SpaceID, WorkbookID: d.WorkbookID,
		SheetID: d.ClipSheetID, ActorID: actor}
}

// SaveDataClip creates (no id) or updates a clip and emits data-clip:created or
// data-clip:updated (and data-clip:collaborator-updated when collaborators changed).
func (db *DB) SaveDataClip(ctx context.Context, d *DataClip, collaboratorsChanged bool, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		topic := "data-clip:updated"
		var err error
		if d.ID == "" {
			topic, d.ID, d.CreatedBy, d.CreatedAt = "data-clip:created", sqldb.NewID(PrefixDataClip), actor, tx.Now()
			_, err = tx.Exec(`INSERT INTO data_clips (`+dataClipColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				d.ID, d.AccountID, d.EnvironmentID, d.SpaceID, d.WorkbookID, d.SourceSheetID, d.ClipSheetID, d.Name, d.Description, d.Status,
				sqldb.JSONText(d.Collaborators), d.SharedLinkAccess, d.GuestID, d.AccessToken, actor, sqldb.MillisPtr(d.MergedAt), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		} else {
			_, err = tx.Exec(`UPDATE data_clips SET name = ?, description = ?, status = ?, collaborators = ?, shared_link_access = ?, guest_id = ?,
				access_token = ?, merged_at = ?, updated_at = ? WHERE id = ?`, d.Name, d.Description, d.Status, sqldb.JSONText(d.Collaborators),
				d.SharedLinkAccess, d.GuestID, d.AccessToken, sqldb.MillisPtr(d.MergedAt), sqldb.Millis(tx.Now()), d.ID)
		}
		if err != nil {
			return errs.Wrap(err, "save data clip")
		}
		d.UpdatedAt = tx.Now()
		payload := map[string]any{"dataClipId": d.ID, "status": d.Status}
		if _, err := tx.Emit(topic, dataClipContext(d, actor), payload); err != nil {
			return err
		}
		if collaboratorsChanged {
			_, err = tx.Emit("data-clip:collaborator-updated", dataClipContext(d, actor), map[string]any{"dataClipId": d.ID, "collaborators": d.Collaborators})
		}
		return err
	})
}

// GetDataClip returns a live clip of the account. Errors: not_found.
func (db *DB) GetDataClip(ctx context.Context, accountID, id string) (*DataClip, error) {
	return scanDataClip(db.Reader.QueryRowContext(ctx, `SELECT `+dataClipColumns+` FROM data_clips WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// ListDataClips returns live clips, oldest first.
func (db *DB) ListDataClips(ctx context.Context, f DataClipFilter) ([]*DataClip, error) {
	q, args := `SELECT `+dataClipColumns+` FROM data_clips WHERE account_id = ? AND deleted_at IS NULL`, []any{f.AccountID}
	for col, v := range map[string]string{"environment_id": f.EnvironmentID, "space_id": f.SpaceID, "status": f.Status} {
		if v != "" {
			q, args = q+` AND `+col+` = ?`, append(args, v)
		}
	}
	if f.SheetID != "" {
		q, args = q+` AND (source_sheet_id = ? OR clip_sheet_id = ?)`, append(args, f.SheetID, f.SheetID)
	}
	rows, err := db.Reader.QueryContext(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list data clips")
	}
	defer rows.Close()
	out := []*DataClip{}
	for rows.Next() {
		d, err := scanDataClip(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DeleteDataClip removes a clip (its workbook stays for the record) and emits data-clip:deleted.
func (db *DB) DeleteDataClip(ctx context.Context, d *DataClip, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE data_clips SET deleted_at = ?, access_token = '' WHERE id = ?`, sqldb.Millis(tx.Now()), d.ID); err != nil {
			return errs.Wrap(err, "delete data clip")
		}
		_, err := tx.Emit("data-clip:deleted", dataClipContext(d, actor), map[string]any{"dataClipId": d.ID})
		return err
	})
}
