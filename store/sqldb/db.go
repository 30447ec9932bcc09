// Package sqldb is the floor of Sluice's store: the two SQL engines (SQLite, PostgreSQL)
// behind one dialect, embedded numbered migrations, one writer with immediate transactions
// and a pool of readers, the write transaction with its clock, events and idempotency mark,
// and prefixed ids. The record engine (store/recordset) and the resources (store) stand on
// it; nothing here knows about records' derived data or HTTP.
package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Advisory lock keys of PostgreSQL mode (docs/architecture.md, "Writes on several nodes").
const (
	// writeLock: taken exclusive by writes of resources, shared by writes of one sheet's
	// records, which take their sheet's lock (sheetLockClass) besides.
	writeLock     int64 = 0x51c3_0001
	migrationLock int64 = 0x51c3_0002
	// eventsLock is held by a sequencer's run from its move of the event inbox to its
	// commit, so that events are numbered in the order the runs commit (SequenceEvents).
	eventsLock int64 = 0x51c3_0003
	// sheetLockClass is the first key of a sheet's lock; the second is the hash of its id.
	sheetLockClass int32 = 0x51c3
)

func (db *DB) migrationDir() string {
	if db.Postgres() {
		return "migrations/postgres"
	}
	return "migrations"
}

// DB is the database. With SQLite, writes go through one connection so SQLite never sees
// two writers, and reads use a pool that runs beside the writer thanks to WAL; with
// PostgreSQL both are pools of the server's connections.
type DB struct {
	url    string // PostgreSQL's, for LISTEN; "" with SQLite
	Writer *Pool
	Reader *Pool
	// Lookup reads rows by key on every request (the API key, a sheet's scope) and reads
	// pages of a whole sheet in key order: on PostgreSQL a small pool whose statements keep
	// the plan made once, where the readers' are planned at every run (openPG) — LookupConns
	// connections and one per page read at once (Settings.PageReads); on SQLite the readers.
	Lookup *Pool
	Now    func() time.Time // the clock; tests replace it
	vacuum vacuumer         // PostgreSQL: tidies records after bulk writes
	// activity: the second each space's activity was last written at by this node
	// (TouchSpace), so that the writes of one second do not each take the space's row.
	activity sync.Map
	// sequencer numbers the events writes put in the inbox (PostgreSQL, SequenceEvents).
	sequencer sequencer
	// analyzing: a KeepStatistics run is under way (PostgreSQL); analyzedAt: each table's
	// live rows when the runs last analyzed it (read and written by one run at a time).
	analyzing  atomic.Bool
	analyzedAt map[string]float64
}

// Settings are what a DB's owner may set at start (cmd/sluice from its configuration; a
// test for its own DB): each DB has its own, so tests running side by side do not share them.
type Settings struct {
	// SearchIndexMin is the size of sheet that gets a search index (SLUICE_SEARCH_INDEX_MIN);
	// 0: none does, searches scan.
	SearchIndexMin int64
	// TallyMin is the size of sheet whose values are counted and sorted in Go (package
	// tally) rather than by the database; ValueCountsMin the size whose fields with more
	// distinct values than a kept list holds get counted values (value_counts). 0: the
	// default, DefaultTallyMin.
	TallyMin, ValueCountsMin int64
	// Caps bound what one upload or one write may hold; the store checks values and filters
	// against them, and the handlers and extraction read them here.
	Caps limits.Caps
	// PageReads is how many record pages (GET …/records) the node reads at once; the
	// others wait their turn (SLUICE_PAGE_READS). 0: DefaultPageReads.
	PageReads int
	// WriterConns are the node's connections for writes on PostgreSQL (SLUICE_DB_WRITERS;
	// SQLite has one writer). 0: DefaultWriterConns.
	WriterConns int
}

// DefaultPageReads is half the cores, at least one: measured with 20 clients reading pages
// beside 20 writing (make bench-load), unlimited readers took the cores and put the
// writes' p99 at 1.3–2.4 s; one at a time on 2 cores, 0.27–0.35 s on one node, at the cost
// of the reads' own wait (p50 27 → 48 ms on SQLite, 73 → 228 ms on PostgreSQL).
func DefaultPageReads() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// DefaultSearchIndexMin is the size of sheet that gets a search index unless Settings say
// otherwise (SLUICE_SEARCH_INDEX_MIN). At 0 no sheet gets one (indexes built before are still kept and used).
const DefaultSearchIndexMin int64 = 200000

