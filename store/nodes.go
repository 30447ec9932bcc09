package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// DefaultNodeTimeout is how long a node may stay silent before the others take it to have
// stopped (SLUICE_NODE_TIMEOUT).
const DefaultNodeTimeout = 30 * time.Second

// Heartbeat records that node id is alive now, run by process (PostgreSQL: nodes sharing
// the database). A node started again under its id beats with its new process.
func (db *DB) Heartbeat(ctx context.Context, id, process string) error {
	now := sqldb.Millis(db.Now())
	if _, err := db.Writer.ExecContext(ctx, `INSERT INTO nodes (id, started_at, seen_at, process) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, process = excluded.process`, id, now, now, process); err != nil {
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

// Process names one run of a node: its id and a random id of this start. Idempotency keys in
// flight name the process that runs them.
type Process struct {
	Node string
	Run  string
}

// NewProcess names this run of node.
func NewProcess(node string) Process { return Process{Node: node, Run: sqldb.RandomString(12)} }

// String is how a process is stored with what it owns: node, a slash, run.
func (p Process) String() string { return p.Node + "/" + p.Run }

// processAlive reports whether the process named owner (Process.String) beat since.
func processAlive(tx *sqldb.Tx, owner string, since time.Time) (bool, error) {
	if !strings.Contains(owner, "/") {
		return false, nil // a key claimed before processes were named
	}
	var alive bool
	if err := tx.QueryRow(`SELECT `+sqldb.ProcessBeats("?"), owner, sqldb.Millis(since)).Scan(&alive); err != nil {
		return false, errs.Wrap(err, "find the key's process")
	}
	return alive, nil
}
