package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// PrefixPAT is the id prefix of personal access tokens; their values start with "pat_".
const PrefixPAT = "us_pat_"

// PersonalAccessToken is a user's named API token; only a hash of its value is stored.
type PersonalAccessToken struct {
	ID         string
	AccountID  string
	UserID     string
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	ExpiresAt  *time.Time // nil: until revoked
}

func hashToken(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(h[:])
}

// CreatePAT makes a token for a user and returns it with its value, which is never stored.
func (db *DB) CreatePAT(ctx context.Context, u *model.User, name string, ttl time.Duration) (*PersonalAccessToken, string, error) {
	raw := "pat_" + sqldb.RandomString(40)
	t := &PersonalAccessToken{ID: sqldb.NewID(PrefixPAT), AccountID: u.AccountID, UserID: u.ID, Name: name}
	err := db.Update(ctx, func(tx *Tx) error {
		t.CreatedAt = tx.Now()
		var expiresAt *time.Time
		if ttl > 0 {
			e := tx.Now().Add(ttl)
			expiresAt, t.ExpiresAt = &e, &e
		}
		_, err := tx.Exec(`INSERT INTO personal_access_tokens (id, account_id, user_id, name, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			t.ID, t.AccountID, t.UserID, name, hashToken(raw), sqldb.Millis(tx.Now()), sqldb.MillisPtr(expiresAt))
		if err != nil {
			return errs.Wrap(err, "insert token")
		}
		return nil
	})
	return t, raw, err
}

// ListPATs returns a user's live tokens, newest first.
func (db *DB) ListPATs(ctx context.Context, userID string) ([]*PersonalAccessToken, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, account_id, user_id, name, created_at, last_used_at, expires_at FROM personal_access_tokens
		WHERE user_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id`, userID)
	if err != nil {
		return nil, errs.Wrap(err, "list tokens")
	}
	defer rows.Close()
	out := []*PersonalAccessToken{}
	for rows.Next() {
		var t PersonalAccessToken
		var c int64
		var used, exp sql.NullInt64
		if err := rows.Scan(&t.ID, &t.AccountID, &t.UserID, &t.Name, &c, &used, &exp); err != nil {
			return nil, errs.Wrap(err, "scan token")
		}
		t.CreatedAt, t.LastUsedAt, t.ExpiresAt = sqldb.FromMillis(c), sqldb.FromNullMillis(used), sqldb.FromNullMillis(exp)
		out = append(out, &t)
	}
	return out, rows.Err()
}

// DeletePAT revokes a user's token at once. Errors: not_found.
func (db *DB) DeletePAT(ctx context.Context, userID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE personal_access_tokens SET deleted_at = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, userID)
		if err != nil {
			return errs.Wrap(err, "delete token")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("accessTokenId", "Personal access token not found")
		}
		return nil
	})
}

// UserByPAT finds the user of a live token value and records its use (at most once a minute).
// Errors: not_found.
func (db *DB) UserByPAT(ctx context.Context, raw string) (*model.User, error) {
	var id, userID string
	var used, exp sql.NullInt64
	err := db.Reader.QueryRowContext(ctx, `SELECT id, user_id, last_used_at, expires_at FROM personal_access_tokens WHERE token_hash = ? AND deleted_at IS NULL`, hashToken(raw)).
		Scan(&id, &userID, &used, &exp)
	if err == sql.ErrNoRows || (err == nil && exp.Valid && exp.Int64 <= sqldb.Millis(db.Now())) {
		return nil, errs.NotFoundf("token", "Personal access token not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "find token")
	}
	if now := db.Now(); !used.Valid || now.Sub(sqldb.FromMillis(used.Int64)) > time.Minute {
		_ = db.Update(ctx, func(tx *Tx) error {
			_, err := tx.Exec(`UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), id)
			return err
		})
	}
	return db.GetUser(ctx, userID)
}
