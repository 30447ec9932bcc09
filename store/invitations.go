package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Id prefixes of invitations and outbox mails.
const (
	PrefixInvitation = "us_inv_"
	PrefixMail       = "us_mail_"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// UserInfo is a user as the users API lists them.
type UserInfo struct {
	model.User
	Metadata   string
	Dashboard  *int
	LastSeenAt *time.Time
	Invited    bool // an invitation is pending: the user has not set a password yet
}

const userInfoColumns = `u.id, u.account_id, u.email, u.name, u.password_hash, u.environment_id, u.created_at, u.updated_at, u.metadata, u.dashboard, u.last_seen_at,
	EXISTS (SELECT 1 FROM invitations i WHERE i.user_id = u.id AND i.accepted_at IS NULL AND i.revoked_at IS NULL)`

func scanUserInfo(s sqldb.Scanner) (*UserInfo, error) {
	var u UserInfo
	var c, up int64
	var dash, seen sql.NullInt64
	if err := s.Scan(&u.ID, &u.AccountID, &u.Email, &u.Name, &u.PasswordHash, &u.EnvironmentID, &c, &up, &u.Metadata, &dash, &seen, &u.Invited); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errs.NotFoundf("userId", "User not found")
		}
		return nil, errs.Wrap(err, "scan user")
	}
	u.CreatedAt, u.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(up)
	if dash.Valid {
		d := int(dash.Int64)
		u.Dashboard = &d
	}
	u.LastSeenAt = sqldb.FromNullMillis(seen)
	return &u, nil
}

// UserScope is whose users a caller sees: an account's, or (EnvironmentID set) only the users
// invited into one environment.
type UserScope struct{ AccountID, EnvironmentID string }

func (s UserScope) cond() (string, []any) {
	if s.EnvironmentID != "" {
		return `u.account_id = ? AND u.environment_id = ? AND u.deleted_at IS NULL`, []any{s.AccountID, s.EnvironmentID}
	}
	return `u.account_id = ? AND u.deleted_at IS NULL`, []any{s.AccountID}
}

