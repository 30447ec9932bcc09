package events_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// A notifier with no stream open reads nothing, and the first stream after that starts at
// the end of the table: it is handed what comes after, not what came before it opened.
func TestNotifierIdleThenSubscribed(t *testing.T) {
	db, err := store.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	emit := func(topic string) {
		t.Helper()
		if err := db.CreateEvent(ctx, &model.Event{Context: model.EventContext{AccountID: "us_acc_n"}, Topic: topic, Domain: "space"}); err != nil {
			t.Fatal(err)
		}
	}
	n := events.NewNotifier(db, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := n.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer n.Stop()
	emit("space:created")
	if err := n.Poll(ctx); err != nil { // no one listens: nothing read, last stays behind
		t.Fatal(err)
	}
	emit("space:updated")
	end, err := db.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.Subscribe(8)
	if err != nil {
		t.Fatal(err)
	}
	if a.Start != end {
		t.Fatalf("the first stream after an idle spell starts at %d, want the table's end %d", a.Start, end)
	}
	// A second stream joins the first at its cursor; events after both reach both, once.
	b, err := n.Subscribe(8)
	if err != nil {
		t.Fatal(err)
	}
	if b.Start != a.Start {
		t.Errorf("the second stream starts at %d, the first at %d", b.Start, a.Start)
	}
	emit("space:deleted")
	if err := n.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*events.Subscription{"first": a, "second": b} {
		select {
		case e := <-s.C:
			if e.Seq <= end || e.Event.Topic != "space:deleted" {
				t.Errorf("the %s stream got %d %s, want the event after it opened", name, e.Seq, e.Event.Topic)
			}
		default:
			t.Errorf("the %s stream got nothing", name)
		}
		if len(s.C) != 0 {
			t.Errorf("the %s stream got %d more", name, len(s.C))
		}
	}
}
