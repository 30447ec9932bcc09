package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// On PostgreSQL a search reads every record's values as text (jsonb to text costs about
// 0.8 s at 1,000,000 records), and a trigram index over them costs more to keep than an
// import takes (10 s a million records to build). So a sheet gets its index when it is
// searched: the first search of a sheet of SearchIndexMin records or more starts building a
// GIN trigram index of its records' values (pg_trgm, a partial index over the sheet's keys,
// built CONCURRENTLY so writes go on), searches scan until it is there, then use it (about
// 30 ms). From then on the sheet's writes keep it up to date; retention drops it with the
// sheet. Without the pg_trgm extension (or the right to create it) searches keep scanning.

// SearchIndexMin is the size of sheet whose search builds an index (a variable for tests).
var SearchIndexMin int64 = 200000

// searchIndexes remembers the sheets whose index this node has set out to build (built,
// being built, or failed: a search does not try again).
type searchIndexes struct {
	mu      sync.Mutex
	started map[int64]bool
}

func searchIndexName(sk int64) string { return fmt.Sprintf("records_search_%d", sk) }

// ensureSearchIndex starts building sheet sk's search index unless it exists or is being
// built; it returns at once.
func (db *DB) ensureSearchIndex(rs *recSheet) {
	if !db.Postgres() || rs.sk == 0 || rs.total < SearchIndexMin {
		return
	}
	s := &db.searchIdx
	s.mu.Lock()
	if s.started[rs.sk] {
		s.mu.Unlock()
		return
	}
	if s.started == nil {
		s.started = map[int64]bool{}
	}
	s.started[rs.sk] = true
	s.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		if err := db.buildSearchIndex(ctx, rs.sk); err != nil {
			slog.Warn("search index not built; searches of the sheet scan", "sheet", rs.ID, "err", err)
		}
	}()
}

func (db *DB) buildSearchIndex(ctx context.Context, sk int64) error {
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
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock)
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = $1)`, name).Scan(&exists); err != nil || exists {
		return err // a build that failed half way leaves an invalid index: searches then scan
	}
	if _, err := conn.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm`); err != nil {
		return err
	}
	lo, hi := ridRange(sk)
	// Index expressions take no parameters: the bounds are written in.
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON records USING gin ((CAST(vals AS TEXT)) gin_trgm_ops) WHERE rid BETWEEN %d AND %d`, name, lo, hi))
	return err
}

// dropSearchIndex removes sheet sk's search index, if any (its records are going).
func (tx *Tx) dropSearchIndex(sk int64) error {
	if tx.dialect() != postgresDialect {
		return nil
	}
	_, err := tx.exec(`DROP INDEX IF EXISTS ` + searchIndexName(sk))
	return err
}
