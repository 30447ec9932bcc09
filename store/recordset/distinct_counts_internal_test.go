package recordset

import (
	"testing"
	"time"

	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// A build thrown away because a write came between is not tried again for
// valueCountsRetry: a sheet being edited would be counted again and again in vain.
func TestValueCountsWaitAfterADeclinedBuild(t *testing.T) {
	core, err := sqldb.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	db := New(core)
	defer db.Close()
	b := &db.valueCounts
	key := [2]int64{7, 3}
	b.running, b.declined, b.one = map[[2]int64]bool{}, map[[2]int64]time.Time{key: time.Now().Add(-valueCountsRetry / 2)}, make(chan struct{}, 1)
	db.startValueCounts(&stored.Sheet{SK: 7, Total: db.Settings().ValueCountsMin}, 3)
	b.mu.Lock()
	started := b.running[key]
	b.mu.Unlock()
	if started {
		t.Fatal("a build started half the retry time after one was thrown away")
	}
}
