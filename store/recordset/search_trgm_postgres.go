package recordset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/sluice/sluice/store/recordset/stored"
)

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
	if err := db.reads.Wait(ctx, stored.IdleQuiet, stored.IdleWaitMax); err != nil {
		return err
	}
	name := searchIndexName(sk)
	// One node builds it: the others find the lock taken and leave it to that node. (On a
	// readers' connection: the build takes it for seconds, which the writers' few cannot
	// spare.)
	conn, err := db.Reader.DB.Conn(ctx)
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
	lo, hi := stored.RIDRange(sk)
	// Index expressions take no parameters: the bounds are written in.
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON records USING gin ((CAST(vals AS TEXT) COLLATE "C") gin_trgm_ops) WHERE rid BETWEEN %d AND %d`, name, lo, hi))
	return err
}

// searchSample is how many of a sheet's records tell whether a needle is common in it (about
// 3 ms on PostgreSQL): a quarter each from the start, a third and two thirds of its keys and
// from its end, so a needle common only in the records imported last (a newer year) is seen
// too.
const searchSample = 4096

// commonNeedle reports whether a PostgreSQL search's pattern matches the values of at least
// a sixteenth of a sample of the sheet's records, or the sheet is too small for a trigram
// index (either way, a scan answers it best).
func (tx *readCtx) commonNeedle(rs *stored.Sheet, pattern string) bool {
	if !searchIndexWanted(tx.q.Settings(), rs.Total) {
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
