package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Emit writes an event row inside tx, so the event exists exactly when the change it reports
// does. Topic is "domain:verb"; the domain is taken from it.
func (tx *Tx) Emit(topic string, ctx model.EventContext, payload any) (*model.Event, error) {
	return tx.EmitData(topic, ctx, payload, "")
}

// EmitData is Emit for events whose data a listener fetches (and updates) at dataURL, a path
// relative to the API root with its query, e.g. "v1/sheets/us_sh_1/records?commitId=us_vr_1".
func (tx *Tx) EmitData(topic string, ctx model.EventContext, payload any, dataURL string) (*model.Event, error) {
	domain, _, _ := strings.Cut(topic, ":")
	ev := &model.Event{
		ID:        NewID(PrefixEvent),
		Topic:     topic,
		Domain:    domain,
		Context:   ctx,
		DataURL:   dataURL,
		CreatedAt: tx.now,
	}
	if payload == nil {
		payload = map[string]any{}
	}
	p, err := json.Marshal(payload)
	if err != nil {
		return nil, errs.Wrap(err, "encode event payload")
	}
	ev.Payload = p
	return ev, tx.insertEvent(ev)
}

func (tx *Tx) insertEvent(ev *model.Event) error {
	c, _ := json.Marshal(ev.Context)
	_, err := tx.exec(`INSERT INTO events (id, account_id, environment_id, space_id, domain, topic, context, payload, data_url, callback_url, namespaces, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ev.ID, ev.Context.AccountID, ev.Context.EnvironmentID, ev.Context.SpaceID, ev.Domain, ev.Topic,
		string(c), string(ev.Payload), ev.DataURL, ev.CallbackURL, jsonText(ev.Namespaces), ms(ev.CreatedAt))
	if err != nil {
		return errs.Wrap(err, "insert event")
	}
	tx.lastEvent = ev.ID
	return nil
}

// CreateEvent stores an event sent by a client (POST /v1/events).
func (db *DB) CreateEvent(ctx context.Context, ev *model.Event) error {
	return db.Update(ctx, func(tx *Tx) error {
		ev.ID = NewID(PrefixEvent)
		ev.CreatedAt = tx.now
		if len(ev.Payload) == 0 {
			ev.Payload = json.RawMessage("{}")
		}
		return tx.insertEvent(ev)
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

// ListEvents returns events in ascending creation order.
func (db *DB) ListEvents(ctx context.Context, f EventFilter) ([]*model.Event, error) {
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
		add("created_at >= ?", ms(*f.Since))
	}
	if !f.IncludeAcknowledged {
		where = append(where, "acknowledged_at IS NULL")
	}
	if f.ActorID != "" {
		add("json_extract(context, '$.actorId') = ?", f.ActorID)
	}
	order := "seq"
	if f.Newest {
		order = "seq DESC"
	}
	q := `SELECT ` + eventColumns + ` FROM events WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args = append(args, f.Page.Size, f.Page.Offset())
	rows, err := db.r.QueryContext(ctx, q, args...)
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

type scanner interface{ Scan(dest ...any) error }

func scanEvent(s scanner) (*model.Event, error) {
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
	ev.Payload = rawOr(p, "{}")
	ev.Namespaces = stringList(ns)
	ev.CreatedAt = fromMS(created)
	ev.AcknowledgedAt = fromNullMS(acked)
	return &ev, nil
}

// GetEvent returns one event of the account. Errors: not_found.
func (db *DB) GetEvent(ctx context.Context, accountID, id string) (*model.Event, error) {
	row := db.r.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM events WHERE id = ? AND account_id = ?`, id, accountID)
	return scanEvent(row)
}

// AckEvent marks an event acknowledged by actor. Errors: not_found.
func (db *DB) AckEvent(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE events SET acknowledged_at = ?, acknowledged_by = ? WHERE id = ? AND account_id = ?`, ms(tx.now), actor, id, accountID)
		if err != nil {
			return errs.Wrap(err, "ack event")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("eventId", "Event not found")
		}
		return nil
	})
}