// ListUsers returns a page of the scope's users (email exact, search in name or e-mail),
// by name or e-mail, and how many match.
func (db *DB) ListUsers(ctx context.Context, scope UserScope, email, search, sortField string, desc bool, p model.Page) ([]*UserInfo, int, error) {
	cond, args := scope.cond()
	if email != "" {
		cond, args = cond+` AND u.email = ?`, append(args, email)
	}
	if search != "" {
		like := db.Reader.Dialect().Like()
		cond, args = cond+` AND (u.name`+like+`? OR u.email`+like+`?)`, append(args, "%"+search+"%", "%"+search+"%")
	}
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM users u WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count users")
	}
	order := map[string]string{"name": "u.name", "email": "u.email", "createdAt": "u.created_at", "lastSeenAt": "u.last_seen_at"}[sortField]
	if order == "" {
		order = "u.created_at"
	}
	if desc {
		order += " DESC"
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+userInfoColumns+` FROM users u WHERE `+cond+` ORDER BY `+order+`, u.id LIMIT ? OFFSET ?`,
		append(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list users")
	}
	defer rows.Close()
	out := []*UserInfo{}
	for rows.Next() {
		u, err := scanUserInfo(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

// GetUserInfo returns a live user of the account. Errors: not_found.
func (db *DB) GetUserInfo(ctx context.Context, scope UserScope, id string) (*UserInfo, error) {
	cond, args := scope.cond()
	return scanUserInfo(db.Reader.QueryRowContext(ctx, `SELECT `+userInfoColumns+` FROM users u WHERE u.id = ? AND `+cond, append([]any{id}, args...)...))
}

// InviteUser creates a user without a password and their invitation; raw is the link's
// token, stored only as a hash. Errors: conflict (e-mail taken).
func (db *DB) InviteUser(ctx context.Context, scope UserScope, email, name, actor string) (u *UserInfo, raw string, err error) {
	accountID := scope.AccountID
	err = db.Update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM users WHERE email = ?`, email).Scan(&n); err != nil {
			return errs.Wrap(err, "check e-mail")
		}
		if n > 0 {
			return errs.E(errs.Conflict, "email", "A user with e-mail %s already exists", email)
		}
		id := sqldb.NewID(sqldb.PrefixUser)
		if _, err := tx.Exec(`INSERT INTO users (id, account_id, email, name, password_hash, environment_id, created_at, updated_at) VALUES (?, ?, ?, ?, '', ?, ?, ?)`,
			id, accountID, email, name, scope.EnvironmentID, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "create user")
		}
		raw, err = tx.newInvitation(id, accountID, actor)
		if err != nil {
			return err
		}
		u = &UserInfo{User: model.User{ID: id, AccountID: accountID, Email: email, Name: name, EnvironmentID: scope.EnvironmentID, CreatedAt: tx.Now(), UpdatedAt: tx.Now()},
			Metadata: "{}", Invited: true}
		return nil
	})
	return u, raw, err
}

// newInvitation revokes the user's open invitations and makes a new one.
func (tx *Tx) newInvitation(userID, accountID, actor string) (string, error) {
	if _, err := tx.Exec(`UPDATE invitations SET revoked_at = ? WHERE user_id = ? AND accepted_at IS NULL AND revoked_at IS NULL`, sqldb.Millis(tx.Now()), userID); err != nil {
		return "", errs.Wrap(err, "revoke invitations")
	}
	raw := "inv_" + sqldb.RandomString(40)
	if _, err := tx.Exec(`INSERT INTO invitations (id, user_id, account_id, token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		sqldb.NewID(PrefixInvitation), userID, accountID, hashToken(raw), actor, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now().Add(InvitationTTL))); err != nil {
		return "", errs.Wrap(err, "create invitation")
	}
	return raw, nil
}

// ResendInvitation replaces the invitation of a user who has not accepted. Errors:
// not_found, conflict (already accepted).
func (db *DB) ResendInvitation(ctx context.Context, scope UserScope, userID, actor string) (u *UserInfo, raw string, err error) {
	accountID := scope.AccountID
	if u, err = db.GetUserInfo(ctx, scope, userID); err != nil {
		return nil, "", err
	}
	if u.PasswordHash != "" {
		return nil, "", errs.E(errs.Conflict, "userId", "%s has already accepted the invitation", u.Email)
	}
	err = db.Update(ctx, func(tx *Tx) error {
		raw, err = tx.newInvitation(userID, accountID, actor)
		return err
	})
	return u, raw, err
}

// InvitationLive reports whether an invitation link can still be accepted: not used, not
// replaced by a newer one, not expired.
func (db *DB) InvitationLive(ctx context.Context, raw string) bool {
	var expires int64
	err := db.Reader.QueryRowContext(ctx, `SELECT expires_at FROM invitations WHERE token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL`,
		hashToken(raw)).Scan(&expires)
	return err == nil && expires >= sqldb.Millis(db.Now())
}

// AcceptInvitation sets the password of an invited user. Errors: not_found (unknown,
// expired, used or replaced link).
func (db *DB) AcceptInvitation(ctx context.Context, raw, passwordHash string) (*model.User, error) {
	var user *model.User
	err := db.Update(ctx, func(tx *Tx) error {
		var id, userID string
		var expires int64
		err := tx.QueryRow(`SELECT id, user_id, expires_at FROM invitations WHERE token_hash = ? AND accepted_at IS NULL AND revoked_at IS NULL`,
			hashToken(raw)).Scan(&id, &userID, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && expires < sqldb.Millis(tx.Now())) {
			return errs.NotFoundf("token", "This invitation link is not valid any more: it was used, replaced by a newer one, or has expired")
		}
		if err != nil {
			return errs.Wrap(err, "read invitation")
		}
		if _, err := tx.Exec(`UPDATE invitations SET accepted_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "accept invitation")
		}
		if _, err := tx.Exec(`UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, passwordHash, sqldb.Millis(tx.Now()), userID); err != nil {
			return errs.Wrap(err, "set password")
		}
		user, err = scanUser(tx.QueryRow(`SELECT `+userColumns+` FROM users WHERE id = ?`, userID))
		return err
	})
	return user, err
}

// UpdateUser changes a user's name and dashboard. Errors: not_found.
func (db *DB) UpdateUser(ctx context.Context, scope UserScope, id string, name *string, dashboard *int) (*UserInfo, error) {
	if _, err := db.GetUserInfo(ctx, scope, id); err != nil {
		return nil, err
	}
	accountID := scope.AccountID
	err := db.Update(ctx, func(tx *Tx) error {
		if name != nil {
			if _, err := tx.Exec(`UPDATE users SET name = ?, updated_at = ? WHERE id = ? AND account_id = ?`, strings.TrimSpace(*name), sqldb.Millis(tx.Now()), id, accountID); err != nil {
				return errs.Wrap(err, "update user")
			}
		}
		if dashboard != nil {
			if _, err := tx.Exec(`UPDATE users SET dashboard = ?, updated_at = ? WHERE id = ? AND account_id = ?`, *dashboard, sqldb.Millis(tx.Now()), id, accountID); err != nil {
				return errs.Wrap(err, "update user")
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.GetUserInfo(ctx, scope, id)
}

// DeleteUser removes a user: their invitations, personal access tokens and dashboard
// sessions stop working at once (and their JWTs, which UserLive refuses from now on).
func (db *DB) DeleteUser(ctx context.Context, scope UserScope, id string) error {
	if _, err := db.GetUserInfo(ctx, scope, id); err != nil {
		return err
	}
	accountID := scope.AccountID
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE users SET deleted_at = ?, password_hash = '', email = email || '#deleted-' || id WHERE id = ? AND account_id = ? AND deleted_at IS NULL`,
			sqldb.Millis(tx.Now()), id, accountID)
		if err != nil {
			return errs.Wrap(err, "delete user")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("userId", "User not found")
		}
		if _, err := tx.Exec(`UPDATE invitations SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND accepted_at IS NULL`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "revoke invitations")
		}
		if _, err := tx.Exec(`DELETE FROM personal_access_tokens WHERE user_id = ?`, id); err != nil {
			return errs.Wrap(err, "revoke tokens")
		}
		return tx.endSessions(id, "")
	})
}

// Mail is an e-mail in the outbox.
type Mail struct {
	ID, AccountID, To, Subject, HTML, Text, Error string
	CreatedAt                                     time.Time
	SentAt                                        *time.Time
}

// QueueMail keeps a mail in the outbox.
func (db *DB) QueueMail(ctx context.Context, m *Mail) error {
	return db.Update(ctx, func(tx *Tx) error {
		m.ID, m.CreatedAt = sqldb.NewID(PrefixMail), tx.Now()
		_, err := tx.Exec(`INSERT INTO outbox (id, account_id, to_addr, subject, html, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			m.ID, m.AccountID, m.To, m.Subject, m.HTML, m.Text, sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "queue mail")
		}
		return nil
	})
}

// MarkMail records a mail's sending: sent, or the error.
func (db *DB) MarkMail(ctx context.Context, id string, sendErr error) error {
	return db.Update(ctx, func(tx *Tx) error {
		var err error
		if sendErr == nil {
			_, err = tx.Exec(`UPDATE outbox SET sent_at = ?, error = '' WHERE id = ?`, sqldb.Millis(tx.Now()), id)
		} else {
			_, err = tx.Exec(`UPDATE outbox SET error = ? WHERE id = ?`, sendErr.Error(), id)
		}
		if err != nil {
			return errs.Wrap(err, "mark mail")
		}
		return nil
	})
}

// ListMail returns the account's outbox, newest first.
func (db *DB) ListMail(ctx context.Context, accountID string, p model.Page) ([]*Mail, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, account_id, to_addr, subject, html, text, error, created_at, sent_at FROM outbox WHERE account_id = ?
		ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, accountID, p.Size, p.Offset())
	if err != nil {
		return nil, errs.Wrap(err, "list outbox")
	}
	defer rows.Close()
	out := []*Mail{}
	for rows.Next() {
		var m Mail
		var c int64
		var sent sql.NullInt64
		if err := rows.Scan(&m.ID, &m.AccountID, &m.To, &m.Subject, &m.HTML, &m.Text, &m.Error, &c, &sent); err != nil {
			return nil, errs.Wrap(err, "scan mail")
		}
		m.CreatedAt, m.SentAt = sqldb.FromMillis(c), sqldb.FromNullMillis(sent)
		out = append(out, &m)
	}
	return out, rows.Err()
}
