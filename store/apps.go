package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice/sluice/errs"
)

// Id prefixes of apps and their constraints.
const (
	PrefixApp        = "us_app_"
	PrefixConstraint = "us_ctr_"
)

// App is an import product built on Sluice; spaces carry its id (appId), and one of them
// may be its template (isAppTemplate).
type App struct {
	ID, AccountID                           string
	Name, Namespace, Type                   string
	Entity, EntityPlural, Icon              string
	Metadata, EnvironmentFilters, Blueprint json.RawMessage
	ActivatedAt                             *time.Time
	CreatedAt, UpdatedAt                    time.Time
}

// Constraint is a stored validator of an app, versioned on every change.
type Constraint struct {
	ID, AppID                        string
	Validator, Description, Function string
	Label                            string
	Options                          json.RawMessage
	Version                          int
	CreatedAt, UpdatedAt             time.Time
}

const appColumns = `id, account_id, name, namespace, type, entity, entity_plural, icon, metadata, environment_filters, blueprint, activated_at, created_at, updated_at`

func scanApp(s sqldb.Scanner) (*App, error) {
	var a App
	var meta, filters, blueprint sql.NullString
	var act sql.NullInt64
	var c, u int64
	err := s.Scan(&a.ID, &a.AccountID, &a.Name, &a.Namespace, &a.Type, &a.Entity, &a.EntityPlural, &a.Icon, &meta, &filters, &blueprint, &act, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("appId", "App not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan app")
	}
	a.Metadata, a.EnvironmentFilters, a.Blueprint = nullJSON(meta), nullJSON(filters), nullJSON(blueprint)
	a.ActivatedAt = sqldb.FromNullMillis(act)
	a.CreatedAt, a.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &a, nil
}

// uniqueViolation turns a clash on a unique index into a conflict naming key.
func uniqueViolation(err error, key, format string, args ...any) error {
	var pg *pgconn.PgError
	if err != nil && (strings.Contains(err.Error(), "UNIQUE constraint failed") || errors.As(err, &pg) && pg.Code == pgerrcode.UniqueViolation) {
		return errs.E(errs.Conflict, key, format, args...)
	}
	return err
}

// SaveApp creates (no id) or replaces an app. Errors: conflict (namespace taken).
func (db *DB) SaveApp(ctx context.Context, a *App) error {
	return db.Update(ctx, func(tx *Tx) error {
		var err error
		if a.ID == "" {
			a.ID, a.CreatedAt = sqldb.NewID(PrefixApp), tx.Now()
			_, err = tx.Exec(`INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				a.ID, a.AccountID, a.Name, a.Namespace, a.Type, a.Entity, a.EntityPlural, a.Icon, jsonOrNull(a.Metadata), jsonOrNull(a.EnvironmentFilters),
				jsonOrNull(a.Blueprint), sqldb.MillisPtr(a.ActivatedAt), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		} else {
			_, err = tx.Exec(`UPDATE apps SET name = ?, namespace = ?, entity = ?, entity_plural = ?, icon = ?, metadata = ?, environment_filters = ?,
				blueprint = ?, activated_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, a.Name, a.Namespace, a.Entity, a.EntityPlural, a.Icon,
				jsonOrNull(a.Metadata), jsonOrNull(a.EnvironmentFilters), jsonOrNull(a.Blueprint), sqldb.MillisPtr(a.ActivatedAt), sqldb.Millis(tx.Now()), a.ID)
		}
		a.UpdatedAt = tx.Now()
		if err = uniqueViolation(err, "namespace", "Another app already uses namespace %q", a.Namespace); err != nil {
			if errs.Is(err, errs.Conflict) {
				return err
			}
			return errs.Wrap(err, "save app")
		}
		return nil
	})
}

