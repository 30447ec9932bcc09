package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// ThrottleWait is how long the longest-locked of keys must still wait (0: it may try now).
func (db *DB) ThrottleWait(ctx context.Context, keys ...string) (time.Duration, error) {
	var wait time.Duration
	now := db.Now()
	for _, k := range keys {
		var until int64
		err := db.Reader.QueryRowContext(ctx, `SELECT locked_until FROM auth_throttle WHERE key = ?`, k).Scan(&until)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return 0, errs.Wrap(err, "read throttle")
		}
		if d := sqldb.FromMillis(until).Sub(now); d > wait {
			wait = d
		}
	}
	return wait, nil
}

// ThrottleFail counts a failure of key. After free failures each further one locks the key
// for base, then twice as long, and so on up to max. Failures older than forget are forgotten.
func (db *DB) ThrottleFail(ctx context.Context, key string, free int, base, max, forget time.Duration) error {
	return db.Update(ctx, func(tx *Tx) error {
		var failures int
		var updated int64
		err := tx.QueryRow(`SELECT failures, updated_at FROM auth_throttle WHERE key = ?`, key).Scan(&failures, &updated)
		if err != nil && err != sql.ErrNoRows {
			return errs.Wrap(err, "read throttle")
		}
		if err == nil && tx.Now().Sub(sqldb.FromMillis(updated)) > forget {
			failures = 0
		}
		failures++
		var until int64
		if over := failures - free; over > 0 {
			lock := base << min(over-1, 30)
			if lock > max || lock <= 0 {
				lock = max
			}
			until = sqldb.Millis(tx.Now().Add(lock))
		}
		if _, err := tx.Exec(`INSERT INTO auth_throttle (key, failures, locked_until, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, updated_at = excluded.updated_at`,
			key, failures, until, sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "count failure")
		}
		return nil
	})
}

// ThrottleReset forgets the failures of key (a successful sign-in).
func (db *DB) ThrottleReset(ctx context.Context, key string) error {
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM auth_throttle WHERE key = ?`, key); err != nil {
			return errs.Wrap(err, "reset throttle")
		}
		return nil
	})
}
