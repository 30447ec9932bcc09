package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// PrefixSecret is the id prefix of secrets.
const PrefixSecret = "us_sec_"

// Secret is a named value for agents, scoped to an environment and optionally a space and an
// actor. The value is stored encrypted; the store never sees it in the clear.
type Secret struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	ActorID       string
	Name          string
	Sealed        []byte
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// UpsertSecret stores a secret, replacing the value of the one with the same name and scope.
func (db *DB) UpsertSecret(ctx context.Context, s *Secret) error {
	return db.Update(ctx, func(tx *Tx) error {
		var id string
		err := tx.QueryRow(`SELECT id FROM secrets WHERE environment_id = ? AND space_id = ? AND actor_id = ? AND name = ?`,
			s.EnvironmentID, s.SpaceID, s.ActorID, s.Name).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			s.ID, s.CreatedAt, s.UpdatedAt = sqldb.NewID(PrefixSecret), tx.Now(), tx.Now()
			_, err = tx.Exec(`INSERT INTO secrets (id, account_id, environment_id, space_id, actor_id, name, value_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				s.ID, s.AccountID, s.EnvironmentID, s.SpaceID, s.ActorID, s.Name, s.Sealed, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		case err == nil:
			s.ID, s.UpdatedAt = id, tx.Now()
			_, err = tx.Exec(`UPDATE secrets SET value_enc = ?, updated_at = ? WHERE id = ?`, s.Sealed, sqldb.Millis(tx.Now()), id)
		}
		if err != nil {
			return errs.Wrap(err, "save secret")
		}
		return nil
	})
}

// SecretFilter selects secrets of an environment; SpaceID and ActorID narrow it ("" = any).
type SecretFilter struct {
	AccountID, EnvironmentID, SpaceID, ActorID string
}

const secretColumns = `id, account_id, environment_id, space_id, actor_id, name, value_enc, created_at, updated_at`

// ListSecrets returns the secrets of an environment by name. With a space, secrets of that
// space and environment-wide ones are returned; with an actor, that actor's and unscoped ones.
func (db *DB) ListSecrets(ctx context.Context, f SecretFilter) ([]*Secret, error) {
	where := []string{"account_id = ?", "environment_id = ?"}
	args := []any{f.AccountID, f.EnvironmentID}
	if f.SpaceID != "" {
		where = append(where, "space_id IN ('', ?)")
		args = append(args, f.SpaceID)
	}
	if f.ActorID != "" {
		where = append(where, "actor_id IN ('', ?)")
		args = append(args, f.ActorID)
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+secretColumns+` FROM secrets WHERE `+strings.Join(where, " AND ")+` ORDER BY name, space_id, actor_id`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list secrets")
	}
	defer rows.Close()
	out := []*Secret{}
	for rows.Next() {
		var s Secret
		var c, u int64
		if err := rows.Scan(&s.ID, &s.AccountID, &s.EnvironmentID, &s.SpaceID, &s.ActorID, &s.Name, &s.Sealed, &c, &u); err != nil {
			return nil, errs.Wrap(err, "scan secret")
		}
		s.CreatedAt, s.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
		out = append(out, &s)
	}
	return out, rows.Err()
}

// DeleteSecret removes a secret and returns it. Errors: not_found.
func (db *DB) DeleteSecret(ctx context.Context, accountID, id string, check func(*Secret) error) (*Secret, error) {
	var s Secret
	err := db.Update(ctx, func(tx *Tx) error {
		var c, u int64
		err := tx.QueryRow(`SELECT `+secretColumns+` FROM secrets WHERE id = ? AND account_id = ?`, id, accountID).
			Scan(&s.ID, &s.AccountID, &s.EnvironmentID, &s.SpaceID, &s.ActorID, &s.Name, &s.Sealed, &c, &u)
		if errors.Is(err, sql.ErrNoRows) {
			return errs.NotFoundf("secretId", "Secret not found")
		}
		if err != nil {
			return errs.Wrap(err, "find secret")
		}
		if err := check(&s); err != nil {
			return err
		}
		_, err = tx.Exec(`DELETE FROM secrets WHERE id = ?`, id)
		return err
	})
	return &s, err
}

// ResealSecrets re-encrypts, under the store's sealer, every secret that only legacy can open
// (secrets stored before the master key came from outside the database). It returns how many
// it converted; once all are converted it only reads.
func (db *DB) ResealSecrets(ctx context.Context, legacy Sealer) (int, error) {
	if db.Sealer == nil {
		return 0, nil
	}
	n := 0
	err := db.Update(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(tx.Context(), `SELECT id, value_enc FROM secrets`)
		if err != nil {
			return errs.Wrap(err, "read secrets")
		}
		defer rows.Close()
		old := map[string][]byte{}
		for rows.Next() {
			var id string
			var sealed []byte
			if err := rows.Scan(&id, &sealed); err != nil {
				rows.Close()
				return errs.Wrap(err, "scan secret")
			}
			if _, err := db.Sealer.Open(sealed); err != nil {
				old[id] = sealed
			}
		}
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "read secrets")
		}
		rows.Close()
		for id, sealed := range old {
			plain, err := legacy.Open(sealed)
			if err != nil {
				continue // neither key opens it: leave it for the operator (wrong SLUICE_MASTER_KEY?)
			}
			if _, err := tx.Exec(`UPDATE secrets SET value_enc = ? WHERE id = ?`, db.Sealer.Seal(plain), id); err != nil {
				return errs.Wrap(err, "reseal secret")
			}
			n++
		}
		return nil
	})
	return n, err
}