// DefaultTallyMin is the size of sheet from which values are tallied in Go and fields with
// many values get counted values: below it the database's GROUP BY answers in a few ms.
const DefaultTallyMin int64 = 100000

// DefaultSettings are a DB's settings until Configure.
func DefaultSettings() Settings {
	return Settings{SearchIndexMin: DefaultSearchIndexMin, TallyMin: DefaultTallyMin, ValueCountsMin: DefaultTallyMin, Caps: limits.Default(), PageReads: DefaultPageReads(),
		WriterConns: DefaultWriterConns}
}

// Configure sets the DB's settings, which its pools and transactions share; call it before
// the DB is used (a test may change them between steps, as nothing runs then). Caps,
// TallyMin and ValueCountsMin left at 0 are the defaults.
func (db *DB) Configure(s Settings) {
	s.Caps = s.Caps.OrDefault()
	s.TallyMin = cmp.Or(s.TallyMin, DefaultTallyMin)
	s.ValueCountsMin = cmp.Or(s.ValueCountsMin, DefaultTallyMin)
	s.PageReads = cmp.Or(s.PageReads, DefaultPageReads())
	s.WriterConns = cmp.Or(s.WriterConns, DefaultWriterConns)
	*db.Reader.set = s
	if db.Postgres() {
		db.Lookup.SetMaxOpenConns(LookupConns + s.PageReads)
		db.Lookup.SetMaxIdleConns(LookupConns + s.PageReads)
		db.Writer.SetMaxOpenConns(s.WriterConns)
		db.Writer.SetMaxIdleConns(s.WriterConns)
	}
}

// LookupConns are the connections of DB.Lookup on PostgreSQL beside those of its page reads.
const LookupConns = 4

// Reconfigure changes some of the DB's settings: fn edits a copy of them, which Configure
// then sets.
func (db *DB) Reconfigure(fn func(s *Settings)) {
	s := db.Settings()
	fn(&s)
	db.Configure(s)
}

// Settings returns the DB's settings.
func (db *DB) Settings() Settings { return *db.Reader.set }

// ReaderCacheKiB is the page cache of each reading connection. Small: the pages a scan
// reads (a search reads every record) pass through it and leave nothing to reuse once a
// sheet outgrows it, and a connection's first scan paid for filling a big cache (a search of
// 1,000,000 records: 112-130 ms on a new connection with 64 MiB, 80 ms after, 81-86 ms
// either way with 8 MiB). Lookups by key keep the index pages they need in it.
const ReaderCacheKiB = 16384

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
	r, err := sql.Open("sqlite3", base+params+"&_cache_size="+strconv.Itoa(-ReaderCacheKiB)+"&_query_only=true")
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	set := DefaultSettings()
	db := &DB{Writer: &Pool{DB: w, set: &set}, Reader: &Pool{DB: r, set: &set}, Now: func() time.Time { return time.Now().UTC() }}
	db.Lookup = db.Reader
	if err := db.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	err1 := db.Reader.Close()
	err2 := db.Writer.Close()
	if db.Lookup != db.Reader {
		_ = db.Lookup.Close()
	}
	if err1 != nil {
		return err1
	}
	return err2
}

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.Reader.PingContext(ctx) }

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.Writer.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
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
	tx, err := db.Writer.BeginTx(ctx)
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
	ctx context.Context
	now time.Time
	// events are the events the transaction emitted, written at commit (Commit).
	events []*model.Event
	db     *DB
	// touched are the spaces whose activity the transaction wrote (TouchSpace).
	touched []string
	// planEachRun: the transaction has asked PostgreSQL to plan each statement (PlanEachRun).
	planEachRun bool
	// claiming: the transaction claims the request's Idempotency-Key (claimKey); claimSeen:
	// the claim was answered.
	claiming, claimSeen bool
	// answer: the request's answer, kept with the key at commit (KeepAnswer)
	answer *keptAnswer
	// sequence: the transaction put events in the inbox, which Commit has numbered
	// (PostgreSQL, SequenceEvents).
	sequence bool
	// sheet: a write of one sheet's records (BeginSheet); deferred: its commit need not be
	// on disk when Commit returns (DeferFlush); unflushed: it is not when the commit ends,
	// and Commit waits for that (PostgreSQL, commitBeforeFlush).
	sheet, deferred, unflushed bool
}

