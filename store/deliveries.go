package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// SeqEvent is an event with its position in the events table, the order every follower
// (the event stream, the webhook dispatcher) reads in.
type SeqEvent struct {
	Seq int64
	*model.Event
}

// EventsAfter returns up to limit events with a position after seq, in order.
func (db *DB) EventsAfter(ctx context.Context, seq int64, limit int) ([]SeqEvent, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT seq, account_id, `+eventColumns+` FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
	if err != nil {
		return nil, errs.Wrap(err, "read events")
	}
	defer rows.Close()
	var out []SeqEvent
	for rows.Next() {
		var s SeqEvent
		var acc string
		ev, err := scanEvent(seqScanner{rows, &s.Seq, &acc})
		if err != nil {
			return nil, err
		}
		ev.Context.AccountID = acc
		s.Event = ev
		out = append(out, s)
	}
	return out, rows.Err()
}

// seqScanner reads the two leading columns of EventsAfter before scanEvent's own.
type seqScanner struct {
	rows *sql.Rows
	seq  *int64
	acc  *string
}

func (s seqScanner) Scan(dest ...any) error {
	return s.rows.Scan(append([]any{s.seq, s.acc}, dest...)...)
}

// LastEventSeq returns the position of the newest event (0 when there is none).
func (db *DB) LastEventSeq(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	if err := db.Reader.QueryRowContext(ctx, `SELECT MAX(seq) FROM events`).Scan(&n); err != nil {
		return 0, errs.Wrap(err, "read last event")
	}
	return n.Int64, nil
}

// EventSeq returns the position of an event of the account. Errors: not_found.
func (db *DB) EventSeq(ctx context.Context, accountID, id string) (int64, error) {
	var n int64
	err := db.Reader.QueryRowContext(ctx, `SELECT seq FROM events WHERE id = ? AND account_id = ?`, id, accountID).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, errs.NotFoundf("Last-Event-ID", "Event %s not found", id)
	}
	if err != nil {
		return 0, errs.Wrap(err, "read event position")
	}
	return n, nil
}

// EventSeqAt returns the position of the last event created before t (0 when none).
func (db *DB) EventSeqAt(ctx context.Context, t time.Time) (int64, error) {
	var n sql.NullInt64
	if err := db.Reader.QueryRowContext(ctx, `SELECT MAX(seq) FROM events WHERE created_at < ?`, sqldb.Millis(t)).Scan(&n); err != nil {
		return 0, errs.Wrap(err, "read event position")
	}
	return n.Int64, nil
}

// SecretKey returns the raw value of an environment's oldest live secret key, which signs
// its webhooks. Errors: not_found.
func (db *DB) SecretKey(ctx context.Context, envID string) (string, error) {
	var sealed []byte
	err := db.Reader.QueryRowContext(ctx, `SELECT sealed FROM api_keys WHERE environment_id = ? AND type = ? AND deleted_at IS NULL ORDER BY created_at LIMIT 1`,
		envID, model.KeySecret).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errs.NotFoundf("environmentId", "Environment %s has no secret key", envID)
	}
	if err != nil {
		return "", errs.Wrap(err, "read secret key")
	}
	if db.Sealer == nil || len(sealed) == 0 {
		return "", errs.NotFoundf("environmentId", "Environment %s's secret key is not kept in a readable form", envID)
	}
	raw, err := db.Sealer.Open(sealed)
	if err != nil {
		return "", errs.Wrap(err, "open secret key (is SLUICE_MASTER_KEY the one it was sealed with?)")
	}
	return string(raw), nil
}

// cursorKey is the setting holding the position of the last event the webhook dispatcher
// turned into deliveries.
const cursorKey = "webhook_dispatch_cursor"

// DispatchCursor returns the position of the last event turned into deliveries.
func (db *DB) DispatchCursor(ctx context.Context) (int64, error) {
	return dispatchCursor(ctx, db.Reader)
}

func dispatchCursor(ctx context.Context, q sqldb.Querier) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `SELECT CAST(value AS BIGINT) FROM settings WHERE key = ?`, cursorKey).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, errs.Wrap(err, "read dispatch cursor")
	}
	return v, nil
}

