// Package store keeps Sluice's data in SQLite: embedded numbered migrations, one writer
// connection with immediate transactions and a pool of readers, an injectable clock and
// prefixed ids. Nothing here knows about HTTP.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver

	"github.com/sluice/sluice/errs"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Advisory lock keys of PostgreSQL mode.
const (
	writeLock     int64 = 0x51c3_0001
	migrationLock int64 = 0x51c3_0002
)

func (db *DB) migrationDir() string {
	if db.Postgres() {
		return "migrations/postgres"
	}
	return "migrations"
}

// DB is the SQLite store. Writes go through one connection so SQLite never sees two writers;
// reads use a pool that runs beside the writer thanks to WAL.
type DB struct {
	url   string // PostgreSQL's, for LISTEN; "" with SQLite
	w     *pool
	r     *pool
	Now   func() time.Time // the clock; tests replace it
	sorts sortCache        // the full order of recent sorted record queries
	// Sealer encrypts API keys at rest under the master key; set it before the first key is
	// written (cmd/sluice does, then calls SealKeys). Without it keys are stored hashed only.
	Sealer  Sealer
	vacuum  vacuumer    // PostgreSQL: tidies records after bulk writes
	anchors pageAnchors // where deep pages of whole sheets start
	// searchIdx: sheets whose PostgreSQL search index this node built (search_index.go)
	searchIdx searchIndexes
	// valueCounts: fields whose counted values this node is building (distinct_counts.go)
	valueCounts valueCountBuilds
	// reads: requests reading records in flight, which background builds let go first
	reads foreground
	// writes: when this node last committed a write of records, which background builds
	// also let go first
	writes foreground
}

// Settings are what a DB's owner may set at start (cmd/sluice from its configuration; a
// test for its own DB): each DB has its own, so tests running side by side do not share them.
type Settings struct {
	// SearchIndexMin is the size of sheet that gets a search index (SLUICE_SEARCH_INDEX_MIN);
	// 0: none does, searches scan.
	SearchIndexMin int64
}

// DefaultSettings are a DB's settings until Configure.
func DefaultSettings() Settings { return Settings{SearchIndexMin: DefaultSearchIndexMin} }

// Configure sets the DB's settings, which its pools and transactions share; call it before
// the DB is used.
func (db *DB) Configure(s Settings) { *db.r.set = s }

// Settings returns the DB's settings.
func (db *DB) Settings() Settings { return *db.r.set }

// Sealer encrypts and decrypts values with a key kept outside the database.
type Sealer interface {
	Seal(plain []byte) []byte
	Open(sealed []byte) ([]byte, error)
}

// readerCacheKiB is the page cache of each reading connection. Small: the pages a scan
// reads (a search reads every record) pass through it and leave nothing to reuse once a
// sheet outgrows it, and a connection's first scan paid for filling a big cache (a search of
// 1,000,000 records: 112-130 ms on a new connection with 64 MiB, 80 ms after, 81-86 ms
// either way with 8 MiB). Lookups by key keep the index pages they need in it.
const readerCacheKiB = 16384

