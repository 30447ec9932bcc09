package sqldb

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
)

// sequencer moves the event inbox into events (PostgreSQL), one run at a time on a node.
// A write that committed events waits for a run that began after its commit, so the
// request's answer comes after its events can be read; the writes that commit while a run
// is under way share the next one.
type sequencer struct {
	mu      sync.Mutex
	running bool
	waiting []chan error
}

// inboxAtOnce is how many inbox rows a run moves in one statement; it goes on until the
// inbox is empty.
const inboxAtOnce = 5000

// SequenceEvents numbers the events committed into the inbox and moves them into events
// (PostgreSQL; at once with SQLite), and returns when a run that began after the call has
// ended. Runs on every node take the events lock, held from the move to the commit, so
// numbers follow the order of the runs' commits, and every event committed before a run
// began is numbered by it: readers going through events by number never pass one that
// appears later below their position. Each run sends one NOTIFY, which wakes every node's
// notifier. A write's events stay in the inbox when its node stops before the run; the next
// run of any node (each node runs one with its heartbeat) moves them.
//
// A run that succeeds has also put on disk every commit before the call (Tx.Commit counts
// on it): its own commit, which waits for the WAL to be flushed to its commit record, comes
// after them in the WAL; and should another node's run have moved the events instead, that
// run's commit was flushed before it could be seen.
func (db *DB) SequenceEvents(ctx context.Context) error {
	if !db.Postgres() {
		return nil
	}
	s := &db.sequencer
	done := make(chan error, 1)
	s.mu.Lock()
	s.waiting = append(s.waiting, done)
	if !s.running {
		s.running = true
		go db.runSequencer()
	}
	s.mu.Unlock()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (db *DB) runSequencer() {
	s := &db.sequencer
	for {
		s.mu.Lock()
		batch := s.waiting
		s.waiting = nil
		if len(batch) == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		err := db.moveInbox()
		for _, done := range batch {
			done <- err
		}
	}
}

// FlushWAL returns once every commit before the call is on disk (PostgreSQL): a commit
// made without waiting for its WAL (synchronous_commit off) is then as safe as any. It reads
// how far the WAL goes and waits until PostgreSQL has flushed that far — by the next
// commit that waits for the disk, or by its WAL writer (within wal_writer_delay, 200 ms by
// default, when nothing else commits). It writes nothing and needs no privilege.
func (db *DB) FlushWAL(ctx context.Context) error {
	if !db.Postgres() {
		return nil
	}
	var upTo string
	var flushed bool
	err := db.Reader.QueryRowContext(ctx, `SELECT CAST(pg_current_wal_insert_lsn() AS TEXT), pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn()`).Scan(&upTo, &flushed)
	for wait := time.Millisecond; err == nil && !flushed; wait = min(2*wait, 50*time.Millisecond) {
		select {
		case <-ctx.Done():
			return errs.Wrap(ctx.Err(), "wait for the database's log to reach the disk")
		case <-time.After(wait):
		}
		err = db.Reader.QueryRowContext(ctx, `SELECT pg_current_wal_flush_lsn() >= CAST(? AS pg_lsn)`, upTo).Scan(&flushed)
	}
	if err != nil {
		return errs.Wrap(err, "wait for the database's log to reach the disk")
	}
	return nil
}

// moveInbox moves the inbox into events in transactions of up to inboxAtOnce rows, in the
// order the rows were inserted.
func (db *DB) moveInbox() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		var n int64
		tx, err := db.begin(ctx, lockNone)
		err = Run(tx, err, func(tx *Tx) error {
			// The lock comes first, in the move's round trip; the move's snapshot, taken
			// after it, sees every run before it committed.
			if err := tx.Later("take the events lock", `SELECT pg_advisory_xact_lock(?)`, eventsLock); err != nil {
				return err
			}
			// A write's events stay together, in the order it emitted them: inserts side by
			// side may interleave their rows' places in the inbox (xmin names the writer).
			if err := tx.QueryRowScan(`WITH moved AS (
					DELETE FROM event_inbox WHERE ord IN (SELECT ord FROM event_inbox ORDER BY ord LIMIT ?)
					RETURNING *, CAST(xmin AS TEXT) AS writer),
				ins AS (INSERT INTO events (`+eventColumnNames+`)
					SELECT `+eventColumnNames+` FROM (SELECT *, min(ord) OVER (PARTITION BY writer) AS first FROM moved) AS m
					ORDER BY first, ord RETURNING 1)
				SELECT count(*) FROM ins`, []any{&n}, inboxAtOnce); err != nil {
				return errs.Wrap(err, "number events")
			}
			if n == 0 {
				return nil
			}
			return tx.Later("notify events", `SELECT pg_notify('`+EventsChannel+`', ?)`, strconv.FormatInt(n, 10))
		})
		if err != nil {
			slog.Warn("events not numbered yet; the next run retries", "err", err)
			return err
		}
		if n < inboxAtOnce {
			return nil
		}
	}
}