// EnqueueDeliveries stores new pending deliveries and moves the dispatch cursor from from to
// upto in one transaction, so a restart neither loses nor repeats an event. When the cursor
// is no longer at from, another node dispatched these events: nothing is stored. Every node's
// dispatcher calls it as events come, so it does not take the cluster's write lock: the
// cursor's row orders the nodes (the move is a compare-and-set on it, and a second node's
// waits for the first's commit, then finds the cursor moved).
func (db *DB) EnqueueDeliveries(ctx context.Context, list []*model.Delivery, from, upto int64) error {
	return db.UpdateRows(ctx, func(tx *sqldb.Tx) error {
		to := strconv.FormatInt(upto, 10)
		res, err := tx.Exec(`UPDATE settings SET value = ? WHERE key = ? AND value = ?`, to, cursorKey, strconv.FormatInt(from, 10))
		if err != nil {
			return errs.Wrap(err, "move dispatch cursor")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if from != 0 {
				return nil // moved by another node
			}
			// the first dispatch: no cursor yet, unless another node's just made one
			if res, err = tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, cursorKey, to); err != nil {
				return errs.Wrap(err, "move dispatch cursor")
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
		}
		for _, d := range list {
			d.ID, d.Status, d.CreatedAt = sqldb.NewID(PrefixAgentLog), model.DeliveryPending, tx.Now()
			if d.NextAttemptAt == nil {
				now := tx.Now()
				d.NextAttemptAt = &now
			}
			if _, err := tx.Exec(`INSERT INTO deliveries (id, agent_id, account_id, environment_id, space_id, event_id, event_seq, topic, url,
				status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				d.ID, d.AgentID, d.AccountID, d.EnvironmentID, d.SpaceID, d.EventID, d.EventSeq, d.Topic, d.URL, d.Status,
				sqldb.MillisPtr(d.NextAttemptAt), sqldb.Millis(tx.Now())); err != nil {
				return errs.Wrap(err, "insert delivery")
			}
		}
		return nil
	})
}

const deliveryColumns = `id, agent_id, account_id, environment_id, space_id, event_id, event_seq, topic, url, status, attempts, last_status,
	last_error, duration_ms, next_attempt_at, created_at, completed_at`

func scanDelivery(sc sqldb.Scanner) (*model.Delivery, error) {
	var d model.Delivery
	var dur int64
	var next, done sql.NullInt64
	var c int64
	err := sc.Scan(&d.ID, &d.AgentID, &d.AccountID, &d.EnvironmentID, &d.SpaceID, &d.EventID, &d.EventSeq, &d.Topic, &d.URL, &d.Status,
		&d.Attempts, &d.LastStatus, &d.LastError, &dur, &next, &c, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("eventId", "No agent log for this event")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan delivery")
	}
	d.Duration = time.Duration(dur) * time.Millisecond
	d.NextAttemptAt, d.CompletedAt, d.CreatedAt = sqldb.FromNullMillis(next), sqldb.FromNullMillis(done), sqldb.FromMillis(c)
	return &d, nil
}

func queryDeliveries(ctx context.Context, q sqldb.Querier, query string, args ...any) ([]*model.Delivery, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, errs.Wrap(err, "query deliveries")
	}
	defer rows.Close()
	out := []*model.Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ClaimDueDeliveries takes pending deliveries whose next attempt is at or before now, oldest
// event first, for one attempt: their next attempt moves to now + lease in the same
// transaction, so no other node takes them meanwhile, and one whose node dies during the
// attempt is due again when the lease ends, or as soon as that node starts again or another
// takes over from it (ReleaseDeliveryClaims). SaveDeliveryAttempt sets the real next attempt.
func (db *DB) ClaimDueDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, node string) ([]*model.Delivery, error) {
	const due = `FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?`
	var n int
	if err := db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 `+due+` LIMIT 1) AS d`, sqldb.Millis(now)).Scan(&n); err != nil {
		return nil, errs.Wrap(err, "query deliveries")
	}
	if n == 0 {
		return nil, nil // nothing due: no write transaction
	}
	var out []*model.Delivery
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if out, err = queryDeliveries(tx.Context(), tx, `SELECT `+deliveryColumns+` `+due+` ORDER BY event_seq, id LIMIT ?`, sqldb.Millis(now), limit); err != nil {
			return err
		}
		for _, d := range out {
			if _, err := tx.Exec(`UPDATE deliveries SET next_attempt_at = ?, claimed_by = ? WHERE id = ?`, sqldb.Millis(now.Add(lease)), node, d.ID); err != nil {
				return errs.Wrap(err, "claim delivery")
			}
		}
		return nil
	})
	return out, err
}

// ReleaseDeliveryClaims makes the deliveries node claimed and never attempted due now: the
// node stopped during their attempts (it is starting again, or another node takes over from
// it). It returns how many were released.
func (db *DB) ReleaseDeliveryClaims(ctx context.Context, node string) (int, error) {
	var n int64
	err := db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE deliveries SET next_attempt_at = ?, claimed_by = NULL WHERE status = 'pending' AND claimed_by = ?`, sqldb.Millis(tx.Now()), node)
		if err != nil {
			return errs.Wrap(err, "release delivery claims")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// NextDeliveryAt returns when the earliest pending delivery is due, or nil when none is.
func (db *DB) NextDeliveryAt(ctx context.Context) (*time.Time, error) {
	var n sql.NullInt64
	if err := db.Reader.QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM deliveries WHERE status = 'pending'`).Scan(&n); err != nil {
		return nil, errs.Wrap(err, "read next delivery")
	}
	return sqldb.FromNullMillis(n), nil
}

