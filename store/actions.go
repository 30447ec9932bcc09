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

// PrefixAction is the id prefix of actions.
const PrefixAction = "us_act_"

const actionColumns = `id, account_id, environment_id, space_id, target_id, target_type, workbook_id, config, created_by, created_at, updated_at`

func scanAction(sc sqldb.Scanner) (*model.Action, error) {
	var a model.Action
	var cfg string
	var c, u int64
	err := sc.Scan(&a.ID, &a.AccountID, &a.EnvironmentID, &a.SpaceID, &a.TargetID, &a.TargetType, &a.WorkbookID, &cfg, &a.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("actionId", "Action not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan action")
	}
	if err := json.Unmarshal([]byte(cfg), &a.Config); err != nil {
		return nil, errs.Wrap(err, "decode action %s", a.ID)
	}
	a.CreatedAt, a.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &a, nil
}

// actionContext names the action and its target for action events.
func actionContext(a *model.Action, actor string) model.EventContext {
	c := model.EventContext{AccountID: a.AccountID, EnvironmentID: a.EnvironmentID, SpaceID: a.SpaceID, WorkbookID: a.WorkbookID,
		ActorID: actor, ActionID: a.ID}
	switch a.TargetType {
	case KindSheet:
		c.SheetID = a.TargetID
	case KindFile:
		c.FileID = a.TargetID
	case KindDocument:
		c.DocumentID = a.TargetID
	}
	return c
}

func actionPayload(a *model.Action) map[string]any {
	return map[string]any{"actionId": a.ID, "targetId": a.TargetID, "operation": a.Config.Operation, "label": a.Config.Label}
}

// CreateActions stores actions (filling ids and times) in one transaction and emits
// action:created for each.
func (db *DB) CreateActions(ctx context.Context, list []*model.Action, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		for _, a := range list {
			a.ID = sqldb.NewID(PrefixAction)
			a.CreatedBy, a.CreatedAt, a.UpdatedAt = actor, tx.Now(), tx.Now()
			cfg, err := json.Marshal(a.Config)
			if err != nil {
				return errs.Wrap(err, "encode action")
			}
			_, err = tx.Exec(`INSERT INTO actions (id, account_id, environment_id, space_id, target_id, target_type, workbook_id, operation, config,
				created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				a.ID, a.AccountID, a.EnvironmentID, a.SpaceID, a.TargetID, a.TargetType, a.WorkbookID, a.Config.Operation, string(cfg),
				actor, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
			if err != nil {
				return errs.Wrap(err, "insert action")
			}
			if _, err := tx.Emit("action:created", actionContext(a, actor), actionPayload(a)); err != nil {
				return err
			}
		}
		return nil
	})
}

// GetAction returns a live action of the account. Errors: not_found.
func (db *DB) GetAction(ctx context.Context, accountID, id string) (*model.Action, error) {
	return scanAction(db.Reader.QueryRowContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// ListActions returns the live actions of a space in creation order.
func (db *DB) ListActions(ctx context.Context, accountID, spaceID string) ([]*model.Action, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE account_id = ? AND space_id = ? AND deleted_at IS NULL
		ORDER BY created_at, id`, accountID, spaceID)
	if err != nil {
		return nil, errs.Wrap(err, "list actions")
	}
	defer rows.Close()
	out := []*model.Action{}
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// UpdateAction lets change edit a live action's config inside a transaction, stores it and
// emits action:updated. Errors: not_found, and whatever change returns.
func (db *DB) UpdateAction(ctx context.Context, accountID, id, actor string, change func(a *model.Action) error) (*model.Action, error) {
	var a *model.Action
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		a, err = scanAction(tx.QueryRow(`SELECT `+actionColumns+` FROM actions WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
		if err != nil {
			return err
		}
		if err := change(a); err != nil {
			return err
		}
		a.UpdatedAt = tx.Now()
		cfg, err := json.Marshal(a.Config)
		if err != nil {
			return errs.Wrap(err, "encode action")
		}
		if _, err := tx.Exec(`UPDATE actions SET config = ?, operation = ?, updated_at = ? WHERE id = ?`, string(cfg), a.Config.Operation, sqldb.Millis(tx.Now()), a.ID); err != nil {
			return errs.Wrap(err, "update action")
		}
		_, err = tx.Emit("action:updated", actionContext(a, actor), actionPayload(a))
		return err
	})
	return a, err
}

// DeleteAction soft-deletes an action and emits action:deleted. Errors: not_found.
func (db *DB) DeleteAction(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		a, err := scanAction(tx.QueryRow(`SELECT `+actionColumns+` FROM actions WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE actions SET deleted_at = ?, updated_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "delete action")
		}
		_, err = tx.Emit("action:deleted", actionContext(a, actor), actionPayload(a))
		return err
	})
}

// FindAction returns the action with this operation mounted on target: a first-class action
// first, else one inline in the workbook's `actions` or the sheet config's `actions` (those
// have no id). It returns nil when there is none.
func (db *DB) FindAction(ctx context.Context, accountID, targetID, operation string) (*model.Action, error) {
	list, err := db.ActionsOn(ctx, accountID, targetID)
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		if a.Config.Operation == operation {
			return a, nil
		}
	}
	return nil, nil
}

// ActionsOn lists the actions mounted on a target: its first-class actions, oldest first,
// then those inline in a workbook's `actions` or a sheet config's `actions` (without ids).
func (db *DB) ActionsOn(ctx context.Context, accountID, targetID string) ([]*model.Action, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE account_id = ? AND target_id = ?
		AND deleted_at IS NULL ORDER BY created_at, id`, accountID, targetID)
	if err != nil {
		return nil, errs.Wrap(err, "list actions")
	}
	defer rows.Close()
	var out []*model.Action
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var inline sql.NullString
	switch KindOf(targetID) {
	case KindWorkbook:
		err = db.Reader.QueryRowContext(ctx, `SELECT actions FROM workbooks WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, targetID, accountID).Scan(&inline)
	case KindSheet:
		err = db.Reader.QueryRowContext(ctx, `SELECT `+db.Reader.Dialect().JSONField("s.config", "actions")+` FROM sheets s JOIN workbooks w ON w.id = s.workbook_id
			WHERE s.id = ? AND w.account_id = ? AND s.deleted_at IS NULL`, targetID, accountID).Scan(&inline)
	default:
		return out, nil
	}
	if errors.Is(err, sql.ErrNoRows) || !inline.Valid {
		return out, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "read inline actions")
	}
	var list []model.ActionConfig
	if json.Unmarshal([]byte(inline.String), &list) != nil {
		return out, nil
	}
	for _, c := range list {
		out = append(out, &model.Action{AccountID: accountID, TargetID: targetID, TargetType: KindOf(targetID), Config: c})
	}
	return out, nil
}
