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

// PrefixGuest is the id prefix of guests.
const PrefixGuest = "us_g_"

// Guest is a person outside the account with access to some spaces.
type Guest struct {
	ID            string
	AccountID     string
	EnvironmentID string
	Email         string
	Name          string
	Spaces        []string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Granted reports whether the guest may open the space.
func (g *Guest) Granted(spaceID string) bool {
	for _, s := range g.Spaces {
		if s == spaceID {
			return true
		}
	}
	return false
}

func (tx *Tx) grant(g *Guest, spaceID, actor string) error {
	var envID string
	if err := tx.QueryRow(`SELECT environment_id FROM spaces WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, spaceID, g.AccountID).Scan(&envID); err != nil || envID != g.EnvironmentID {
		return errs.NotFoundf("spaces.id", "Space %s not found in the guest's environment", spaceID)
	}
	res, err := tx.Exec(`INSERT INTO guest_spaces (guest_id, space_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, g.ID, spaceID)
	if err != nil {
		return errs.Wrap(err, "grant space")
	}
	if n, _ := res.RowsAffected(); n > 0 {
		_, err = tx.Emit("space:guestAdded", model.EventContext{AccountID: g.AccountID, EnvironmentID: g.EnvironmentID, SpaceID: spaceID, ActorID: actor},
			map[string]any{"guestId": g.ID, "spaceId": spaceID, "email": g.Email})
	}
	return err
}

func (tx *Tx) revoke(g *Guest, spaceID, actor string) error {
	res, err := tx.Exec(`DELETE FROM guest_spaces WHERE guest_id = ? AND space_id = ?`, g.ID, spaceID)
	if err != nil {
		return errs.Wrap(err, "revoke space")
	}
	if n, _ := res.RowsAffected(); n > 0 {
		_, err = tx.Emit("space:guestRemoved", model.EventContext{AccountID: g.AccountID, EnvironmentID: g.EnvironmentID, SpaceID: spaceID, ActorID: actor},
			map[string]any{"guestId": g.ID, "spaceId": spaceID})
	}
	return err
}

// CreateGuests stores guests with their spaces (a guest already known by e-mail in the
// environment gets the spaces added) and emits space:guestAdded per grant.
func (db *DB) CreateGuests(ctx context.Context, gs []*Guest, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		for _, g := range gs {
			err := tx.QueryRow(`SELECT id, created_at FROM guests WHERE environment_id = ? AND email = ? AND deleted_at IS NULL`, g.EnvironmentID, g.Email).
				Scan(&g.ID, new(int64))
			switch {
			case err == sql.ErrNoRows:
				g.ID, g.CreatedAt = sqldb.NewID(PrefixGuest), tx.Now()
				if _, err := tx.Exec(`INSERT INTO guests (id, account_id, environment_id, email, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					g.ID, g.AccountID, g.EnvironmentID, g.Email, g.Name, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
					return errs.Wrap(err, "insert guest")
				}
			case err != nil:
				return errs.Wrap(err, "find guest")
			default:
				if _, err := tx.Exec(`UPDATE guests SET name = ?, updated_at = ? WHERE id = ?`, g.Name, sqldb.Millis(tx.Now()), g.ID); err != nil {
					return errs.Wrap(err, "update guest")
				}
			}
			g.UpdatedAt = tx.Now()
			for _, sp := range g.Spaces {
				if err := tx.grant(g, sp, actor); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (db *DB) loadGuest(ctx context.Context, q sqldb.Querier, accountID, id string) (*Guest, error) {
	var g Guest
	var c, u int64
	err := q.QueryRowContext(ctx, `SELECT id, account_id, environment_id, email, name, created_at, updated_at FROM guests WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID).
		Scan(&g.ID, &g.AccountID, &g.EnvironmentID, &g.Email, &g.Name, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("guestId", "Guest not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "load guest")
	}
	g.CreatedAt, g.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	rows, err := q.QueryContext(ctx, `SELECT space_id FROM guest_spaces WHERE guest_id = ? ORDER BY space_id`, id)
	if err != nil {
		return nil, errs.Wrap(err, "guest spaces")
	}
	defer rows.Close()
	g.Spaces = []string{}
	for rows.Next() {
		var sp string
		if err := rows.Scan(&sp); err != nil {
			return nil, errs.Wrap(err, "scan guest space")
		}
		g.Spaces = append(g.Spaces, sp)
	}
	return &g, rows.Err()
}

// GetGuest returns a live guest of the account with its spaces. Errors: not_found.
func (db *DB) GetGuest(ctx context.Context, accountID, id string) (*Guest, error) {
	return db.loadGuest(ctx, db.Reader, accountID, id)
}

// ListGuests returns the guests of a space (or of an environment when spaceID is ""),
// optionally one e-mail.
func (db *DB) ListGuests(ctx context.Context, accountID, envID, spaceID, email string) ([]*Guest, error) {
	where := []string{"g.account_id = ?", "g.deleted_at IS NULL"}
	args := []any{accountID}
	if envID != "" {
		where, args = append(where, "g.environment_id = ?"), append(args, envID)
	}
	if spaceID != "" {
		where, args = append(where, "EXISTS (SELECT 1 FROM guest_spaces s WHERE s.guest_id = g.id AND s.space_id = ?)"), append(args, spaceID)
	}
	if email != "" {
		where, args = append(where, "g.email = ?"), append(args, email)
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT g.id FROM guests g WHERE `+strings.Join(where, " AND ")+` ORDER BY g.created_at, g.id`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list guests")
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, errs.Wrap(err, "scan guest")
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "list guests")
	}
	rows.Close()
	out := []*Guest{}
	for _, id := range ids {
		g, err := db.loadGuest(ctx, db.Reader, accountID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// UpdateGuest changes a guest's name and e-mail, and with spaces (not nil) sets exactly those
// grants, emitting guestAdded/guestRemoved. Errors: not_found.
func (db *DB) UpdateGuest(ctx context.Context, g *Guest, spaces []string, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		g.UpdatedAt = tx.Now()
		if _, err := tx.Exec(`UPDATE guests SET name = ?, email = ?, updated_at = ? WHERE id = ?`, g.Name, g.Email, sqldb.Millis(tx.Now()), g.ID); err != nil {
			return errs.Wrap(err, "update guest")
		}
		if spaces == nil {
			return nil
		}
		want := map[string]bool{}
		for _, sp := range spaces {
			want[sp] = true
			if err := tx.grant(g, sp, actor); err != nil {
				return err
			}
		}
		for _, sp := range g.Spaces {
			if !want[sp] {
				if err := tx.revoke(g, sp, actor); err != nil {
					return err
				}
			}
		}
		g.Spaces = spaces
		return nil
	})
}

// RemoveGuest takes a guest out of one space, or deletes the guest with every grant when
// spaceID is "". Access ends at once. Errors: not_found.
func (db *DB) RemoveGuest(ctx context.Context, g *Guest, spaceID, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		if spaceID != "" {
			return tx.revoke(g, spaceID, actor)
		}
		for _, sp := range g.Spaces {
			if err := tx.revoke(g, sp, actor); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`UPDATE guests SET deleted_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), g.ID)
		return err
	})
}

// GuestReaches reports whether a live guest still holds a grant on a space, and records the
// access.
func (db *DB) GuestReaches(ctx context.Context, guestID, spaceID string) bool {
	var n int
	err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM guest_spaces s JOIN guests g ON g.id = s.guest_id
		WHERE s.guest_id = ? AND s.space_id = ? AND g.deleted_at IS NULL`, guestID, spaceID).Scan(&n)
	return err == nil && n > 0
}
