package sqldb

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
)

// Writes of different sheets, on two nodes, commit events side by side, each waiting for nothing but its
// own sheet; a reader following events by number, as the notifier and the streams do, sees
// every event once and each write's events together and in order; and events a stopped node
// committed to the inbox but did not number are numbered by the next run of any node.
func TestEventsNumberedInCommitOrder(t *testing.T) {
	url := postgresOnly(t, "the inbox is PostgreSQL's: SQLite numbers events as its one writer inserts them")
	// Two nodes on one database: each runs its own sequencer.
	var nodes [2]*DB
	for i := range nodes {
		db, err := OpenDSN(url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		nodes[i] = db
	}
	db := nodes[0]
	ctx := t.Context()
	seqOf := func(after int64) (seqs []int64, ids []string, err error) {
		rows, err := db.Reader.QueryContext(ctx, `SELECT seq, id FROM events WHERE seq > ? ORDER BY seq`, after)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var s int64
			var id string
			if err := rows.Scan(&s, &id); err != nil {
				return nil, nil, err
			}
			seqs, ids = append(seqs, s), append(ids, id)
		}
		return seqs, ids, rows.Err()
	}

	const writers, writes, each = 6, 15, 3
	done := make(chan struct{})
	var seen []string // what the follower read, in order
	var followErr error
	var follower sync.WaitGroup
	follower.Add(1)
	go func() {
		defer follower.Done()
		var cursor int64
		for {
			select {
			case <-done:
			default:
			}
			seqs, ids, err := seqOf(cursor)
			if err != nil {
				followErr = err
				return
			}
			if len(seqs) > 0 {
				cursor = seqs[len(seqs)-1]
				seen = append(seen, ids...)
			}
			select {
			case <-done:
				if len(seqs) == 0 {
					return
				}
			default:
				time.Sleep(time.Millisecond)
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				tx, err := nodes[w%2].BeginSheet(ctx, fmt.Sprintf("us_sh_seq%d", w))
				if err == nil {
					for k := range each {
						ev := &model.Event{ID: fmt.Sprintf("ev-%d-%d-%d", w, i, k), Topic: "records:created", Domain: "workbook",
							Context: model.EventContext{AccountID: "acc", EnvironmentID: "env"}, CreatedAt: tx.now, Payload: []byte("{}")}
						tx.AddEvent(ev)
					}
					err = tx.Commit()
				}
				if err != nil {
					errs <- err
					return
				}
				// Read your writes: the commit returns once its events are numbered.
				var n int
				if err := db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE id LIKE ?`, fmt.Sprintf("ev-%d-%d-%%", w, i)).Scan(&n); err != nil {
					errs <- err
					return
				}
				if n != each {
					errs <- fmt.Errorf("after its commit, write %d of %d finds %d of its %d events", i, w, n, each)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	follower.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if followErr != nil {
		t.Fatal(followErr)
	}
	if want := writers * writes * each; len(seen) != want {
		t.Fatalf("the follower read %d events, want %d: it passed a number that appeared later", len(seen), want)
	}
	pos := map[string]int{}
	for i, id := range seen {
		if _, dup := pos[id]; dup {
			t.Fatalf("the follower read %s twice", id)
		}
		pos[id] = i
	}
	for w := range writers {
		for i := range writes {
			first := pos[fmt.Sprintf("ev-%d-%d-0", w, i)]
			for k := 1; k < each; k++ {
				if pos[fmt.Sprintf("ev-%d-%d-%d", w, i, k)] != first+k {
					t.Fatalf("the events of write %d of %d are not together in emission order", i, w)
				}
			}
			if i > 0 && pos[fmt.Sprintf("ev-%d-%d-0", w, i-1)] > first {
				t.Fatalf("write %d of %d came before write %d, which committed first", i, w, i-1)
			}
		}
	}

	// A node stopped between its commit and the run: its events wait in the inbox.
	last, _, err := seqOf(0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		if _, err := db.Writer.ExecContext(ctx, `INSERT INTO event_inbox (`+eventColumnNames+`) VALUES (?, 'acc', 'env', '', 'workbook', 'records:created', '{}', '{}', '', '', '[]', 0)`,
			fmt.Sprintf("ev-left-%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.SequenceEvents(sctx); err != nil {
		t.Fatal(err)
	}
	seqs, ids, err := seqOf(last[len(last)-1])
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "ev-left-0" || ids[1] != "ev-left-1" || seqs[1] <= seqs[0] {
		t.Fatalf("after a run the left events are %v %v, want ev-left-0 then ev-left-1", ids, seqs)
	}
	var inbox int
	if err := db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM event_inbox`).Scan(&inbox); err != nil || inbox != 0 {
		t.Fatalf("the inbox holds %d rows after a run (%v)", inbox, err)
	}
}
