package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsPostgresURL reports whether a database setting names PostgreSQL (postgres:// or
// postgresql://) rather than a SQLite file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Postgres reports whether the database is PostgreSQL (else SQLite).
func (db *DB) Postgres() bool { return db.Writer.d == PostgresDialect }

// OpenPostgres opens the PostgreSQL database at url (through jackc/pgx) and applies the
// PostgreSQL migrations. Several Sluice nodes may share it.
func OpenPostgres(url string) (*DB, error) {
	url = plainOnLoopback(url)
	w, err := openPG(url, DefaultWriterConns, "auto")
	if err != nil {
		return nil, err
	}
	r, err := openPG(url, 16, "force_custom_plan")
	if err != nil {
		w.Close()
		return nil, err
	}
	l, err := openPG(url, LookupConns+DefaultPageReads(), "auto")
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	set := DefaultSettings()
	db := &DB{url: url, Writer: &Pool{DB: w, d: PostgresDialect, set: &set}, Reader: &Pool{DB: r, d: PostgresDialect, set: &set},
		Lookup: &Pool{DB: l, d: PostgresDialect, set: &set}, Now: func() time.Time { return time.Now().UTC() }}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}

// plainOnLoopback asks for an unencrypted connection first (libpq's sslmode=allow: TLS only
// when the server insists) where the URL names a server on this host and no sslmode, instead
// of libpq's default (prefer: TLS whenever offered, certificate unchecked). Traffic on the
// loopback interface is readable only by whom can read the database's files, and encrypting
// it cost the node and PostgreSQL 5–10 % of their CPU per record written (make bench-load).
// An sslmode in the URL or PGSSLMODE is left to decide.
func plainOnLoopback(dsn string) string {
	u, err := neturl.Parse(dsn)
	if err != nil || u.Query().Has("sslmode") || os.Getenv("PGSSLMODE") != "" {
		return dsn
	}
	switch host := u.Hostname(); {
	case host == "localhost", strings.HasPrefix(host, "127."), host == "::1":
	default:
		return dsn
	}
	q := u.Query()
	q.Set("sslmode", "allow")
	u.RawQuery = q.Encode()
	return u.String()
}

// DefaultWriterConns are the writers' connections of a node (Settings.WriterConns). Four,
// not eight: a write of records spends its time in round trips under its sheet's lock, so
// more connections only queue more backends on the same locks in PostgreSQL, where waiting
// costs context switches on the cores the writing backends need; writes beyond four wait in
// the node instead. Measured with 20 writers (make bench-load, alternated pairs): two nodes
// keyed 2,484/2,467 → 2,915/3,329 records/s, with readers 1,353/1,637 → 1,773/1,802 (write
// p99 856/529 → 399/435 ms); one node keyed 3,229/3,222 → 3,611/3,403. No code path holds
// two writer connections at once: the PostgreSQL suites pass with a single one, all but
// TestWritesOfDifferentSheetsRunSideBySide, which needs two by design; TestBuildsNeedOneWriter
// keeps the background builds to one.
const DefaultWriterConns = 4

// openPG opens a pool of conns connections whose prepared statements are planned as
// planMode says (unless the URL sets plan_cache_mode).
//
// pgx prepares each statement once a connection, and after five runs PostgreSQL may plan it
// once for any arguments: a plan that cannot use a sheet's partial trigram index (its rid
// range is an argument), so the sixth search on a connection scanned the sheet (1 s instead
// of 30 ms at 1,000,000 records). The readers, which search, plan every run for its
// arguments ("force_custom_plan", a fraction of a millisecond a statement). The writers'
// statements name rows by key, for which the plan made once is as good; planning each of the
// ~20 statements of a small write again took a third of the cluster's throughput. A write
// that searches asks for its own plans (Tx.PlanEachRun). The lookups every request makes (its
// API key, its sheet's scope) run on a pool of their own that keeps its plans too (DB.Lookup):
// planned at each run they took a third of a small write's throughput on two nodes. So do the
// pages of a whole sheet in key order (no search, filter or sort: recordset.GetRecords),
// whose statements select by key range and key.
func openPG(url string, conns int, planMode string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if _, set := cfg.RuntimeParams["plan_cache_mode"]; !set {
		cfg.RuntimeParams["plan_cache_mode"] = planMode
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// Unavailable reports whether err means the database could not be reached or dropped the
// connection (a restart, a failover, a network cut), rather than refusing the statement.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// Class 08: connection exception; 57P01–03: the server is shutting down or starting.
		return strings.HasPrefix(pg.Code, "08") || pg.Code == pgerrcode.AdminShutdown || pg.Code == pgerrcode.CrashShutdown ||
			pg.Code == pgerrcode.CannotConnectNow
	}
	var nerr net.Error
	return errors.As(err, &nerr) || pgconn.SafeToRetry(err)
}

// UnstorableText reports whether err is PostgreSQL refusing text it cannot hold: the NUL
// character (U+0000) in a text or jsonb value (SQLite stores it).
func UnstorableText(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == pgerrcode.UntranslatableCharacter || pg.Code == pgerrcode.CharacterNotInRepertoire)
}

