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
	return ev, tx.InsertEvent(ev)
}

// InsertEvent writes ev as it is, inside tx.
func (tx *Tx) InsertEvent(ev *model.Event) error {
	c, _ := json.Marshal(ev.Context)
	_, err := tx.Exec(`INSERT INTO events (id, account_id, environment_id, space_id, domain, topic, context, payload, data_url, callback_url, namespaces, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ev.ID, ev.Context.AccountID, ev.Context.EnvironmentID, ev.Context.SpaceID, ev.Domain, ev.Topic,
		string(c), string(ev.Payload), ev.DataURL, ev.CallbackURL, JSONText(ev.Namespaces), Millis(ev.CreatedAt))
	if err != nil {
		return errs.Wrap(err, "insert event")
	}
	tx.lastEvent = ev.ID
	return nil
}

// TouchSpace notes activity in a space (lastActivityAt, at second precision).
func (tx *Tx) TouchSpace(spaceID string) error {
	_, err := tx.Exec(`UPDATE spaces SET last_activity_at = ? WHERE id = ?`, Millis(SecondOf(tx.now)), spaceID)
	if err != nil {
		return errs.Wrap(err, "touch space")
	}
	return nil
}

// SecondOf truncates t to whole seconds: lastActivityAt is kept at second precision.
func SecondOf(t time.Time) time.Time { return t.Truncate(time.Second) }
