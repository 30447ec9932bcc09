package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/store"
)

// Claims run beside other writes: when several requests (here on two nodes) claim the same
// keys at the same moment, each key is claimed once and the others are told it is in flight,
// without an error.
func TestIdempotencyKeysClaimedOnceAtOnce(t *testing.T) {
	e := openBootstrapped(t)
	ctx := t.Context()
	procs := []store.Process{{Node: "node-a", Run: "r"}, {Node: "node-b", Run: "r"}}
	for _, p := range procs {
		if err := e.db.Heartbeat(ctx, p.Node, p.Run); err != nil {
			t.Fatal(err)
		}
	}
	const keys, claimers = 30, 8
	news := map[string]int{}
	for k := range keys {
		id := fmt.Sprintf("key-%d", k)
		start := make(chan struct{}) // every claimer of the key at the same moment
		states := make([]store.IdemState, claimers)
		var wg sync.WaitGroup
		for c := range claimers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				claim, err := e.db.ClaimIdempotencyKey(ctx, id, "POST /v1/x", procs[c%2], e.db.Now().Add(-time.Minute))
				if err != nil {
					t.Errorf("claim %s: %v", id, err)
					return
				}
				states[c] = claim.State
			}()
		}
		close(start)
		wg.Wait()
		for _, st := range states {
			switch st {
			case store.IdemNew:
				news[id]++
			case store.IdemInFlight:
			default:
				t.Errorf("claim %s: state %v, want new or in flight", id, st)
			}
		}
	}
	for k := range keys {
		if id := fmt.Sprintf("key-%d", k); news[id] != 1 {
			t.Errorf("%s claimed %d times, want once", id, news[id])
		}
	}
}

// The retention purge removes keys past their window; a key within it stays.
func TestPurgeRemovesExpiredIdempotencyKeys(t *testing.T) {
	e := openBootstrapped(t)
	ctx := t.Context()
	now := time.Now().UTC()
	for id, at := range map[string]time.Time{"old": now.Add(-store.IdempotencyWindow - time.Hour), "new": now.Add(-time.Hour)} {
		e.db.Now = func() time.Time { return at }
		if _, err := e.db.ClaimIdempotencyKey(ctx, id, "POST /v1/x", store.NewProcess("n"), at); err != nil {
			t.Fatal(err)
		}
	}
	e.db.Now = func() time.Time { return now }
	if _, err := e.db.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{"old": 0, "new": 1} {
		if n, err := e.db.CountForTest(ctx, `SELECT COUNT(*) FROM idempotency_keys WHERE id = ?`, id); err != nil || n != want {
			t.Errorf("key %s: %d rows (%v), want %d", id, n, err, want)
		}
	}
}
