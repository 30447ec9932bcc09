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

const environmentColumns = `id, account_id, name, is_prod, guest_authentication, features, metadata, translations_path, namespaces, language_override, created_at, updated_at`

func scanEnvironment(s sqldb.Scanner) (*model.Environment, error) {
	var e model.Environment
	var isProd int
	var ga, feat, meta, ns string
	var c, u int64
	err := s.Scan(&e.ID, &e.AccountID, &e.Name, &isProd, &ga, &feat, &meta, &e.TranslationsPath, &ns, &e.LanguageOverride, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("environmentId", "Environment not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan environment")
	}
	e.IsProd = isProd == 1
	e.GuestAuthentication = sqldb.StringList(ga)
	e.Features, e.Metadata = sqldb.RawOr(feat, "{}"), sqldb.RawOr(meta, "{}")
	e.Namespaces = sqldb.StringList(ns)
	e.CreatedAt, e.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &e, nil
}

// insertEnvironment stores env (filling id and times), creates its secret and publishable keys
// (generating those not given) and emits environment:created.
func (tx *Tx) insertEnvironment(env *model.Environment, actor, secret, publishable string) error {
	env.ID = sqldb.NewID(sqldb.PrefixEnvironment)
	env.CreatedAt, env.UpdatedAt = tx.Now(), tx.Now()
	if env.GuestAuthentication == nil {
		env.GuestAuthentication = []string{"shared_link", "magic_link"}
	}
	if len(env.Features) == 0 {
		env.Features = json.RawMessage("{}")
	}
	if len(env.Metadata) == 0 {
		env.Metadata = json.RawMessage("{}")
	}
	if env.Namespaces == nil {
		env.Namespaces = []string{}
	}
	_, err := tx.Exec(`INSERT INTO environments (id, account_id, name, is_prod, guest_authentication, features, metadata, translations_path, namespaces, language_override, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		env.ID, env.AccountID, env.Name, sqldb.BoolInt(env.IsProd), sqldb.JSONText(env.GuestAuthentication), sqldb.JSONText(env.Features), sqldb.JSONText(env.Metadata),
		env.TranslationsPath, sqldb.JSONText(env.Namespaces), env.LanguageOverride, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
	if err != nil {
		return errs.Wrap(err, "insert environment")
	}
	if secret == "" {
		secret = "sk_" + sqldb.RandomString(32)
	}
	if publishable == "" {
		publishable = "pk_" + sqldb.RandomString(32)
	}
	for typ, raw := range map[string]string{model.KeySecret: secret, model.KeyPublishable: publishable} {
		if err := tx.insertKey(&model.APIKey{ID: sqldb.NewID(sqldb.PrefixKey), AccountID: env.AccountID, EnvironmentID: env.ID, Type: typ, Raw: raw}, false); err != nil {
			return err
		}
	}
	_, err = tx.Emit("environment:created", model.EventContext{AccountID: env.AccountID, EnvironmentID: env.ID, ActorID: actor},
		map[string]any{"environmentId": env.ID, "name": env.Name})
	return err
}

// CreateEnvironment stores a new environment with fresh keys.
func (db *DB) CreateEnvironment(ctx context.Context, env *model.Environment, actor string) error {
	return db.Update(ctx, func(tx *Tx) error { return tx.insertEnvironment(env, actor, "", "") })
}

// GetEnvironment returns a live environment of the account. Errors: not_found.
func (db *DB) GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error) {
	return scanEnvironment(db.Reader.QueryRowContext(ctx, `SELECT `+environmentColumns+` FROM environments WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// ListEnvironments returns one page of the account's environments (only envID when set) and the total.
func (db *DB) ListEnvironments(ctx context.Context, accountID, envID string, p model.Page) ([]*model.Environment, int, error) {
	cond, args := `account_id = ? AND deleted_at IS NULL`, []any{accountID}
	if envID != "" {
		cond += ` AND id = ?`
		args = append(args, envID)
	}
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM environments WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count environments")
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+environmentColumns+` FROM environments WHERE `+cond+` ORDER BY created_at, id LIMIT ? OFFSET ?`,
		append(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list environments")
	}
	defer rows.Close()
	out := []*model.Environment{}
	for rows.Next() {
		e, err := scanEnvironment(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// EnvironmentUpdate holds the changeable fields; nil leaves a field as is.
type EnvironmentUpdate struct {
	Name                *string
	IsProd              *bool
	GuestAuthentication []string
	Metadata            json.RawMessage
	TranslationsPath    *string
	Namespaces          []string
	LanguageOverride    *string
}

// UpdateEnvironment changes an environment and emits environment:updated. Errors: not_found.
func (db *DB) UpdateEnvironment(ctx context.Context, accountID, id string, up EnvironmentUpdate, actor string) (*model.Environment, error) {
	var env *model.Environment
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		env, err = scanEnvironment(tx.QueryRow(`SELECT `+environmentColumns+` FROM environments WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
		if err != nil {
			return err
		}
		if up.Name != nil {
			env.Name = *up.Name
		}
		if up.IsProd != nil {
			env.IsProd = *up.IsProd
		}
		if up.GuestAuthentication != nil {
			env.GuestAuthentication = up.GuestAuthentication
		}
		if len(up.Metadata) > 0 {
			env.Metadata = up.Metadata
		}
		if up.TranslationsPath != nil {
			env.TranslationsPath = *up.TranslationsPath
		}
		if up.Namespaces != nil {
			env.Namespaces = up.Namespaces
		}
		if up.LanguageOverride != nil {
			env.LanguageOverride = *up.LanguageOverride
		}
		env.UpdatedAt = tx.Now()
		if _, err := tx.Exec(`UPDATE environments SET name = ?, is_prod = ?, guest_authentication = ?, metadata = ?, translations_path = ?, namespaces = ?, language_override = ?, updated_at = ? WHERE id = ?`,
			env.Name, sqldb.BoolInt(env.IsProd), sqldb.JSONText(env.GuestAuthentication), sqldb.JSONText(env.Metadata), env.TranslationsPath, sqldb.JSONText(env.Namespaces), env.LanguageOverride, sqldb.Millis(tx.Now()), env.ID); err != nil {
			return errs.Wrap(err, "update environment")
		}
		_, err = tx.Emit("environment:updated", model.EventContext{AccountID: accountID, EnvironmentID: id, ActorID: actor}, map[string]any{"environmentId": id, "name": env.Name})
		return err
	})
	return env, err
}

// DeleteEnvironment soft-deletes an environment, revokes its keys and emits
// environment:deleted. Errors: not_found, conflict (the account's last environment).
func (db *DB) DeleteEnvironment(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		var live int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM environments WHERE account_id = ? AND deleted_at IS NULL`, accountID).Scan(&live); err != nil {
			return errs.Wrap(err, "count environments")
		}
		res, err := tx.Exec(`UPDATE environments SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, accountID)
		if err != nil {
			return errs.Wrap(err, "delete environment")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("environmentId", "Environment not found")
		}
		if live <= 1 {
			return errs.E(errs.Conflict, "environmentId", "The last environment of an account cannot be deleted")
		}
		if _, err := tx.Exec(`UPDATE api_keys SET deleted_at = ? WHERE environment_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "revoke keys")
		}
		_, err = tx.Emit("environment:deleted", model.EventContext{AccountID: accountID, EnvironmentID: id, ActorID: actor}, map[string]any{"environmentId": id})
		return err
	})
}

// KeyByRaw finds a live API key by its value. Errors: not_found.
func (db *DB) KeyByRaw(ctx context.Context, raw string) (*model.APIKey, error) {
	var k model.APIKey
	var c int64
	err := db.Lookup.QueryRowContext(ctx, `SELECT k.id, k.account_id, k.environment_id, k.type, k.created_at FROM api_keys k
		JOIN environments e ON e.id = k.environment_id WHERE k.raw = ? AND k.deleted_at IS NULL AND e.deleted_at IS NULL`, keyHash(raw)).
		Scan(&k.ID, &k.AccountID, &k.EnvironmentID, &k.Type, &c)
	if err == sql.ErrNoRows {
		return nil, errs.NotFoundf("key", "API key not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "find key")
	}
	k.CreatedAt, k.Raw = sqldb.FromMillis(c), raw
	return &k, nil
}

// ListKeys returns the live keys of an environment. Publishable keys come with their value
// (they are public); a secret key comes with its value only when reveal is set and it was
// never revealed before (its first list after creation), which marks it revealed; otherwise
// only its hint.
func (db *DB) ListKeys(ctx context.Context, accountID, envID string, reveal bool) ([]*model.APIKey, error) {
	var out []*model.APIKey
	err := db.Update(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(tx.Context(), `SELECT id, account_id, environment_id, type, hint, sealed, revealed_at IS NOT NULL, created_at FROM api_keys
			WHERE account_id = ? AND environment_id = ? AND deleted_at IS NULL ORDER BY type DESC, created_at`, accountID, envID)
		if err != nil {
			return errs.Wrap(err, "list keys")
		}
		out = []*model.APIKey{}
		var reveals []string
		for rows.Next() {
			var k model.APIKey
			var c int64
			var sealed []byte
			var revealed bool
			if err := rows.Scan(&k.ID, &k.AccountID, &k.EnvironmentID, &k.Type, &k.Hint, &sealed, &revealed, &c); err != nil {
				rows.Close()
				return errs.Wrap(err, "scan key")
			}
			k.CreatedAt = sqldb.FromMillis(c)
			if k.Type == model.KeyPublishable || (reveal && !revealed) {
				if plain, err := tx.open(sealed); err == nil {
					k.Raw = plain
					if k.Type == model.KeySecret {
						reveals = append(reveals, k.ID)
					}
				}
			}
			out = append(out, &k)
		}
		rows.Close()
		for _, id := range reveals {
			if _, err := tx.Exec(`UPDATE api_keys SET revealed_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), id); err != nil {
				return errs.Wrap(err, "reveal key")
			}
		}
		return rows.Err()
	})
	return out, err
}

// keyHash is what api_keys.raw holds for a key.
func keyHash(raw string) string { return "sha256:" + hashToken(raw) }

// keyHint names a secret key without revealing it.
func keyHint(raw string) string {
	if len(raw) < 12 {
		return raw[:min(3, len(raw))] + "…"
	}
	return raw[:6] + "…" + raw[len(raw)-4:]
}

// insertKey stores k hashed (and sealed when the store has a sealer); revealed marks a key
// whose value the caller shows now (a rotation), so no list shows it again.
func (tx *Tx) insertKey(k *model.APIKey, revealed bool) error {
	sealed := tx.seal(k.Raw)
	var rev any
	if revealed {
		rev = sqldb.Millis(tx.Now())
	}
	k.CreatedAt, k.Hint = tx.Now(), keyHint(k.Raw)
	if _, err := tx.Exec(`INSERT INTO api_keys (id, account_id, environment_id, type, raw, sealed, hint, revealed_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.AccountID, k.EnvironmentID, k.Type, keyHash(k.Raw), sealed, k.Hint, rev, sqldb.Millis(tx.Now())); err != nil {
		return errs.E(errs.Conflict, "key", "an API key with this value already exists")
	}
	return nil
}

// seal encrypts a key for keeping (nil without a sealer: then the key is kept as a hash only).
func (tx *Tx) seal(raw string) []byte {
	if tx.sealer == nil {
		return nil
	}
	return tx.sealer.Seal([]byte(raw))
}

// open decrypts a sealed key.
func (tx *Tx) open(sealed []byte) (string, error) {
	if tx.sealer == nil || len(sealed) == 0 {
		return "", errs.NotFoundf("key", "The key is not kept in a readable form")
	}
	plain, err := tx.sealer.Open(sealed)
	return string(plain), err
}

// SealKeys converts keys stored in plain text (before migration 020) to a hash and a sealed
// copy. It runs at every start and does nothing once every key is converted.
func (db *DB) SealKeys(ctx context.Context) (int, error) {
	n := 0
	err := db.Update(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(tx.Context(), `SELECT id, raw FROM api_keys WHERE raw NOT LIKE 'sha256:%'`)
		if err != nil {
			return errs.Wrap(err, "read keys")
		}
		defer rows.Close()
		plain := map[string]string{}
		for rows.Next() {
			var id, raw string
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return errs.Wrap(err, "scan key")
			}
			plain[id] = raw
		}
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "read keys")
		}
		rows.Close()
		for id, raw := range plain {
			if _, err := tx.Exec(`UPDATE api_keys SET raw = ?, sealed = ?, hint = ? WHERE id = ?`, keyHash(raw), tx.seal(raw), keyHint(raw), id); err != nil {
				return errs.Wrap(err, "hash key")
			}
			n++
		}
		return nil
	})
	return n, err
}

// RotateKey replaces an environment's key of one type (SECRET or PUBLISHABLE) with a new
// one; the old value stops working at once. It returns the new key.
func (db *DB) RotateKey(ctx context.Context, accountID, envID, typ string) (*model.APIKey, error) {
	prefix := map[string]string{model.KeySecret: "sk_", model.KeyPublishable: "pk_"}[typ]
	if prefix == "" {
		return nil, errs.Invalidf("type", "type must be SECRET or PUBLISHABLE")
	}
	k := &model.APIKey{ID: sqldb.NewID(sqldb.PrefixKey), AccountID: accountID, EnvironmentID: envID, Type: typ, Raw: prefix + sqldb.RandomString(32)}
	err := db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE api_keys SET deleted_at = ? WHERE account_id = ? AND environment_id = ? AND type = ? AND deleted_at IS NULL`,
			sqldb.Millis(tx.Now()), accountID, envID, typ)
		if err != nil {
			return errs.Wrap(err, "retire key")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("environmentId", "Environment not found")
		}
		return tx.insertKey(k, true)
	})
	return k, err
}
