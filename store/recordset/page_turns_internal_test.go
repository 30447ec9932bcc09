package recordset

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sluice/sluice/store/sqldb"
)

// A node reads Settings.PageReads record pages at once: another waits for a turn (and gives
// up with its request), then reads.
func TestPageReadsTakeTurns(t *testing.T) {
	core, err := sqldb.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	db := New(core)
	defer db.Close()
	db.Reconfigure(func(s *sqldb.Settings) { s.PageReads = 1 })
	ctx := t.Context()
	done, err := db.pageTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, _, err := db.GetRecords(short, "us_acc_none", "us_sh_none", RecordQuery{}, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a page read while the only turn is taken: %v, want it to wait until its request ends", err)
	}
	done()
	if _, _, err := db.GetRecords(ctx, "us_acc_none", "us_sh_none", RecordQuery{}, false); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a page read after the turn came back: %v, want the sheet's not found", err)
	}
}
