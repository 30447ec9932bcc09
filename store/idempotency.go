package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// IdempotencyWindow is how long an Idempotency-Key answers with its first result.
const IdempotencyWindow = sqldb.IdempotencyWindow

// IdempotencyContextKey names the request's *IdemKey in its context (sqldb).
const IdempotencyContextKey = sqldb.IdempotencyContextKey

// IdemKey is a request's Idempotency-Key row (sqldb.IdemKey).
type IdemKey = sqldb.IdemKey

// IdemState is what a claimed key found.
type IdemState int

const (
	IdemNew        IdemState = iota // first use: the request runs
	IdemDone                        // answered before: replay Status, ContentType, Body
	IdemInFlight                    // the first request is still running
	IdemLost                        // written, but the process stopped before answering
	IdemMismatched                  // the key was used for another request
)

// IdemClaim is the outcome of ClaimIdempotencyKey.
type IdemClaim struct {
	State       IdemState
	Status      int
	ContentType string
	Body        []byte
	Fingerprint string // of the first request (IdemMismatched)
}

// ClaimIdempotencyKey looks up key id (already scoped to its principal): within the window a
// finished key replays; a key in flight under this process, or under another process whose
// node still beats (it beat since alive), is busy; a key left in flight by a stopped process
// either ran its write (lost answer) or is claimed afresh. A new key is recorded in flight
// for process.
//
// The claim runs beside other writes (UpdateRows): two claims of one key at once meet on the
// key's row, and the one that finds it taken answers in flight. Keys past the window are
// removed by PurgeExpired.
func (db *DB) ClaimIdempotencyKey(ctx context.Context, id, fingerprint string, process Process, alive time.Time) (*IdemClaim, error) {
	node := process.String()
	out := &IdemClaim{}
	// A key seen for the first time (nearly every key) is claimed by one statement, which
	// needs no transaction; one already there is looked at in one.
	res, err := db.Writer.ExecContext(ctx, claimKey, id, fingerprint, node, sqldb.Millis(db.Now()))
	if err != nil {
		return nil, errs.Wrap(err, "record idempotency key")
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return out, nil
	}
	err = db.DB.UpdateRows(ctx, func(tx *sqldb.Tx) error {
		var fp, owner, ctype string
		var committed bool
		var status sql.NullInt64
		var body []byte
		var created int64
		expired := sqldb.IdemExpired(tx.Now())
		err := tx.QueryRow(`SELECT fingerprint, node, committed, status, content_type, body, created_at FROM idempotency_keys WHERE id = ?`, id).
			Scan(&fp, &owner, &committed, &status, &ctype, &body, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return errs.Wrap(err, "read idempotency key")
		case created < expired: // past the window: a new request (the purge removes the others)
			if _, err := tx.Exec(`DELETE FROM idempotency_keys WHERE id = ? AND created_at < ?`, id, expired); err != nil {
				return errs.Wrap(err, "expire idempotency key")
			}
		case fp != fingerprint:
			out.State, out.Fingerprint = IdemMismatched, fp
			return nil
		case status.Valid:
			out.State, out.Status, out.ContentType, out.Body = IdemDone, int(status.Int64), ctype, body
			return nil
		default:
			state, err := keyInFlight(tx, id, owner, node, committed, alive)
			if err != nil || state != IdemNew {
				out.State = state
				return err
			}
		}
		res, err := tx.Exec(claimKey, id, fingerprint, node, sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "record idempotency key")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			out.State = IdemInFlight // claimed at the same moment by another request
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.State == IdemDone || out.State == IdemLost {
		// The write the key tells of may have committed without waiting for the disk
		// (sqldb.Tx.Commit): it is not told of before it is there.
		if err := db.FlushWAL(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// claimKey records a key in flight unless it is there already.
const claimKey = `INSERT INTO idempotency_keys (id, fingerprint, node, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// FinishIdempotencyKey keeps the answer of a key's first request. keep false forgets the key
// instead, unless the request wrote something (a server error before any write may be retried
// with the same key).
func (db *DB) FinishIdempotencyKey(ctx context.Context, id string, keep bool, status int, contentType string, body []byte) error {
	if keep { // one statement, no transaction
		if _, err := db.Writer.ExecContext(ctx, keepAnswer, status, contentType, body, id); err != nil {
			return errs.Wrap(err, "keep idempotent answer")
		}
		return nil
	}
	return db.DB.UpdateRows(ctx, func(tx *sqldb.Tx) error {
		res, err := tx.Exec(`DELETE FROM idempotency_keys WHERE id = ? AND committed = 0`, id)
		if err != nil {
			return errs.Wrap(err, "forget idempotency key")
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		if _, err := tx.Exec(keepAnswer, status, contentType, body, id); err != nil {
			return errs.Wrap(err, "keep idempotent answer")
		}
		return nil
	})
}

const keepAnswer = sqldb.KeepAnswerSQL

// keyInFlight decides on key id, in flight under owner: busy while owner runs (this process
// me, or another whose node still beats), lost when its stopped owner wrote, and dropped to
// be claimed afresh (IdemNew) when it stopped before writing anything.
func keyInFlight(tx *sqldb.Tx, id, owner, me string, committed bool, alive time.Time) (IdemState, error) {
	if owner == me {
		return IdemInFlight, nil
	}
	running, err := processAlive(tx, owner, alive)
	switch {
	case err != nil:
		return 0, err
	case running:
		return IdemInFlight, nil
	case committed:
		return IdemLost, nil
	}
	if _, err := tx.Exec(`DELETE FROM idempotency_keys WHERE id = ?`, id); err != nil {
		return 0, errs.Wrap(err, "drop idempotency key")
	}
	return IdemNew, nil
}

// KeepFirstAnswer keeps the answer of a request whose key no write of it claimed (IdemKey
// InWrite: it wrote nothing), unless the key is there already within the window: false
// then, and the key's row answers the request (ClaimIdempotencyKey).
func (db *DB) KeepFirstAnswer(ctx context.Context, k *IdemKey, status int, contentType string, body []byte) (bool, error) {
	now := db.Now()
	res, err := db.Writer.ExecContext(ctx, `INSERT INTO idempotency_keys (id, fingerprint, node, created_at, status, content_type, body) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, node = excluded.node, created_at = excluded.created_at, committed = 0,
status = excluded.status, content_type = excluded.content_type, body = excluded.body WHERE idempotency_keys.created_at < ?`,
		k.ID, k.Fingerprint, k.Owner, sqldb.Millis(now), status, contentType, body, sqldb.IdemExpired(now))
	if err != nil {
		return false, errs.Wrap(err, "keep idempotent answer")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