// PlanEachRun makes PostgreSQL plan the transaction's statements from here on for their
// arguments, as the readers' are (openPG): for a write that searches a sheet's records,
// whose partial indexes a plan made for any arguments cannot use.
func (tx *Tx) PlanEachRun() error {
	if tx.planEachRun || !tx.db.Postgres() {
		return nil
	}
	tx.planEachRun = true
	if _, err := tx.dtx.ExecContext(tx.ctx, `SET LOCAL plan_cache_mode = force_custom_plan`); err != nil {
		return errs.Wrap(err, "plan each run")
	}
	return nil
}

// Now is the transaction's time.
func (tx *Tx) Now() time.Time { return tx.now }

// Context is the context the transaction runs in (the request's or the job's).
func (tx *Tx) Context() context.Context { return tx.ctx }

// Begin begins an immediate write transaction; Commit ends it, Rollback (a no-op after
// Commit) abandons it. On PostgreSQL it runs alone in the cluster: no other write of
// resources and no write of records runs beside it.
func (db *DB) Begin(ctx context.Context) (*Tx, error) { return db.begin(ctx, lockAll) }

// BeginSheet begins a write of the records of one sheet. On PostgreSQL it runs beside the
// writes of other sheets' records (on any node), but not beside another write of this
// sheet's nor beside a write of resources (Begin): what it reads and writes of the sheet —
// its counts, value lists, unique index, record keys — no one else changes meanwhile.
func (db *DB) BeginSheet(ctx context.Context, sheetID string) (*Tx, error) {
	return db.begin(ctx, lockSheet, sheetID)
}

// The locks a PostgreSQL write transaction takes when it begins.
const (
	lockNone  = iota // the rows' own locks (UpdateRows)
	lockAll          // every other write waits (Begin)
	lockSheet        // other writes of the sheet's records and writes of resources wait (BeginSheet)
)

// UpdateRows runs fn in a write transaction that PostgreSQL does not serialize with the
// others: for writes whose rows stand alone (a request's Idempotency-Key), where the rows'
// own locks and unique index are all the ordering needed. fn writes no events.
func (db *DB) UpdateRows(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := db.begin(ctx, lockNone)
	return Run(tx, err, fn)
}

func (db *DB) begin(ctx context.Context, locks int, sheetID ...string) (*Tx, error) {
	sqlTx, err := db.Writer.BeginTx(ctx)
	if err != nil {
		return nil, errs.Wrap(err, "begin transaction")
	}
	tx := &Tx{dtx: sqlTx, ctx: ctx, now: db.Now().UTC(), db: db, sheet: locks == lockSheet}
	switch {
	case !db.Postgres(): // SQLite: one writer at a time (immediate transactions)
	case locks == lockAll:
		_, err = sqlTx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, writeLock)
	case locks == lockSheet:
		// Taken by the transaction's first statement, in its round trip: nothing is read
		// or written before the lock is held.
		err = sqlTx.Later(ctx, "take the sheet's write lock", `SELECT pg_advisory_xact_lock_shared(?), pg_advisory_xact_lock(?, hashtext(?))`, writeLock, sheetLockClass, sheetID[0])
	}
	if err != nil {
		sqlTx.Rollback()
		return nil, errs.Wrap(err, "take the write lock")
	}
	if err := tx.claimKey(); err != nil {
		sqlTx.Rollback()
		return nil, err
	}
	return tx, nil
}

