package recordset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// A search reads every record's values: 80 ms at 1,000,000 records on SQLite,
// 0.6 s on PostgreSQL, where jsonb is turned into text. An index of the values' trigrams
// answers in a few milliseconds but costs more to build than an import takes (SQLite's FTS5:
// 11 s a million records, 5 times the whole import; PostgreSQL's pg_trgm: 10 s), so it is
// built in the background, once a sheet has sqldb.Settings.SearchIndexMin records or more: after the write
// that makes it that big, as soon as writes pause (an import has ended), or at the first
// search of a sheet that has none. Searches scan until it is ready (on SQLite, only the part
// it does not reach yet), then use it for needles it finds in few records (ftsBroad,
// commonNeedle: a common needle is scanned for, sooner than through the index's list of
// nearly every record), and from then on the sheet's writes keep it up to date; retention
// drops it with the sheet.
//
// PostgreSQL: a GIN trigram index of the sheet's records' values (pg_trgm, a partial index
// over the sheet's keys, built CONCURRENTLY so writes go on). Without the pg_trgm extension
// (or the right to create it) searches keep scanning.
//
// SQLite: an FTS5 table with the trigram tokenizer, contentless (rid is its rowid; the values
// stay only in records), built a slice of the sheet per transaction so other writes go on in
// between; search_indexes says how far it has come. A search looks its needle up there and
// checks the candidates as the scan would. Needs the driver built with FTS5 (the sqlite_fts5
// build tag, which the Makefile sets); without it searches keep scanning.

// searchIndexWanted reports whether a sheet of total records gets a search index.
func searchIndexWanted(s *sqldb.Settings, total int64) bool {
	return s.SearchIndexMin > 0 && total >= s.SearchIndexMin
}

// searchIndexes remembers the sheets whose index this node has set out to build (on
// PostgreSQL: built, being built, or failed, so a search does not try again; on SQLite:
// being built or failed, since a sheet's FTS5 index is brought up to date again after writes
// that left records out of it).
type searchIndexes struct {
	mu      sync.Mutex
	started map[int64]bool
}

func searchIndexName(sk int64) string { return fmt.Sprintf("records_search_%d", sk) }

// ensureSearchIndex starts building sheet sk's search index unless it exists or is being
// built; it returns at once.
func (db *DB) ensureSearchIndex(rs *stored.Sheet) {
	if rs.SK == 0 || !searchIndexWanted(db.Reader.Settings(), rs.Total) {
		return
	}
	db.startSearchIndex(rs.SK)
}

// startSearchIndex builds (or on SQLite brings up to date) sheet sk's search index in the
// background, unless this node is doing so already.
func (db *DB) startSearchIndex(sk int64) {
	s := &db.searchIdx
	s.mu.Lock()
	if s.started[sk] {
		s.mu.Unlock()
		return
	}
	if s.started == nil {
		s.started = map[int64]bool{}
	}
	s.started[sk] = true
	s.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		build := db.buildSearchIndex
		if !db.Postgres() {
			build = db.buildFTS
		}
		if err := build(ctx, sk); err != nil && !errors.Is(err, sql.ErrNoRows) {
			// (no rows: the index was dropped while it was being built, and may be built again)
			slog.Warn("search index not built; searches of the sheet scan", "sheet", sk, "err", err)
			return
		}
		if !db.Postgres() {
			s.mu.Lock()
			delete(s.started, sk)
			s.mu.Unlock()
		}
	}()
}

// dropSearchIndex removes sheet sk's search index, if any (its records are going).
func (tx *Tx) dropSearchIndex(sk int64) error {
	if tx.Dialect().FTSIndexes() {
		if _, err := tx.Exec(`DELETE FROM search_indexes WHERE sk = ?`, sk); err != nil {
			return err
		}
		_, err := tx.Exec(`DROP TABLE IF EXISTS ` + searchIndexName(sk))
		return err
	}
	if _, err := tx.Exec(`DELETE FROM search_blooms WHERE sk = ?`, sk); err != nil {
		return err
	}
	_, err := tx.Exec(`DROP INDEX IF EXISTS ` + searchIndexName(sk))
	return err
}

// indexWhenBig has a sheet that has no search index get one after the commit (its build
// waits for the writes to pause) when the write's new records make it sqldb.Settings.SearchIndexMin records
// or more: a sheet imported from a big file is searched fast (on SQLite about 15 s after the
// import ends, on PostgreSQL about 10 s after the node was idle for a second) without
// waiting for its first search to start it.
func (tx *Tx) indexWhenBig(rs *stored.Sheet, changes []*change) {
	if rs.SK == 0 || searchIndexWanted(tx.Settings(), rs.Total) {
		return // a sheet that was big already got its index from the write that made it so, or from a search
	}
	n := int64(0)
	for _, c := range changes {
		if c.kind == kInsert {
			n++
		}
	}
	if searchIndexWanted(tx.Settings(), rs.Total+n) {
		tx.searchBuild = append(tx.searchBuild, rs.SK)
	}
}

// startWaitMax is how many seconds of writes in a row a search index build waits out before
// it starts: an import of 10,000,000 rows takes about 25 s on SQLite.
const startWaitMax = 600

// writesPause holds a background build of sheet sk's search index back while records are
// being written: the sheet's, on any node (record_sheets.changes), or any sheet's on this
// node (an import elsewhere would share the writer and the processor with the build).
type writesPause struct {
	db     *DB
	sk     int64
	last   int64 // the sheet's changes when last looked at
	looked bool
	waited int
}

// wait returns once a second has passed without such writes (it always waits the first
// time), or after tries seconds of writes in a row, when the build goes on anyway.
func (p *writesPause) wait(ctx context.Context, tries int) error {
	for {
		changes, err := sheetChanges(ctx, p.db.Reader, p.sk)
		if err != nil {
			return err
		}
		busy := !p.looked || changes != p.last || !p.db.writes.Quiet(stored.WritesQuiet)
		p.last, p.looked = changes, true
		if !busy || p.waited >= tries {
			p.waited = 0
			return nil
		}
		p.waited++
		select {
		case <-time.After(stored.WritesQuiet):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
