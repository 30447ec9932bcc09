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

// eventColumnNames are the columns of an event row that writeEvents fills.
const (
	eventColumnNames = `id, account_id, environment_id, space_id, domain, topic, context, payload, data_url, callback_url, namespaces, created_at`
	eventColumns     = 12
	eventsAtOnce     = 500 // events a statement inserts: 6,000 parameters
)

// eventRows are the VALUES rows of evs and their arguments, in eventColumnNames' order.
func eventRows(evs []*model.Event) (string, []any) {
	args := make([]any, 0, len(evs)*eventColumns)
	for _, ev := range evs {
		c, _ := json.Marshal(ev.Context)
		args = append(args, ev.ID, ev.Context.AccountID, ev.Context.EnvironmentID, ev.Context.SpaceID, ev.Domain, ev.Topic,
			string(c), string(ev.Payload), ev.DataURL, ev.CallbackURL, JSONText(ev.Namespaces), Millis(ev.CreatedAt))
	}
	// (created_at cast: inside a WITH's VALUES PostgreSQL would take it for text)
	row := "(" + Placeholders(eventColumns-1) + ", CAST(? AS BIGINT)), "
	return strings.TrimSuffix(strings.Repeat(row, len(evs)), ", "), args
}

// writeEvents writes the transaction's events, in the order they were emitted, as its last
// statements. Readers of the events (the notifier, GET /v1/events, the streams) go through
// them by sequence number and never come back for a smaller one, so the numbers must come in
// the order the transactions commit. SQLite has one writer: it numbers them as it inserts
// them. On PostgreSQL, where writes of different sheets commit side by side, they go into
// the event inbox, unnumbered and without any lock, and the sequencer numbers them after the
// commit (SequenceEvents, which Commit waits for).
func (tx *Tx) writeEvents() error {
	if len(tx.events) == 0 {
		return nil
	}
	table := "events"
	if tx.d.Notifies() {
		table, tx.sequence = "event_inbox", true
	}
	for len(tx.events) > 0 {
		n := min(len(tx.events), eventsAtOnce)
		rows, args := eventRows(tx.events[:n])
		// (held back: the last, or only, insert goes with the commit)
		if err := tx.Later("insert events", `INSERT INTO `+table+` (`+eventColumnNames+`) VALUES `+rows, args...); err != nil {
			return errs.Wrap(err, "insert events")
		}
		tx.events = tx.events[n:]
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
	if err := tx.Later("touch space", `UPDATE spaces SET last_activity_at = ? WHERE id = ?`, Millis(sec), spaceID); err != nil {
		return err
	}
	tx.touched = append(tx.touched, spaceID)
	return nil
}

// SecondOf truncates t to whole seconds: lastActivityAt is kept at second precision.
func SecondOf(t time.Time) time.Time { return t.Truncate(time.Second) }
