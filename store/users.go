package store

import (
	"context"
	"database/sql"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const userColumns = `id, account_id, email, name, password_hash, created_at, updated_at`

func scanUser(s scanner) (*model.User, error) {
	var u model.User
	var c, up int64
	if err := s.Scan(&u.ID, &u.AccountID, &u.Email, &u.Name, &u.PasswordHash, &c, &up); err != nil {
		if err == sql.ErrNoRows {
			return nil, errs.NotFoundf("userId", "User not found")
		}
		return nil, errs.Wrap(err, "scan user")
	}
	u.CreatedAt, u.UpdatedAt = fromMS(c), fromMS(up)
	return &u, nil
}

// UserByEmail finds a user by e-mail, case-insensitively. Errors: not_found.
func (db *DB) UserByEmail(ctx context.Context, email string) (*model.User, error) {
	return scanUser(db.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
}

// GetUser returns a user. Errors: not_found.
func (db *DB) GetUser(ctx context.Context, id string) (*model.User, error) {
	return scanUser(db.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}
