package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
)

// A search reads every record's values (issue 17): 80 ms at 1,000,000 records on SQLite,
// 0.6 s on PostgreSQL, where jsonb is turned into text. An index of the values' trigrams
// answers in a few milliseconds but costs more to build than an import takes (SQLite's FTS5:
// 11 s a million records, 5 times the whole import; PostgreSQL's pg_trgm: 10 s), so it is
// built in the background, once a sheet has SearchIndexMin records or more: after the write
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

// SearchIndexMin is the size of sheet that gets a search index (SLUICE_SEARCH_INDEX_MIN; a
// variable for tests). At 0 no sheet gets one (indexes built before are still kept and used).
var SearchIndexMin int64 = 200000

// searchIndexWanted reports whether a sheet of total records gets a search index.
func searchIndexWanted(total int64) bool { return SearchIndexMin > 0 && total >= SearchIndexMin }

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
func (db *DB) ensureSearchIndex(rs *recSheet) {
	if rs.sk == 0 || !searchIndexWanted(rs.total) {
		return
	}
	db.startSearchIndex(rs.sk)
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

func (db *DB) buildSearchIndex(ctx context.Context, sk int64) error {
	// Every record written while the index is built is added to it too (slowly: an import
	// into the sheet meanwhile would take several times as long), so it waits for a pause,
	// however long the import that made the sheet big goes on (up to startWaitMax).
	p := writesPause{db: db, sk: sk}
	if err := p.wait(ctx, startWaitMax); err != nil {
		return err
	}
	// The build cannot pause once started (about 10 s of a core at 1,000,000 records), and
	// requests beside it are slower (a first sorted page by a quarter), so it starts when
	// nothing has read records for idleQuiet (a user reading a page; not a script or a
	// user paging on), or after idleWaitMax.
	if err := db.reads.wait(ctx, idleQuiet, idleWaitMax); err != nil {
		return err
	}
	name := searchIndexName(sk)
	// One node builds it: the others find the lock taken and leave it to that node.
	conn, err := db.w.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	lock := int64(0x5eac<<40) | sk
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lock).Scan(&got); err != nil || !got {
		return err
	}
	// (an unlock that fails: the connection is gone, and its lock with it)
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock) }()
	// A build that stopped half way (its node stopped, or the build failed) leaves an
	// invalid index, which searches cannot use and writes still keep: holding the lock, this
	// node knows no build of it is under way, so it drops it and builds again.
	var valid sql.NullBool
	err = conn.QueryRowContext(ctx, `SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`, name).Scan(&valid)
	if err == nil && valid.Bool {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err == nil {
		slog.Info("dropping a search index left invalid by a build that did not finish", "sheet", sk)
		if _, err := conn.ExecContext(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+name); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm`); err != nil {
		return err
	}
	lo, hi := ridRange(sk)
	// Index expressions take no parameters: the bounds are written in.
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON records USING gin ((CAST(vals AS TEXT) COLLATE "C") gin_trgm_ops) WHERE rid BETWEEN %d AND %d`, name, lo, hi))
	return err
}

// dropSearchIndex removes sheet sk's search index, if any (its records are going).
func (tx *Tx) dropSearchIndex(sk int64) error {
	if tx.dialect() != postgresDialect {
		if _, err := tx.exec(`DELETE FROM search_indexes WHERE sk = ?`, sk); err != nil {
			return err
		}
		_, err := tx.exec(`DROP TABLE IF EXISTS ` + searchIndexName(sk))
		return err
	}
	if _, err := tx.exec(`DELETE FROM search_blooms WHERE sk = ?`, sk); err != nil {
		return err
	}
	_, err := tx.exec(`DROP INDEX IF EXISTS ` + searchIndexName(sk))
	return err
}

// ftsSlice is how many records one transaction of an FTS5 build adds (about 60 ms of the
// writer each, so other writes wait little).
var ftsSlice = 5000

