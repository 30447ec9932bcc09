package sqldb

import (
	"encoding/json"
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
	tx.AddEvent(ev)
	return ev, nil
}

// AddEvent has ev written as it is when tx commits (writeEvents).
func (tx *Tx) AddEvent(ev *model.Event) { tx.events = append(tx.events, ev) }

// eventColumns are the columns of an event row that writeEvents fills.
const eventColumns = 12

// writeEvents writes the transaction's events, in the order they were emitted, as its last
// statements. Readers of the events (the notifier, GET /v1/events, the streams) go through
// them by sequence number and never come back for a smaller one, so the numbers must come in
// the order the transactions commit: on PostgreSQL, where writes of different sheets commit
// side by side, the events lock is taken here and held to the commit, so it covers only this
// insert, NOTIFY and the commit itself (SQLite has one writer at a time). The last event's id
// is NOTIFYed: every node's notifier hears of the events at commit, not at its next poll.
func (tx *Tx) writeEvents() error {
	if len(tx.events) == 0 {
		return nil
	}
	if tx.d.Notifies() {
		if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, eventsLock); err != nil {
			return errs.Wrap(err, "take the events lock")
		}
	}
	for len(tx.events) > 0 {
		n := min(len(tx.events), 500) // 6,000 parameters a statement
		rows := strings.TrimSuffix(strings.Repeat("("+Placeholders(eventColumns)+"), ", n), ", ")
		args := make([]any, 0, n*eventColumns)
		for _, ev := range tx.events[:n] {
			c, _ := json.Marshal(ev.Context)
			args = append(args, ev.ID, ev.Context.AccountID, ev.Context.EnvironmentID, ev.Context.SpaceID, ev.Domain, ev.Topic,
				string(c), string(ev.Payload), ev.DataURL, ev.CallbackURL, JSONText(ev.Namespaces), Millis(ev.CreatedAt))
		}
		if _, err := tx.Exec(`INSERT INTO events (id, account_id, environment_id, space_id, domain, topic, context, payload, data_url, callback_url, namespaces, created_at)
			VALUES `+rows, args...); err != nil {
			return errs.Wrap(err, "insert events")
		}
		last := tx.events[n-1].ID
		tx.events = tx.events[n:]
		if len(tx.events) == 0 && tx.d.Notifies() {
			if _, err := tx.Exec(`SELECT pg_notify('`+EventsChannel+`', ?)`, last); err != nil {
				return errs.Wrap(err, "notify events")
			}
		}
	}
	return nil
}

// TouchSpace notes activity in a space (lastActivityAt, at second precision), unless this
// node already wrote it for this second: writes of several sheets of a space, which run side
// by side on PostgreSQL, would otherwise wait for one another on the space's row.
func (tx *Tx) TouchSpace(spaceID string) error {
	sec := SecondOf(tx.now)
	if at, ok := tx.db.activity.Load(spaceID); ok && at.(int64) == sec.Unix() {
		return nil
	}
	_, err := tx.Exec(`UPDATE spaces SET last_activity_at = ? WHERE id = ?`, Millis(sec), spaceID)
	if err != nil {
		return errs.Wrap(err, "touch space")
	}
	tx.touched = append(tx.touched, spaceID)
	return nil
}

// SecondOf truncates t to whole seconds: lastActivityAt is kept at second precision.
func SecondOf(t time.Time) time.Time { return t.Truncate(time.Second) }
