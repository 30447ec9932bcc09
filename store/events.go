package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// CreateEvent stores an event sent by a client (POST /v1/events).
func (db *DB) CreateEvent(ctx context.Context, ev *model.Event) error {
	return db.Update(ctx, func(tx *Tx) error {
		ev.ID = sqldb.NewID(sqldb.PrefixEvent)
		ev.CreatedAt = tx.Now()
		if len(ev.Payload) == 0 {
			ev.Payload = json.RawMessage("{}")
		}
		tx.AddEvent(ev)
		return nil
	})
}

// EventFilter selects events. AccountID is always set; EnvironmentID limits to one environment.
type EventFilter struct {
	AccountID           string
	EnvironmentID       string
	SpaceID             string
	Domain              string
	Topic               string
	Since               *time.Time
	IncludeAcknowledged bool
	ActorID             string
	Newest              bool // newest first (the admin's event log); the API lists oldest first
	Page                model.Page
}

const eventColumns = `id, topic, domain, context, payload, data_url, callback_url, namespaces, created_at, acknowledged_at, acknowledged_by`

// ListEvents returns events in ascending creation order. On PostgreSQL it first waits for a
// run of the event sequencer that began after the call (sqldb.DB.SequenceEvents): a write
// shows its state as soon as it commits and its events once a run has numbered them, and a
// client that saw a job finish, say, then lists the job's events finds them. (Should the
// run fail, the list answers what is numbered.)
func (db *DB) ListEvents(ctx context.Context, f EventFilter) ([]*model.Event, error) {
	_ = db.SequenceEvents(ctx)
	where := []string{"account_id = ?"}
	args := []any{f.AccountID}
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.EnvironmentID != "" {
		add("environment_id = ?", f.EnvironmentID)
	}
	if f.SpaceID != "" {
		add("space_id = ?", f.SpaceID)
	}
	if f.Domain != "" {
		add("domain = ?", f.Domain)
	}
	if f.Topic != "" {
		add("topic = ?", f.Topic)
	}
	if f.Since != nil {
		add("created_at >= ?", sqldb.Millis(*f.Since))
	}
	if !f.IncludeAcknowledged {
		where = append(where, "acknowledged_at IS NULL")
	}
	if f.ActorID != "" {
		add(db.Reader.Dialect().JSONField("context", "actorId")+" = ?", f.ActorID)
	}
	order := "seq"
	if f.Newest {
		order = "seq DESC"
	}
	q := `SELECT ` + eventColumns + ` FROM events WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args = append(args, f.Page.Size, f.Page.Offset())
	rows, err := db.Reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list events")
	}
	defer rows.Close()
	var out []*model.Event
	for rows.Next() {
		ev, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

func scanEvent(s sqldb.Scanner) (*model.Event, error) {
	var ev model.Event
	var c, p, ns string
	var created int64
	var acked sql.NullInt64
	if err := s.Scan(&ev.ID, &ev.Topic, &ev.Domain, &c, &p, &ev.DataURL, &ev.CallbackURL, &ns, &created, &acked, &ev.AcknowledgedBy); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errs.NotFoundf("eventId", "Event not found")
		}
		return nil, errs.Wrap(err, "scan event")
	}
	_ = json.Unmarshal([]byte(c), &ev.Context)
	ev.Payload = sqldb.RawOr(p, "{}")
	ev.Namespaces = sqldb.StringList(ns)
	ev.CreatedAt = sqldb.FromMillis(created)
	ev.AcknowledgedAt = sqldb.FromNullMillis(acked)
	return &ev, nil
}

// GetEvent returns one event of the account. Errors: not_found.
func (db *DB) GetEvent(ctx context.Context, accountID, id string) (*model.Event, error) {
	row := db.Reader.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM events WHERE id = ? AND account_id = ?`, id, accountID)
	return scanEvent(row)
}

// AckEvent marks an event acknowledged by actor. Errors: not_found.
func (db *DB) AckEvent(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE events SET acknowledged_at = ?, acknowledged_by = ? WHERE id = ? AND account_id = ?`, sqldb.Millis(tx.Now()), actor, id, accountID)
		if err != nil {
			return errs.Wrap(err, "ack event")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("eventId", "Event not found")
		}
		return nil
	})
}
