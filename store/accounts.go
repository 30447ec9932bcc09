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

// Bootstrap is what a first start needs: the admin and the keys of the default environment.
// Empty fields are generated.
type Bootstrap struct {
	AccountName    string
	AdminEmail     string
	PasswordHash   string
	SecretKey      string
	PublishableKey string
}

// BootstrapResult tells what Bootstrap found or created.
type BootstrapResult struct {
	Created     bool // false when the database already had an account
	Account     *model.Account
	Environment *model.Environment
	Admin       *model.User
}

// EnsureBootstrap creates the account, its default environment, the admin user and the
// environment's keys when the database holds no account yet; otherwise it changes nothing.
func (db *DB) EnsureBootstrap(ctx context.Context, b Bootstrap) (*BootstrapResult, error) {
	res := &BootstrapResult{}
	err := db.Update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM accounts`).Scan(&n); err != nil {
			return errs.Wrap(err, "count accounts")
		}
		if n > 0 {
			return nil
		}
		res.Created = true
		now := tx.Now()
		acc := &model.Account{ID: sqldb.NewID(sqldb.PrefixAccount), Name: b.AccountName, Metadata: json.RawMessage("{}"), CreatedAt: now, UpdatedAt: now}
		if _, err := tx.Exec(`INSERT INTO accounts (id, name, metadata, created_at, updated_at) VALUES (?, ?, '{}', ?, ?)`, acc.ID, acc.Name, sqldb.Millis(now), sqldb.Millis(now)); err != nil {
			return errs.Wrap(err, "insert account")
		}
		res.Account = acc
		u := &model.User{ID: sqldb.NewID(sqldb.PrefixUser), AccountID: acc.ID, Email: b.AdminEmail, Name: "Admin", PasswordHash: b.PasswordHash, CreatedAt: now, UpdatedAt: now}
		if _, err := tx.Exec(`INSERT INTO users (id, account_id, email, name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.AccountID, u.Email, u.Name, u.PasswordHash, sqldb.Millis(now), sqldb.Millis(now)); err != nil {
			return errs.Wrap(err, "insert admin")
		}
		res.Admin = u
		env := &model.Environment{AccountID: acc.ID, Name: "Development"}
		if err := tx.insertEnvironment(env, u.ID, b.SecretKey, b.PublishableKey); err != nil {
			return err
		}
		res.Environment = env
		return nil
	})
	return res, err
}

// GetAccount returns an account. Errors: not_found.
func (db *DB) GetAccount(ctx context.Context, id string) (*model.Account, error) {
	var a model.Account
	var meta, domains string
	var c, u int64
	err := db.Reader.QueryRowContext(ctx, `SELECT id, name, metadata, embedded_domains, created_at, updated_at FROM accounts WHERE id = ?`, id).
		Scan(&a.ID, &a.Name, &meta, &domains, &c, &u)
	if err == sql.ErrNoRows {
		return nil, errs.NotFoundf("accountId", "Account not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "get account")
	}
	a.Metadata, a.CreatedAt, a.UpdatedAt = sqldb.RawOr(meta, "{}"), sqldb.FromMillis(c), sqldb.FromMillis(u)
	a.EmbeddedDomains = []string{}
	_ = json.Unmarshal([]byte(domains), &a.EmbeddedDomains)
	return &a, nil
}

// AccountUpdate holds the fields PATCH /accounts/current may change; nil leaves a field as is.
type AccountUpdate struct {
	Name            *string
	Metadata        json.RawMessage
	EmbeddedDomains []string // nil: unchanged
}

// UpdateAccount changes an account. Errors: not_found.
func (db *DB) UpdateAccount(ctx context.Context, id string, up AccountUpdate) (*model.Account, error) {
	err := db.Update(ctx, func(tx *Tx) error {
		var domains any
		if up.EmbeddedDomains != nil {
			domains = sqldb.JSONText(up.EmbeddedDomains)
		}
		res, err := tx.Exec(`UPDATE accounts SET name = COALESCE(?, name), metadata = COALESCE(?, metadata), embedded_domains = COALESCE(?, embedded_domains),
			updated_at = ? WHERE id = ?`, up.Name, nullRaw(up.Metadata), domains, sqldb.Millis(tx.Now()), id)
		if err != nil {
			return errs.Wrap(err, "update account")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("accountId", "Account not found")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.GetAccount(ctx, id)
}

// nullRaw is NULL for an absent JSON value, its text otherwise.
func nullRaw(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return string(r)
}

// Setting returns a stored setting, creating it with gen() on first use.
func (db *DB) Setting(ctx context.Context, key string, gen func() string) (string, error) {
	var v string
	err := db.Update(ctx, func(tx *Tx) error {
		err := tx.QueryRow(`SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return errs.Wrap(err, "read setting")
		}
		v = gen()
		_, err = tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, key, v)
		return err
	})
	return v, err
}

// EmbeddedOrigins is every origin on any account's embedding allowlist: CORS and framing are
// decided before a request says which account it is for.
func (db *DB) EmbeddedOrigins(ctx context.Context) ([]string, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT DISTINCT value FROM accounts a, `+db.Reader.Dialect().JSONTexts("a.embedded_domains")+` ORDER BY value`)
	if err != nil {
		return nil, errs.Wrap(err, "read embedding allowlist")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, errs.Wrap(err, "scan origin")
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