// EventsChannel is the PostgreSQL notification channel each run of the sequencer that
// numbered events notifies, with how many (SequenceEvents).
const EventsChannel = "sluice_events"

// ListenEvents calls wake whenever another transaction (on any node) commits events, until
// ctx ends, and once after each (re)connection, so what was committed while it was not
// listening is caught up by the caller's poll. PostgreSQL only; it returns at once with
// SQLite, whose only writer is this process.
func (db *DB) ListenEvents(ctx context.Context, wake func(), log *slog.Logger) {
	if db.url == "" {
		return
	}
	for ctx.Err() == nil {
		err := db.listen(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		log.Warn("event notifications lost; polling until they are back", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (db *DB) listen(ctx context.Context, wake func()) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+EventsChannel); err != nil {
		return err
	}
	wake() // catch up on what was committed while not listening
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		wake()
	}
}

// vacuumer runs one VACUUM of records at a time, again when asked while running.
type vacuumer struct {
	mu             sync.Mutex
	running, again bool
}

// VacuumAfterBulk runs VACUUM (ANALYZE) on records in the background after a bulk insert on
// PostgreSQL. Until a page of new rows is marked all-visible, a deep page (OFFSET 499,900)
// fetches every row it skips from the heap: measured at 1,000,000 records, page 5,000 took
// 707 ms before and 30 ms after. VACUUM skips the pages already marked, so its cost follows
// what changed, not the table; SKIP_LOCKED leaves it to another node already vacuuming.
// Autovacuum would get there too, a minute or more later.
func (db *DB) VacuumAfterBulk() {
	if !db.Postgres() {
		return
	}
	v := &db.vacuum
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.running {
		v.again = true
		return
	}
	v.running = true
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			_, _ = db.Writer.DB.ExecContext(ctx, `VACUUM (ANALYZE, SKIP_LOCKED) records`) // best effort
			cancel()
			v.mu.Lock()
			if !v.again {
				v.running = false
				v.mu.Unlock()
				return
			}
			v.again = false
			v.mu.Unlock()
		}
	}()
}

// KeepStatistics counts again the tables that more than doubled (and grew by 1,000 rows) since
// PostgreSQL last counted them, and returns their names. Statements on the writer and lookup
// connections keep the plan PostgreSQL made once (openPG) until a table's statistics change;
// autovacuum looks at most once a minute, so a table filled from empty kept the plans made
// while it was empty: measured with 20 writers and 20 page readers on a fresh database, a
// page's records were read by a scan of the whole records table for the whole run (8 ms a
// page and growing, instead of 1). ANALYZE of the table's first column counts its rows and
// pages (what the plans' sizes come from) and makes PostgreSQL plan again, at a seventh of
// analyzing every column (records at 5,000 rows: 5 ms, 38 ms); autovacuum still counts
// the rest. SKIP_LOCKED leaves a table to the node already analyzing it. Only tables that
// grew qualify, so queues (rows written and removed) are left to autovacuum. PostgreSQL
// only; one run at a time.
func (db *DB) KeepStatistics(ctx context.Context) ([]string, error) {
	if !db.Postgres() || !db.analyzing.CompareAndSwap(false, true) {
		return nil, nil
	}
	defer db.analyzing.Store(false)
	if db.analyzedAt == nil {
		db.analyzedAt = map[string]float64{}
	}
	var grew, first []string
	err := EachRow(ctx, db.Reader, "find grown tables", `SELECT s.relname, a.attname, s.n_live_tup FROM pg_stat_user_tables s
		JOIN pg_class c ON c.oid = s.relid
		JOIN pg_attribute a ON a.attrelid = s.relid AND a.attnum = (SELECT min(attnum) FROM pg_attribute WHERE attrelid = s.relid AND attnum > 0 AND NOT attisdropped)
		WHERE s.schemaname = current_schema() AND s.n_live_tup > 1000 + 2 * greatest(c.reltuples, 0) ORDER BY s.relname`, nil,
		func(rows *sql.Rows) error {
			var t, col string
			var live float64
			if err := rows.Scan(&t, &col, &live); err != nil {
				return err
			}
			// A table this node analyzed at half its size or more stays as it is: ANALYZE left
			// it uncounted (another node held it, or the role may not analyze it), and asking
			// again every second would only repeat PostgreSQL's warning.
			if tried, ok := db.analyzedAt[t]; ok && live <= 1000+2*tried {
				return nil
			}
			db.analyzedAt[t] = live
			grew, first = append(grew, t), append(first, col)
			return nil
		})
	if err != nil {
		return nil, err
	}
	for i, t := range grew {
		if _, err := db.Reader.DB.ExecContext(ctx, `ANALYZE (SKIP_LOCKED) `+pgx.Identifier{t}.Sanitize()+` (`+pgx.Identifier{first[i]}.Sanitize()+`)`); err != nil {
			return grew, fmt.Errorf("analyze %s: %w", t, err)
		}
	}
	return grew, nil
}