// Commit marks the request's idempotency key as written, writes the transaction's events and
// commits; on PostgreSQL it then waits for its events to be numbered (SequenceEvents).
func (tx *Tx) Commit() error {
	if err := tx.markIdempotent(); err != nil {
		return err
	}
	if err := tx.commitBeforeFlush(); err != nil {
		return err
	}
	if err := tx.writeEvents(); err != nil {
		return err
	}
	if err := tx.dtx.Commit(); err != nil {
		return errs.Wrap(err, "commit transaction")
	}
	if tx.claiming {
		k := idemKeyOf(tx.ctx)
		k.claimed, k.answered = true, tx.answer != nil
	}
	for _, id := range tx.touched {
		tx.db.activity.Store(id, SecondOf(tx.now).Unix())
	}
	if !tx.sequence {
		return nil
	}
	// The write is committed whatever happens here: a run that fails leaves the events in
	// the inbox for the next one (the heartbeat's at the latest).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tx.ctx), 10*time.Second)
	defer cancel()
	if err := tx.db.SequenceEvents(ctx); err == nil || !tx.unflushed {
		return nil // (a run that succeeded flushed the commit too)
	}
	ctx, cancel = context.WithTimeout(context.WithoutCancel(tx.ctx), time.Minute)
	defer cancel()
	if err := tx.db.FlushWAL(ctx); err != nil {
		return errs.Wrap(err, "commit transaction")
	}
	return nil
}

// commitBeforeFlush has a PostgreSQL write of a sheet's records that emitted events commit
// without waiting for its WAL to reach the disk (synchronous_commit off), and Commit wait
// for that afterwards instead — for the event sequencer's run that the write waits for
// anyway, whose own commit flushes the WAL past the write's (SequenceEvents), or when that
// run fails for a flush of its own (FlushWAL). The answer still comes after the write is on
// disk; what changes is that the sheet's lock, which PostgreSQL releases at the end of the
// commit, no longer waits for the disk: the next write of the sheet goes on meanwhile, and
// one flush puts the commits of many writes on disk. Until it does, a crash of PostgreSQL
// itself (not of a node) can lose the write: it was not answered yet, and a reader that saw
// it in between saw a write that then never happened (docs/architecture.md).
func (tx *Tx) commitBeforeFlush() error {
	if !tx.sheet || tx.deferred || len(tx.events) == 0 || !tx.d.AsyncCommit() {
		return nil
	}
	tx.unflushed = true
	return tx.Later("commit before the flush", `SELECT set_config('synchronous_commit', 'off', true)`)
}

// Update runs fn inside one write transaction and commits when fn returns nil.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := db.Begin(ctx)
	return Run(tx, err, fn)
}

// Txn is a begun transaction of any floor of the store (sqldb.Tx, recordset.Tx, store.Tx).
type Txn interface {
	Commit() error
	Rollback() error
}