// buildFTS builds (or goes on building, after a restart) sheet sk's FTS5 index.
func (db *DB) buildFTS(ctx context.Context, sk int64) error {
	name := searchIndexName(sk)
	lo, hi := ridRange(sk)
	// Writes go first: the build starts once the import that made the sheet big has ended
	// (up to startWaitMax), and before each slice it waits for a quiet second, up to ten
	// times in a row (an import into the sheet or another one meanwhile goes first, then
	// they take turns).
	p := writesPause{db: db, sk: sk}
	if err := p.wait(ctx, startWaitMax); err != nil {
		return err
	}
	err := db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ` + name + ` USING fts5(v, content='', contentless_delete=1, tokenize='trigram')`); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO search_indexes (sk, upto, ready) VALUES (?, ?, 0) ON CONFLICT (sk) DO NOTHING`, sk, lo-1)
		return err
	})
	if err != nil {
		return err
	}
	for done := false; !done; {
		if err := p.wait(ctx, 10); err != nil {
			return err
		}
		if err := db.reads.wait(ctx, readsQuiet, readsWaitMax); err != nil {
			return err
		}
		// One core at most, and only while nothing else needs it: a request arriving meanwhile
		// waits for no more than the slice under way (about 60 ms) for the processor, a
		// write for the writer (it gets the connection before the next slice).
		err = db.Update(ctx, func(tx *Tx) error {
			var upto int64
			if err := tx.queryRow(`SELECT upto FROM search_indexes WHERE sk = ?`, sk).Scan(&upto); err != nil {
				return err // gone: the sheet was purged (or its index dropped) meanwhile
			}
			var next sql.NullInt64
			if err := tx.queryRow(`SELECT max(rid) FROM (SELECT rid FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT ?)`, upto, hi, ftsSlice).Scan(&next); err != nil {
				return err
			}
			if !next.Valid {
				done = true
				_, err := tx.exec(`UPDATE search_indexes SET ready = 1 WHERE sk = ?`, sk)
				return err
			}
			if _, err := tx.exec(`INSERT INTO `+name+` (rowid, v) SELECT rid, vals FROM records WHERE rid > ? AND rid <= ?`, upto, next.Int64); err != nil {
				return err
			}
			_, err := tx.exec(`UPDATE search_indexes SET upto = ? WHERE sk = ?`, next.Int64, sk)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ftsCovers returns how far the sheet's FTS5 index (SQLite) reaches, built or being built:
// every record with a key up to it is in the index, kept there by every write; the records
// after it (not yet reached by the build, or an import since) are scanned. ok is false when
// the sheet has no index and searches scan it whole.
func (tx *readCtx) ftsCovers(rs *recSheet) (upto int64, ok bool) {
	if rs.d != sqliteDialect || rs.sk == 0 || rs.total < SearchIndexMin {
		return 0, false
	}
	err := tx.q.QueryRowContext(tx.ctx, `SELECT upto FROM search_indexes WHERE sk = ?`, rs.sk).Scan(&upto)
	return upto, err == nil
}

// ftsBuilding reports whether the sheet's FTS5 index is being built (or brought up to date).
func (tx *readCtx) ftsBuilding(rs *recSheet) bool {
	if rs.d != sqliteDialect || rs.sk == 0 {
		return false
	}
	var ready int
	err := tx.q.QueryRowContext(tx.ctx, `SELECT ready FROM search_indexes WHERE sk = ?`, rs.sk).Scan(&ready)
	return err == nil && ready == 0
}

// ftsBroad reports whether a search's phrase has candidates in at least a sixteenth of the
// sheet's FTS5 index: then a scan finds them sooner (a search matching all 1,000,000
// records counted in 0.1 s scanning, 0.3 s through the index and its IN list) and a page
// of them comes from the first records scanned. Finding that out stops after as many
// candidates (5 ms at 1,000,000 records).
func (tx *readCtx) ftsBroad(rs *recSheet, phrase string) bool {
	name, most := searchIndexName(rs.sk), max(rs.total/16, 1)
	var n int64
	err := tx.q.QueryRowContext(tx.ctx, `SELECT count(*) FROM (SELECT rowid FROM `+name+` WHERE `+name+` MATCH ? LIMIT ?)`, phrase, most).Scan(&n)
	return err == nil && n >= most
}

// searchSample is how many of a sheet's records tell whether a needle is common in it (about
// 3 ms on PostgreSQL): a quarter each from the start, a third and two thirds of its keys and
// from its end, so a needle common only in the records imported last (a newer year) is seen
// too.
const searchSample = 4096

// commonNeedle reports whether a PostgreSQL search's pattern matches the values of at least
// a sixteenth of a sample of the sheet's records, or the sheet is too small for a trigram
// index (either way, a scan answers it best).
func (tx *readCtx) commonNeedle(rs *recSheet, pattern string) bool {
	if !searchIndexWanted(rs.total) {
		return true
	}
	lo, hi, found, err := tx.keyBounds(rs)
	if err != nil || !found {
		return err == nil
	}
	var parts []string
	args := []any{pattern}
	for i := range int64(3) {
		parts = append(parts, `(SELECT vals FROM records WHERE rid BETWEEN ? AND ? ORDER BY rid LIMIT ?)`)
		args = append(args, lo+(hi-lo)/3*i, hi, searchSample/4)
	}
	parts = append(parts, `(SELECT vals FROM records WHERE rid BETWEEN ? AND ? ORDER BY rid DESC LIMIT ?)`)
	args = append(args, lo, hi, searchSample/4)
	var matches, n int64
	err = tx.q.QueryRowContext(tx.ctx, `SELECT count(*) FILTER (WHERE CAST(vals AS TEXT) COLLATE "C" ILIKE ?), count(*) FROM (`+
		strings.Join(parts, ` UNION ALL `)+`) s`, args...).Scan(&matches, &n)
	return err == nil && matches*16 >= n
}

// ftsBulk is the most records one write changes in a sheet's FTS5 index itself. A bigger
// import is left after the index's reach, scanned by searches, and added in the background
// after its commit; bigger edits (find and replace over a sheet) drop the index, which the
// sheet's next search builds again.
var ftsBulk = 1000

// keepFTS brings the sheet's FTS5 index (when it has one) in step with a write: updated and
// deleted records it holds, and new records when they are few and follow straight on from
// what it holds. An update that leaves the values as they were (a revalidation, a change of
// metadata) is left out.
func (tx *Tx) keepFTS(rs *recSheet, changes []*change) error {
	if rs.d != sqliteDialect {
		tx.indexWhenBig(rs, changes)
		return nil
	}
	var upto int64
	var ready int
	err := tx.queryRow(`SELECT upto, ready FROM search_indexes WHERE sk = ?`, rs.sk).Scan(&upto, &ready)
	if errors.Is(err, sql.ErrNoRows) {
		tx.indexWhenBig(rs, changes)
		return nil
	}
	if err != nil {
		return errs.Wrap(err, "read search index")
	}
	name := searchIndexName(rs.sk)
	var gone []any
	var add, fresh []int64
	for _, c := range changes {
		rid := c.rid()
		switch {
		case c.kind == kRecheck:
		case rid > upto && c.kind == kInsert:
			fresh = append(fresh, rid)
		case rid > upto:
			// beyond the index's reach: the builder reads it as it is
		case c.old != nil && c.new != nil && sameRow(c.old.row, c.new.row):
			// the values as they were
		default:
			if c.old != nil {
				gone = append(gone, rid)
			}
			if c.new != nil {
				add = append(add, rid)
			}
		}
	}
	if len(gone) > ftsBulk {
		return tx.dropSearchIndex(rs.sk) // the sheet's next search builds it again
	}
	if len(fresh) > 0 && ready == 1 {
		// New records join the index when they are few and nothing unindexed lies between
		// (while the build is under way, the builder reads them).
		var between bool
		if err := tx.queryRow(`SELECT EXISTS (SELECT 1 FROM records WHERE rid > ? AND rid < ?)`, upto, slices.Min(fresh)).Scan(&between); err != nil {
			return errs.Wrap(err, "read search index")
		}
		if !between && len(fresh) <= ftsBulk {
			add = append(add, fresh...)
			if _, err := tx.exec(`UPDATE search_indexes SET upto = ? WHERE sk = ?`, slices.Max(fresh), rs.sk); err != nil {
				return errs.Wrap(err, "update search index")
			}
		} else {
			tx.searchBuild = append(tx.searchBuild, rs.sk) // added after the commit
		}
	}
	for len(gone) > 0 {
		n := min(len(gone), 500)
		if _, err := tx.exec(`DELETE FROM `+name+` WHERE rowid IN (`+placeholders(n)+`)`, gone[:n]...); err != nil {
			return errs.Wrap(err, "update search index")
		}
		gone = gone[n:]
	}
	if len(add) > 0 {
		// The records are written by now: their values are read back as the builder does.
		if _, err := tx.exec(`INSERT INTO `+name+` (rowid, v) SELECT rid, vals FROM records WHERE rid IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`, ridsJSON(add)); err != nil {
			return errs.Wrap(err, "update search index")
		}
	}
	return nil
}

// indexWhenBig has a sheet that has no search index get one after the commit (its build
// waits for the writes to pause) when the write's new records make it SearchIndexMin records
// or more: a sheet imported from a big file is searched fast (on SQLite about 15 s after the
// import ends, on PostgreSQL about 10 s after the node was idle for a second) without
// waiting for its first search to start it.
func (tx *Tx) indexWhenBig(rs *recSheet, changes []*change) {
	if rs.sk == 0 || searchIndexWanted(rs.total) {
		return // a sheet that was big already got its index from the write that made it so, or from a search
	}
	n := int64(0)
	for _, c := range changes {
		if c.kind == kInsert {
			n++
		}
	}
	if searchIndexWanted(rs.total + n) {
		tx.searchBuild = append(tx.searchBuild, rs.sk)
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
		changes, err := sheetChanges(ctx, p.db.r, p.sk)
		if err != nil {
			return err
		}
		busy := !p.looked || changes != p.last || !p.db.writes.quiet(writesQuiet)
		p.last, p.looked = changes, true
		if !busy || p.waited >= tries {
			p.waited = 0
			return nil
		}
		p.waited++
		select {
		case <-time.After(writesQuiet):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ftsPhrase is an FTS5 phrase matching text as a substring (the trigram tokenizer matches
// it anywhere, folding case), or "" when text is too short for trigrams.
func ftsPhrase(text string) string {
	if len([]rune(text)) < 3 {
		return ""
	}
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}
