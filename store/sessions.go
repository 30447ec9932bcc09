package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// Session is a dashboard session. The browser holds only its id (in a signed cookie); the row
// is the truth, so logging out, changing a password or deleting the user ends it everywhere.
type Session struct {
	UserID, AccountID, Email, EnvironmentID, GuestSpace, ClientAddr string
	CreatedAt, SeenAt                                               time.Time
}

// StartSession stores a new session and returns its id (shown to nobody but the cookie).
func (db *DB) StartSession(ctx context.Context, s *Session) (string, error) {
	id := "ses_" + sqldb.RandomString(40)
	err := db.Update(ctx, func(tx *Tx) error {
		s.CreatedAt, s.SeenAt = tx.Now(), tx.Now()
		_, err := tx.Exec(`INSERT INTO sessions (id_hash, user_id, account_id, email, environment_id, guest_space, client_addr, created_at, seen_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, hashToken(id), s.UserID, s.AccountID, s.Email, s.EnvironmentID, s.GuestSpace, s.ClientAddr, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "start session")
		}
		return nil
	})
	return id, err
}

// SessionByID returns a live session younger than ttl. A session of a user who was deleted
// (or changed their password since) is not live. Errors: not_found.
func (db *DB) SessionByID(ctx context.Context, id string, ttl time.Duration) (*Session, error) {
	var s Session
	var c, seen int64
	err := db.Reader.QueryRowContext(ctx, `SELECT s.user_id, s.account_id, s.email, s.environment_id, s.guest_space, s.client_addr, s.created_at, s.seen_at
		FROM sessions s WHERE s.id_hash = ? AND s.ended_at IS NULL AND s.created_at > ?
		AND (s.guest_space <> '' OR EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id AND u.deleted_at IS NULL))`,
		hashToken(id), sqldb.Millis(db.Now().Add(-ttl))).Scan(&s.UserID, &s.AccountID, &s.Email, &s.EnvironmentID, &s.GuestSpace, &s.ClientAddr, &c, &seen)
	if err == sql.ErrNoRows {
		return nil, errs.NotFoundf("session", "Session not found or ended")
	}
	if err != nil {
		return nil, errs.Wrap(err, "read session")
	}
	s.CreatedAt, s.SeenAt = sqldb.FromMillis(c), sqldb.FromMillis(seen)
	return &s, nil
}

// EndSession ends one session (logout).
func (db *DB) EndSession(ctx context.Context, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL`, sqldb.Millis(tx.Now()), hashToken(id))
		if err != nil {
			return errs.Wrap(err, "end session")
		}
		return nil
	})
}

// endSessions ends every session of a user but the one whose id is keep ("" for all).
func (tx *Tx) endSessions(userID, keep string) error {
	keepHash := ""
	if keep != "" {
		keepHash = hashToken(keep)
	}
	_, err := tx.Exec(`UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL AND id_hash <> ?`, sqldb.Millis(tx.Now()), userID, keepHash)
	if err != nil {
		return errs.Wrap(err, "end sessions")
	}
	return nil
}

// PruneSessions removes sessions that ended or expired more than a day ago.
func (db *DB) PruneSessions(ctx context.Context, ttl time.Duration) error {
	return db.Update(ctx, func(tx *Tx) error {
		cut := sqldb.Millis(tx.Now().Add(-ttl - 24*time.Hour))
		_, err := tx.Exec(`DELETE FROM sessions WHERE created_at < ? OR ended_at < ?`, cut, cut)
		if err != nil {
			return errs.Wrap(err, "prune sessions")
		}
		return nil
	})
}