// Run runs fn in tx (begun with err) and commits when fn returns nil; it rolls back
// otherwise. Each floor's Update is Run over its own Begin.
func Run[T Txn](tx T, err error, fn func(T) error) error {
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// IdempotencyContextKey names, in a request's context (fasthttp user values are read through
// Value with a string key), the request's *IdemKey: every write transaction of the request
// marks it committed, so a retry after a crash knows the write happened.
const IdempotencyContextKey = "sluice.idempotency"

// IdemKey is a request's Idempotency-Key row. Claimed before the request runs, its write
// transactions mark it committed; with InWrite, the request's first write transaction claims
// it (ClaimInWrite), committed at once, in the round trip of its first statement.
type IdemKey struct {
	ID, Fingerprint, Owner string
	// Alive: an owner (process) that has beaten since is running.
	Alive   time.Time
	InWrite bool
	// Seal seals an answer as the key keeps it (Tx.KeepAnswer); nil keeps it as it is.
	Seal     func([]byte) []byte
	claimed  bool // (InWrite) a committed transaction of the request claimed it
	taken    bool // (InWrite) the claim found the key there already
	answered bool // (InWrite) the transaction that claimed it kept the answer too
}

// Claimed reports whether a committed write of the request claimed the key (InWrite).
func (k *IdemKey) Claimed() bool { return k.claimed }

// Answered reports whether the committed write that claimed the key kept the request's
// answer with it (Tx.KeepAnswer): nothing is left to keep after the request.
func (k *IdemKey) Answered() bool { return k.answered }

// KeepAnswerSQL keeps the answer of a key's request (status, content type, sealed body, id).
const KeepAnswerSQL = `UPDATE idempotency_keys SET status = ?, content_type = ?, body = ? WHERE id = ?`

// ClaimsKey reports whether the transaction claims its request's Idempotency-Key (InWrite):
// the request's answer, known before the commit, may then be kept by it (KeepAnswer).
func (tx *Tx) ClaimsKey() bool { return tx.claiming }

// KeepAnswer has the transaction, which claims its request's key (ClaimsKey), keep the
// request's answer with its commit: one statement in the commit's round trip instead of a
// transaction of its own after it, and no answer lost to a stop in between.
func (tx *Tx) KeepAnswer(status int, contentType string, body []byte) {
	tx.answer = &keptAnswer{status, contentType, body}
}

type keptAnswer struct {
	status      int
	contentType string
	body        []byte
}

// Taken reports whether the request's write found the key claimed already (InWrite): it
// was rolled back, and the key's row answers the request.
func (k *IdemKey) Taken() bool { return k.taken }

// ErrKeyTaken fails a write whose request's Idempotency-Key another request claimed first.
var ErrKeyTaken = errs.E(errs.Conflict, "Idempotency-Key", "A request with this Idempotency-Key was carried out first")

// IdempotencyWindow is how long an Idempotency-Key answers with its first result.
const IdempotencyWindow = 24 * time.Hour

// IdemExpired is the created_at (ms) before which a key is past the window at now.
func IdemExpired(now time.Time) int64 { return Millis(now.Add(-IdempotencyWindow)) }

// ProcessBeats is the condition that the process owner names ("node id/process", an
// expression) has beaten since the next argument (ms): a key in flight under a process
// that has not is its stopped process's (store.processAlive, claimInWrite).
func ProcessBeats(owner string) string {
	return `EXISTS (SELECT 1 FROM nodes WHERE nodes.id || '/' || nodes.process = ` + owner + ` AND nodes.seen_at >= ?)`
}

// claimInWrite records a key in flight and written, unless it is there already: it takes
// over a row past the window, and one of this request that a stopped process left before
// it wrote anything (no node beats under that process since the cutoff); it returns a row
// when it claimed.
var claimInWrite = `INSERT INTO idempotency_keys (id, fingerprint, node, created_at, committed) VALUES (?, ?, ?, ?, 1)
ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, node = excluded.node, created_at = excluded.created_at,
committed = 1, status = NULL, content_type = '', body = NULL
WHERE idempotency_keys.created_at < ? OR (idempotency_keys.status IS NULL AND idempotency_keys.committed = 0
AND idempotency_keys.fingerprint = excluded.fingerprint AND idempotency_keys.node <> excluded.node
AND NOT ` + ProcessBeats("idempotency_keys.node") + `)`

func idemKeyOf(ctx context.Context) *IdemKey {
	k, _ := ctx.Value(IdempotencyContextKey).(*IdemKey)
	return k
}

// claimKey claims the request's key in the transaction's first round trip (IdemKey.InWrite):
// a request that finds it claimed fails with ErrKeyTaken before it writes anything it
// keeps. On PostgreSQL a second claim of a key in flight waits on its unique index for the
// first to end.
func (tx *Tx) claimKey() error {
	k := idemKeyOf(tx.ctx)
	if k == nil || !k.InWrite || k.claimed {
		return nil
	}
	tx.claiming = true
	args := []any{k.ID, k.Fingerprint, k.Owner, Millis(tx.now), IdemExpired(tx.now), Millis(k.Alive)}
	// answered: the claim took n rows (1: claimed, 0: the key was there)
	answered := func(n int64) error {
		if n == 0 {
			k.taken = true
			return ErrKeyTaken
		}
		tx.claimSeen = true
		return nil
	}
	if !tx.db.Postgres() {
		res, err := tx.Exec(claimInWrite, args...)
		if err != nil {
			return errs.Wrap(err, "claim idempotency key")
		}
		n, _ := res.RowsAffected()
		return answered(n)
	}
	return tx.LaterRows("claim idempotency key", `WITH c AS (`+claimInWrite+` RETURNING 1) SELECT count(*) FROM c`, func(scan func(dest ...any) error) error {
		var n int64
		if err := scan(&n); err != nil {
			return err
		}
		return answered(n)
	}, args...)
}

// markIdempotent notes, in a request's write transaction, that its key's request wrote; a
// transaction that claimed the key (claimKey) makes sure the claim was answered first, so
// that the commit never goes in one batch with a claim that failed.
func (tx *Tx) markIdempotent() error {
	k := idemKeyOf(tx.ctx)
	switch {
	case k == nil:
		return nil
	case k.InWrite:
		if tx.claiming && !tx.claimSeen {
			if err := tx.Flush(); err != nil {
				return err
			}
		}
		return tx.keepAnswer(k)
	}
	return tx.Later("mark idempotency key", `UPDATE idempotency_keys SET committed = 1 WHERE id = ? AND status IS NULL`, k.ID)
}

// keepAnswer holds back the statement that keeps the request's answer, if the transaction
// claims the key and was given it (KeepAnswer).
func (tx *Tx) keepAnswer(k *IdemKey) error {
	if !tx.claiming || tx.answer == nil {
		return nil
	}
	body := tx.answer.body
	if k.Seal != nil {
		body = k.Seal(body)
	}
	return tx.Later("keep idempotent answer", KeepAnswerSQL, tx.answer.status, tx.answer.contentType, body, k.ID)
}

// DeferFlush lets a PostgreSQL transaction commit without waiting for its log to reach the
// disk (synchronous_commit off): for the batches of a job, whose records a failed or
// interrupted job takes back anyway, and whose end is a normal commit, which flushes every
// batch before it. Measured on the 1,000,000-row import: 8.4 s with a flush per batch,
// 6.5 s without. A crash of PostgreSQL itself can lose the last batches' records and events,
// never leave them half-written; the job then fails as for any interruption.
func (tx *Tx) DeferFlush() error {
	if !tx.d.AsyncCommit() {
		return nil
	}
	if _, err := tx.Exec(`SET LOCAL synchronous_commit = off`); err != nil {
		return errs.Wrap(err, "defer flush")
	}
	tx.deferred = true
	return nil
}

// Later runs a statement of the transaction whose outcome the caller does not need (dtx.Later):
// on PostgreSQL it goes with the next statement, in one round trip. what names it in errors.
func (tx *Tx) Later(what, query string, args ...any) error {
	return tx.dtx.Later(tx.ctx, what, query, args...)
}

// LaterScan is Later for a statement returning one row, scanned into dest once it is sent
// (after the transaction's next statement, Flush or the commit).
func (tx *Tx) LaterScan(what, query string, dest []any, args ...any) error {
	return tx.dtx.LaterScan(tx.ctx, what, query, dest, args...)
}

// LaterRows is Later for a query whose rows the caller reads (dtx.LaterRows): row is called
// for each once it is sent.
func (tx *Tx) LaterRows(what, query string, row func(scan func(dest ...any) error) error, args ...any) error {
	return tx.dtx.LaterRows(tx.ctx, what, query, row, args...)
}

// QueryRowScan runs a one-row query and scans it into dest, in one round trip with what
// Later held back (ScanRow).
func (tx *Tx) QueryRowScan(query string, dest []any, args ...any) error {
	return tx.dtx.QueryRowScan(tx.ctx, query, dest, args...)
}

// ScanRow runs a one-row query on q and scans it into dest: inside a transaction in one
// round trip with what it held back (Tx.Later). No row: an error that is sql.ErrNoRows.
func ScanRow(ctx context.Context, q Querier, dest []any, query string, args ...any) error {
	if s, ok := q.(interface {
		QueryRowScan(query string, dest []any, args ...any) error
	}); ok {
		return s.QueryRowScan(query, dest, args...)
	}
	return q.QueryRowContext(ctx, query, args...).Scan(dest...)
}

// Flush sends what Later held back now: before a statement prepared earlier runs.
func (tx *Tx) Flush() error { return tx.dtx.flush(tx.ctx) }

// Exec runs a statement inside the transaction.
func (tx *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return tx.ExecContext(tx.ctx, query, args...)
}

// QueryRow runs a single-row query inside the transaction.
func (tx *Tx) QueryRow(query string, args ...any) *sql.Row {
	return tx.QueryRowContext(tx.ctx, query, args...)
}

// Querier is what both the reader pool and a transaction offer.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	Dialect() Dialect
	Settings() *Settings
}

// Millis turns a time into the stored integer (Unix milliseconds).
func Millis(t time.Time) int64 { return t.UnixMilli() }

// MillisPtr stores an optional time as NULL or milliseconds.
func MillisPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

// FromMillis turns a stored integer back into a UTC time.
func FromMillis(v int64) time.Time { return time.UnixMilli(v).UTC() }

// FromNullMillis turns a nullable stored integer into an optional time.
func FromNullMillis(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := FromMillis(v.Int64)
	return &t
}