// Open opens (creating when missing) the database file at path and applies migrations.
func Open(path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	base := "file:" + (&url.URL{Path: abs}).EscapedPath()
	params := "?_foreign_keys=on&_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL"
	// The writer's page cache is 32 MiB (it was 64): an import appends to the end
	// of the records and their indexes, which a smaller cache holds as well, and the 32 MiB
	// it leaves are spent on the Go heap instead (GOGC 300, cmd/sluice): 8% off a
	// 1,000,000-row import at about the same peak RSS.
	// The writer keeps its last 64 statements prepared (the driver's statement cache): the
	// multi-row statements of every batch of an import among them (writeRows).
	w, err := sql.Open("sqlite3", base+params+"&_cache_size=-32768&_txlock=immediate&_stmt_cache_size=64")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	// Checkpoint the WAL every 64 MiB instead of every 4 MiB: bulk imports commit a batch at a
	// time and spent a good part of each commit copying pages back into the database file.
	if _, err := w.Exec(`PRAGMA wal_autocheckpoint = 16384`); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite3", base+params+"&_cache_size="+strconv.Itoa(-readerCacheKiB)+"&_query_only=true")
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	set := DefaultSettings()
	db := &DB{w: &pool{DB: w, set: &set}, r: &pool{DB: r, set: &set}, Now: func() time.Time { return time.Now().UTC() }}
	if err := db.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	err1 := db.r.Close()
	err2 := db.w.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.r.PingContext(ctx) }

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return err
	}
	entries, err := migrations.ReadDir(db.migrationDir())
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.applyMigration(ctx, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func (db *DB) applyMigration(ctx context.Context, name string) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if db.Postgres() {
		// nodes starting together apply each migration once
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, migrationLock); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil || n > 0 {
			return err
		}
	}
	body, err := migrations.ReadFile(db.migrationDir() + "/" + name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// Tx is a write transaction with the time fixed once for everything it writes.
type Tx struct {
	*dtx
	ctx     context.Context
	now     time.Time
	touched map[int64]bool // sheets whose records this transaction changes (sortCache)
	sealer  Sealer
	// lastEvent is the id of the last event the transaction wrote: with PostgreSQL, every
	// node's notifier hears it at commit (NOTIFY) instead of at its next poll.
	lastEvent string
	// searchBuild are the sheets whose search index is built after the commit: sheets the
	// write made big, and sheets whose FTS5 index it left records out of (search_fts_sqlite.go).
	searchBuild []int64
	// patches: per sheet, the records the transaction changes, so that kept sorted orders
	// are patched rather than dropped (sortcache.go)
	patches map[int64]*sheetPatch
}

// Now is the transaction's time.
func (tx *Tx) Now() time.Time { return tx.now }

// Update runs fn inside one immediate write transaction and commits when fn returns nil.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return errs.Wrap(err, "begin transaction")
	}
	defer sqlTx.Rollback()
	tx := &Tx{dtx: sqlTx, ctx: ctx, now: db.Now().UTC(), sealer: db.Sealer}
	if db.Postgres() {
		// One writer at a time, as SQLite's immediate transactions give: every node's
		// writes are serialized, so the order of commits is the order of event sequence
		// numbers and a unique check sees every earlier write.
		if _, err := sqlTx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, writeLock); err != nil {
			return errs.Wrap(err, "take the write lock")
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.markIdempotent(); err != nil {
		return err
	}
	if tx.lastEvent != "" && db.Postgres() {
		if _, err := sqlTx.ExecContext(ctx, `SELECT pg_notify('`+EventsChannel+`', ?)`, tx.lastEvent); err != nil {
			return errs.Wrap(err, "notify events")
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return errs.Wrap(err, "commit transaction")
	}
	db.sorts.bump(tx.touched, tx.patches)
	if len(tx.touched) > 0 {
		db.writes.done()
	}
	for _, sk := range tx.searchBuild {
		db.startSearchIndex(sk)
	}
	return nil
}

// deferFlush lets a PostgreSQL transaction commit without waiting for its log to reach the
// disk (synchronous_commit off): for the batches of a job, whose records a failed or
// interrupted job takes back anyway, and whose end is a normal commit, which flushes every
// batch before it. Measured on the 1,000,000-row import: 8.4 s with a flush per batch,
// 6.5 s without. A crash of PostgreSQL itself can lose the last batches' records and events,
// never leave them half-written; the job then fails as for any interruption.
func (tx *Tx) deferFlush() error {
	if !tx.d.asyncCommit() {
		return nil
	}
	if _, err := tx.exec(`SET LOCAL synchronous_commit = off`); err != nil {
		return errs.Wrap(err, "defer flush")
	}
	return nil
}

// exec runs a statement inside the transaction.
func (tx *Tx) exec(query string, args ...any) (sql.Result, error) {
	return tx.ExecContext(tx.ctx, query, args...)
}

// queryRow runs a single-row query inside the transaction.
func (tx *Tx) queryRow(query string, args ...any) *sql.Row {
	return tx.QueryRowContext(tx.ctx, query, args...)
}

// querier is what both the reader pool and a transaction offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	dialect() dialect
	settings() *Settings
}

// ms turns a time into the stored integer (Unix milliseconds).
func ms(t time.Time) int64 { return t.UnixMilli() }

// msPtr stores an optional time as NULL or milliseconds.
func msPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

// fromMS turns a stored integer back into a UTC time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// fromNullMS turns a nullable stored integer into an optional time.
func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