// SaveDeliveryAttempt records the outcome of an attempt (status, attempts, last status and
// error, duration, next attempt, completion).
func (db *DB) SaveDeliveryAttempt(ctx context.Context, d *model.Delivery) error {
	return db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, duration_ms = ?, next_attempt_at = ?,
			completed_at = ?, claimed_by = NULL WHERE id = ? AND status = 'pending'`, d.Status, d.Attempts, d.LastStatus, d.LastError, d.Duration.Milliseconds(),
			sqldb.MillisPtr(d.NextAttemptAt), sqldb.MillisPtr(d.CompletedAt), d.ID)
		if err != nil {
			return errs.Wrap(err, "save delivery attempt")
		}
		return nil
	})
}

// DeliveryFilter selects agent logs.
type DeliveryFilter struct {
	AccountID     string
	EnvironmentID string
	AgentID       string
	SpaceID       string
	Success       *bool
	Page          model.Page
}

// ListDeliveries returns one page of deliveries, newest first, and the number matching f.
func (db *DB) ListDeliveries(ctx context.Context, f DeliveryFilter) ([]*model.Delivery, int, error) {
	where := []string{"account_id = ?"}
	args := []any{f.AccountID}
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.EnvironmentID != "" {
		add("environment_id = ?", f.EnvironmentID)
	}
	if f.AgentID != "" {
		add("agent_id = ?", f.AgentID)
	}
	if f.SpaceID != "" {
		add("space_id = ?", f.SpaceID)
	}
	if f.Success != nil {
		if *f.Success {
			add("status = ?", model.DeliveryDelivered)
		} else {
			add("status <> ?", model.DeliveryDelivered)
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count deliveries")
	}
	list, err := queryDeliveries(ctx, db.Reader, `SELECT `+deliveryColumns+` FROM deliveries WHERE `+cond+` ORDER BY created_at DESC, event_seq DESC LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	return list, total, err
}

// DeliveryForEvent returns the first delivery of an event of the account. Errors: not_found.
func (db *DB) DeliveryForEvent(ctx context.Context, accountID, eventID string) (*model.Delivery, error) {
	return scanDelivery(db.Reader.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE event_id = ? AND account_id = ?
		ORDER BY created_at LIMIT 1`, eventID, accountID))
}

// EventContexts returns the context of each event id (for detailed agent logs).
func (db *DB) EventContexts(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, context FROM events WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "read event contexts")
	}
	defer rows.Close()
	for rows.Next() {
		var id, c string
		if err := rows.Scan(&id, &c); err != nil {
			return nil, errs.Wrap(err, "scan event context")
		}
		out[id] = json.RawMessage(c)
	}
	return out, rows.Err()
}