// GetApp returns a live app of the account. Errors: not_found.
func (db *DB) GetApp(ctx context.Context, accountID, id string) (*App, error) {
	return scanApp(db.Reader.QueryRowContext(ctx, `SELECT `+appColumns+` FROM apps WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// ListApps returns the account's live apps, oldest first.
func (db *DB) ListApps(ctx context.Context, accountID string) ([]*App, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+appColumns+` FROM apps WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, errs.Wrap(err, "list apps")
	}
	defer rows.Close()
	out := []*App{}
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// DeleteApp removes an app and its constraints; its spaces keep their appId. Errors: not_found.
func (db *DB) DeleteApp(ctx context.Context, accountID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE apps SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, accountID)
		if err != nil {
			return errs.Wrap(err, "delete app")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("appId", "App not found")
		}
		if _, err := tx.Exec(`UPDATE app_constraints SET deleted_at = ? WHERE app_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "delete app constraints")
		}
		return nil
	})
}

const constraintColumns = `id, app_id, validator, description, function, options, label, version, created_at, updated_at`

func scanConstraint(s sqldb.Scanner) (*Constraint, error) {
	var k Constraint
	var opts sql.NullString
	var c, u int64
	err := s.Scan(&k.ID, &k.AppID, &k.Validator, &k.Description, &k.Function, &opts, &k.Label, &k.Version, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("constraintId", "Constraint not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan constraint")
	}
	k.Options = nullJSON(opts)
	k.CreatedAt, k.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &k, nil
}

// SaveConstraint creates (no id) or changes a constraint, storing the result as its next
// version. Errors: conflict (validator taken in the app), not_found.
func (db *DB) SaveConstraint(ctx context.Context, k *Constraint) error {
	return db.Update(ctx, func(tx *Tx) error {
		var err error
		if k.ID == "" {
			k.ID, k.Version, k.CreatedAt = sqldb.NewID(PrefixConstraint), 1, tx.Now()
			_, err = tx.Exec(`INSERT INTO app_constraints (`+constraintColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
				k.ID, k.AppID, k.Validator, k.Description, k.Function, jsonOrNull(k.Options), k.Label, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		} else {
			k.Version++
			var res sql.Result
			res, err = tx.Exec(`UPDATE app_constraints SET description = ?, function = ?, options = ?, label = ?, version = ?, updated_at = ?
				WHERE id = ? AND deleted_at IS NULL`, k.Description, k.Function, jsonOrNull(k.Options), k.Label, k.Version, sqldb.Millis(tx.Now()), k.ID)
			if err == nil {
				if n, _ := res.RowsAffected(); n == 0 {
					return errs.NotFoundf("constraintId", "Constraint not found")
				}
			}
		}
		k.UpdatedAt = tx.Now()
		if err = uniqueViolation(err, "validator", "The app already has a constraint with validator %q", k.Validator); err != nil {
			if errs.Is(err, errs.Conflict) {
				return err
			}
			return errs.Wrap(err, "save constraint")
		}
		_, err = tx.Exec(`INSERT INTO app_constraint_versions (constraint_id, version, validator, description, function, options, label, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Version, k.Validator, k.Description, k.Function, jsonOrNull(k.Options), k.Label, sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "store constraint version")
		}
		return nil
	})
}

// GetConstraint returns a live constraint of an app. Errors: not_found.
func (db *DB) GetConstraint(ctx context.Context, appID, id string) (*Constraint, error) {
	return scanConstraint(db.Reader.QueryRowContext(ctx, `SELECT `+constraintColumns+` FROM app_constraints WHERE id = ? AND app_id = ? AND deleted_at IS NULL`, id, appID))
}

// ListConstraints returns an app's live constraints, oldest first.
func (db *DB) ListConstraints(ctx context.Context, appID string) ([]*Constraint, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+constraintColumns+` FROM app_constraints WHERE app_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, appID)
	if err != nil {
		return nil, errs.Wrap(err, "list constraints")
	}
	defer rows.Close()
	out := []*Constraint{}
	for rows.Next() {
		k, err := scanConstraint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// ConstraintVersions returns a constraint's versions, oldest first; version > 0 picks one.
// Errors: not_found.
func (db *DB) ConstraintVersions(ctx context.Context, k *Constraint, version int) ([]*Constraint, error) {
	q, args := `SELECT version, validator, description, function, options, label, created_at FROM app_constraint_versions WHERE constraint_id = ?`, []any{k.ID}
	if version > 0 {
		q, args = q+` AND version = ?`, append(args, version)
	}
	rows, err := db.Reader.QueryContext(ctx, q+` ORDER BY version`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list constraint versions")
	}
	defer rows.Close()
	out := []*Constraint{}
	for rows.Next() {
		v := &Constraint{ID: k.ID, AppID: k.AppID}
		var opts sql.NullString
		var at int64
		if err := rows.Scan(&v.Version, &v.Validator, &v.Description, &v.Function, &opts, &v.Label, &at); err != nil {
			return nil, errs.Wrap(err, "scan constraint version")
		}
		v.Options, v.CreatedAt, v.UpdatedAt = nullJSON(opts), k.CreatedAt, sqldb.FromMillis(at)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if version > 0 && len(out) == 0 {
		return nil, errs.NotFoundf("version", "Constraint %s has no version %d (its latest is %d)", k.ID, version, k.Version)
	}
	return out, nil
}

// DeleteConstraint removes a constraint of an app. Errors: not_found.
func (db *DB) DeleteConstraint(ctx context.Context, appID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE app_constraints SET deleted_at = ? WHERE id = ? AND app_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, appID)
		if err != nil {
			return errs.Wrap(err, "delete constraint")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("constraintId", "Constraint not found")
		}
		return nil
	})
}
