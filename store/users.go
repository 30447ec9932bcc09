package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const userColumns = `id, account_id, email, name, password_hash, environment_id, token_version, deleted_at IS NOT NULL, created_at, updated_at`

func scanUser(s sqldb.Scanner) (*model.User, error) {
	var u model.User
	var c, up int64
	if err := s.Scan(&u.ID, &u.AccountID, &u.Email, &u.Name, &u.PasswordHash, &u.EnvironmentID, &u.TokenVersion, &u.Deleted, &c, &up); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errs.NotFoundf("userId", "User not found")
		}
		return nil, errs.Wrap(err, "scan user")
	}
	u.CreatedAt, u.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(up)
	return &u, nil
}

// UserByEmail finds a live user by e-mail, case-insensitively. Errors: not_found.
func (db *DB) UserByEmail(ctx context.Context, email string) (*model.User, error) {
	return scanUser(db.Reader.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ? AND deleted_at IS NULL`, email))
}

// GetUser returns a user, deleted or not (Deleted says which). Errors: not_found.
func (db *DB) GetUser(ctx context.Context, id string) (*model.User, error) {
	return scanUser(db.Reader.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// UserLive reports whether a user exists, is not deleted and is still at token version ver:
// every request made with a user's token or session asks this.
func (db *DB) UserLive(ctx context.Context, id string, ver int) bool {
	var n int
	err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE id = ? AND deleted_at IS NULL AND token_version = ?`, id, ver).Scan(&n)
	return err == nil && n == 1
}

// KeyLive reports whether an API key (by id) is neither rotated nor deleted, in a live
// environment: tokens exchanged from a key die with it.
func (db *DB) KeyLive(ctx context.Context, id string) bool {
	var n int
	err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys k JOIN environments e ON e.id = k.environment_id
		WHERE k.id = ? AND k.deleted_at IS NULL AND e.deleted_at IS NULL`, id).Scan(&n)
	return err == nil && n == 1
}

// ActorLive reports whether the key or user behind a space token still exists (a key not
// rotated, a user not deleted); other actors (guests, system) are checked elsewhere.
func (db *DB) ActorLive(ctx context.Context, id string) bool {
	switch {
	case strings.HasPrefix(id, sqldb.PrefixKey):
		return db.KeyLive(ctx, id)
	case strings.HasPrefix(id, sqldb.PrefixUser):
		var n int
		err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE id = ? AND deleted_at IS NULL`, id).Scan(&n)
		return err == nil && n == 1
	}
	return true
}
