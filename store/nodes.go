package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// Heartbeat records that node id is alive now (PostgreSQL: nodes sharing the database).
func (db *DB) Heartbeat(ctx context.Context, id string) error {
	now := sqldb.Millis(db.Now())
	if _, err := db.Writer.ExecContext(ctx, `INSERT INTO nodes (id, started_at, seen_at) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`, id, now, now); err != nil {
		return errs.Wrap(err, "node heartbeat")
	}
	return nil
}

// Nodes lists the nodes seen since (alive) or not since (silent).
func (db *DB) Nodes(ctx context.Context, since time.Time, alive bool) ([]string, error) {
	op := ">="
	if !alive {
		op = "<"
	}
	var out []string
	err := sqldb.EachRow(ctx, db.Reader, "list nodes", `SELECT id FROM nodes WHERE seen_at `+op+` ? ORDER BY id`, []any{sqldb.Millis(since)}, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	})
	return out, err
}

// ForgetNode removes a silent node once its work was taken over; it reports whether this
// call removed it (another node may have been first).
func (db *DB) ForgetNode(ctx context.Context, id string, silentSince time.Time) (bool, error) {
	res, err := db.Writer.ExecContext(ctx, `DELETE FROM nodes WHERE id = ? AND seen_at < ?`, id, sqldb.Millis(silentSince))
	if err != nil {
		return false, errs.Wrap(err, "forget node")
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
