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

// PasswordResetTTL is how long a reset link works.
const PasswordResetTTL = time.Hour

// setPassword replaces a user's password and ends everything issued under the old one: its
// JWTs (token_version), personal access tokens, dashboard sessions and open reset links.
func (tx *Tx) setPassword(userID, hash string) error {
	res, err := tx.Exec(`UPDATE users SET password_hash = ?, token_version = token_version + 1, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,
		hash, sqldb.Millis(tx.Now()), userID)
	if err != nil {
		return errs.Wrap(err, "set password")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFoundf("userId", "User not found")
	}
	if _, err := tx.Exec(`DELETE FROM personal_access_tokens WHERE user_id = ?`, userID); err != nil {
		return errs.Wrap(err, "revoke tokens")
	}
	if _, err := tx.Exec(`UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, sqldb.Millis(tx.Now()), userID); err != nil {
		return errs.Wrap(err, "revoke reset links")
	}
	return tx.endSessions(userID, "")
}

// ChangePassword sets a user's new password (the caller checked the current one); every
// session, JWT and personal access token of the user ends.
func (db *DB) ChangePassword(ctx context.Context, userID, hash string) error {
	return db.Update(ctx, func(tx *Tx) error { return tx.setPassword(userID, hash) })
}

// StartPasswordReset makes a one-hour reset link for the live user with this e-mail and
// returns its token (stored only as a hash). Errors: not_found (no such user, or one who
// never set a password).
func (db *DB) StartPasswordReset(ctx context.Context, email string) (*model.User, string, error) {
	u, err := db.UserByEmail(ctx, email)
	if err != nil {
		return nil, "", err
	}
	if u.PasswordHash == "" {
		return nil, "", errs.NotFoundf("email", "User not found")
	}
	raw := "pwr_" + sqldb.RandomString(40)
	err = db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO password_resets (id, user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			sqldb.NewID("us_pwr_"), u.ID, hashToken(raw), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now().Add(PasswordResetTTL)))
		if err != nil {
			return errs.Wrap(err, "create reset link")
		}
		return nil
	})
	return u, raw, err
}

// PasswordResetValid reports whether a reset link can still be used.
func (db *DB) PasswordResetValid(ctx context.Context, raw string) bool {
	var n int
	err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
		hashToken(raw), sqldb.Millis(db.Now())).Scan(&n)
	return err == nil && n == 1
}

// ResetPassword uses a reset link: the password is set and the link (and every other of the
// user) used up. Errors: not_found (unknown, used or expired link).
func (db *DB) ResetPassword(ctx context.Context, raw, hash string) (*model.User, error) {
	var user *model.User
	err := db.Update(ctx, func(tx *Tx) error {
		var userID string
		var expires int64
		err := tx.QueryRow(`SELECT user_id, expires_at FROM password_resets WHERE token_hash = ? AND used_at IS NULL`, hashToken(raw)).Scan(&userID, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && expires <= sqldb.Millis(tx.Now())) {
			return errs.NotFoundf("token", "This reset link is not valid any more: it was used or is older than one hour")
		}
		if err != nil {
			return errs.Wrap(err, "read reset link")
		}
		if err := tx.setPassword(userID, hash); err != nil {
			return err
		}
		user, err = scanUser(tx.QueryRow(`SELECT `+userColumns+` FROM users WHERE id = ?`, userID))
		return err
	})
	return user, err
}
